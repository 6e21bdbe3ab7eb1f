"""The ``dingo-companion`` command line: the composition root.

Each subcommand lives in its own module under ``companion.commands`` and exposes
``register(subparsers)``, which adds a parser whose ``func(args) -> int`` runs it.
Only the module of the subcommand named on the command line is imported (``replay``
starts without loading the web app, the games or the config model); ``--help`` or no
subcommand imports them all to list them. A missing optional dependency of one
subcommand never breaks the others.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from companion import __version__

# Order here is the order shown in --help.
COMMAND_MODULES = (
    "run",
    "hub",
    "games",
    "play",
    "simulate",
    "replay",
    "bench",
    "calibrate",
    "doctor",
    "export",
    "config",
    "sessions",
)


def command_named(argv: list[str]) -> str | None:
    """The subcommand named in ``argv`` (the first word that is not an option), if it is one of ours."""
    for word in argv:
        if word in ("-h", "--help", "--version"):
            return None
        if not word.startswith("-"):
            return word if word in COMMAND_MODULES else None
    return None


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """Build the top-level parser with every available subcommand (or just ``only``)."""
    parser = argparse.ArgumentParser(
        prog="dingo-companion",
        description="Referee a Dingo Disc game from load cells under the disc.",
    )
    parser.add_argument("--version", action="version", version=f"dingo-companion {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in (only,) if only else COMMAND_MODULES:
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
    words = sys.argv[1:] if argv is None else argv
    parser = build_parser(command_named(words))
    args = parser.parse_args(words)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
