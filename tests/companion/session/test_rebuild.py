"""Rebuilding a game from the log after a crash (no close, buffered trace lost)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from companion.games.dingo_disc import Match, action_from_json
from companion.session import SessionError, SessionStore
from companion.session.randomplay import new_game, next_action
from companion.session.rebuild import rebuild_match


def test_rebuild_after_crash_equals_live_match(tmp_path: Path) -> None:
    rng = random.Random(7)
    setup = new_game(rng)
    live = Match(action_from_json(setup))
    store = SessionStore(tmp_path)
    sid = store.start_session(setup=setup)
    states = {1: live.state.to_json()}
    for _ in range(120):
        if rng.random() < 0.1 and len(live.history) > 1:
            live.undo()
            seq = store.append_undo(sid)
        else:
            action = next_action(live.state.to_json(), rng)
            if action is None:
                break
            live.apply(action_from_json(action))
            seq = store.append_action(sid, action, source="page")
        states[seq] = live.state.to_json()
    # "power cut": the store is never closed; a new process opens the file
    again = SessionStore(tmp_path)
    assert [i.id for i in again.unfinished()] == [sid]
    assert rebuild_match(again, sid).state.to_json() == live.state.to_json()
    for seq in (1, 5, 40, max(states)):
        assert rebuild_match(again, sid, upto_seq=seq).state.to_json() == states[seq]
    store.close()
    again.close()


def test_rebuild_refuses_clearly(tmp_path: Path) -> None:
    with SessionStore(tmp_path) as store:
        other = store.start_session("chess", ["Ann", "Bob"])
        with pytest.raises(SessionError, match="'chess' is not a game this companion knows"):
            rebuild_match(store, other)
        empty = store.start_session("dingo-disc", ["Ann", "Bob"])
        with pytest.raises(SessionError, match="does not start with new_game"):
            rebuild_match(store, empty)
        bad = store.start_session(setup=new_game(random.Random(1)))
        store.append_action(bad, {"type": "end_game"})
        with pytest.raises(SessionError, match="cannot be replayed"):
            rebuild_match(store, bad)
