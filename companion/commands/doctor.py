"""``dingo-companion doctor``: what is connected, and how well each load cell reads.

With a ``[venue]`` section it also tries the venue's MQTT broker once (docs/venue.md).

Lists serial devices and what answers on them, reads a few seconds from the configured
sample source, and prints per cell: measured against configured rate, noise in grams,
glitch and saturation counts, unique values (a stuck cell), and a plain verdict with
the fix to try (every verdict is explained in hardware/README.md).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from typing import Any, TextIO

from companion.calibration import CellReport, diagnose_cell, summarise


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``doctor`` command."""
    p = subparsers.add_parser("doctor", help="check the serial devices and every load cell",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", help="configuration file (default: the usual one)")
    p.add_argument("--source", help="sample source: serial, gpio, sim or trace (default: as configured)")
    p.add_argument("--seconds", type=float, default=3.0, help="seconds to read the cells (default 3)")
    p.add_argument("--no-probe", action="store_true", help="do not open serial devices to ask who they are")
    p.set_defaults(func=run)


def list_serial(out: TextIO, baud: int, probe_devices: bool) -> None:
    """Print every serial device and what answers on it (only USB devices are probed)."""
    from firmware_bridge.host import list_devices, probe

    devices = list_devices()
    print("Serial devices:", file=out)
    if not devices:
        print("  none found (is the Pico plugged in with a data cable?)", file=out)
    for path, desc, usb in devices:
        if not usb:
            answer = "not a USB device (a built-in UART): not probed"
        else:
            answer = probe(path, baud) if probe_devices else "not probed"
        print(f"  {path} {desc}: {answer}", file=out)


def read_cells(source: Any, seconds: float) -> tuple[list[Any], Counter[str], list[str]]:
    """Samples and fault counts from ``seconds`` of reading (the source is opened and closed here)."""
    from companion.sensing.trace import Sample

    samples: list[Sample] = []
    faults: Counter[str] = Counter()
    messages: list[str] = []
    source.open()
    try:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            for item in source.read(min(0.1, max(0.0, end - time.monotonic()))):
                if isinstance(item, Sample):
                    samples.append(item)
                else:
                    faults[item.kind] += 1
                    if len(messages) < 5:
                        messages.append(item.message)
    finally:
        source.close()
    return samples, faults, messages


def cell_reports(source: Any, samples: list[Any]) -> list[CellReport]:
    """One report per cell; rates are over the samples' own time span (t_ms)."""
    header = source.header
    window = summarise(samples, len(header.cells))
    span = window.duration_s + 1.0 / header.rate_hz
    return [diagnose_cell(i, stats, span, header.rate_hz, header.cells[i].counts_per_gram)
            for i, stats in enumerate(window.cells)]


def print_reports(out: TextIO, reports: list[CellReport]) -> None:
    """The per-cell table, then one line per problem with its fix."""
    print(f"{'cell':>4}  {'rate Hz':>11}  {'noise g':>8}  {'glitches':>8}  {'saturated':>9}  "
          f"{'missed':>6}  {'unique':>6}  verdict", file=out)
    for r in reports:
        noise = "-" if r.noise_g is None else f"{r.noise_g:.3f}"
        rate = f"{r.rate_hz:g}/{r.configured_hz:g}"
        print(f"{r.cell:>4}  {rate:>11}  {noise:>8}  {r.glitches:>8}  {r.saturated:>9}  {r.missed:>6}  "
              f"{r.unique:>6}  {r.verdict}", file=out)
    for r in reports:
        if r.verdict != "ok":
            print(f"cell {r.cell}: {r.verdict}: {r.fix}", file=out)


def run(args: argparse.Namespace) -> int:
    """Entry point of ``dingo-companion doctor``; exit status 0 only if every cell is ok."""
    from companion.config import ConfigError, load_config
    from hardware.sources import SourceError, make_source, resolve_kind

    out = sys.stdout
    if args.seconds <= 0:
        print("error: --seconds must be positive", file=sys.stderr)
        return 2
    try:
        config = load_config(args.config)
        kind = resolve_kind(config, args.source)
        source = make_source(config, kind)
    except (ConfigError, SourceError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    list_serial(out, config.source.serial.baud, not args.no_probe)
    from companion.venue.doctor import report_venue

    venue_ok = report_venue(config, out)
    print(f"\nReading {args.seconds:g} s from the {kind} source...", file=out, flush=True)
    try:
        samples, faults, messages = read_cells(source, args.seconds)
    except SourceError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if faults:
        print("Source faults: " + ", ".join(f"{k} x{n}" for k, n in sorted(faults.items())), file=out)
        for m in messages:
            print(f"  {m}", file=out)
    if not samples:
        print("No samples at all: nothing answers on this source. Check the cable and the [source] "
              "settings, then see hardware/README.md.", file=out)
        return 1
    reports = cell_reports(source, samples)
    print_reports(out, reports)
    bad = [r for r in reports if r.verdict != "ok"]
    print("\nVerdict: " + ("every cell reads well." if not bad else
                           f"{len(bad)} cell(s) need attention (see above)."), file=out)
    return 0 if not bad and venue_ok else 1
