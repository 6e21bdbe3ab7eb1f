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


# ------------------------------------------------------------ a sensed tip whose falls the rules refuse


def _refused_tip(c: TableController, view: dict, clock: Clock) -> dict:
    """Anna's large pawn is counted small (the host answered "which size?" wrongly); the disc tips and the
    sensors report the large falling: a fall the rules refuse (no large pawn on the game's disc)."""
    _start(c)
    c.enter_roll({"colour": "blue", "number": 4})
    c.sensed([{"event": "placed", "t_ms": 1000, "size": "large", "zone": "blue", "number": 4,
               "x_mm": 10.0, "y_mm": -60.0, "confident": True}])
    c.apply({"type": "correct_size", "size": "small"})
    view["v"] = _view(still=False)
    c.sensed([{"event": "tipped", "t_ms": 3000}])
    c.sensed([{"event": "fell", "t_ms": 3400, "pawns": {"small": 0, "medium": 0, "large": 1},
               "mass_g": 8.0, "confident": True}])
    c.sensed([{"event": "settled", "t_ms": 4200}])
    view["v"] = _view()  # the disc is empty and still again
    assert c.message()["state"]["disc"]["small"] == 1  # refused: the game still counts Anna's pawn
    _tick(c, clock, RECONCILE_AFTER_S + 1)
    card = _card(c, "reconcile")
    assert card is not None
    return card


def test_a_refused_tip_becomes_the_card_with_legal_fixes_and_one_makes_them_agree(table):
    c, view, clock = table
    card = _refused_tip(c, view, clock)
    assert "tip of 1 large, which the rules refuse" in card["text"]
    assert "only 0 are on the disc" in card["text"]
    assert any("1 large pawn(s) fell" in f["text"] and "kept" in f["text"] for f in c.message()["feed"])
    fix = "Tip: 1 small fell: give them back to Anna"
    assert fix in card["choices"] and "Ignore: the sensors are wrong" in card["choices"]
    c.resolve_prompt(card["id"], fix)
    state = c.message()["state"]
    assert state["disc"] == {"small": 0, "medium": 0, "large": 0}  # the game now has what the disc has
    assert state["players"][0]["supply"]["small"] == 8  # the pawn went back to Anna
    _tick(c, clock, RECONCILE_AFTER_S + 1)
    assert _card(c, "reconcile") is None
    assert state["phase"] == "place" and state["current"] == 0  # the tip took her pawn: another try
    c.apply({"type": "place", "size": "large"})  # play goes on; the refused fall never applies later
    assert c.message()["state"]["disc"] == {"small": 0, "medium": 0, "large": 1}
    c.undo()
    c.undo()  # the fix is an undoable action like any other
    assert c.message()["state"]["disc"]["small"] == 1


def test_every_fix_the_refused_tip_card_offers_is_legal(table):
    view = {"v": _view()}
    labels = None
    for i in range(10):
        clock = Clock()
        c = TableController(DingoDiscGame(), sensing=lambda: view["v"], clock=clock)
        card = _refused_tip(c, view, clock)
        labels = labels or [ch for ch in card["choices"] if not ch.startswith("Ignore")]
        if i >= len(labels):
            break
        before = c.message()["state"]
        c.resolve_prompt(card["id"], labels[i])  # raises if the rules refused it
        assert c.message()["state"] != before
    assert labels  # (here the closest legal fall is the one the disc shows: offered once)


def test_the_fix_of_a_refused_tip_keeps_what_the_sensors_said_in_the_log(tmp_path):
    from companion.session import SessionStore

    store = SessionStore(tmp_path)
    view, clock = {"v": _view()}, Clock()
    c = TableController(DingoDiscGame(), store=store, sensing=lambda: view["v"], clock=clock)
    card = _refused_tip(c, view, clock)
    c.resolve_prompt(card["id"], "Tip: 1 small fell: give them back to Anna")
    sid = c.session_id
    last = store.actions(sid)[-1]
    assert last.action["type"] == "fall" and last.action["tipped"] is True
    assert [e["event"] for e in last.sensed] == ["fell"] and last.sensed[0]["pawns"]["large"] == 1
    assert any(e["event"] == "fell" and e["pawns"].get("large") == 1 for e in store.events(sid))
    store.close()


