"""``dingo-companion sessions check|salvage``: report and recover damage in the session log.

``check`` reads the log without changing it: SQLite's ``quick_check``, then every session's
checksum chain; it lists the damaged sessions and why (exit 1 if any). ``salvage`` opens the log
as ``run`` does: a file SQLite finds damaged is copied session by session into a fresh file (the
damaged one is kept aside), and sessions whose chain fails are marked and hidden; it prints what
was kept and what was lost.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``sessions`` command."""
    p = subparsers.add_parser("sessions", help="check or salvage the session log")
    p.add_argument("action", choices=("check", "salvage"))
    p.add_argument("--data-dir", type=Path, default=None, help="data directory (default: from the config)")
    p.add_argument("--config", type=Path, default=None, help="configuration file (TOML)")
    p.set_defaults(func=run)


def check(path: Path) -> int:
    """Print what is damaged in the log at ``path``, changing nothing; 0 if all is intact."""
    from companion.session.salvage import verify

    if not path.exists():
        print(f"{path}: no session log")
        return 0
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
    try:
        rows = db.execute("PRAGMA quick_check").fetchall()
        if [r[0] for r in rows] != ["ok"]:
            print(f"{path}: SQLite finds the file damaged: {rows[0][0]}")
            print("recover what is readable with: dingo-companion sessions salvage")
            return 1
        version = db.execute("SELECT version FROM schema_version").fetchone()[0]
        if version < 2:
            print(f"{path}: schema version {version}: rows are checked one by one when it is next opened")
            return 0
        result = verify(db, mark=False)
    except sqlite3.DatabaseError as exc:
        print(f"{path}: cannot be read: {exc}")
        print("recover what is readable with: dingo-companion sessions salvage")
        return 1
    finally:
        db.close()
    print(f"{path}: {result.summary()}")
    for sid, why in sorted(result.damaged.items()):
        print(f"  session {sid}: {why}")
    return 1 if result.damaged else 0


def run(args: argparse.Namespace) -> int:
    """Run ``check`` or ``salvage``."""
    from companion.commands.export import data_dir_from
    from companion.config import ConfigError
    from companion.session.schema import DB_NAME, LogUnavailable

    try:
        data_dir = data_dir_from(args)
    except ConfigError as exc:
        print(f"configuration error: {exc}", file=sys.stderr)
        return 2
    if args.action == "check":
        return check(data_dir / DB_NAME)
    from companion.session import SessionStore

    try:
        store = SessionStore(data_dir)
    except LogUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        print(store.report.message)
        kept = store.list_sessions()
        print(f"{len(kept)} session(s) in the history")
        for sid, why in store.damaged_sessions():
            print(f"  damaged, hidden: session {sid}: {why}")
        return 0 if store.report.status != "memory" else 2
    finally:
        store.close()
