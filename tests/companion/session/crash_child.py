"""Child process of the crash test: plays random games through the session store forever.

Usage: ``python crash_child.py DATA_DIR SEED`` (the test calls ``play_forever`` in a forked
process instead, which skips the interpreter start-up). On start it resumes the unfinished session (the
match rebuilt from the log) or starts a new one. It prints one line per event, flushed at once:

* ``OPEN <status>`` after the store opened;
* ``RESUME <sid> <seq> <state-sha>`` when it came back into a game;
* ``ACK <sid> <seq> <action-sha> <state-sha>`` after ``append_action`` returned (acknowledged);
* ``END <sid>`` after ``end_session`` returned.

The parent kills it with SIGKILL at a random moment.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from typing import TextIO

from companion.games.dingo_disc import Match, action_from_json
from companion.sensing.trace import CellSpec, Sample, TraceHeader
from companion.session import SessionStore
from companion.session.randomplay import new_game, next_action, ranking
from companion.session.rebuild import rebuild_match


def sha(obj: object) -> str:
    """Short digest of a JSON value."""
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()[:16]


def play_forever(data_dir: str, seed: int, out: TextIO) -> None:
    """Open the store, resume or start a game, and play (printing acknowledgements) until killed."""
    rng = random.Random(seed)
    header = TraceHeader(
        80,
        tuple(CellSpec(120 * (i % 2), 120 * (i // 2), 84000, 410) for i in range(4)),
        {"small": 2.1, "medium": 4.6, "large": 7.9},
    )
    store = SessionStore(data_dir, chunk_ms=250)
    out.write(f"OPEN {store.report.status}\n")
    out.flush()
    unfinished = store.unfinished()
    if unfinished:
        sid = unfinished[0].id
        match = rebuild_match(store, sid)
        last = store.actions(sid)[-1].seq
        out.write(f"RESUME {sid} {last} {sha(match.state.to_json())}\n")
        out.flush()
    else:
        sid, match = -1, None
    t = 0
    while True:
        if match is None:
            setup = new_game(rng)
            sid = store.start_session("dingo-disc", setup=setup, header=header)
            match = Match(action_from_json(setup))
            out.write(f"ACK {sid} 1 {sha(setup)} {sha(match.state.to_json())}\n")
            out.flush()
        state = match.state.to_json()
        if rng.random() < 0.05 and len(match.history) > 1:
            match.undo()
            seq = store.append_undo(sid, source="crash-test")
            out.write(f"ACK {sid} {seq} {sha({'type': 'undo'})} {sha(match.state.to_json())}\n")
            out.flush()
            continue
        action = next_action(state, rng)
        if action is None:
            store.end_session(sid, ranking=ranking(state), outcome={"winner": state.get("winner")})
            out.write(f"END {sid}\n")
            out.flush()
            match = None
            continue
        match.apply(action_from_json(action))
        seq = store.append_action(sid, action, source="crash-test")
        out.write(f"ACK {sid} {seq} {sha(action)} {sha(match.state.to_json())}\n")
        out.flush()
        samples = []
        for _ in range(8):
            t += 12
            samples.append(Sample(t, tuple(84000 + rng.randint(-200, 200) for _ in range(4))))
        store.append_samples(sid, samples)


if __name__ == "__main__":
    play_forever(sys.argv[1], int(sys.argv[2]), sys.stdout)
