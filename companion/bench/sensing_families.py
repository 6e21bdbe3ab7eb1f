"""``bench sensing --families``: every figure of issue 14 per table family, tuned vs held back.

For each rate and cell count, every family runs the plan of ``corpus_plan`` (game, bump-only and
fault traces) and is scored by ``companion.bench.sensing_score``. Families are split into *tuned*
and *held back* (leave-one-out: ``--holdout`` names the held-back ones, default the documented
split of ``hardware.simfamily.families``); the pooled held-back figures are the ones that count
and are checked against the issue's targets. The output is a Markdown table per (rate, cells).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from companion.bench.sensing import (
    FAMILY_FIGURES,
    FAMILY_TARGETS,
    _fmt,
    corpus_plan,
    replay_dumped,
    run_table,
)
from companion.bench.sensing_score import Tally

SHORT = {
    "placement_recall": "placement recall",
    "placement_precision": "placement precision",
    "size_accuracy": "size accuracy",
    "zone_number_accuracy": "zone+number accuracy",
    "tip_recall": "tip recall",
    "tip_latency_p50_ms": "tip latency p50 ms",
    "tip_latency_p95_ms": "tip latency p95 ms",
    "fall_counts_exact": "falls exactly right",
    "fall_wrong_confident": "falls wrong, not unsure",
    "fall_confident_precision": "confident falls exactly right",
    "hand_recall": "hand recall",
    "fault_recall_5s": "fault recall 5 s",
    "false_events_per_hour_play": "false events/h, play",
    "false_events_per_hour": "false events/h, bump-only",
    "slowest_trace_realtime_factor": "replay x real time, slowest trace",
    "feed_p999_ms": "feed() p99.9 ms (worst trace)",
    "feed_max_ms": "feed() slowest call ms (same trace)",
}


def split(families: list[str], holdout: str | None) -> tuple[list[str], list[str]]:
    """(tuned, held back) for ``families``; ``holdout`` (comma list) replaces the default held-back set."""
    from hardware.simfamily.families import FAMILIES, HELD_BACK

    if holdout:
        held = [h.strip() for h in holdout.split(",") if h.strip()]
        unknown = [h for h in held if h not in FAMILIES]
        if unknown:
            raise ValueError(
                f"unknown family in --holdout: {', '.join(unknown)}; known: {', '.join(FAMILIES)}"
            )
    else:
        held = list(HELD_BACK)
    return [f for f in families if f not in held], [f for f in families if f in held]


def parse_families(text: str) -> list[str]:
    """The family names of ``--families`` (``all``: every family)."""
    from hardware.simfamily.families import FAMILIES

    if text.strip() == "all":
        return list(FAMILIES)
    names = [f.strip() for f in text.split(",") if f.strip()]
    unknown = [f for f in names if f not in FAMILIES]
    if unknown or not names:
        raise ValueError(f"unknown family {', '.join(unknown) or '(none)'}; known: {', '.join(FAMILIES)}")
    return names


def verdict(rate: float, name: str, value: float | None) -> str:
    """``ok`` / ``MISSED`` against the issue's target for the rate (empty when none applies)."""
    targets = FAMILY_TARGETS.get(10 if rate <= 20 else 80, {})
    if name not in targets or value is None:
        return ""
    op, target = targets[name]
    return "ok" if (value >= target if op == ">=" else value <= target) else "MISSED"


def long_game_feed(family: str, hours: float) -> list[float]:
    """Per-``feed()`` times (us) over one ``hours``-long game of ``family`` (80 Hz, 4 cells)."""
    from companion.bench.sensing import feed_times_us
    from hardware.simfamily.generate import generate

    header, samples, _ = generate(
        4_000_000, family_name=family, cells=4, rate_hz=80, noise_g=0.15, kind="game", minutes=hours * 60
    )
    return feed_times_us(header, samples)


