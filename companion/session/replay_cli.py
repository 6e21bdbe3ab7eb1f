"""``dingo-companion replay SESSION``: re-run sensing and rules over a stored session.

Called by ``companion.commands.replay`` when its argument is not a file. stdout gets exactly
the sensed events of the stored raw trace as JSON Lines (the same contract as replaying a trace
file: nothing on stdout unless the whole trace decoded). Then the game is rebuilt the way the live
table built it (``companion.session.replaygame``): the logged host actions (setup, page, panel,
undo) together with the actions the re-sensed events give through the controller's own mapping,
in time order; it is compared with the game the log holds (and the logged ranking). stderr says
how the events and the game compare. Exit status: 0 same game and outcome, 1 different (the
message names the first difference) or damaged data, 2 no such session.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, TextIO

from companion.session.base import SessionError
from companion.session.export import resolve_session
from companion.session.rebuild import rebuild_match
from companion.session.replaygame import Resensed, compare, essence, replay_game, resense
from companion.session.store import SessionStore
from companion.session.tracecodec import ChunkError


def _data_dir() -> Path:
    from companion.config import load_config

    return Path(load_config(None).data.dir).expanduser()


def _ref(text: str) -> str:
    for prefix in ("session:", "session="):
        if text.lower().startswith(prefix):
            return text[len(prefix) :]
    return text


def replay_events(store: SessionStore, session_id: int, spool: TextIO) -> int:
    """Feed the stored trace through a fresh ``Pipeline``; write events as JSON Lines; return the count."""
    n = 0
    for event in resense(store, session_id).events():
        spool.write(json.dumps(event) + "\n")
        n += 1
    return n


def logged_game(store: SessionStore, session_id: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """History and state JSON of the game rebuilt from the logged (effective) actions."""
    state = rebuild_match(store, session_id)
    return [a.to_json() for a in state.history], state.state.to_json()


def replay_stored(
    ref: str, out: TextIO, *, data_dir: str | Path | None = None, err: TextIO | None = None
) -> int:
    """Replay stored session ``ref`` (``12``, ``#12``, ``session:12``, ``latest``); see the module doc."""
    err = err if err is not None else sys.stderr
    directory = Path(data_dir) if data_dir is not None else _data_dir()
    if not (directory / "sessions.db").exists():
        print(f"replay: {ref}: no such trace file, and no session log in {directory}", file=err)
        return 2
    with SessionStore(directory) as store:
        try:
            sid = resolve_session(store, _ref(ref))
        except SessionError as exc:
            print(f"replay: {ref}: not a trace file, and {exc}", file=err)
            return 2
        info = store.session(sid)
        try:
            resensed = resense(store, sid)
        except ChunkError as exc:
            print(f"replay: session {sid}: the stored trace is damaged: {exc}", file=err)
            return 1
        replayed_events = list(resensed.events())
        for event in replayed_events:
            out.write(json.dumps(event) + "\n")
        out.flush()
        print(f"replay: session {sid}: {_events_line(store, sid, resensed)}", file=err)
        try:
            game = replay_game(store, sid, resensed)
        except SessionError as exc:
            print(f"replay: session {sid}: {exc}", file=err)
            return 1
        try:
            history, state = logged_game(store, sid)
        except SessionError as exc:
            print(f"replay: session {sid}: DIFFERENT: the logged actions do not make a game ({exc}); "
                  f"replayed from the trace, the game reaches phase {game.state.get('phase')}", file=err)
            return 1
        how = (
            f"the {sum(1 for a in store.actions(sid) if a.source != 'sensor')} logged host actions and "
            f"{game.sensed_applied} actions sensed again from the stored trace"
            if info.has_trace
            else "the logged actions (no stored trace)"
        )
        diff = compare(history, state, game)
        if diff is None and info.status == "finished":
            ranks = [p.get("rank") for p in game.state.get("players") or []]
            if info.ranking is not None and ranks != info.ranking:
                diff = f"logged ranking {info.ranking}, replayed {ranks}"
        if diff is not None:
            print(f"replay: session {sid}: DIFFERENT outcome: replaying {how} gives another game: {diff}",
                  file=err)
            return 1
        print(
            f"replay: session {sid} ({info.status}): replaying {how} gives the same game: phase "
            f"{game.state.get('phase')}, ranking {[p.get('rank') for p in game.state.get('players') or []]} "
            "(same outcome)",
            file=err,
        )
        return 0


def _events_line(store: SessionStore, sid: int, resensed: Resensed) -> str:
    """How the re-sensed events compare with the events logged live (as the controller logs them)."""
    from companion.table.game import TIP_STILL, track_tip

    tipping, annotated = TIP_STILL, []
    for event in resensed.events():
        event, tipping = track_tip(event, tipping)
        annotated.append(event)
    from companion.table.answers import TOLD_FALLEN

    logged = [e for e in store.events(sid) if e.get("event") != TOLD_FALLEN]  # host facts, not sensed
    n = len(annotated)
    if _comparable(annotated) == _comparable(logged):
        return f"{n} sensed events from the stored trace; the same as the {len(logged)} logged live"
    again = set(_comparable(annotated))
    same = sum(1 for e in _comparable(logged) if e in again)
    close = set(_comparable(essence(annotated)))
    near = sum(1 for e in _comparable(essence(logged)) if e in close)
    return (
        f"{n} sensed events from the stored trace; of the {len(logged)} logged live {same} are identical, "
        f"{near} the same when measured masses/positions are left out (live, the pipeline had run since "
        "start-up; sensed events the rules refused are not logged)"
    )


def _comparable(events: list[dict[str, Any]]) -> list[str]:
    return sorted(json.dumps(e, sort_keys=True) for e in events)
