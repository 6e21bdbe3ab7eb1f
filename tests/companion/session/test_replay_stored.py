"""``replay`` of a stored session: sensing over the stored trace and rules over the stored actions
give the same outcome as the live session."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest

from companion.games.dingo_disc import Match, action_from_json
from companion.sensing.pipeline import Pipeline
from companion.session import SessionStore
from companion.session.randomplay import new_game, next_action, ranking
from companion.session.replay_cli import replay_stored
from hardware.sim import generate


def _live_session(data_dir: Path, seed: int, *, lie_about_ranking: bool = False) -> tuple[int, list[dict]]:
    """Play like ``run`` does: samples into the store and the live pipeline, events and actions logged."""
    header, samples, _ = generate(seed, kind="game")
    rng = random.Random(seed)
    setup = new_game(rng)
    match = Match(action_from_json(setup))
    live_events: list[dict] = []
    with SessionStore(data_dir) as store:
        sid = store.start_session("dingo-disc", setup=setup, header=header)
        pipe = Pipeline(header)
        for i in range(0, len(samples), 8):
            batch = samples[i : i + 8]
            store.append_samples(sid, batch)
            events = [e for s in batch for e in pipe.feed(s)]
            if events:
                store.append_events(sid, events)
                live_events.extend(events)
            action = next_action(match.state.to_json(), rng)  # the table plays on meanwhile
            if action is not None:
                match.apply(action_from_json(action))
                store.append_action(sid, action)
        while (action := next_action(match.state.to_json(), rng)) is not None:
            match.apply(action_from_json(action))
            store.append_action(sid, action)
        tail = pipe.finish()
        if tail:
            store.append_events(sid, tail)
            live_events.extend(tail)
        ranks = ranking(match.state.to_json())
        if lie_about_ranking:
            ranks = list(reversed(ranks)) if len(set(ranks)) > 1 else [r + 1 for r in ranks]
        store.end_session(sid, ranking=ranks)
    return sid, live_events


def test_replaying_a_stored_session_gives_the_same_outcome(tmp_path: Path) -> None:
    sid, live = _live_session(tmp_path, seed=4)
    assert len(live) >= 5  # a real game was sensed
    out, err = io.StringIO(), io.StringIO()
    assert replay_stored(str(sid), out, data_dir=tmp_path, err=err) == 0, err.getvalue()
    replayed = [json.loads(line) for line in out.getvalue().splitlines()]
    assert replayed == live
    assert "the same as the" in err.getvalue() and "same outcome" in err.getvalue()


def test_a_different_logged_outcome_is_reported(tmp_path: Path) -> None:
    sid, _ = _live_session(tmp_path, seed=5, lie_about_ranking=True)
    out, err = io.StringIO(), io.StringIO()
    assert replay_stored(f"session:{sid}", out, data_dir=tmp_path, err=err) == 1
    assert "DIFFERENT outcome" in err.getvalue()


@pytest.mark.parametrize(
    ("ref", "status", "message"), [("77", 2, "no session 77"), ("abc", 2, "must be a number")]
)
def test_bad_references(tmp_path: Path, ref: str, status: int, message: str) -> None:
    SessionStore(tmp_path).close()
    err = io.StringIO()
    assert replay_stored(ref, io.StringIO(), data_dir=tmp_path, err=err) == status
    assert message in err.getvalue()


def test_no_log_at_all(tmp_path: Path) -> None:
    err = io.StringIO()
    assert replay_stored("3", io.StringIO(), data_dir=tmp_path / "empty", err=err) == 2
    assert "no session log" in err.getvalue()


def test_cli_replay_falls_back_to_stored_sessions(tmp_path: Path, monkeypatch, capsys) -> None:
    from companion.cli import main

    sid, live = _live_session(tmp_path, seed=6)
    monkeypatch.setenv("STATE_DIRECTORY", str(tmp_path))
    monkeypatch.setenv("DINGO_CONFIG", str(tmp_path / "none.toml"))
    (tmp_path / "none.toml").write_text("")
    monkeypatch.chdir(tmp_path)
    assert main(["replay", str(sid)]) == 0
    assert len(capsys.readouterr().out.splitlines()) == len(live)
