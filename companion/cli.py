"""The ``dingo-companion`` command line: the composition root.

Each subcommand lives in its own module under ``companion.commands`` and exposes
``register(subparsers)``, which adds a parser whose ``func(args) -> int`` runs it.
Modules are imported lazily only to build the parser, so a missing optional
dependency of one subcommand never breaks the others.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from companion import __version__

# Order here is the order shown in --help.
COMMAND_MODULES = (
    "run",
    "games",
    "play",
    "simulate",
    "replay",
    "bench",
    "calibrate",
    "doctor",
    "export",
    "config",
)


def build_parser() -> argparse.ArgumentParser:
    """Build the top-level parser with every available subcommand."""
    parser = argparse.ArgumentParser(
        prog="dingo-companion",
        description="Referee a Dingo Disc game from load cells under the disc.",
    )
    parser.add_argument("--version", action="version", version=f"dingo-companion {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"companion.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"companion.commands.{name}":
                continue  # subcommand not built into this version
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
