"""``dingo-companion bench corruption``: random damage to a session log; what is kept and what is lost.

For each seed: a log of ``--sessions`` sessions of 40 actions, then one random bit of one byte
flipped (past the file header), or one random 1 KiB page overwritten with random bytes; the log
is opened as ``run`` opens it. Counts the sessions kept intact (their actions exactly as
written), marked damaged (hidden, listed by ``sessions check``), lost entirely, and kept but
wrong (must be 0).
"""

from __future__ import annotations

import argparse
import logging
import random
import sqlite3
import tempfile
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``bench corruption``."""
    p = subparsers.add_parser("corruption", help="random damage to a session log: what is kept and lost")
    p.add_argument("--seeds", type=int, default=20)
    p.add_argument("--sessions", type=int, default=20)
    p.set_defaults(func=run)


def _expected(sid: int) -> list[dict]:
    pad = "x" * 50 * (sid - 1)
    return [{"type": "roll", "number": 2 + j % 5, "colour": "red", "pad": pad} for j in range(40)]


def _filled(d: Path, n: int) -> None:
    from companion.session import SessionStore

    s = SessionStore(d)
    for _ in range(n):
        sid = s.start_session("dingo-disc", ["Ann", "Bob"])
        for a in _expected(sid):
            s.append_action(sid, a)
    s.close()
    db = sqlite3.connect(d / "sessions.db")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


def measure(seeds: int, n: int, mode: str) -> dict[str, int]:
    """Totals over ``seeds`` damaged logs."""
    from companion.session import SessionStore

    tot = {"kept": 0, "damaged": 0, "lost": 0, "wrong": 0}
    for seed in range(seeds):
        with tempfile.TemporaryDirectory() as tmp:
            d = Path(tmp)
            _filled(d, n)
            p = d / "sessions.db"
            rng = random.Random(seed)
            data = bytearray(p.read_bytes())
            if mode == "byte":
                i = rng.randrange(1024, len(data))
                data[i] ^= 1 << rng.randrange(8)
            else:
                i = rng.randrange(1, len(data) // 1024) * 1024
                data[i:i + 1024] = rng.randbytes(1024)
            p.write_bytes(bytes(data))
            s = SessionStore(d)
            kept = [i.id for i in s.list_sessions()]
            damaged = s.damaged_sessions()
            tot["kept"] += len(kept)
            tot["damaged"] += len(damaged)
            tot["lost"] += n - len(kept) - len(damaged)
            tot["wrong"] += sum(1 for i in kept if s.effective_actions(i) != _expected(i))
            s.close()
    return tot


def run(args: argparse.Namespace) -> int:
    """Print the figures."""
    logging.disable(logging.CRITICAL)
    wrong = 0
    for label, mode in (("one random bit flipped", "byte"), ("one random 1 KiB page overwritten", "page")):
        t = measure(args.seeds, args.sessions, mode)
        wrong += t["wrong"]
        print(f"{label}, {args.seeds} logs x {args.sessions} sessions of 40 actions: "
              f"kept intact {t['kept']}, "
              f"marked damaged {t['damaged']}, lost entirely {t['lost']}, kept but wrong {t['wrong']}")
    return 1 if wrong else 0
