"""TableController with the real rules core and small fakes for the log and the panel."""

from __future__ import annotations

import random

import pytest

from companion.table.controller import RequestError, TableController
from companion.table.game import DingoDiscGame


class FakeStore:
    """Records what the controller logs (the SessionStore methods it calls)."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []
        self.actors: list = []

    def start_session(self, *, setup, header=None):
        self.calls.append(("start", setup["type"]))
        return 7

    def append_action(self, sid, action, *, source=None, actor=None, sensed=(), t_ms=None):
        if action["type"] == "undo":  # the controller logs an undo with its actor
            self.calls.append(("undo", sid))
        else:
            self.calls.append(("action", sid, action["type"], source, t_ms))
        self.actors.append(actor)

    def append_undo(self, sid, *, source=None):
        self.calls.append(("undo", sid))

    def append_events(self, sid, events):
        self.calls.append(("events", sid, [e["event"] for e in events]))

    def end_session(self, sid, *, ranking=None, outcome=None):
        self.calls.append(("end", sid, ranking, outcome))

    def abandon(self, sid):
        self.calls.append(("abandon", sid))

    def flush(self, sid=None):
        pass


class FakePanel:
    def __init__(self) -> None:
        self.turns: list = []
        self.colours: list = []
        self.falls = 0

    def show_turn(self, seat, colour=None):
        self.turns.append(seat)
        self.colours.append(colour)

    def signal_fall(self):
        self.falls += 1


def started(store=None, panel=None, seed=1) -> TableController:
    c = TableController(DingoDiscGame(), store=store, panel=panel, rng=random.Random(seed))
    c.new_game({"version": 1, "players": ["Anna", "Ben", "Cleo"]})
    c.apply({"type": "first_player", "seat": 0})
    return c


def roll_to_place(c: TableController) -> dict:
    """Enter dice (not 1) so that the current player must place."""
    return c.enter_roll({"colour": "blue", "number": 4})


def test_no_game_state_expects_a_new_game():
    c = TableController(DingoDiscGame())
    msg = c.message()
    assert msg["state"]["expected"]["kind"] == "new_game"
    assert msg["version"] == 0
    with pytest.raises(RequestError) as err:
        c.apply({"type": "first_player", "seat": 0})
    assert err.value.status == 409


def test_versions_grow_and_subscribers_get_every_change():
    c = TableController(DingoDiscGame())
    sub, snap = c.subscribe()
    assert snap["version"] == 0
    c.new_game({"version": 1, "players": ["Anna", "Ben"]})
    c.apply({"type": "first_player", "seat": 1})
    items = [sub.get(0.1) for _ in range(2)]
    assert [i.kind for i in items] == ["change", "change"]
    assert [i.payload["version"] for i in items] == [1, 2]
    assert items[1].payload["state"]["current"] == 1
    assert items[1].frame.startswith("id: 2\nevent: change\ndata: {")
    c.unsubscribe(sub)
    assert c.subscriber_count == 0


def test_illegal_action_is_409_with_rule_and_changes_nothing():
    c = started()
    before = c.message()
    with pytest.raises(RequestError) as err:
        c.apply({"type": "give", "giver": 1, "size": "small"})
    assert err.value.status == 409 and err.value.extra["rule"]
    after = c.message()
    assert after["version"] == before["version"] and after["state"] == before["state"]


def test_malformed_action_is_400_naming_the_problem():
    c = started()
    for bad in ({"type": "nope"}, {"type": "roll", "number": "six", "colour": "red"}, [1, 2], "x"):
        with pytest.raises(RequestError) as err:
            c.apply(bad)
        assert err.value.status == 400
        assert err.value.message


def test_roll_uses_the_rng_and_is_an_action():
    store = FakeStore()
    c = started(store=store, seed=3)
    msg = c.roll()
    dice = msg["state"]["dice"]
    assert dice["colour"] in ("red", "yellow", "green", "blue", "purple", "orange")
    assert 1 <= dice["number"] <= 6
    assert ("action", 7, "roll", "page", None) in store.calls
    # same seed, same roll: the dice come from the injected generator
    assert started(seed=3).roll()["state"]["dice"] == dice


def test_roll_when_no_dice_expected_is_409():
    c = started()
    roll_to_place(c)
    with pytest.raises(RequestError) as err:
        c.roll()
    assert err.value.status == 409 and "place" in err.value.message


def test_sensed_placement_becomes_a_place_action_and_turn_passes():
    store, panel = FakeStore(), FakePanel()
    c = started(store=store, panel=panel)
    roll_to_place(c)
    c.sensed([{"event": "placed", "t_ms": 900, "size": "small", "mass_g": 2.1, "x_mm": 0.0,
               "y_mm": 60.0, "zone": "blue", "number": 4}])
    state = c.message()["state"]
    assert state["players"][0]["supply"]["small"] == 5
    assert state["current"] == 1
    assert ("action", 7, "place", "sensor", 900) in store.calls
    assert panel.turns[-1] == 1
    assert panel.colours[-2] == "blue"  # while Anna had to place on BLUE 4, the colour LED showed it


def test_sensed_off_zone_placement_asks_for_review():
    c = started()
    roll_to_place(c)
    c.sensed([{"event": "placed", "t_ms": 900, "size": "large", "mass_g": 7.9, "x_mm": 60.0,
               "y_mm": 0.0, "zone": "red", "number": 4}])
    exp = c.message()["state"]["expected"]
    assert exp["kind"] == "review_placement"
    c.press_button("confirm")  # the panel's confirm accepts the placement
    assert c.message()["state"]["current"] == 1


def test_tip_and_fall_go_to_the_player_and_the_panel_signals():
    panel = FakePanel()
    c = started(panel=panel)
    roll_to_place(c)
    c.sensed([{"event": "placed", "t_ms": 900, "size": "small", "mass_g": 2.1, "x_mm": 0.0,
               "y_mm": 60.0, "zone": "blue", "number": 4, "confident": True}])
    c.enter_roll({"colour": "red", "number": 3})  # Ben
    c.sensed([{"event": "placed", "t_ms": 2000, "size": "large", "mass_g": 7.9, "x_mm": 60.0,
               "y_mm": 0.0, "zone": "red", "number": 3}])
    c.sensed([{"event": "tipped", "t_ms": 2100},
              {"event": "fell", "t_ms": 2300, "pawns": {"small": 1, "large": 1}, "mass_g": 10.0}])
    msg = c.message()
    ben = msg["state"]["players"][1]
    assert ben["supply"]["large"] == 6 and ben["supply"]["small"] == 7
    assert panel.falls == 1
    assert any(e["text"] == "Tipped! 1 small + 1 large fell to Ben" for e in msg["feed"]), msg["feed"]


def test_unconfident_fall_waits_for_confirmation():
    c = started()
    roll_to_place(c)
    c.sensed([{"event": "placed", "t_ms": 900, "size": "medium", "mass_g": 4.6, "x_mm": 0.0,
               "y_mm": 60.0, "zone": "blue", "number": 4}])
    c.sensed([{"event": "fell", "t_ms": 1500, "pawns": {"medium": 1}, "mass_g": 4.6, "confident": False}])
    assert c.message()["state"]["expected"]["kind"] == "confirm_fall"
    c.apply({"type": "confirm_fall"})
    assert c.message()["state"]["expected"]["kind"] != "confirm_fall"


def test_unsure_size_opens_a_prompt_that_corrects_it():
    c = started()
    roll_to_place(c)
    c.sensed([{"event": "placed", "t_ms": 900, "size": "large", "mass_g": 9.2, "x_mm": 0.0,
               "y_mm": 60.0, "zone": "blue", "number": 4, "confident": False}])
    msg = c.message()
    assert msg["state"]["players"][0]["supply"]["large"] == 5
    (prompt,) = msg["pending"]
    assert set(prompt["choices"]) == {"small", "medium", "large"}
    with pytest.raises(RequestError):
        c.resolve_prompt(prompt["id"], "huge")
    c.resolve_prompt(prompt["id"], "medium")
    supply = c.message()["state"]["players"][0]["supply"]
    assert supply["large"] == 6 and supply["medium"] == 5
    assert c.message()["pending"] == []


def test_hand_opens_a_flag_and_loose_events_are_logged():
    store = FakeStore()
    c = started(store=store)
    c.sensed([{"event": "hand", "t_ms": 500, "duration_ms": 1200}, {"event": "settled", "t_ms": 900}])
    state = c.message()["state"]
    assert state["flags"] and state["flags"][0]["kind"] == "hand"
    assert ("events", 7, ["settled"]) in store.calls


def test_undo_restores_and_is_logged():
    store = FakeStore()
    c = started(store=store)
    before = c.message()["state"]
    roll_to_place(c)
    c.undo()
    assert c.message()["state"] == before
    assert ("undo", 7) in store.calls
    c.undo()  # first_player
    with pytest.raises(RequestError):
        c.undo()  # the new_game cannot be undone


def test_new_game_abandons_the_unfinished_one():
    store = FakeStore()
    c = started(store=store)
    c.new_game({"version": 2, "players": ["X", "Y"]})
    assert ("abandon", 7) in store.calls
    assert c.message()["state"]["version"] == 2


def test_bad_new_game_is_400():
    c = TableController(DingoDiscGame())
    for bad in ({"version": 3, "players": ["a", "b"]}, {"version": 1, "players": ["a"]}, "x"):
        with pytest.raises(RequestError) as err:
            c.new_game(bad)
        assert err.value.status in (400, 409)


def test_a_failing_log_never_stops_the_game():
    class Broken(FakeStore):
        def append_action(self, *a, **k):
            raise OSError("disk full")

    c = started(store=Broken())
    roll_to_place(c)
    msg = c.message()
    assert msg["state"]["expected"]["kind"] == "place"
    assert "log" in msg["status"]


def test_panel_buttons():
    c = started()
    c.press_button("roll")
    assert c.message()["state"]["dice"]["number"] is not None
    c.press_button("undo")
    assert c.message()["state"]["dice"]["number"] is None
    with pytest.raises(RequestError) as err:
        c.press_button("explode")
    assert err.value.status == 404
    with pytest.raises(RequestError):
        c.press_button("confirm")  # nothing to confirm before the roll


def test_live_tick_is_throttled_and_only_with_listeners():
    c = TableController(DingoDiscGame(), sensing=lambda: {"cop_mm": [1.0, 2.0], "tilt": 0.1},
                        live_interval_s=10.0)
    assert not c.live_tick()  # nobody listens
    sub, _ = c.subscribe()
    assert c.live_tick()
    assert not c.live_tick()  # throttled
    item = sub.get(0.1)
    assert item.kind == "live" and item.payload["sensing"]["cop_mm"] == [1.0, 2.0]
    assert item.frame.startswith("event: live\n")


def test_game_over_ends_the_session(play_to_the_end):
    store = FakeStore()
    c = TableController(DingoDiscGame(), store=store, rng=random.Random(0))
    play_to_the_end(c)
    assert c.message()["state"]["phase"] == "over"
    ends = [call for call in store.calls if call[0] == "end"]
    state = c.message()["state"]
    assert len(ends) == 1
    assert ends[0][2] == [p["rank"] for p in state["players"]]
    assert ends[0][3] == {"winner": state["winner"], "draw": state["draw"], **state["outcome"]}
    assert ends[0][3]["ranking"] and ends[0][3]["winners"] == ([] if state["draw"] else [state["winner"]])


def test_a_slow_subscriber_is_dropped_not_waited_for():
    from companion.table.hub import Hub

    hub = Hub(maxsize=3)
    slow, fast = hub.subscribe(), hub.subscribe()
    for i in range(5):
        hub.publish("change", {"version": i})
        assert fast.get(0.01).payload["version"] == i
    assert len(hub) == 1  # the slow one was dropped when its queue filled
    items = [slow.get(0.01) for _ in range(3)]
    assert [i.kind for i in items] == ["change", "change", "closed"]  # its stream ends: it reconnects
    assert slow.closed and slow.get(0.01) is None
