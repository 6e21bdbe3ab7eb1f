"""``dingo-companion export SESSION --format json|csv|trace|bgstats``: take a logged session elsewhere."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from companion.session import SessionStore


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``export`` command."""
    p = subparsers.add_parser(
        "export",
        help="export a logged session (json, csv, trace, bgstats)",
        description="Export one logged session: everything as JSON, the actions as CSV, the raw "
        "trace in dingo-trace/1 format, or a BG Stats push-import play.",
    )
    p.add_argument("session", help="session number, '#N' or 'latest'")
    p.add_argument("--format", "-f", choices=("json", "csv", "trace", "bgstats"), default="json")
    p.add_argument("--out", "-o", type=Path, default=None, help="output file (default: standard output)")
    p.add_argument("--data-dir", type=Path, default=None, help="data directory (default: from the config)")
    p.add_argument("--config", type=Path, default=None, help="configuration file (TOML)")
    p.add_argument("--url", action="store_true", help="with --format bgstats: print the import link instead")
    p.set_defaults(func=run)


def data_dir_from(args: argparse.Namespace) -> Path:
    """``--data-dir``, else the configured data directory."""
    if args.data_dir is not None:
        return Path(args.data_dir).expanduser()
    from companion.config import load_config

    return Path(load_config(args.config).data.dir).expanduser()


def run(args: argparse.Namespace) -> int:
    """Run the export; errors go to stderr with exit status 2 (1 for a damaged log)."""
    from companion.config import ConfigError
    from companion.session import SessionError, SessionStore

    try:
        data_dir = data_dir_from(args)
    except ConfigError as exc:
        print(f"dingo-companion export: {exc}", file=sys.stderr)
        return 2
    if not (data_dir / "sessions.db").exists():
        print(f"dingo-companion export: no session log in {data_dir}", file=sys.stderr)
        return 2
    store = SessionStore(data_dir)
    try:
        if not store.report.ok:
            print(f"dingo-companion export: {store.report.message}", file=sys.stderr)
        return _export(store, args)
    except SessionError as exc:
        print(f"dingo-companion export: {exc}", file=sys.stderr)
        return 2
    finally:
        store.close()


def _export(store: SessionStore, args: argparse.Namespace) -> int:
    """Resolve the session and write it to ``--out`` (atomically) or stdout (streamed)."""
    from companion.atomic import atomic_writer
    from companion.session import SessionError
    from companion.session.export import bgstats_play, bgstats_url, resolve_session, write_export
    from companion.session.tracecodec import ChunkError

    sid = resolve_session(store, args.session)
    if args.url and args.format != "bgstats":
        raise SessionError("--url only applies to --format bgstats")

    def write(stream: TextIO) -> None:
        if args.url:
            stream.write(bgstats_url(bgstats_play(store, sid)) + "\n")
        else:
            write_export(store, sid, args.format, stream)

    try:
        if args.out is None:
            write(sys.stdout)
            sys.stdout.flush()
        else:
            with atomic_writer(args.out) as stream:
                write(stream)
            print(f"wrote session {sid} as {args.format} to {args.out}", file=sys.stderr)
    except ChunkError as exc:
        print(f"dingo-companion export: the stored trace of session {sid} is damaged: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"dingo-companion export: cannot write {args.out}: {exc}", file=sys.stderr)
        return 2
    return 0