def run_families(args: argparse.Namespace) -> int:
    """Run the per-family benchmark and print (or dump as JSON) the figures."""
    try:
        families = parse_families(args.families)
        tuned, held = split(families, args.holdout)
        rates = [float(r) for r in args.rates.split(",")]
        cell_counts = [int(c) for c in args.cells.split(",")]
        seeds = 1 if args.quick else args.seeds
        plans = {
            (f, r, c): corpus_plan(seeds, args.quick, r, c, family=f, first=getattr(args, "first_seed", 0))
            for r in rates
            for c in cell_counts
            for f in families
        }
    except ValueError as exc:
        print(f"bench sensing: {exc}", file=sys.stderr)
        return 2
    dumped: Path | None = getattr(args, "from_dump", None)
    if dumped is not None and not dumped.is_dir():
        print(f"bench sensing: --from-dump {dumped}: no such directory", file=sys.stderr)
        return 2
    wall = time.perf_counter()
    errors: list[str] = []
    results: dict[str, Any] = {"tuned": tuned, "held_back": held, "tables": {}}
    feed: dict[str, list[float]] = {}
    if args.long_game_hours > 0:
        for f in families:
            feed[f] = long_game_feed(f, args.long_game_hours)
    for r in rates:
        for c in cell_counts:
            tallies: dict[str, Tally] = {}
            for f in families:
                if dumped is not None:
                    table_dir = dumped / f"{f}-{r:g}Hz-{c}cells"
                    if not table_dir.is_dir():
                        print(f"  [{r:g} Hz / {c} cells] {f}: not in the dump ({table_dir})", file=sys.stderr)
                        tallies[f] = Tally()
                        continue
                    tallies[f] = replay_dumped(table_dir, errors)
                    print(f"  [{r:g} Hz / {c} cells] {f}: the dumped traces replayed", file=sys.stderr)
                    continue
                tallies[f] = run_table(plans[(f, r, c)], errors, dump=args.dump)
                if f in feed and r == 80 and c == 4:
                    tallies[f].feed_us = feed[f]
                print(f"  [{r:g} Hz / {c} cells] {f}: {len(plans[(f, r, c)])} traces done", file=sys.stderr)
            pooled = {"TUNED": Tally(), "HELD BACK": Tally()}
            for f, t in tallies.items():
                pooled["HELD BACK" if f in held else "TUNED"].merge(t)
            key = f"{r:g}Hz/{c}cells"
            table = {
                name: {
                    "figures": t.figures(),
                    "tips": t.tips_true,
                    "placements": t.placed_true,
                    "fall_episodes": t.fall_episodes,
                    "hands": t.hands_true,
                    "faults": t.faults_true,
                    "trace_minutes": round(t.trace_ms / 60000, 1),
                    "play_false_kinds": t.play_false_kinds,
                    "quiet_false_kinds": t.quiet_false_kinds,
                }
                for name, t in [*tallies.items(), *pooled.items()]
            }
            results["tables"][key] = table
            if not args.json:
                print_table(key, r, tuned, held, table)
            sys.stdout.flush()
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        print(
            f"\nheld back (the figures that count): {', '.join(held) or '(none)'}; "
            f"tuned: {', '.join(tuned) or '(none)'}"
        )
        print(f"wall time {time.perf_counter() - wall:.1f} s")
    for line in errors:
        print(f"bench sensing: the pipeline failed on {line}", file=sys.stderr)
    return 1 if errors else 0


def print_table(key: str, rate: float, tuned: list[str], held: list[str], table: dict[str, Any]) -> None:
    """One Markdown table: figures down, families across (held-back marked *), pooled columns last."""
    cols = [*tuned, *[f"{h}*" for h in held], "TUNED", "HELD BACK"]
    names = [*tuned, *held, "TUNED", "HELD BACK"]
    print(f"\n### {key}  (* held back; the HELD BACK column is checked against the issue's targets)\n")
    print("| figure | " + " | ".join(cols) + " | target |")
    print("| --- " * (len(cols) + 2) + "|")
    targets = FAMILY_TARGETS.get(10 if rate <= 20 else 80, {})
    for fig in FAMILY_FIGURES:
        cells = []
        for n in names:
            v = table[n]["figures"].get(fig)
            mark = verdict(rate, fig, v) if n == "HELD BACK" else ""
            cells.append(_fmt(v) + (" **MISSED**" if mark == "MISSED" else ""))
        op, target = targets.get(fig, ("", None))
        print(
            f"| {SHORT.get(fig, fig)} | "
            + " | ".join(cells)
            + f" | {op} {'' if target is None else f'{target:g}'} |"
        )
    counts = " | ".join(
        f"{table[n]['placements']}/{table[n]['tips']}/{table[n]['fall_episodes']}/"
        f"{table[n]['hands']}/{table[n]['faults']}"
        for n in names
    )
    print(f"| placements/tips/fall episodes/hands/faults | {counts} | |")
    for n in names:
        kinds = table[n]["play_false_kinds"]
        quiet = table[n]["quiet_false_kinds"]
        if kinds or quiet:
            print(f"\n- {n}: false events in play by kind {kinds}; on bump-only traces {quiet}")
