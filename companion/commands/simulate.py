"""``dingo-companion simulate``: write a simulated table trace and its ground truth."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``simulate`` subcommand."""
    parser = subparsers.add_parser(
        "simulate", help="simulate a table and write DIR/table.trace.csv + DIR/truth.jsonl")
    parser.add_argument("--out", required=True, type=Path, help="output directory (created if needed)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (same seed, same trace)")
    parser.add_argument("--cells", type=int, choices=(1, 3, 4), default=4, help="load cells (default 4)")
    parser.add_argument("--rate", type=int, choices=(10, 80), default=80, help="samples per second")
    parser.add_argument("--noise", type=float, default=0.1, help="HX711 noise per cell in grams (0..5)")
    parser.add_argument("--minutes", type=float, default=3.0, help="trace length in minutes")
    parser.add_argument("--kind", choices=("game", "bump_only", "faults"), default="game",
                        help="scenario: game-like play, quiet table with bumps, or a cell fault")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Generate the scenario and write both files; returns the exit status."""
    from companion.sensing.trace import write_trace
    from hardware.sim.scenarios import generate

    if not 0 <= args.noise <= 5:
        print(f"simulate: --noise must be between 0 and 5 grams, got {args.noise}", file=sys.stderr)
        return 2
    if not 0.1 <= args.minutes <= 600:
        print(f"simulate: --minutes must be between 0.1 and 600, got {args.minutes}", file=sys.stderr)
        return 2
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(f"simulate: cannot create {args.out}: {exc}", file=sys.stderr)
        return 1
    header, samples, truth = generate(args.seed, cells=args.cells, rate_hz=args.rate, noise_g=args.noise,
                                      kind=args.kind, minutes=args.minutes)
    trace_path = args.out / "table.trace.csv"
    truth_path = args.out / "truth.jsonl"
    write_trace(trace_path, header, samples)
    with open(truth_path, "w", encoding="utf-8") as stream:
        for event in truth:
            stream.write(json.dumps(event) + "\n")
    events = sum(1 for e in truth if e["event"] != "scenario")
    print(f"simulate: wrote {trace_path} ({len(samples)} samples) and {truth_path} ({events} events)",
          file=sys.stderr)
    return 0
