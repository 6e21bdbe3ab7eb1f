"""Crash test: SIGKILL a process playing games through the store >= 200 times at random moments.

After every kill: the database opens cleanly (no recovery needed), ``PRAGMA integrity_check`` is
``ok``, every acknowledged action is in the log unchanged, the log holds at most one action beyond
the last acknowledgement (the one in flight), and the state rebuilt from the log at the last
acknowledged row equals the state the killed process had. The next child resumes from the log.
The number of kills is ``DINGO_CRASH_KILLS`` (default 200).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import random
import select
import signal
import time
from pathlib import Path

import pytest

from companion.session import SessionStore
from companion.session.rebuild import rebuild_match

CHILD = Path(__file__).with_name("crash_child.py")
KILLS = int(os.environ.get("DINGO_CRASH_KILLS", "200"))


def sha(obj: object) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()[:16]


def _load_child():
    spec = importlib.util.spec_from_file_location("dingo_crash_child", CHILD)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _read_lines(fd: int, data: bytearray, lines: int, timeout_s: float = 60.0) -> None:
    """Read from ``fd`` into ``data`` until it holds ``lines`` complete lines (or the child ended).

    ``timeout_s`` only bounds a child that hangs; a busy machine just makes this wait longer.
    """
    end = time.monotonic() + timeout_s
    while data.count(b"\n") < lines:
        left = end - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            got = data.count(b"\n")
            raise AssertionError(f"the child printed {got} of {lines} lines in {timeout_s:g} s")
        chunk = os.read(fd, 65536)
        if not chunk:
            return
        data += chunk


def _run_and_kill(child, data_dir: Path, seed: int, rng: random.Random) -> list[list[str]]:
    """Fork a child playing through the store, SIGKILL it at a random moment, return its complete lines.

    The child is a forked copy of this process (own pid, own SQLite connection opened after the
    fork), so no interpreter start-up is paid per kill. One kill in five lands at a random time
    from the fork (open, check, resume); the others once the store is open and the child has
    printed 2-10 more lines (a resumption, acknowledgements), after a further random delay. The
    progress is counted in the child's own lines, not in wall time, so a busy machine that slows
    the child down does not make the kills land before it has done anything.
    """
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            os.close(r)
            child.play_forever(str(data_dir), seed, os.fdopen(w, "w", buffering=1))
        finally:
            os._exit(3)
    os.close(w)
    data = bytearray()
    try:
        if rng.random() < 0.2:
            time.sleep(rng.uniform(0.0, 0.08))
        else:
            _read_lines(r, data, 1 + rng.randint(2, 10))  # "OPEN <status>", then 2-10 more
            time.sleep(rng.uniform(0.0, 0.2))
    finally:
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    while chunk := os.read(r, 65536):
        data += chunk
    os.close(r)
    if not (os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL):
        raise AssertionError(f"child ended by itself (status {status}): {data.decode()[-2000:]}")
    pieces = data.decode().split("\n")
    return [p.split() for p in pieces[:-1]]  # the last piece is cut by the kill (or empty)


@pytest.mark.slow
def test_sigkill_at_random_moments_loses_nothing(tmp_path: Path) -> None:
    rng = random.Random(20261129)
    child = _load_child()
    acked: dict[tuple[int, int], str] = {}
    mid_game_kills = resumed = 0
    for k in range(KILLS):
        lines = _run_and_kill(child, tmp_path, seed=k, rng=rng)
        last_state: dict[int, tuple[int, str]] = {}
        for parts in lines:
            if parts[0] == "ACK":
                sid, seq = int(parts[1]), int(parts[2])
                acked[(sid, seq)] = parts[3]
                last_state[sid] = (seq, parts[4])
            elif parts[0] == "RESUME":
                resumed += 1
        with SessionStore(tmp_path) as store:
            assert store.report.ok, f"kill {k}: {store.report.message}"  # never needed recovery
            assert store.integrity_check() == "ok", f"kill {k}"
            logged = {
                (r_sid, r.seq): sha(r.action) for r_sid in {s for s, _ in acked} for r in store.actions(r_sid)
            }
            missing = [key for key, digest in acked.items() if logged.get(key) != digest]
            assert not missing, f"kill {k}: acknowledged actions lost or changed: {missing[:5]}"
            for sid, (seq, state_digest) in last_state.items():
                rows = store.actions(sid)
                assert rows[-1].seq <= seq + 1, f"kill {k}: more than one unacknowledged row"
                rebuilt = rebuild_match(store, sid, upto_seq=seq)
                assert sha(rebuilt.state.to_json()) == state_digest, f"kill {k}: rebuilt state differs"
                mid_game_kills += 1
            for info in store.unfinished():
                rebuild_match(store, info.id)  # the whole log replays: the next start can resume
    print(f"\ncrash test so far: {KILLS} SIGKILLs, {len(acked)} acknowledged actions, "
          f"{mid_game_kills} kills mid-game, {resumed} resumptions, 0 lost")
    assert len(acked) > 10 * KILLS // 4, f"too little progress to mean anything: {len(acked)} acks"
    assert mid_game_kills >= KILLS // 2 and resumed >= KILLS // 2  # most kills land mid-game
    print(
        f"\ncrash test: {KILLS} SIGKILLs, {len(acked)} acknowledged actions, "
        f"{mid_game_kills} kills mid-game, {resumed} resumptions, 0 lost"
    )
