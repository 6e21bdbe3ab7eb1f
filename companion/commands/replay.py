"""``dingo-companion replay TRACE``: print the sensed events of a trace as JSON Lines.

stdout carries exactly one JSON object per sensed event (``table-trace.md``), nothing else;
diagnostics go to stderr. A malformed trace is rejected with its line number and exit status 1,
and *nothing* is printed on stdout: events are buffered (in memory, then in a temporary file
past ``SPOOL_BYTES``, so memory stays bounded however long the trace) and written out only once
the whole trace has been read without error. If TRACE is not an existing file it is taken as a
stored session id and handed to ``companion.session.replay_cli.replay_stored``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import IO, TextIO

SPOOL_BYTES = 8 * 1024 * 1024  # events kept in memory up to this size, then on disk


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``replay`` subcommand."""
    parser = subparsers.add_parser(
        "replay", help="print the sensed events of a table trace (or stored session) as JSON Lines")
    parser.add_argument("trace", metavar="TRACE",
                        help="a *.trace.csv file ('-' for stdin) or a stored session id")
    parser.set_defaults(func=run)


class _Spool:
    """Events held back until the whole trace has been read: in memory up to ``SPOOL_BYTES``,
    then in a temporary file (``tempfile`` is imported only then: most traces never need it)."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._size = 0
        self._file: IO[str] | None = None

    def write(self, text: str) -> None:
        if self._file is not None:
            self._file.write(text)
            return
        self._parts.append(text)
        self._size += len(text)
        if self._size > SPOOL_BYTES:
            import tempfile

            self._file = tempfile.TemporaryFile(mode="w+", encoding="utf-8")  # noqa: SIM115 - closed by close()
            self._file.write("".join(self._parts))
            self._parts = []

    def copy_to(self, out: TextIO) -> None:
        if self._file is None:
            out.write("".join(self._parts))
            return
        import shutil

        self._file.seek(0)
        shutil.copyfileobj(self._file, out)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()


def replay_trace(source: str | Path | TextIO, out: TextIO, err: TextIO) -> int:
    """Replay one trace into JSON Lines on ``out``; returns the exit status (0 ok, 1 malformed)."""
    from companion.sensing.pipeline import Pipeline
    from companion.sensing.trace import TraceError, read_trace

    spool = _Spool()
    try:
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
        spool.copy_to(out)
    finally:
        spool.close()
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
