"""The GPIO source: HX711 boards wired straight to the Pi, read with the ``hx711`` package.

The package (and RPi.GPIO, or the ``rpi-lgpio`` shim on a Pi 5) is imported only
when this source is opened, so everything else installs and runs anywhere.
Several HX711s may share the clock line: each chip is read in turn, waiting for
its own next conversion (so with N chips on one clock each cell is read at
about rate/N; the Pico bridge reads them all at full rate). A read the library
rejects (it returns ``False``: not ready, saturated, or a clock pulse longer than
60 us) or one that took too long is a fault to count, never a value.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from typing import Any

from companion.sensing.trace import Sample, TraceHeader
from hardware.sources.base import Item, SourceError, SourceFault, ThreadedReader

INSTALL_HINT = ("the gpio source needs the hx711 package and RPi.GPIO: "
                "pip install 'dingo-companion[pi]' (on a Raspberry Pi 5: 'dingo-companion[pi5]')")


def _import_hx711() -> Callable[..., Any]:
    try:
        from hx711 import HX711  # type: ignore[import-not-found]
    except ImportError as exc:
        raise SourceError(f"{INSTALL_HINT} ({exc})") from exc
    return HX711


class GpioSource:
    """Reads N HX711s on the Pi's GPIO in a background thread.

    ``hx711_factory(dout_pin=, pd_sck_pin=, gain=, channel=)`` builds one chip
    driver (default: ``hx711.HX711``); tests pass a fake. ``max_read_s`` is the
    longest a single read may take before it counts as ``late`` (default 2.5
    periods).
    """

    def __init__(self, header: TraceHeader, clock_pin: int, data_pins: Sequence[int], gain: int = 128, *,
                 hx711_factory: Callable[..., Any] | None = None, max_read_s: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if len(data_pins) != len(header.cells):
            raise SourceError(f"{len(data_pins)} data pins for {len(header.cells)} cells")
        if gain not in (32, 64, 128):
            raise SourceError(f"HX711 gain must be 128 or 64 (channel A) or 32 (channel B), got {gain}")
        self.header = header
        self.clock_pin = clock_pin
        self.data_pins = tuple(data_pins)
        self.gain = gain
        self.factory = hx711_factory
        self.max_read_s = max_read_s if max_read_s is not None else 2.5 / header.rate_hz
        self.clock = clock
        self.chips: list[Any] = []
        self.faults = {"rejected": 0, "late": 0}
        self._reader: ThreadedReader | None = None

    def open(self) -> None:
        """Set up the chips (imports hx711 now) and start reading."""
        factory = self.factory or _import_hx711()
        channel = "B" if self.gain == 32 else "A"
        gain = 128 if self.gain == 32 else self.gain
        try:
            self.chips = [factory(dout_pin=pin, pd_sck_pin=self.clock_pin, gain=gain, channel=channel)
                          for pin in self.data_pins]
        except Exception as exc:  # noqa: BLE001 - RuntimeError from RPi.GPIO on a non-Pi, etc.
            raise SourceError(f"cannot set up the HX711s on GPIO (clock {self.clock_pin}, "
                              f"data {list(self.data_pins)}): {exc}") from exc
        self._reader = ThreadedReader("dingo-gpio-reader", self._read_row, clock=self.clock)
        self._reader.start()

    @staticmethod
    def _read_one(chip: Any) -> Any:
        # hx711's _read() is its single-read primitive: it returns False for a rejected read.
        # get_raw_data() would loop until it gets good reads, hiding faults and blocking.
        if hasattr(chip, "_read"):
            return chip._read()
        values = chip.get_raw_data(times=2)
        return values[-1] if values else False

    def _read_row(self) -> list[Item]:
        assert self._reader is not None
        t_ms = self._reader.t_ms()
        raw: list[int | None] = []
        faults: list[Item] = []
        for i, chip in enumerate(self.chips):
            if self._reader.stopping:
                return []
            start = self.clock()
            value = self._read_one(chip)
            took = self.clock() - start
            if value is False or value is None or isinstance(value, bool):
                self.faults["rejected"] += 1
                raw.append(None)
                faults.append(SourceFault(t_ms, i, "read_error",
                                          f"cell {i}: the hx711 library rejected the read"))
            elif took > self.max_read_s:
                self.faults["late"] += 1
                raw.append(None)
                faults.append(SourceFault(t_ms, i, "late",
                                          f"cell {i}: read took {took * 1000:.0f} ms "
                                          f"(limit {self.max_read_s * 1000:.0f} ms)"))
            else:
                raw.append(int(value))
        return [Sample(t_ms, tuple(raw)), *faults]

    def read(self, timeout_s: float) -> list[Item]:
        """Samples and faults read so far; waits at most ``timeout_s``."""
        if self._reader is None:
            return []
        return self._reader.read(timeout_s)

    def close(self) -> None:
        """Stop the reader thread and release the pins (GPIO.cleanup when available)."""
        if self._reader is not None:
            self._reader.stop()
            self._reader = None
        if self.chips and self.factory is None:
            with contextlib.suppress(Exception):  # cleanup is best effort
                import RPi.GPIO as GPIO  # type: ignore[import-not-found]

                GPIO.cleanup([self.clock_pin, *self.data_pins])
        self.chips = []
