"""``dingo-companion bench NAME``: benchmarks that print measured figures."""

from __future__ import annotations

import argparse
import importlib

BENCH_MODULES = ("rules", "sensing", "stream", "session", "venue", "runcpu", "corruption", "pinuid")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``bench`` command and one sub-command per available benchmark module."""
    parser = subparsers.add_parser("bench", help="run a benchmark and print its figures")
    sub = parser.add_subparsers(dest="bench", metavar="NAME")
    for name in BENCH_MODULES:
        try:
            module = importlib.import_module(f"companion.bench.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"companion.bench.{name}":
                continue
            raise
        module.register(sub)
    parser.set_defaults(func=lambda args: parser.print_help() or 0)
