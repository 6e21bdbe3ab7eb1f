"""The mapping of a tip in which no fall was seen: ``track_tip`` marks the ``settled`` (live and
``replay SESSION`` alike) and ``sensed_to_actions`` turns it into the host's question."""

from __future__ import annotations

import pytest

from companion.table.game import TIP_FELL, TIP_STILL, TIP_TIPPED, sensed_to_actions, track_tip
from companion.table.prompts import NO_FALL_PROMPT, PendingPrompts, check_pawns, no_fall_prompt


def mapped(events: list[dict], tipping: str = TIP_STILL) -> list[dict]:
    out = []
    for event in events:
        event, tipping = track_tip(event, tipping)
        out.append(event)
    return out


def in_play(phase: str = "roll", disc: dict | None = None, window: int | None = 0) -> dict:
    return {"game": "dingo-disc", "phase": phase, "current": 1,
            "fall_window": None if window is None else {"seat": window},
            "players": [{"seat": 0, "name": "Anna"}, {"seat": 1, "name": "Ben"}],
            "disc": disc if disc is not None else {"small": 2, "medium": 0, "large": 1}}


def test_a_settled_after_a_tip_without_a_fall_is_marked():
    *_, settled = mapped([{"event": "tipped"}, {"event": "settled"}])
    assert settled == {"event": "settled", "no_fall_seen": True}


def test_a_fall_with_no_pawns_is_no_fall_seen():
    events = [{"event": "tipped"}, {"event": "fell", "pawns": {"small": 0}}, {"event": "settled"}]
    *_, settled = mapped(events)
    assert settled.get("no_fall_seen") is True


@pytest.mark.parametrize("events", [
    [{"event": "tipped"}, {"event": "fell", "pawns": {"small": 1}}, {"event": "settled"}],
    [{"event": "tipped"}, {"event": "fell", "pawns": {"large": 1}}, {"event": "tipped"},
     {"event": "settled"}],
    [{"event": "hand", "duration_ms": 900}, {"event": "settled"}],  # no tip: nothing to ask
    [{"event": "fell", "pawns": {"small": 1}}, {"event": "settled"}],  # a slide-off, no tip
])
def test_no_mark_when_a_fall_was_seen_or_there_was_no_tip(events):
    *_, settled = mapped(events)
    assert "no_fall_seen" not in settled


def test_the_memory_of_one_tip_episode():
    assert track_tip({"event": "tipped"}, TIP_STILL)[1] == TIP_TIPPED
    assert track_tip({"event": "fell", "pawns": {"small": 1}}, TIP_TIPPED) == (
        {"event": "fell", "pawns": {"small": 1}, "tipped": True}, TIP_FELL)
    assert track_tip({"event": "fell", "pawns": {"small": 1}}, TIP_STILL)[1] == TIP_STILL
    assert track_tip({"event": "settled"}, TIP_FELL) == ({"event": "settled"}, TIP_STILL)
    # the memory is one of the three names: anything else (the old booleans too) is an error
    for bad in (True, False, "tilted"):
        with pytest.raises(ValueError, match="tip memory"):
            track_tip({"event": "settled"}, bad)  # type: ignore[arg-type]


def test_the_marked_settled_asks_what_fell_with_big_button_answers():
    (proposal,) = sensed_to_actions({"event": "settled", "no_fall_seen": True}, in_play())
    prompt = proposal["prompt"]
    assert prompt["kind"] == NO_FALL_PROMPT
    assert prompt["title"] == "The disc tipped but no fall was seen. Did any pawns fall?"
    assert list(prompt["choices"]) == ["Nothing fell", "These pawns fell"]
    assert prompt["choices"]["Nothing fell"] is None
    assert prompt["choices"]["These pawns fell"] == {"type": "fall", "tipped": True, "confident": True}
    assert prompt["counts"] == {"choice": "These pawns fell", "max": {"small": 2, "medium": 0, "large": 1}}
    assert prompt["seat"] == 0 and "Anna" in prompt["text"]  # Anna's fall window is open
    assert prompt["resolves"] == "fall"


def test_without_a_fall_window_the_fall_is_the_current_players():
    (proposal,) = sensed_to_actions({"event": "settled", "no_fall_seen": True}, in_play("place", window=None))
    assert proposal["prompt"]["seat"] == 1 and "Ben" in proposal["prompt"]["text"]


@pytest.mark.parametrize("state", [
    in_play("setup"), in_play("over"), in_play("first_player"), in_play("colours"), in_play("confirm_fall"),
    in_play(disc={"small": 0, "medium": 0, "large": 0}),  # nothing on the disc could fall
    {**in_play(), "game": "dingo-disc", "phase": None},
])
def test_no_question_out_of_play_or_with_an_empty_disc(state):
    assert sensed_to_actions({"event": "settled", "no_fall_seen": True}, state) == []


def test_an_unmarked_settled_asks_nothing():
    assert sensed_to_actions({"event": "settled"}, in_play()) == []


def test_the_prompt_keeps_its_counts_and_seat_for_the_page():
    prompts = PendingPrompts()
    item = prompts.add(no_fall_prompt(in_play()))
    (shown,) = prompts.to_json()
    assert shown["id"] == item["id"] and shown["choices"] == ["Nothing fell", "These pawns fell"]
    assert shown["counts"]["max"]["small"] == 2 and shown["seat"] == 0
    assert "counts" not in PendingPrompts().add({"kind": "x", "choices": {"ok": None}})


@pytest.mark.parametrize(("raw", "says"), [
    ({"small": -1}, "cannot be negative"),
    ({"huge": 1}, "no pawn size 'huge'"),
    ({"small": 3}, "only 2 small pawns are on the disc"),
    ({"large": 2}, "only 1 large pawn is on the disc"),
    ({"medium": 1}, "only 0 medium pawns are on the disc"),
    ({"small": 1.5}, "whole number"),
    ({"small": True}, "whole number"),
    ({}, "no pawn counted"),
    ([1, 0, 0], "must be an object"),
])
def test_bad_counts_name_the_problem(raw, says):
    with pytest.raises(ValueError, match=says):
        check_pawns(raw, {"small": 2, "medium": 0, "large": 1})


def test_good_counts_keep_the_sizes_that_fell():
    counted = check_pawns({"small": 2, "medium": 0, "large": 1}, {"small": 2, "large": 1})
    assert counted == {"small": 2, "large": 1}
