"""The serial-bridge source: a Pico (or Arduino) streams HX711 samples over USB serial."""

from __future__ import annotations

import time
from typing import Any

from companion.sensing.trace import Sample, TraceHeader
from firmware_bridge.host import BridgeReader, LinkEvent, StreamSample
from firmware_bridge.protocol import ErrorLine
from hardware.sources.base import Item, SourceFault

# Firmware error kinds -> SourceFault kinds ("timeout" is a late read that never came).
_ERROR_KINDS = {"late": "late", "desync": "desync", "saturated": "saturated", "timeout": "late"}


class SerialSource:
    """Samples from the firmware bridge; t_ms = sample slot x period (the firmware's clock).

    ``reader_options`` go to :class:`firmware_bridge.host.BridgeReader` (e.g. ``opener``,
    ``by_id_dir``, ``silence_s``, ``backoff_s``) so tests can use ``loop://`` or a pty.
    """

    def __init__(self, header: TraceHeader, port: str = "auto", baud: int = 115200,
                 **reader_options: Any) -> None:
        self.header = header
        self.reader = BridgeReader(port, baud, rate_hz=header.rate_hz, **reader_options)
        self._hello_checked = False

    @property
    def stats(self) -> Any:
        """The link counters (:class:`firmware_bridge.host.LinkStats`)."""
        return self.reader.stats

    def open(self) -> None:
        """Start the reader thread; the device may appear later."""
        self.reader.start()

    def close(self) -> None:
        """Stop the reader thread and close the device."""
        self.reader.stop()

    def _t_ms(self, at: float) -> int:
        return int((at - self.reader.t0) * 1000)

    def read(self, timeout_s: float) -> list[Item]:
        """Samples and faults received so far (waits at most ``timeout_s``)."""
        deadline = time.monotonic() + max(0.0, timeout_s)
        out: list[Item] = []
        n = len(self.header.cells)
        period_ms = 1000.0 / self.header.rate_hz
        for at, item in self.reader.get(max(0.0, deadline - time.monotonic())):
            if isinstance(item, StreamSample):
                values = item.values
                if len(values) != n:
                    out.append(SourceFault(
                        self._t_ms(at), None, "read_error",
                        f"device sent {len(values)} values, the configuration has {n} cells"))
                    continue
                out.append(Sample(round(item.index * period_ms), values))
            elif isinstance(item, ErrorLine):
                kind = _ERROR_KINDS.get(item.kind, "read_error")
                detail = f" ({item.detail})" if item.detail else ""
                out.append(SourceFault(self._t_ms(at), item.cell, kind,
                                       f"cell {item.cell}: {item.kind}{detail} at seq {item.seq}"))
            elif isinstance(item, LinkEvent):
                fault = self._link_fault(at, item)
                if fault is not None:
                    out.append(fault)
        return out

    def _link_fault(self, at: float, event: LinkEvent) -> SourceFault | None:
        t = self._t_ms(at)
        if event.kind == "disconnected":
            return SourceFault(t, None, "disconnected", event.message)
        if event.kind == "silent":
            return SourceFault(t, None, "silent", f"the bridge went silent: {event.message}")
        if event.kind == "old_firmware":
            return SourceFault(t, None, "read_error", event.message)
        if event.kind == "gap":
            return SourceFault(t, None, "read_error", f"gap: {event.message}")
        if event.kind == "hello":
            hello = self.reader.stats.hello
            if hello is not None and hello.cells != len(self.header.cells):
                return SourceFault(t, None, "read_error",
                                   f"the bridge reads {hello.cells} cells but the configuration lists "
                                   f"{len(self.header.cells)}: fix [[table.cells]] or the firmware's "
                                   "DOUT_PINS")
            if hello is not None and abs(hello.rate_hz - self.header.rate_hz) > 0.5:
                return SourceFault(t, None, "read_error",
                                   f"the bridge samples at {hello.rate_hz} Hz but table.rate_hz is "
                                   f"{self.header.rate_hz:g}: fix one of them")
        return None
