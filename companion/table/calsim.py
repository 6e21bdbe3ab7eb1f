"""The calibration wizard's hands on the simulated table: press the weight, put a pawn, clear, nudge.

Commands go through the controller's :class:`~companion.table.simcontrol.SimControl` (run on the
read-loop thread); waits are timed by the samples arriving (so a faster-than-real-time simulator
is waited for in simulated time), reading the simulator's state under its source's lock.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from companion.calibration import CalibrationError

WAIT_S = 20.0  # wall-clock limit for the simulated table to get ready


class SimHands:
    """Does on the simulator what the wizard's instructions ask the host to do."""

    def __init__(self, controller: Any, simulator: Any, tap: Any, header: Any, lock: Any = None) -> None:
        """``tap``: the wizard's :class:`SampleTap` (wakes the waits); ``lock``: the source's lock."""
        self.controller = controller
        self.sim = simulator
        self.tap = tap
        self.layout = getattr(header, "layout", None)
        self.lock = lock if lock is not None else contextlib.nullcontext()

    def _run(self, command: str, body: dict) -> None:
        if self.controller.sim is None:
            raise CalibrationError("the simulated table is not available")
        self.controller.sim.run(command, body, self.layout)

    def _until(self, condition: Callable[[], bool], what: str) -> None:
        def check() -> bool:
            with self.lock:
                return condition()

        if not self.tap.wait_for(check, WAIT_S):
            raise CalibrationError(f"the simulated table did not get ready in time ({what})")

    def _sample_ms(self, ms: float) -> None:
        """Wait until ``ms`` of sample time has passed."""
        start = self.tap.last_t_ms
        self._until(lambda: start is None or (self.tap.last_t_ms or 0) - start >= ms, f"{ms:g} ms")

    def clear_disc(self) -> None:
        """Lift every pawn off and wait until the disc is empty and still."""
        with self.lock:
            count = len(self.sim.pawns)
        for _ in range(count):
            self._run("remove", {})
        self._until(lambda: self.sim.idle and not self.sim.pawns and self.sim.disc.held == 0, "empty disc")

    def press_weight(self, x_mm: float, y_mm: float, grams: float, duration_ms: float) -> None:
        """Hold ``grams`` over (x, y) for ``duration_ms`` (the weight) and wait until it bears."""
        self._until(lambda: self.sim.idle and self.sim.disc.held == 0, "the last press to end")
        self._run("press", {"x_mm": x_mm, "y_mm": y_mm, "grams": grams,
                            "duration_ms": min(duration_ms, 10000.0)})
        self._until(lambda: self.sim.disc.held > 0, "the weight to bear")
        self._sample_ms(400)

    def put_pawn(self, size: str) -> None:
        """Put one pawn of ``size`` at the centre and wait until it stands still."""
        self._run("place", {"size": size, "x_mm": 0.0, "y_mm": 0.0})
        self._until(lambda: self.sim.idle and any(p["size"] == size for p in self.sim.pawns),
                    f"the {size} pawn")

    def nudge(self) -> None:
        """Bump the table and let the disc come to rest."""
        self._run("bump", {})
        self._sample_ms(1000)
