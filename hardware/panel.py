"""The button/LED panel on the Pi's GPIO header (gpiozero).

Buttons: roll (also "take the dice", which closes the previous player's fall
window), confirm, undo; each press calls its callback once, however long the
button is held or however much it bounces. LEDs: one per seat and/or one RGB
LED in the player's colour, a fall LED and/or a buzzer, and a status LED whose
pattern tells what is going on:

==========  ============================  ==========================
status      pattern                       meaning
==========  ============================  ==========================
running     steady on                     sensors read, game running
fault       fast blink (5 per second)     a sensor fault: see the page
waiting     short flash every 2 seconds   waiting for the host/tablet
off         off                           the companion is stopped
==========  ============================  ==========================

Tests pass ``pin_factory=MockFactory(pin_class=MockPWMPin)``.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

# Colours of the die/zones as RGB levels for the colour LED (orange and purple need PWM).
COLOUR_RGB: dict[str, tuple[float, float, float]] = {
    "red": (1.0, 0.0, 0.0),
    "yellow": (1.0, 0.8, 0.0),
    "green": (0.0, 1.0, 0.0),
    "blue": (0.0, 0.0, 1.0),
    "purple": (0.6, 0.0, 1.0),
    "orange": (1.0, 0.3, 0.0),
}
SEAT_COLOURS = ("red", "yellow", "green", "blue", "purple", "orange")
STATUS_KINDS = ("running", "fault", "waiting", "off")
_STATUS_ALIASES = {"sensor_fault": "fault", "waiting_for_host": "waiting", "ok": "running"}
PIN_KEYS = ("roll_pin", "confirm_pin", "undo_pin", "seat_led_pins", "rgb_led_pins", "fall_led_pin",
            "buzzer_pin", "status_led_pin")


def panel_pins(config: Any) -> dict[str, Any]:
    """Pins from a ``[panel]`` config object or a mapping; absent or -1 = not fitted (None / ())."""
    out: dict[str, Any] = {}
    for key in PIN_KEYS:
        value = config.get(key) if isinstance(config, Mapping) else getattr(config, key, None)
        if key.endswith("_pins"):
            value = tuple(value or ())
            if any(not isinstance(p, int) or isinstance(p, bool) for p in value):
                raise ValueError(f"panel {key}: expected a list of GPIO numbers, got {value!r}")
        elif value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            raise ValueError(f"panel {key}: expected a GPIO number, got {value!r}")
        elif value == -1:
            value = None
        out[key] = value
    if len(out["rgb_led_pins"]) not in (0, 3):
        raise ValueError(f"panel rgb_led_pins: expected 3 pins (red, green, blue) or none, "
                         f"got {len(out['rgb_led_pins'])}")
    return out


class Panel:
    """gpiozero buttons and LEDs; the callbacks run on gpiozero's thread."""

    def __init__(self, pins: Any, on_roll: Callable[[], Any], on_confirm: Callable[[], Any],
                 on_undo: Callable[[], Any], pin_factory: Any = None, *, debounce_s: float = 0.1,
                 clock: Callable[[], float] = time.monotonic) -> None:
        from gpiozero import LED, RGBLED, Button, Buzzer

        p = panel_pins(pins)
        self.debounce_s = debounce_s
        self.clock = clock
        self._lock = threading.Lock()
        self._last: dict[str, float] = {}
        self.presses: dict[str, int] = {"roll": 0, "confirm": 0, "undo": 0}
        self._devices: list[Any] = []
        self.status = "off"
        self.seat: int | None = None

        def dev(cls: Any, *args: Any, **kwargs: Any) -> Any:
            d = cls(*args, pin_factory=pin_factory, **kwargs)
            self._devices.append(d)
            return d

        try:
            self.buttons: dict[str, Any] = {}
            for name, key, callback in (("roll", "roll_pin", on_roll), ("confirm", "confirm_pin", on_confirm),
                                        ("undo", "undo_pin", on_undo)):
                if p[key] is not None:
                    button = dev(Button, p[key], pull_up=True)
                    button.when_pressed = self._handler(name, callback)
                    button.when_released = self._released(name)
                    self.buttons[name] = button
            self.seat_leds = [dev(LED, pin) for pin in p["seat_led_pins"]]
            self.rgb = dev(RGBLED, *p["rgb_led_pins"]) if p["rgb_led_pins"] else None
            self.fall_led = dev(LED, p["fall_led_pin"]) if p["fall_led_pin"] is not None else None
            self.buzzer = dev(Buzzer, p["buzzer_pin"]) if p["buzzer_pin"] is not None else None
            self.status_led = dev(LED, p["status_led_pin"]) if p["status_led_pin"] is not None else None
        except Exception:
            self.close()
            raise
        self.set_status("waiting")

    def _handler(self, name: str, callback: Callable[[], Any]) -> Callable[[], None]:
        def handle() -> None:
            now = self.clock()
            with self._lock:
                last = self._last.get(name)
                self._last[name] = now
                if last is not None and now - last < self.debounce_s:
                    return  # contact bounce (on press or on release): not a new press
                self.presses[name] += 1
            callback()

        return handle

    def _released(self, name: str) -> Callable[[], None]:
        def release() -> None:
            with self._lock:
                self._last[name] = self.clock()  # a press must follow a quiet period after release

        return release

    def show_turn(self, seat: int | None, colour: str | None = None) -> None:
        """Light seat ``seat``'s LED (0-based) and the colour LED; ``None`` turns them off."""
        if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool) or seat < 0):
            raise ValueError(f"seat must be a seat number 0..5 or None, got {seat!r}")
        if colour is not None and colour not in COLOUR_RGB:
            raise ValueError(f"unknown colour {colour!r}; expected one of {', '.join(COLOUR_RGB)}")
        self.seat = seat
        for i, led in enumerate(self.seat_leds):
            led.value = 1 if i == seat else 0
        if self.rgb is not None:
            if seat is None:
                self.rgb.off()
            else:
                self.rgb.color = COLOUR_RGB[colour or SEAT_COLOURS[seat % len(SEAT_COLOURS)]]

    def signal_fall(self) -> None:
        """Blink the fall LED for 3 s and beep the buzzer twice (both in the background)."""
        if self.fall_led is not None:
            self.fall_led.blink(on_time=0.15, off_time=0.15, n=10, background=True)
        if self.buzzer is not None:
            self.buzzer.beep(on_time=0.1, off_time=0.1, n=2, background=True)

    def set_status(self, kind: str) -> None:
        """Show ``running``, ``fault``, ``waiting`` or ``off`` on the status LED."""
        kind = _STATUS_ALIASES.get(kind, kind)
        if kind not in STATUS_KINDS:
            raise ValueError(f"unknown status {kind!r}; expected one of {', '.join(STATUS_KINDS)}")
        self.status = kind
        led = self.status_led
        if led is None:
            return
        if kind == "running":
            led.on()
        elif kind == "fault":
            led.blink(on_time=0.1, off_time=0.1, background=True)
        elif kind == "waiting":
            led.blink(on_time=0.1, off_time=1.9, background=True)
        else:
            led.off()

    def close(self) -> None:
        """Turn everything off and release the pins; safe to call twice."""
        for d in reversed(self._devices):
            with contextlib.suppress(Exception):  # closing is best effort
                d.close()
        self._devices = []
