"""The panel with gpiozero's MockFactory: buttons reach the core once, LEDs follow the turn."""

from __future__ import annotations

import time

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from companion.config import PanelConfig
from hardware.panel import Panel, panel_pins


class FakeClock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def rig():
    factory = MockFactory(pin_class=MockPWMPin)
    calls: list[str] = []
    clock = FakeClock()
    panel = Panel(PanelConfig(enabled=True), on_roll=lambda: calls.append("roll"),
                  on_confirm=lambda: calls.append("confirm"), on_undo=lambda: calls.append("undo"),
                  pin_factory=factory, clock=clock)
    yield factory, panel, calls, clock
    panel.close()
    factory.reset()


def press(factory: MockFactory, pin: int) -> None:
    factory.pin(pin).drive_low()
    factory.pin(pin).drive_high()


def test_each_button_reaches_its_callback(rig) -> None:
    factory, panel, calls, clock = rig
    cfg = PanelConfig()
    press(factory, cfg.roll_pin)
    clock.t += 1
    press(factory, cfg.confirm_pin)
    clock.t += 1
    press(factory, cfg.undo_pin)
    assert calls == ["roll", "confirm", "undo"]


def test_bounce_and_hold_do_one_thing_once(rig) -> None:
    factory, panel, calls, clock = rig
    pin = factory.pin(PanelConfig().roll_pin)
    for _ in range(5):  # contact bounce on pressing: five edges 10 ms apart
        pin.drive_low()
        clock.t += 0.01
        pin.drive_high()
        clock.t += 0.01
    pin.drive_low()  # then held down for two seconds
    clock.t += 2
    assert calls == ["roll"]
    for _ in range(3):  # bounce on release
        pin.drive_high()
        clock.t += 0.005
        pin.drive_low()
        clock.t += 0.005
    pin.drive_high()
    assert calls == ["roll"]
    clock.t += 0.5
    press(factory, PanelConfig().roll_pin)  # a deliberate second press counts
    assert calls == ["roll", "roll"]


def test_turn_lights_the_seat_led_and_colour(rig) -> None:
    factory, panel, calls, clock = rig
    cfg = PanelConfig()
    panel.show_turn(2)
    lit = [factory.pin(p).state for p in cfg.seat_led_pins]
    assert lit == [0, 0, 1, 0, 0, 0]
    panel.show_turn(4, "orange")
    assert [factory.pin(p).state for p in cfg.seat_led_pins] == [0, 0, 0, 0, 1, 0]
    r, g, b = (factory.pin(p).state for p in cfg.rgb_led_pins)
    assert (r, b) == (1, 0) and 0 < g < 0.5
    panel.show_turn(None)
    assert not any(factory.pin(p).state for p in (*cfg.seat_led_pins, *cfg.rgb_led_pins))


def test_status_patterns(rig) -> None:
    factory, panel, calls, clock = rig
    led = factory.pin(PanelConfig().status_led_pin)
    panel.set_status("running")
    assert led.state == 1
    panel.set_status("fault")
    time.sleep(0.35)
    changes = {s for _, s in led.states[-4:]}
    assert changes == {0, 1}  # blinking
    panel.set_status("off")
    assert led.state == 0
    with pytest.raises(ValueError, match="unknown status 'dancing'"):
        panel.set_status("dancing")


def test_fall_signal_blinks_and_beeps(rig) -> None:
    factory, panel, calls, clock = rig
    cfg = PanelConfig()
    panel.signal_fall()
    time.sleep(0.25)
    assert any(s == 1 for _, s in factory.pin(cfg.buzzer_pin).states)
    assert any(s == 1 for _, s in factory.pin(cfg.fall_led_pin).states)


def test_unfitted_parts_are_skipped_and_bad_pins_refused() -> None:
    factory = MockFactory()
    pins = {"roll_pin": 5, "confirm_pin": None, "undo_pin": -1, "seat_led_pins": [6, 7],
            "rgb_led_pins": [], "fall_led_pin": None, "buzzer_pin": None, "status_led_pin": None}
    calls: list[str] = []
    panel = Panel(pins, lambda: calls.append("r"), print, print, pin_factory=factory)
    try:
        assert set(panel.buttons) == {"roll"}
        panel.show_turn(1)
        assert factory.pin(7).state == 1
        panel.signal_fall()
        panel.set_status("fault")
    finally:
        panel.close()
    with pytest.raises(ValueError, match="rgb_led_pins: expected 3 pins"):
        panel_pins({**pins, "rgb_led_pins": [1, 2]})
    with pytest.raises(ValueError, match="roll_pin: expected a GPIO number"):
        panel_pins({**pins, "roll_pin": "17"})
