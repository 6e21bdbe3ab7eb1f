"""The disc and the game agree, or say so (issue 15): deferred sensed events, the reconciliation card,
a new game on an empty disc."""

from __future__ import annotations

import pytest

from companion.table.controller import RECONCILE_AFTER_S, TableController
from companion.table.errors import RequestError
from companion.table.game import DingoDiscGame
from companion.table.reconcile import Deferred, difference, disc_empty


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def _view(*sizes: str, still: bool = True, mass: float | None = None) -> dict:
    masses = {"small": 2.0, "medium": 4.5, "large": 8.0}
    return {"still": still, "tilt": 0.0, "faults": {}, "mass_g": sum(masses[s] for s in sizes) if mass is None
            else mass, "pawns": [{"size": s} for s in sizes]}


@pytest.fixture
def table():
    view = {"v": _view()}
    clock = Clock()
    c = TableController(DingoDiscGame(), sensing=lambda: view["v"], clock=clock)
    return c, view, clock


def _start(c: TableController) -> None:
    c.new_game({"version": 1, "players": ["Anna", "Ben"]})
    c.apply({"type": "first_player", "seat": 0})


def _tick(c: TableController, clock: Clock, seconds: float) -> None:
    c.health_tick(True)
    clock.t += seconds
    c.health_tick(True)


def _card(c: TableController, kind: str) -> dict | None:
    return next((p for p in c.message()["pending"] if p["kind"] == kind), None)


def test_difference_counts_sizes_and_needs_a_still_level_disc():
    state = {"phase": "roll", "disc": {"small": 1, "medium": 0, "large": 0}}
    assert difference(_view("small"), state) is None
    d = difference(_view("small", "large"), state)
    assert d is not None and d.extra == {"large": 1} and d.missing == {}
    assert difference(_view(), state).missing == {"small": 1}
    assert difference(_view("small", "large", still=False), state) is None
    assert difference(_view("small", "large"), state, ignored={"large": 1}) is None
    assert disc_empty(_view()) is True and disc_empty(_view("small")) is False
    assert disc_empty(_view(mass=5.0)) is False and disc_empty(_view(still=False)) is None


def test_deferred_actions_apply_in_order_when_they_can():
    d = Deferred()
    d.add({"n": 1}, {}, "no")
    d.add({"n": 2}, {}, "no")
    taken: list[int] = []
    assert d.retry(lambda a, e: False) == [] and len(d.items) == 2
    assert [i["action"]["n"] for i in d.retry(lambda a, e: taken.append(a["n"]) or True)] == [1, 2]
    assert not d.items


def test_a_placement_sensed_during_a_review_is_kept_and_applied_after_the_review(table):
    c, view, clock = table
    _start(c)
    c.enter_roll({"colour": "blue", "number": 4})
    c.sensed([{"event": "placed", "t_ms": 1000, "size": "small", "zone": "red", "number": 2,
               "x_mm": 0.0, "y_mm": 40.0, "confident": True}])
    assert c.message()["state"]["phase"] == "review"  # off the rolled spot: flagged
    c.sensed([{"event": "placed", "t_ms": 5000, "size": "large", "zone": "blue", "number": 4,
               "x_mm": 10.0, "y_mm": -60.0, "confident": True}])
    msg = c.message()
    assert msg["state"]["disc"]["large"] == 0
    assert any("kept, applied when the rules allow" in f["text"] for f in msg["feed"])
    c.apply({"type": "redo_placement"})  # the review: Anna places again; the kept large is her placement
    state = c.message()["state"]
    assert state["disc"] == {"small": 0, "medium": 0, "large": 1}
    assert any(f["text"].startswith("Applied now: ") for f in c.message()["feed"])


def test_a_disagreement_that_lasts_shows_one_card_whose_fix_is_an_undoable_action(table):
    c, view, clock = table
    _start(c)
    c.enter_roll({"colour": "blue", "number": 4})
    c.apply({"type": "place", "size": "small"})
    view["v"] = _view("small")
    _tick(c, clock, RECONCILE_AFTER_S + 1)
    assert _card(c, "reconcile") is None  # they agree
    view["v"] = _view()  # the small pawn went without a fall being sensed
    c.health_tick(True)
    assert _card(c, "reconcile") is None  # not at once: it must last
    _tick(c, clock, RECONCILE_AFTER_S + 1)
    card = _card(c, "reconcile")
    assert card is not None and "sensors see 0 pawn(s)" in card["text"] and "game counts 1" in card["text"]
    fix = next(ch for ch in card["choices"] if ch.startswith("1 small fell: give them back to Anna"))
    c.resolve_prompt(card["id"], fix)
    state = c.message()["state"]
    assert state["disc"]["small"] == 0 and state["players"][0]["supply"]["small"] == 8
    assert _card(c, "reconcile") is None
    c.undo()
    assert c.message()["state"]["disc"]["small"] == 1


