"""The panel's status LED follows the table: waiting, running, fault (and back), off."""

from __future__ import annotations

import random
import time

import pytest

from companion.table.controller import TableController
from companion.table.game import DingoDiscGame
from companion.table.health import FaultClock, led_status

PINS = {"roll_pin": 5, "confirm_pin": 6, "undo_pin": 13, "status_led_pin": 26}


class Sensing:
    """A pipeline snapshot whose ``faults`` the test sets."""

    def __init__(self) -> None:
        self.faults: dict = {}

    def __call__(self) -> dict:
        return {"faults": dict(self.faults)}


class RecordingPanel:
    def __init__(self) -> None:
        self.statuses: list[str] = []

    def set_status(self, kind: str) -> None:
        self.statuses.append(kind)


@pytest.fixture
def panel():
    """The real gpiozero panel on mock pins."""
    mock = pytest.importorskip("gpiozero.pins.mock")
    from hardware.panel import Panel

    factory = mock.MockFactory(pin_class=mock.MockPWMPin)
    p = Panel(PINS, on_roll=lambda: None, on_confirm=lambda: None, on_undo=lambda: None,
              pin_factory=factory)
    yield p
    p.close()


def controller(panel, sensing=None, clear_s=0.05) -> TableController:
    c = TableController(DingoDiscGame(), rng=random.Random(3), sensing=sensing, fault_clear_s=clear_s)
    c.attach_panel(panel)
    return c


def test_led_waits_for_the_host_then_runs_with_the_game(panel):
    c = controller(panel)
    c.health_tick(False)
    assert panel.status == "waiting"  # no game yet
    c.new_game({"version": 1, "players": ["Anna", "Ben", "Cleo"]})
    assert panel.status == "waiting"  # the host picks the first player
    c.apply({"type": "first_player", "seat": 0})
    assert panel.status == "running"
    assert panel.status_led.is_lit and panel.status_led.value == 1  # steady on
    c.enter_roll({"colour": "blue", "number": 4})
    c.sensed([{"event": "placed", "t_ms": 900, "size": "medium", "mass_g": 4.6, "x_mm": 0.0,
               "y_mm": 60.0, "zone": "blue", "number": 4}])
    c.sensed([{"event": "fell", "t_ms": 1500, "pawns": {"medium": 1}, "mass_g": 4.6, "confident": False}])
    assert panel.status == "waiting"  # a fall to confirm on the page
    c.press_button("confirm", source="panel")
    assert panel.status == "running"
    c.panel_status("off")
    assert panel.status == "off" and not panel.status_led.is_lit


def test_an_open_prompt_waits_and_its_answer_runs_again():
    panel = RecordingPanel()
    c = controller(panel)
    c.new_game({"version": 1, "players": ["Anna", "Ben"]})
    c.apply({"type": "first_player", "seat": 0})
    c.enter_roll({"colour": "blue", "number": 4})
    assert panel.statuses[-1] == "running"
    c.sensed([{"event": "placed", "t_ms": 900, "size": "large", "mass_g": 9.2, "x_mm": 0.0,
               "y_mm": 60.0, "zone": "blue", "number": 4, "confident": False}])
    assert panel.statuses[-1] == "waiting"
    (prompt,) = c.message()["pending"]
    c.resolve_prompt(prompt["id"], "medium")
    assert panel.statuses[-1] == "running"
    # the LED is set only when its pattern changes, not on every state version
    assert all(a != b for a, b in zip(panel.statuses, panel.statuses[1:], strict=False))


def test_source_fault_blinks_and_clears_when_samples_flow_again(panel):
    c = controller(panel)
    c.new_game({"version": 1, "players": ["Anna", "Ben"]})
    c.apply({"type": "first_player", "seat": 0})
    assert panel.status == "running"
    c.source_fault("disconnected", "cell 2 disconnected", cell=2)
    assert panel.status == "fault"
    c.health_tick(True)
    assert panel.status == "fault"  # reported just now: not over yet
    time.sleep(0.08)
    c.health_tick(False)
    assert panel.status == "fault"  # no samples: nothing shows it is over
    c.health_tick(True)
    assert panel.status == "running"
    msg = c.message()
    assert "cell2" not in msg["status"]
    assert msg["feed"][0]["text"] == "Sensor fault over: cell 2"


def test_sensed_cell_fault_lasts_while_the_pipeline_reports_it(panel):
    sensing = Sensing()
    c = controller(panel, sensing)
    c.new_game({"version": 1, "players": ["Anna", "Ben"]})
    c.apply({"type": "first_player", "seat": 0})
    sensing.faults = {1: "stuck"}
    c.sensed([{"event": "fault", "t_ms": 500, "cell": 1, "kind": "stuck"}])
    assert panel.status == "fault"
    time.sleep(0.08)
    c.health_tick(True)
    assert panel.status == "fault"  # the pipeline still lists cell 1
    sensing.faults = {}
    c.health_tick(True)
    assert panel.status == "running"


def test_fault_wins_over_waiting_and_fault_clock_rules():
    state = {"phase": "play", "expected": {"kind": "place"}}
    assert led_status(state, [], {}) == "running"
    assert led_status(state, [{"id": "p1"}], {}) == "waiting"
    assert led_status({"phase": "setup", "expected": {"kind": "new_game"}}, [], {"source": "x"}) == "fault"
    assert led_status({"phase": "over", "expected": {"kind": "none"}}, [], {"log": "no log"}) == "waiting"
    clock = FaultClock(1.0)
    clock.reported("source", 10.0)
    assert clock.cleared({"source": "late", "log": "x"}, {}, True, 10.5) == []
    assert clock.cleared({"source": "late", "log": "x"}, {}, True, 11.5) == ["source"]
    with pytest.raises(ValueError, match="clear_s"):
        FaultClock(-1)


def test_the_resume_notice_does_not_hold_the_game_up():
    playing = {"phase": "roll", "expected": {"kind": "roll", "player": 0}}
    resume = {"id": "p1", "kind": "resume", "title": "Continued", "text": "", "choices": ["Continue"]}
    assert led_status(playing, [resume], {}) == "running"
    assert led_status(playing, [resume, {**resume, "kind": "check_size"}], {}) == "waiting"
