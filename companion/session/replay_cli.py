"""``dingo-companion replay SESSION``: re-run sensing and rules over a stored session.

Called by ``companion.commands.replay`` when its argument is not a file. stdout gets exactly
the sensed events of the stored raw trace as JSON Lines (the same contract as replaying a trace
file: nothing on stdout unless the whole trace decoded); stderr gets how they compare with the
events logged live, and the outcome of the rules replayed over the stored actions compared with
the logged outcome. Exit status: 0 same outcome, 1 different outcome or damaged data, 2 no such
session.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, TextIO

from companion.session.base import SessionError
from companion.session.export import resolve_session
from companion.session.rebuild import rebuild_match
from companion.session.store import SessionStore
from companion.session.tracecodec import ChunkError

SPOOL_BYTES = 8 * 1024 * 1024


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
    from companion.sensing.pipeline import Pipeline

    header = store.trace_header(session_id)
    if header is None:
        return 0
    pipe = Pipeline(header)
    n = 0
    for sample in store.samples(session_id):
        for event in pipe.feed(sample):
            spool.write(json.dumps(event) + "\n")
            n += 1
    for event in pipe.finish():
        spool.write(json.dumps(event) + "\n")
        n += 1
    return n


def rules_outcome(store: SessionStore, session_id: int) -> dict[str, Any]:
    """The rules core's verdict from the stored actions: phase, winner, draw, rank per seat."""
    state = rebuild_match(store, session_id).state.to_json()
    return {
        "phase": state.get("phase"),
        "winner": state.get("winner"),
        "draw": bool(state.get("draw")),
        "ranking": [p.get("rank") for p in state.get("players") or []],
    }


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
        with tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES, mode="w+", encoding="utf-8") as spool:
            try:
                n = replay_events(store, sid, spool)
            except ChunkError as exc:
                print(f"replay: session {sid}: the stored trace is damaged: {exc}", file=err)
                return 1
            spool.seek(0)
            replayed = [json.loads(line) for line in spool]
            spool.seek(0)
            shutil.copyfileobj(spool, out)
        out.flush()
        logged_events = store.events(sid)
        same_events = _comparable(replayed) == _comparable(logged_events)
        print(
            f"replay: session {sid}: {n} sensed events from the stored trace; "
            f"{'the same as' if same_events else 'different from'} the {len(logged_events)} logged live",
            file=err,
        )
        try:
            verdict = rules_outcome(store, sid)
        except SessionError as exc:
            print(f"replay: session {sid}: {exc}", file=err)
            return 1
        logged = info.ranking
        if info.status != "finished":
            print(
                f"replay: session {sid} is {info.status}; the rules rebuild it at phase {verdict['phase']}",
                file=err,
            )
            return 0
        if logged == verdict["ranking"]:
            print(
                f"replay: session {sid}: rules replayed over {info.n_actions} logged actions give the same "
                f"outcome: ranking {logged}",
                file=err,
            )
            return 0
        print(
            f"replay: session {sid}: DIFFERENT outcome: logged ranking {logged}, "
            f"replayed {verdict['ranking']}",
            file=err,
        )
        return 1


def _comparable(events: list[dict[str, Any]]) -> list[str]:
    return sorted(json.dumps(e, sort_keys=True) for e in events)
