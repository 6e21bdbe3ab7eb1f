"""The calibration wizard of the tablet page: ``dingo-companion calibrate``'s flow, step by step.

Steps (the pure maths and physical checks are ``companion.calibration``'s): the empty disc
(offsets), the known weight over each cell in turn (counts per gram), one pawn of each size with
the empty disc read before each and after the last (pawn masses: each pawn is weighed between two
empty readings), the disc at rest after a nudge (rest check). Each :meth:`CalibrationWizard.read`
takes one reading of the current step from the running sample source (a :class:`SampleTap` on the
read loop), cut out by the samples' own time; while the wizard runs, sensed events do not reach
the game. A failed check repeats the step. On the simulated table the wizard does what the host
would do (presses the weight, puts the pawns on, nudges the disc) through the simulator.
:meth:`CalibrationWizard.save` writes the result with ``save_config`` (atomic) and the running
pipeline switches to it at once.
"""

from __future__ import annotations

import collections
import dataclasses
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

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
from companion.table.calsim import SimHands


class WizardError(ValueError):
    """A wizard request that is not possible now (``status``: the HTTP status to answer with)."""

    def __init__(self, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


class SampleTap:
    """Keeps the read loop's recent raw samples and faults, by the samples' own time (thread-safe).

    A reading is cut out by sample time (``t_ms``), never by when a batch arrived: the read loop
    hands samples over in batches (0.1 s, longer on a busy machine), so a window taken "from the
    next batch on, until enough has come" starts up to a batch late and runs up to a batch long,
    and it would take in whatever the table did meanwhile (a weight lifted, a pawn taken off).
    """

    def __init__(self, keep_ms: int = 60_000) -> None:
        """Keep the last ``keep_ms`` of sample time."""
        self._cond = threading.Condition()
        self._samples: collections.deque = collections.deque()
        self._faults: collections.deque = collections.deque()  # (t_ms of the last sample, message)
        self.keep_ms = keep_ms
        self.last_t_ms: int | None = None

    def feed(self, items: list) -> None:
        """Called by the read loop with every item it read (samples and source faults)."""
        with self._cond:
            for item in items:
                if hasattr(item, "raw"):
                    if self.last_t_ms is not None and item.t_ms < self.last_t_ms:
                        self._samples.clear()  # the source's clock started again (a bridge reset)
                        self._faults.clear()
                    self.last_t_ms = item.t_ms
                    self._samples.append(item)
                else:
                    self._faults.append((self.last_t_ms, str(getattr(item, "message", item))))
            if self.last_t_ms is not None:
                oldest = self.last_t_ms - self.keep_ms
                while self._samples and self._samples[0].t_ms < oldest:
                    self._samples.popleft()
                while self._faults and (self._faults[0][0] or 0) < oldest:
                    self._faults.popleft()
            self._cond.notify_all()

    def reset(self) -> None:
        """Forget everything kept."""
        with self._cond:
            self._samples.clear()
            self._faults.clear()
            self.last_t_ms = None

    def wait_for(self, condition: Callable[[], bool], timeout_s: float) -> bool:
        """Wait (woken by each batch of samples) until ``condition()``; False on timeout."""
        end = time.monotonic() + timeout_s
        with self._cond:
            while not condition():
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(min(left, 0.2))
        return True

    def now_ms(self, timeout_s: float) -> int | None:
        """The time of the latest sample (waiting for a first one); None if none came."""
        if not self.wait_for(lambda: self.last_t_ms is not None, timeout_s):
            return None
        return self.last_t_ms

    def window(self, start_ms: int, end_ms: int, timeout_s: float) -> tuple[list[Any], list[str]] | None:
        """The samples with ``start_ms <= t_ms < end_ms`` and the faults meanwhile, once a sample
        at or after ``end_ms`` has arrived; None if it did not within ``timeout_s``."""
        if not self.wait_for(lambda: self.last_t_ms is not None and self.last_t_ms >= end_ms, timeout_s):
            return None
        with self._cond:
            samples = [s for s in self._samples if start_ms <= s.t_ms < end_ms]
            faults = [m for t, m in self._faults if t is not None and start_ms <= t < end_ms]
        return samples, faults


@dataclasses.dataclass
class _Progress:
    """Where the wizard is and what it has found so far."""

    step: str = "idle"  # idle, empty, weight, tare, pawn, rest, done
    index: int = 0      # the cell (weight), the size (pawn) or the empty reading (tare: before each
                        # pawn, and once more after the last)
    weight_g: float = 0.0
    empty: Window | None = None
    offsets: tuple[float, ...] = ()
    weights: list = dataclasses.field(default_factory=list)
    cpg: tuple[float, ...] = ()
    tares: list = dataclasses.field(default_factory=list)
    pawns: dict = dataclasses.field(default_factory=dict)
    masses: dict = dataclasses.field(default_factory=dict)
    result: Calibration | None = None
    messages: list = dataclasses.field(default_factory=list)
    problem: str | None = None
    saved_to: str | None = None


class CalibrationWizard:
    """One calibration at a time, driven by the page's host through the API (thread-safe)."""

    def __init__(self, *, loop: Any, controller: Any, header: Any, config: Any, save_path: Path,
                 make_pipeline: Callable[[Any], Any], simulator: Any = None, sim_lock: Any = None,
                 seconds: float = 2.0, settle_s: float = 1.0, speed: float = 1.0) -> None:
        """``loop``: the read loop (``tap``, ``hold_events``, ``replace_pipeline``); save to ``save_path``."""
        if not seconds > 0 or settle_s < 0 or not speed > 0:
            raise ValueError("seconds and speed must be positive and settle_s not negative")
        self.loop = loop
        self.controller = controller
        self.header = header
        self.config = config
        self.save_path = Path(save_path)
        self.make_pipeline = make_pipeline
        self.seconds = seconds
        self.settle_s = settle_s
        self.speed = speed
        self.tap = SampleTap()
        self.hands = (SimHands(controller, simulator, self.tap, header, sim_lock)
                      if simulator is not None else None)
        self._lock = threading.Lock()  # one reading at a time
        self._p = _Progress()

    @property
    def n(self) -> int:
        """Number of load cells."""
        return len(self.header.cells)

    # -- the host's requests --------------------------------------------------------------------

    def status(self) -> dict:
        """What the page shows: the step, what to do, the checks' messages, the result."""
        p = self._p
        out: dict[str, Any] = {
            "active": p.step != "idle", "step": p.step, "index": p.index, "cells": self.n,
            "simulated": self.hands is not None, "weight_g": p.weight_g or None,
            "instruction": self._instruction(), "messages": list(p.messages), "problem": p.problem,
            "save_path": str(self.save_path), "saved_to": p.saved_to, "result": None,
        }
        if p.result is not None:
            out["result"] = {"offsets": [round(o, 1) for o in p.result.offsets],
                             "counts_per_gram": [round(c, 4) for c in p.result.counts_per_gram],
                             "pawn_mass_g": {k: round(v, 3) for k, v in p.result.pawn_mass_g.items()}}
        return out

    def start(self, weight_g: Any) -> dict:
        """Begin (or restart) with the known weight in grams; the game ignores the sensors meanwhile."""
        if isinstance(weight_g, bool) or not isinstance(weight_g, int | float) or not 1 <= weight_g <= 5000:
            raise WizardError(f"'weight_g' must be the known weight in grams, 1 to 5000, got {weight_g!r}",
                              400)
        phase = (self.controller.message().get("state") or {}).get("phase")
        if phase not in (None, "setup", "over") and self._p.step == "idle":
            raise WizardError("a game is in progress: calibrate between games (the weights and pawns "
                              "of the calibration would be taken for moves)")
        with self._lock:
            self._p = _Progress(step="empty", weight_g=float(weight_g))
            self.tap.reset()
            self.loop.tap = self.tap.feed
            self.loop.hold_events = True
            self.controller.add_status("calibration", "calibration in progress: the game ignores the sensors")
        return self.status()

    def cancel(self) -> dict:
        """Stop without saving; the sensors go back to the game."""
        with self._lock:
            self._finish()
            self._p = _Progress()
        return self.status()

    def read(self) -> dict:
        """Take the current step's reading (the host says the table is ready) and check it."""
        if not self._lock.acquire(blocking=False):
            raise WizardError("a reading is already being taken")
        try:
            p = self._p
            if p.step in ("idle", "done"):
                raise WizardError("no calibration step to read: start the calibration first"
                                  if p.step == "idle" else "the calibration is done: save it or cancel")
            p.problem = None
            try:
                self._read_step(p)
            except CalibrationError as exc:
                p.problem = f"{exc}: repeat this step"
            return self.status()
        finally:
            self._lock.release()

    def save(self) -> dict:
        """Write the result to the configuration file (atomically) and use it at once."""
        from companion.config import ConfigError, save_config

        with self._lock:
            p = self._p
            if p.result is None:
                raise WizardError("nothing to save yet: finish every step first")
            try:
                new = apply_calibration(self.config, p.result)
                save_config(self.save_path, new)
            except (ConfigError, ValueError) as exc:
                raise WizardError(f"not saved: {exc}", 422) from exc
            except OSError as exc:
                raise WizardError(f"not saved: cannot write {self.save_path}: {exc.strerror or exc}; "
                                  "run `sudo dingo-companion calibrate` on the Pi instead", 503) from exc
            self.config = new
            self.header = dataclasses.replace(
                self.header, pawn_mass_g={**self.header.pawn_mass_g, **p.result.pawn_mass_g},
                cells=tuple(dataclasses.replace(c, offset=round(o, 1), counts_per_gram=round(k, 4))
                            for c, o, k in zip(self.header.cells, p.result.offsets,
                                               p.result.counts_per_gram, strict=True)))
            p.saved_to = str(self.save_path)
            self._finish(new_header=self.header)
            p.step = "idle"
            p.messages.append(f"saved to {self.save_path}; the table uses it now")
            return self.status()

    # -- internals ------------------------------------------------------------------------------

    def _finish(self, new_header: Any = None) -> None:
        """Give the sensors back to the game with a fresh pipeline (so nothing seen leaks into it)."""
        if self._p.step == "idle" and new_header is None:
            return
        header = new_header or self.header
        pipeline = self.make_pipeline(header)
        self.loop.replace_pipeline(pipeline)
        self.controller.use_sensing(header, pipeline.snapshot)
        self.loop.tap = None
        self.loop.hold_events = False
        self.tap.reset()
        self.controller.clear_status("calibration")

    def _collect(self, ready_ms: int | None = None) -> Window:
        """Summarise ``seconds`` of samples from ``settle_s`` after the table was ready.

        ``ready_ms``: the sample time at which it was (the simulator's hands know it); without it,
        the latest sample's when the host asks for the reading. Everything is timed by the
        samples' ``t_ms``, so batches and a busy machine move nothing.
        """
        limit = (self.settle_s + self.seconds) * 5 / self.speed + 5
        if ready_ms is None:
            ready_ms = self.tap.now_ms(limit)
            if ready_ms is None:
                raise CalibrationError(self._no_samples())
        start = ready_ms + round(self.settle_s * 1000)
        got = self.tap.window(start, start + round(self.seconds * 1000), limit)
        if got is None or len(got[0]) < 2:
            raise CalibrationError(self._no_samples())
        samples, faults = got
        if faults:
            self._p.messages.append(f"sensor fault during the reading: {faults[0]}")
        return summarise(samples, self.n)

    def _no_samples(self) -> str:
        return "too few samples arrived in the time allowed (run `dingo-companion doctor` to see why)"

    def _report(self, title: str, issues: list[Issue] | tuple[Issue, ...]) -> None:
        """Keep the checks' messages; an error raises (the step repeats)."""
        p = self._p
        p.messages += [f"{title}: {issue}" for issue in issues]
        errors = [i for i in issues if i.severity == "error"]
        if errors:
            raise CalibrationError(f"{len(errors)} check(s) failed ({errors[0].message})")

    def _read_step(self, p: _Progress) -> None:
        cells = self.header.cells
        if p.step == "empty":
            p.empty = self._collect(self.hands.clear_disc() if self.hands else None)
            p.offsets, issues = offsets_from(p.empty)
            self._report("empty disc", issues)
            p.messages.append("empty disc: offsets " + ", ".join(f"{o:.0f}" for o in p.offsets))
            p.step, p.index, p.weights = "weight", 0, []
        elif p.step == "weight":
            k = p.index
            ready = None
            if self.hands:
                ready = self.hands.press_weight(cells[k].x_mm, cells[k].y_mm, p.weight_g,
                                                self.settle_s + self.seconds)
            window = self._collect(ready)
            if not self.hands:  # the simulator's hand trembles by design: no stillness check there
                what = f"weight over cell {k}"
                self._report(what, stillness_issues(window, p.empty, what))
            p.weights.append(window)
            if len(p.weights) < self.n:
                p.index = k + 1
                return
            try:
                positions = [(c.x_mm, c.y_mm) for c in cells]
                result = scales_from(p.offsets, p.weights, p.weight_g, positions, p.empty)
                self._report("scales", result.issues)
            except CalibrationError:
                p.index, p.weights = 0, []
                raise
            p.cpg = tuple(result.counts_per_gram)
            p.messages.append("scales: " + ", ".join(f"{c:.2f}" for c in p.cpg) + " counts per gram")
            p.step, p.index, p.tares, p.pawns = "tare", 0, [], {}
        elif p.step == "tare":
            ready = self.hands.clear_disc() if self.hands else None
            p.tares.append(self._collect(ready))
            if p.index < len(SIZES):
                p.step = "pawn"
                return
            try:  # each pawn is weighed between the empty disc before and after it
                before = dict(zip(SIZES, p.tares[:-1], strict=True))
                after = dict(zip(SIZES, p.tares[1:], strict=True))
                p.masses, issues = pawn_masses_from(p.offsets, p.cpg, p.pawns, before, after)
                self._report("pawns", issues)
            except CalibrationError:
                p.index, p.tares, p.pawns = 0, [], {}
                raise
            p.messages.append("pawn masses: " + ", ".join(f"{k} {v:.2f} g" for k, v in p.masses.items()))
            p.step, p.index = "rest", 0
        elif p.step == "pawn":
            size = SIZES[p.index]
            ready = self.hands.put_pawn(size) if self.hands else None
            p.pawns[size] = self._collect(ready)
            p.step, p.index = "tare", p.index + 1
        elif p.step == "rest":
            ready = self.hands.nudge() if self.hands else None
            new, drift, issues = rest_check(p.offsets, p.cpg, self._collect(ready), p.masses["small"])
            self._report("rest", issues)
            p.messages.append(f"back at rest: {drift:+.2f} g from the first empty reading")
            p.result = Calibration(tuple(new), p.cpg, dict(p.masses))
            p.step = "done"

    def _instruction(self) -> str:
        p = self._p
        cells = self.header.cells
        if p.step == "idle":
            return "Enter the known weight in grams (a kitchen-scale-checked object) and start."
        if p.step == "empty":
            return "1/4 Empty disc: take everything off the disc and do not touch the table, then read."
        if p.step == "weight":
            c = cells[p.index]
            return (f"2/4 Scales: put the {p.weight_g:g} g weight right over cell {p.index} of {self.n} "
                    f"(x={c.x_mm:.0f} mm, y={c.y_mm:.0f} mm), hands off, then read.")
        if p.step == "tare":
            which = (f"before the {SIZES[p.index]} pawn" if p.index < len(SIZES)
                     else f"once more after the {SIZES[-1]} pawn")
            return f"3/4 Pawns: take everything off the disc (it is read empty {which}), then read."
        if p.step == "pawn":
            return f"3/4 Pawns: put one {SIZES[p.index]} pawn near the centre of the disc, then read."
        if p.step == "rest":
            return "4/4 Rest: take everything off, nudge the disc, let it come to rest, then read."
        return f"Done: save to {self.save_path} to use this calibration, or cancel."