def test_ignore_accepts_the_sensors_difference_until_it_changes(table):
    c, view, clock = table
    _start(c)
    view["v"] = _view("medium")  # an extra pawn the game does not count
    _tick(c, clock, RECONCILE_AFTER_S + 1)
    card = _card(c, "reconcile")
    assert card is not None and "Ignore: the sensors are wrong" in card["choices"]
    assert any(ch.startswith("Take 1 medium off the disc") for ch in card["choices"])
    c.resolve_prompt(card["id"], "Ignore: the sensors are wrong")
    _tick(c, clock, RECONCILE_AFTER_S + 1)
    assert _card(c, "reconcile") is None


def test_a_new_game_on_a_disc_with_pawns_waits_for_it_to_be_cleared(table):
    c, view, clock = table
    view["v"] = _view("small", "large")
    c.new_game({"version": 1, "players": ["Anna", "Ben"]})
    assert c.message()["state"]["phase"] == "setup" and _card(c, "clear_disc") is not None
    view["v"] = _view()
    c.health_tick(True)
    assert c.message()["state"]["phase"] != "setup" and _card(c, "clear_disc") is None


def test_start_anyway_starts_on_a_disc_that_is_not_empty(table):
    c, view, clock = table
    view["v"] = _view("small")
    c.new_game({"version": 1, "players": ["Anna", "Ben"]})
    card = _card(c, "clear_disc")
    c.resolve_prompt(card["id"], "Start anyway")
    assert c.message()["state"]["phase"] != "setup"
    c2 = TableController(DingoDiscGame(), sensing=lambda: view["v"], clock=clock)
    c2.new_game({"version": 1, "players": ["Anna", "Ben"], "start_anyway": True})
    assert c2.message()["state"]["phase"] != "setup"


def test_a_bad_setup_is_refused_at_once_even_on_a_disc_with_pawns(table):
    c, view, clock = table
    view["v"] = _view("small")
    with pytest.raises(RequestError, match="version must be 1 or 2"):
        c.new_game({"version": 7, "players": ["Anna", "Ben"]})
    assert _card(c, "clear_disc") is None


# ------------------------------------------------------------------ the real simulator and pipeline


def _sim_table(seed: int):
    from companion.sensing.pipeline import Pipeline
    from companion.table.loop import SourceLoop
    from hardware.sim.table import TableSimulator

    class StepSource:
        def __init__(self, sim):
            self.simulator, self.header = sim, sim.header

        def open(self):
            pass

        def close(self):
            pass

        def read(self, timeout_s):
            return [self.simulator.step() for _ in range(8)]

    sim = TableSimulator(seed=seed, glitches=False)
    source = StepSource(sim)
    pipeline = Pipeline(source.header)
    c = TableController(DingoDiscGame(), simulator=sim, header=source.header, sensing=pipeline.snapshot,
                        clock=lambda: sim.t_ms / 1000)
    loop = SourceLoop(source, pipeline, c)
    for _ in range(100):
        loop.step()
    return sim, c, loop


def _run(loop, c, predicate, max_steps=1500) -> bool:
    for i in range(max_steps):
        loop.step()
        if i % 10 == 0:
            c.health_tick(True)
        if predicate(c.message()):
            return True
    return False


def test_simulated_table_clear_the_disc_starts_the_waiting_game():
    sim, c, loop = _sim_table(seed=5)
    c.sim_command("place", {"size": "large", "zone": "blue", "number": 3})
    c.sim_command("place", {"size": "small", "zone": "red", "number": 5})
    assert _run(loop, c, lambda m: len(m["sensing"].get("pawns") or []) == 2 and m["sensing"]["still"])
    c.new_game({"version": 1, "players": ["Anna", "Ben"]})
    assert _card(c, "clear_disc") is not None and c.message()["state"]["phase"] == "setup"
    c.sim_command("clear", {})
    assert _run(loop, c, lambda m: m["state"]["phase"] != "setup")
    assert not c.message()["sensing"]["pawns"] and _card(c, "clear_disc") is None


def test_simulated_turns_where_the_sensors_are_right_show_no_reconciliation_card():
    sim, c, loop = _sim_table(seed=8)
    _start(c)
    spots = [("blue", 3), ("red", 4), ("green", 2), ("yellow", 5)]
    for turn, (zone, number) in enumerate(spots):
        c.enter_roll({"colour": zone, "number": number})
        c.sim_command("place", {"size": "medium", "zone": zone, "number": number})
        assert _run(loop, c, lambda m, n=turn + 1: sum(m["state"]["disc"].values()) == n)
        _run(loop, c, lambda m: False, max_steps=80)  # several seconds of a still disc
        assert _card(c, "reconcile") is None, c.message()["pending"]
