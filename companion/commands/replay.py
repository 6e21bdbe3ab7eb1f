"""``dingo-companion replay TRACE``: print the sensed events of a trace as JSON Lines.

stdout carries exactly one JSON object per sensed event (``table-trace.md``), nothing else;
diagnostics go to stderr. A malformed trace is rejected with its line number and exit status 1,
and *nothing* is printed on stdout: events are buffered (in a spooled temporary file, so memory
stays bounded however long the trace) and written out only once the whole trace has been read
without error. If TRACE is not an existing file it is taken as a stored session id and handed
to ``companion.session.replay_cli.replay_stored``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import TextIO

SPOOL_BYTES = 8 * 1024 * 1024  # events kept in memory up to this size, then on disk


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``replay`` subcommand."""
    parser = subparsers.add_parser(
        "replay", help="print the sensed events of a table trace (or stored session) as JSON Lines")
    parser.add_argument("trace", metavar="TRACE",
                        help="a *.trace.csv file ('-' for stdin) or a stored session id")
    parser.set_defaults(func=run)


def replay_trace(source: str | Path | TextIO, out: TextIO, err: TextIO) -> int:
    """Replay one trace into JSON Lines on ``out``; returns the exit status (0 ok, 1 malformed)."""
    from companion.sensing.pipeline import Pipeline
    from companion.sensing.trace import TraceError, read_trace

    with tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES, mode="w+", encoding="utf-8") as spool:
        try:
            header, rows = read_trace(source)
            pipe = Pipeline(header)
            for event in pipe.feed_many(rows):  # the same events as feed() on each sample, faster
                spool.write(json.dumps(event) + "\n")
            for event in pipe.finish():
                spool.write(json.dumps(event) + "\n")
        except TraceError as exc:
            name = source if isinstance(source, str | Path) else "<stdin>"
            print(f"replay: {name}: malformed trace: {exc}", file=err)
            return 1
        except UnicodeDecodeError as exc:
            print(f"replay: {source}: not UTF-8 text ({exc.reason})", file=err)
            return 1
        except OSError as exc:
            print(f"replay: cannot read {source}: {exc}", file=err)
            return 1
        spool.seek(0)
        shutil.copyfileobj(spool, out)
    out.flush()
    return 0


def run(args: argparse.Namespace) -> int:
    """Run ``replay`` for a trace file, stdin, or a stored session id."""
    ref: str = args.trace
    if ref == "-":
        return replay_trace(sys.stdin, sys.stdout, sys.stderr)
    path = Path(ref)
    if path.is_file():
        return replay_trace(path, sys.stdout, sys.stderr)
    if path.exists():
        print(f"replay: {ref} is not a regular file", file=sys.stderr)
        return 1
    try:
        from companion.session.replay_cli import replay_stored
    except ImportError:
        print(f"replay: {ref}: no such trace file (and replaying stored sessions is not available "
              "in this build)", file=sys.stderr)
        return 1
    return int(replay_stored(ref, sys.stdout))
