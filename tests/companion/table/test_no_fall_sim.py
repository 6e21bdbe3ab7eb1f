"""Pawns landing on the base plate, end to end: the simulated table (``knock_base``: the pawns that fall
land on the base plate and stay weighed), the real sensing pipeline on its samples, the controller.

What the pipeline makes of such a landing is its own (``docs/sensing.md``, "Pawns landing on the base
plate"): at 80 Hz it usually sees a lone pawn's flight and landing and reports an unsure ``fell``
(``"weighed": true``), which the rules core waits to have confirmed; when it sees no fall at all, the
host is asked "Did any pawns fall?". Both are asserted as they really happen on these seeds. The host's
answer (or a fall entered by hand for such a tip) reaches the pipeline, which then counts those pawns
on the base plate: picking them up off it is no event, and the disc and the game agree throughout.
"""

from __future__ import annotations

from tests.companion.table.test_reconcile import _card, _run, _sim_table


def _spy(c) -> list[dict]:
    """Every event the pipeline hands the controller from now on."""
    seen: list[dict] = []
    sensed = c.sensed
    c.sensed = lambda events: (seen.extend(events), sensed(events))[1]
    return seen


def _play(c, loop, turns) -> None:
    c.new_game({"version": 1, "players": ["Anna", "Ben"]})
    c.apply({"type": "first_player", "seat": 0})
    for n, (size, x, y, zone, number) in enumerate(turns, start=1):
        c.enter_roll({"colour": zone, "number": number})
        c.sim_command("place", {"size": size, "x_mm": x, "y_mm": y})
        assert _run(loop, c, lambda m, n=n: sum(m["state"]["disc"].values()) == n)
    _run(loop, c, lambda m: False, max_steps=60)  # the disc still for a while


def test_pawns_landing_unseen_on_the_base_plate_ask_the_host_and_the_answer_applies_the_fall():
    sim, c, loop = _sim_table(seed=0)
    # Anna a medium on PURPLE 3, Ben a small on YELLOW 6, Anna a small on PURPLE 5: balanced, it stays up
    _play(c, loop, [("medium", 0, -60, "purple", 3), ("small", 0, 140, "yellow", 6),
                    ("small", 0, -110, "purple", 5)])
    before = c.message()["state"]
    assert before["phase"] == "roll" and before["current"] == 1  # Ben's turn, Anna's fall window open
    seen = _spy(c)
    c.sim_command("knock_base", {})
    assert _run(loop, c, lambda m: _card(c, "tip_no_fall") is not None, max_steps=600)
    falls = [e for e in sim.truth if e["event"] == "fell"]
    assert [(e["pawns"], e["lands_on"]) for e in falls] == [({"small": 1}, "base"), ({"medium": 1}, "base")]
    assert [e["event"] for e in seen] == ["tipped", "settled"]  # the pipeline saw no fall: no mass was lost
    prompt = _card(c, "tip_no_fall")
    assert prompt["seat"] == 0 and prompt["counts"]["max"] == {"small": 2, "medium": 1, "large": 0}
    msg = c.resolve_prompt(prompt["id"], "These pawns fell", pawns={"small": 1, "medium": 1})
    assert c._game.history_json(c._match)[-1] == {
        "type": "fall", "pawns": {"small": 1, "medium": 1, "large": 0}, "tipped": True, "confident": True,
        "placed_fell": None}
    state = msg["state"]
    assert state["disc"] == {"small": 1, "medium": 0, "large": 0} and msg["pending"] == []
    assert state["phase"] == "place" and state["current"] == 0 and state["attempt"] == 2  # her small fell
    assert state["players"][0]["supply"] == {"small": before["players"][0]["supply"]["small"] + 1,
                                             "medium": before["players"][0]["supply"]["medium"] + 1,
                                             "large": before["players"][0]["supply"]["large"]}


def test_a_lone_pawn_landing_on_the_base_plate_is_seen_as_an_unsure_fall_to_confirm():
    sim, c, loop = _sim_table(seed=0)
    _play(c, loop, [("small", -115, -67, "blue", 6)])
    seen = _spy(c)
    c.sim_command("knock_base", {})
    assert _run(loop, c, lambda m: m["state"]["phase"] == "confirm_fall", max_steps=600)
    assert [e["lands_on"] for e in sim.truth if e["event"] == "fell"] == ["base"]
    fell = [e for e in seen if e["event"] == "fell"]
    assert len(fell) == 1 and fell[0]["pawns"]["small"] == 1
    assert fell[0]["confident"] is False and fell[0].get("weighed") is True  # its landing was seen
    _run(loop, c, lambda m: False, max_steps=100)
    assert _card(c, "tip_no_fall") is None  # a fall was seen: no question
    msg = c.press_button("confirm")
    assert c._game.history_json(c._match)[-1]["type"] == "confirm_fall"
    assert msg["state"]["disc"] == {"small": 0, "medium": 0, "large": 0}
    assert msg["state"]["phase"] == "place" and msg["state"]["attempt"] == 2  # Anna places again


# Anna a large on PURPLE 3, Ben a medium on YELLOW 6, Anna a medium on PURPLE 5: the disc stays up;
# knocked over (towards PURPLE, seed 0) the large and the medium on PURPLE 5 land on the base plate, and
# no fall is seen
TWO_LAND = [("large", 0, -60, "purple", 3), ("medium", 0, 140, "yellow", 6), ("medium", 0, -110, "purple", 5)]


