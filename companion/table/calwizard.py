"""The calibration wizard of the tablet page: ``dingo-companion calibrate``'s flow, step by step.

Steps (the pure maths and physical checks are ``companion.calibration``'s): the empty disc
(offsets), the known weight over each cell in turn (counts per gram), one pawn of each size with
the empty disc read before each (pawn masses), the disc at rest after a nudge (rest check). Each
:meth:`CalibrationWizard.read` takes one reading of the current step from the running sample
source (a :class:`SampleTap` on the read loop); while the wizard runs, sensed events do not reach
the game. A failed check repeats the step. On the simulated table the wizard does what the host
would do (presses the weight, puts the pawns on, nudges the disc) through the simulator.
:meth:`CalibrationWizard.save` writes the result with ``save_config`` (atomic) and the running
pipeline switches to it at once.
"""

from __future__ import annotations

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
    """Collects raw samples from the read loop for one reading at a time (thread-safe)."""

    def __init__(self) -> None:
        """Nothing collected; :meth:`feed` is a no-op until :meth:`arm`."""
        self._cond = threading.Condition()
        self._samples: list[Any] = []
        self._faults: list[str] = []
        self._armed = False
        self.last_t_ms: int | None = None

    def feed(self, items: list) -> None:
        """Called by the read loop with every item it read (samples and source faults)."""
        with self._cond:
            for item in items:
                if hasattr(item, "raw"):
                    self.last_t_ms = item.t_ms
                    if self._armed:
                        self._samples.append(item)
                elif self._armed:
                    self._faults.append(str(getattr(item, "message", item)))
            self._cond.notify_all()

    def arm(self) -> None:
        """Start collecting (forgets what was collected before)."""
        with self._cond:
            self._samples, self._faults, self._armed = [], [], True

    def disarm(self) -> None:
        """Stop collecting."""
        with self._cond:
            self._armed = False

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

    def span_ms(self) -> int:
        """Sample time covered by the collected samples."""
        with self._cond:
            return self._samples[-1].t_ms - self._samples[0].t_ms if len(self._samples) > 1 else 0

    def take(self) -> tuple[list[Any], list[str]]:
        """The collected samples and fault messages; collecting stops."""
        with self._cond:
            self._armed = False
            return list(self._samples), list(self._faults)


@dataclasses.dataclass
class _Progress:
    """Where the wizard is and what it has found so far."""

    step: str = "idle"  # idle, empty, weight, tare, pawn, rest, done
    index: int = 0      # the cell (weight) or the size (tare/pawn)
    weight_g: float = 0.0
    empty: Window | None = None
    offsets: tuple[float, ...] = ()
    weights: list = dataclasses.field(default_factory=list)
    cpg: tuple[float, ...] = ()
    tares: dict = dataclasses.field(default_factory=dict)
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
        self.tap.disarm()
        self.controller.clear_status("calibration")

    def _collect(self) -> Window:
        """Let the table settle, then summarise ``seconds`` of samples (timed by the samples)."""
        limit = (self.settle_s + self.seconds) * 5 / self.speed + 5
        self.tap.arm()
        if not self.tap.wait_for(lambda: self.tap.span_ms() >= self.settle_s * 1000, limit):
            raise CalibrationError(self._no_samples())
        self.tap.arm()
        if not self.tap.wait_for(lambda: self.tap.span_ms() >= self.seconds * 1000, limit):
            raise CalibrationError(self._no_samples())
        samples, faults = self.tap.take()
        if faults:
            self._p.messages.append(f"sensor fault during the reading: {faults[0]}")
        return summarise(samples, self.n)

    def _no_samples(self) -> str:
        self.tap.disarm()
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
            if self.hands:
                self.hands.clear_disc()
            p.empty = self._collect()
            p.offsets, issues = offsets_from(p.empty)
            self._report("empty disc", issues)
            p.messages.append("empty disc: offsets " + ", ".join(f"{o:.0f}" for o in p.offsets))
            p.step, p.index, p.weights = "weight", 0, []
        elif p.step == "weight":
            k = p.index
            if self.hands:
                self.hands.press_weight(cells[k].x_mm, cells[k].y_mm, p.weight_g,
                                        (self.settle_s + self.seconds + 1.0) * 1000)
            window = self._collect()
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
            p.step, p.index, p.tares, p.pawns = "tare", 0, {}, {}
        elif p.step == "tare":
            if self.hands:
                self.hands.clear_disc()
            p.tares[SIZES[p.index]] = self._collect()
            p.step = "pawn"
        elif p.step == "pawn":
            size = SIZES[p.index]
            if self.hands:
                self.hands.put_pawn(size)
            p.pawns[size] = self._collect()
            if self.hands:
                self.hands.clear_disc()
            if p.index + 1 < len(SIZES):
                p.step, p.index = "tare", p.index + 1
                return
            try:
                p.masses, issues = pawn_masses_from(p.offsets, p.cpg, p.pawns, p.tares)
                self._report("pawns", issues)
            except CalibrationError:
                p.step, p.index, p.tares, p.pawns = "tare", 0, {}, {}
                raise
            p.messages.append("pawn masses: " + ", ".join(f"{k} {v:.2f} g" for k, v in p.masses.items()))
            p.step, p.index = "rest", 0
        elif p.step == "rest":
            if self.hands:
                self.hands.nudge()
            new, drift, issues = rest_check(p.offsets, p.cpg, self._collect(), p.masses["small"])
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
            return (f"3/4 Pawns: take everything off the disc (it is read empty before the "
                    f"{SIZES[p.index]} pawn), then read.")
        if p.step == "pawn":
            return f"3/4 Pawns: put one {SIZES[p.index]} pawn near the centre of the disc, then read."
        if p.step == "rest":
            return "4/4 Rest: take everything off, nudge the disc, let it come to rest, then read."
        return f"Done: save to {self.save_path} to use this calibration, or cancel."