def test_a_kept_placement_that_falls_with_a_tip_counts_for_nobody(table):
    """Cleo's pawn put on during Ben's review was kept; a tip takes it off again with Ben's: Ben gets his
    pawn back (another try), and Cleo's kept placement is never applied as Ben's."""
    c, view, clock = table
    c.new_game({"version": 1, "players": ["Anna", "Ben", "Cleo"]})
    c.apply({"type": "first_player", "seat": 1})
    bens = c.message()["state"]["players"][1]["supply"]
    c.enter_roll({"colour": "blue", "number": 4})
    c.sensed([{"event": "placed", "t_ms": 1000, "size": "large", "zone": "red", "number": 2,
               "x_mm": 0.0, "y_mm": 40.0, "confident": True}])
    assert c.message()["state"]["phase"] == "review"
    c.sensed([{"event": "placed", "t_ms": 2000, "size": "small", "zone": "green", "number": 3,
               "x_mm": -50.0, "y_mm": 0.0, "confident": True}])  # kept: the review is open
    c.sensed([{"event": "tipped", "t_ms": 3000}])
    c.sensed([{"event": "fell", "t_ms": 3300, "pawns": {"small": 1, "medium": 0, "large": 1},
               "mass_g": 10.0, "confident": True}])
    state = c.message()["state"]
    assert state["disc"] == {"small": 0, "medium": 0, "large": 0}
    assert state["phase"] == "place" and state["current"] == 1 and state["attempt"] == 2
    assert state["players"][1]["supply"] == bens  # his large back, and he placed no small pawn
    assert any("fell off again: nothing to count" in f["text"] for f in c.message()["feed"])


def _sim_table_logged(seed: int, data_dir):
    from companion.sensing.pipeline import Pipeline
    from companion.session import SessionStore
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
    store = SessionStore(data_dir, clock=lambda: sim.t_ms / 1000)
    c = TableController(DingoDiscGame(), simulator=sim, header=source.header, sensing=pipeline.snapshot,
                        clock=lambda: sim.t_ms / 1000, store=store)
    loop = SourceLoop(source, pipeline, c)
    for _ in range(100):
        loop.step()
    return sim, c, loop, store


def test_simulated_table_a_refused_tip_ends_in_agreement_with_one_tap(tmp_path):
    """The simulated table, sensing pipeline and a real log: Anna's large pawn counted small by the host's
    wrong answer, then the disc is knocked over and the large falls: the card, one tap, they agree."""
    sim, c, loop, store = _sim_table_logged(2, tmp_path)
    c.new_game({"version": 1, "players": ["Anna", "Ben"]})
    c.apply({"type": "first_player", "seat": 0})
    c.enter_roll({"colour": "blue", "number": 5})
    c.sim_command("place", {"size": "large", "zone": "blue", "number": 5})
    assert _run(loop, c, lambda m: sum(m["state"]["disc"].values()) == 1)
    c.apply({"type": "correct_size", "size": "small"})  # the host's wrong answer
    c.sim_command("knock", {})
    assert _run(loop, c, lambda m: _card(c, "reconcile") is not None, max_steps=900)
    card = _card(c, "reconcile")
    assert "which the rules refuse" in card["text"], card
    fix = next(ch for ch in card["choices"] if ch.startswith("Tip: ") and ch.endswith("back to Anna"))
    c.resolve_prompt(card["id"], fix)
    msg = c.message()
    sensed = msg["sensing"]
    assert [p["size"] for p in sensed["pawns"]] == [] and sum(msg["state"]["disc"].values()) == 0
    _run(loop, c, lambda m: False, max_steps=80)
    assert _card(c, "reconcile") is None
    events = store.events(c.session_id)
    assert any(e["event"] == "fell" and (e.get("pawns") or {}).get("large") for e in events)  # nothing lost
    store.close()


