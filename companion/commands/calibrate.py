"""``dingo-companion calibrate``: guide the host from a bare table to a calibrated one.

Steps: empty disc (offsets), one known weight over each cell in turn (counts per gram
and sign), one pawn of each size (pawn masses), the disc's rest position after a nudge.
Each step is checked for physical sense by ``companion.calibration``; a failed check
repeats the step. The result is saved to the configuration file atomically.
On the simulated table the companion plays the hands itself, so the flow can be tried
(and tested) without hardware.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from companion.calibration import (
    SIZES,
    Calibration,
    CalibrationError,
    Issue,
    Window,
    apply_calibration,
    offsets_from,
    pawn_masses_from,
    rest_check,
    scales_from,
    stillness_issues,
    summarise,
)


class Aborted(Exception):
    """The host quit, or the input ended."""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``calibrate`` command."""
    p = subparsers.add_parser("calibrate", help="calibrate the load cells step by step",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", help="configuration file to read and update (default: the usual one)")
    p.add_argument("--source", help="sample source: serial, gpio, sim or trace (default: as configured)")
    p.add_argument("--weight-g", type=float, help="the known calibration weight in grams (else asked)")
    p.add_argument("--seconds", type=float, default=2.0, help="seconds of readings per step (default 2)")
    p.add_argument("--settle", type=float, default=1.0, help="seconds to wait before reading (default 1)")
    p.add_argument("--sim-speed", type=float, default=1.0,
                   help="simulated table only: run it this many times faster than real time")
    p.add_argument("--yes", action="store_true", help="save without asking at the end")
    p.set_defaults(func=run)


class SimHands:
    """Does what the prompts ask, on the simulator (the page's simulated table)."""

    def __init__(self, source: Any) -> None:
        self.sim = source.simulator
        self.lock = source.lock

    def do(self, step: str, flow: Flow, **kw: Any) -> None:
        """Perform ``step`` and wait until the table is ready to be read."""
        sim = self.sim
        if step == "weight":
            flow.wait_until(lambda: sim.idle and sim.disc.held == 0, 15)  # the last press is over
            with self.lock:
                sim.press(kw["x"], kw["y"], force_g=kw["grams"],
                          duration_ms=(flow.settle + flow.seconds + 1.0) * 1000)
            flow.wait_until(lambda: sim.disc.held > 0, 10)
            flow.drain(0.4)
        elif step == "pawn":
            with self.lock:
                sim.place(kw["size"], 0.0, 0.0)
            flow.wait_until(lambda: sim.idle and any(p["size"] == kw["size"] for p in sim.pawns), 15)
        elif step in ("off", "empty"):
            if sim.pawns:
                with self.lock:
                    for _ in sim.pawns:
                        sim.remove_last()
            flow.wait_until(lambda: sim.idle and not sim.pawns and sim.disc.held == 0, 15)
        elif step == "rest":
            with self.lock:
                sim.bump()
            flow.drain(1.0)


class Flow:
    """The interactive calibration: prompts on ``out``, answers from ``ask``."""

    def __init__(self, source: Any, ask: Callable[[str], str], out: TextIO, *, seconds: float = 2.0,
                 settle: float = 1.0, clock: Callable[[], float] = time.monotonic) -> None:
        if seconds <= 0 or settle < 0:
            raise ValueError("--seconds must be positive and --settle not negative")
        self.source = source
        self.ask_fn = ask
        self.out = out
        self.seconds = seconds
        self.settle = settle
        self.clock = clock
        self.n = len(source.header.cells)
        self.hands = SimHands(source) if getattr(source, "simulator", None) is not None else None
        self.faults = 0
        self.empty: Window | None = None

    # -- I/O helpers --------------------------------------------------------------------------
    def say(self, text: str = "") -> None:
        """Print a line for the host."""
        print(text, file=self.out, flush=True)

    def ask(self, prompt: str) -> str:
        """Ask and return the answer; 'q' or end of input aborts."""
        try:
            answer = self.ask_fn(prompt)
        except EOFError:
            raise Aborted("input ended") from None
        if answer.strip().lower() in ("q", "quit"):
            raise Aborted("quit")
        return answer.strip()

    def drain(self, seconds: float) -> None:
        """Read and discard samples for ``seconds`` of simulated/real time."""
        end = self.clock() + seconds / getattr(self.source, "speed", 1.0)
        while self.clock() < end:
            self.source.read(0.05)

    def wait_until(self, condition: Callable[[], bool], limit_s: float) -> None:
        """Keep reading until ``condition()`` holds (or ``limit_s`` passes)."""
        end = self.clock() + limit_s
        while self.clock() < end:
            self.source.read(0.02)
            with self.hands.lock if self.hands else contextlib.nullcontext():
                if condition():
                    return
        raise CalibrationError("the simulated table did not get ready in time")

    def collect(self) -> Window:
        """Wait ``settle`` seconds, then summarise ``seconds`` of samples."""
        from companion.sensing.trace import Sample

        self.drain(self.settle)
        samples: list[Sample] = []
        start_ms: int | None = None
        give_up = self.clock() + self.seconds * 5 / getattr(self.source, "speed", 1.0) + 2
        while self.clock() < give_up:
            for item in self.source.read(0.1):
                if isinstance(item, Sample):
                    start_ms = item.t_ms if start_ms is None else start_ms
                    samples.append(item)
                else:
                    self.faults += 1
                    self.say(f"  (sensor fault: {item.message})")
            if samples and samples[-1].t_ms - (start_ms or 0) >= self.seconds * 1000:
                return summarise(samples, self.n)
        raise CalibrationError(f"only {len(samples)} samples arrived in the time allowed: "
                               "run `dingo-companion doctor` to see why")

    def step(self, title: str, instruction: str, action: Callable[[], Any]) -> Any:
        """Show a step, wait for Enter, run ``action``; on a failed check offer to repeat."""
        self.say(f"\n== {title}")
        while True:
            self.ask(f"{instruction}\nPress Enter when ready (q to quit): ")
            try:
                return action()
            except CalibrationError as exc:
                self.say(f"  problem: {exc}")
                self.ask("Press Enter to repeat this step (q to quit): ")

    def report(self, issues: list[Issue] | tuple[Issue, ...]) -> None:
        """Print the issues; raise CalibrationError if any is an error (the step repeats)."""
        for issue in issues:
            self.say(f"  {issue}")
        errors = [i for i in issues if i.severity == "error"]
        if errors:
            raise CalibrationError(f"{len(errors)} check(s) failed")

    # -- the steps ----------------------------------------------------------------------------
    def run(self, weight_g: float | None) -> Calibration:
        """Run every step and return the result (not yet saved)."""
        cells = self.source.header.cells
        if self.hands:
            self.say("(simulated table: the companion does each step for you)")

        def empty_step() -> tuple[float, ...]:
            if self.hands:
                self.hands.do("empty", self)
            self.empty = self.collect()
            offsets, issues = offsets_from(self.empty)
            self.report(issues)
            for i, c in enumerate(self.empty.cells):
                self.say(f"  cell {i}: offset {offsets[i]:.0f}, noise {c.noise:.0f} counts")
            return offsets

        offsets = self.step("1/4 Empty disc", "Take everything off the disc and do not touch the table.",
                            empty_step)
        while weight_g is None:
            text = self.ask("\nKnown weight in grams (a kitchen-scale-checked object, 100-1000 g): ")
            try:
                weight_g = float(text)
            except ValueError:
                self.say(f"  {text!r} is not a number")
                continue
            if not 1 <= weight_g <= 5000:
                self.say("  the weight must be between 1 and 5000 g")
                weight_g = None
        grams_w = weight_g

        def scale_step() -> tuple[float, ...]:
            windows = []
            for k, cell in enumerate(cells):
                self.ask(f"Put the {grams_w:g} g weight right over cell {k} "
                         f"(x={cell.x_mm:g} mm, y={cell.y_mm:g} mm). Press Enter: ")
                if self.hands:
                    self.hands.do("weight", self, x=cell.x_mm, y=cell.y_mm, grams=grams_w)
                window = self.collect()
                if not self.hands:  # the simulator has no still weight: its hand trembles by design
                    self.report(stillness_issues(window, self.empty, f"weight over cell {k}"))
                windows.append(window)
                self.say(f"  read cell {k}; take the weight off")
            result = scales_from(offsets, windows, grams_w, [(c.x_mm, c.y_mm) for c in cells], self.empty)
            self.report(result.issues)
            for i, c in enumerate(result.counts_per_gram):
                self.say(f"  cell {i}: {c:.2f} counts per gram")
            return result.counts_per_gram

        cpg = self.step("2/4 Scales", f"You will put the {grams_w:g} g weight over each cell in turn.",
                        scale_step)
        if self.hands:
            self.hands.do("off", self)

        def pawn_step() -> dict[str, float]:
            windows, empties = {}, []
            for size in SIZES:
                self.ask("Check the disc is empty and nobody touches it (reading it empty first). "
                         "Press Enter: ")
                empties.append(self.collect())
                self.ask(f"Put one {size} pawn near the centre of the disc. Press Enter: ")
                if self.hands:
                    self.hands.do("pawn", self, size=size)
                windows[size] = self.collect()
                self.say(f"  read the {size} pawn; take it off")
                if self.hands:
                    self.hands.do("off", self)
            self.ask("Check the disc is empty once more (each pawn is weighed between two empty "
                     "readings). Press Enter: ")
            empties.append(self.collect())
            before = dict(zip(SIZES, empties[:-1], strict=True))
            after = dict(zip(SIZES, empties[1:], strict=True))
            masses, issues = pawn_masses_from(offsets, cpg, windows, before, after)
            self.report(issues)
            self.say("  pawn masses: " + ", ".join(f"{k} {v:.2f} g" for k, v in masses.items()))
            return masses

        masses = self.step("3/4 Pawns", "One pawn of each size, one after the other, taken off between.",
                           pawn_step)

        def rest_step() -> tuple[float, ...]:
            if self.hands:
                self.hands.do("rest", self)
            new, drift, issues = rest_check(offsets, cpg, self.collect(), masses["small"])
            self.report(issues)
            self.say(f"  back at rest: {drift:+.2f} g from the first empty reading")
            return new

        final_offsets = self.step("4/4 Rest position",
                                  "Take everything off, nudge the disc, let it come to rest.", rest_step)
        return Calibration(final_offsets, tuple(cpg), masses)


def _leading_comment(path: Any) -> str:
    """The comment block at the top of the existing file (kept when the file is rewritten)."""
    from pathlib import Path

    lines = []
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        lines.append(line[1:].removeprefix(" "))
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Entry point of ``dingo-companion calibrate``."""
    from companion.config import ConfigError, default_config_path, load_config, save_config
    from hardware.sources import SourceError, make_source

    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    path = args.config or default_config_path()
    try:
        options = {"speed": args.sim_speed} if args.sim_speed != 1.0 else {}
        from hardware.sources import resolve_kind

        if options and resolve_kind(config, args.source) != "sim":
            raise SourceError("--sim-speed only applies to the simulated table (--source sim)")
        source = make_source(config, args.source, **options)
        source.open()
    except (SourceError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    out = sys.stdout

    def ask(prompt: str) -> str:
        out.write(prompt)
        out.flush()
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        return line

    try:
        flow = Flow(source, ask, out, seconds=args.seconds, settle=args.settle)
        result = flow.run(args.weight_g)
        new = apply_calibration(config, result)
        flow.say(f"\nCalibration done. Offsets {[round(o) for o in result.offsets]}, counts/g "
                 f"{[round(c, 2) for c in result.counts_per_gram]}, pawns {result.pawn_mass_g}.")
        if not args.yes and flow.ask(f"Save to {path}? [Y/n] ").lower() not in ("", "y", "yes"):
            flow.say("Not saved.")
            return 1
        save_config(path, new, _leading_comment(path))
        flow.say(f"Saved to {path}.")
        return 0
    except Aborted as exc:
        print(f"\ncalibration stopped ({exc}); nothing was saved", file=sys.stderr)
        return 1
    except (CalibrationError, ConfigError, ValueError) as exc:
        print(f"error: {exc}; nothing was saved", file=sys.stderr)
        return 1
    finally:
        source.close()