def _knocked_unseen(seed: int = 0, table=None):
    """``TWO_LAND`` played and knocked over onto the base plate, until the sensors settle with no fall
    seen: (simulator, controller, loop, every event sensed since the knock)."""
    sim, c, loop = table or _sim_table(seed=seed)
    _play(c, loop, TWO_LAND)
    seen = _spy(c)
    c.sim_command("knock_base", {})
    assert _run(loop, c, lambda m: _card(c, "tip_no_fall") is not None, max_steps=600)
    assert [e["event"] for e in seen] == ["tipped", "settled"]
    assert [(e["pawns"], e["lands_on"]) for e in sim.truth if e["event"] == "fell"] == [
        ({"medium": 1}, "base"), ({"large": 1}, "base")]
    return sim, c, loop, seen


def _cards_while(loop, c, steps: int) -> set[str]:
    """Run the table ``steps`` iterations; the kinds of every prompt that was open meanwhile."""
    kinds: set[str] = set()
    _run(loop, c, lambda m: kinds.update(p["kind"] for p in m["pending"]) and False, max_steps=steps)
    return kinds


def _fell_since(c, mark: int) -> list[str]:
    return [a["type"] for a in c._game.history_json(c._match)[mark:]]


def _after_the_base_plate_is_cleared(sim, c, loop, seen) -> None:
    """The sensors count the answered pawns off the disc; picking them up off the base plate is no
    event: no ``removed`` (nor a second fall) reaches the game, and no card says they disagree."""
    mark = len(c._game.history_json(c._match))
    assert len(c.message()["sensing"]["pawns"]) == 3  # told on the read loop's thread, not the request's
    loop.step()
    sensing = c.message()["sensing"]
    assert [(p["size"], p["zone"], p["number"]) for p in sensing["pawns"]] == [("medium", "yellow", 6)]
    n = len(seen)
    assert "reconcile" not in _cards_while(loop, c, 80)  # the disc and the game agree
    assert sim.pick_up_base() == 2
    assert "reconcile" not in _cards_while(loop, c, 200)
    assert [e["event"] for e in sim.truth if e["event"] == "picked_up"] == ["picked_up", "picked_up"]
    assert seen[n:] == []  # both pick-ups read as pawns lifted off the base plate
    assert _fell_since(c, mark) == []  # no `removed`, no second fall
    msg = c.message()
    assert msg["state"]["phase"] == "place" and msg["state"]["disc"] == {"small": 0, "medium": 1, "large": 0}
    assert [p["size"] for p in msg["sensing"]["pawns"]] == ["medium"]


def test_pawns_the_host_says_fell_are_on_the_base_plate_and_their_pick_up_is_no_removal():
    sim, c, loop, seen = _knocked_unseen()
    prompt = _card(c, "tip_no_fall")
    c.resolve_prompt(prompt["id"], "These pawns fell", pawns={"medium": 1, "large": 1})
    assert c._game.history_json(c._match)[-1]["type"] == "fall"
    _after_the_base_plate_is_cleared(sim, c, loop, seen)


def test_a_fall_entered_by_hand_while_the_question_is_open_reaches_the_sensors_too():
    sim, c, loop, seen = _knocked_unseen()
    c.apply({"type": "fall", "pawns": {"medium": 1, "large": 1}, "tipped": True})
    assert _card(c, "tip_no_fall") is None  # the fall answered it
    _after_the_base_plate_is_cleared(sim, c, loop, seen)


def test_a_fall_entered_by_hand_during_a_tip_that_settles_with_no_fall_seen_reaches_the_sensors():
    sim, c, loop = _sim_table(seed=0)
    _play(c, loop, TWO_LAND)
    seen = _spy(c)
    c.sim_command("knock_base", {})
    assert _run(loop, c, lambda m: [e["event"] for e in seen] == ["tipped"], max_steps=100)
    c.apply({"type": "fall", "pawns": {"medium": 1, "large": 1}, "tipped": True})  # before it settles
    assert _run(loop, c, lambda m: [e["event"] for e in seen] == ["tipped", "settled"], max_steps=600)
    assert _card(c, "tip_no_fall") is None  # not asked: a fall was entered since the tip
    _after_the_base_plate_is_cleared(sim, c, loop, seen)


def test_replaying_the_session_hands_its_pipeline_the_host_s_fall_as_live(tmp_path):
    import io
    import json

    from companion.session.replay_cli import replay_stored
    from tests.companion.table.test_reconcile import _sim_table_logged

    sim, c, loop, store = _sim_table_logged(0, tmp_path)
    sim, c, loop, seen = _knocked_unseen(table=(sim, c, loop))
    c.resolve_prompt(_card(c, "tip_no_fall")["id"], "These pawns fell", pawns={"medium": 1, "large": 1})
    _after_the_base_plate_is_cleared(sim, c, loop, seen)
    sid = c.session_id
    told = [e for e in store.events(sid) if e["event"] == "told_fallen"]
    assert [e["pawns"] for e in told] == [{"small": 0, "medium": 1, "large": 1}]
    store.close()
    out, err = io.StringIO(), io.StringIO()
    assert replay_stored(str(sid), out, data_dir=tmp_path, err=err) == 0, err.getvalue()
    assert "gives the same game" in err.getvalue()
    replayed = [json.loads(line) for line in out.getvalue().splitlines()]
    after = [e["event"] for e in replayed if e["t_ms"] > told[0]["t_ms"]]
    assert after == []  # the pick-ups off the base plate are no events in the replay either