def test_simulated_table_a_pawn_kept_during_a_review_and_tipped_off_is_not_counted(tmp_path):
    sim, c, loop, store = _sim_table_logged(1, tmp_path)
    c.new_game({"version": 1, "players": ["Anna", "Ben", "Cleo"]})
    c.apply({"type": "first_player", "seat": 0})
    c.enter_roll({"colour": "blue", "number": 2})
    c.sim_command("place", {"size": "medium", "zone": "blue", "number": 2})
    assert _run(loop, c, lambda m: sum(m["state"]["disc"].values()) == 1)
    bens = c.message()["state"]["players"][1]["supply"]
    c.enter_roll({"colour": "red", "number": 3})
    c.sim_command("place", {"size": "large", "zone": "yellow", "number": 2})  # off the rolled spot
    assert _run(loop, c, lambda m: m["state"]["phase"] == "review")
    c.sim_command("place", {"size": "small", "zone": "green", "number": 2})  # Cleo, during the review
    assert _run(loop, c, lambda m: any("kept" in f["text"] for f in m["feed"]))
    c.sim_command("knock", {})
    _run(loop, c, lambda m: False, max_steps=600)
    msg = c.message()
    on_disc = sorted(p["size"] for p in msg["sensing"]["pawns"])
    game = sorted(s for s, n in msg["state"]["disc"].items() for _ in range(n))
    assert on_disc == game, (on_disc, game, [f["text"] for f in msg["feed"]])
    assert msg["state"]["players"][1]["supply"]["small"] == bens["small"]  # Cleo's small never was Ben's
    assert _card(c, "reconcile") is None
    events = store.events(c.session_id)
    assert any(e["event"] == "placed" and e.get("size") == "small" for e in events)  # nothing lost
    counted = store.effective_actions(c.session_id)
    assert not any(a["type"] == "place" and a["size"] == "small" for a in counted)  # nor counted for Ben
    store.close()


def _kept_during_annas_review(c: TableController) -> None:
    """Anna (of three) places off her rolled spot; a small put on YELLOW 2 during the review is kept."""
    c.new_game({"version": 1, "players": ["Anna", "Ben", "Cleo"]})
    c.apply({"type": "first_player", "seat": 0})
    c.enter_roll({"colour": "blue", "number": 4})
    c.sensed([{"event": "placed", "t_ms": 1000, "size": "medium", "zone": "red", "number": 2,
               "x_mm": 0.0, "y_mm": 40.0, "confident": True}])
    c.sensed([{"event": "placed", "t_ms": 5000, "size": "small", "zone": "yellow", "number": 2,
               "x_mm": -20.0, "y_mm": 35.0, "confident": True}])
    assert c.message()["state"]["phase"] == "review"
    c.apply({"type": "accept_placement"})


def test_penalty_passes_without_placing_so_a_pawn_kept_before_the_1_counts_for_nobody(table):
    """Face 1: "the player passes their turn without placing a pawn". The pawn put on before Ben rolled
    his 1 is his (or Anna's), never Cleo's: it is not applied to Cleo's placement but left to the card."""
    c, view, clock = table
    _kept_during_annas_review(c)
    msg = c.enter_roll({"number": 1, "colour": "red"})  # Ben: penalty
    assert any("counts for nobody: a 1 was rolled" in f["text"] for f in msg["feed"]), msg["feed"]
    c.apply({"type": "give", "giver": 2, "size": "large"})  # Cleo, then Anna, give Ben a pawn
    c.apply({"type": "give", "giver": 0, "size": "large"})  # Cleo's turn
    c.enter_roll({"colour": "yellow", "number": 2})  # the spot the kept pawn stands on
    state = c.message()["state"]
    assert state["current"] == 2 and state["phase"] == "place"  # Cleo still places her own pawn
    assert state["players"][2]["supply"]["small"] == 6 and state["disc"]["small"] == 0
    assert not any(f["text"].startswith("Applied now: ") for f in c.message()["feed"])
    view["v"] = _view("medium", "small")  # the disc shows the extra pawn: the card asks to take it off
    _tick(c, clock, RECONCILE_AFTER_S + 1)
    card = _card(c, "reconcile")
    assert card is not None and "Take 1 small off the disc" in card["choices"]


def test_a_pawn_kept_during_a_review_is_the_next_placers_when_no_1_is_rolled(table):
    c, view, clock = table
    _kept_during_annas_review(c)
    c.enter_roll({"colour": "yellow", "number": 2})  # Ben, on the kept pawn's spot: it is his
    state = c.message()["state"]
    assert state["players"][1]["supply"]["small"] == 5 and state["disc"]["small"] == 1
    assert state["current"] == 2
