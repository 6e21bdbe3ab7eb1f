"""The calibration wizard's hands on the simulated table: press the weight, put a pawn, clear, nudge.

Commands go through the controller's :class:`~companion.table.simcontrol.SimControl` (run on the
read-loop thread); waits are woken by the samples arriving, reading the simulator's state under
its source's lock. Each action returns the simulator's sample time at which the table was ready,
so the wizard's reading starts there, however late this thread saw it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from companion.calibration import CalibrationError

WAIT_S = 20.0  # wall-clock limit for the simulated table to get ready
RISE_MS = 400  # a hand bears fully this long after it touched (its rise is at most 0.25 s)
HOLD_MARGIN_MS = 1000  # and lets go this long after the reading ends (its fall is at most 0.35 s)


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

    def _until(self, condition: Callable[[], bool], what: str) -> int | None:
        """Wait until ``condition()``; returns the simulator's sample time (ms) when it held."""
        seen: list[int | None] = []

        def check() -> bool:
            with self.lock:
                if not condition():
                    return False
                seen.append(getattr(self.sim, "t_ms", self.tap.last_t_ms))
                return True

        if not self.tap.wait_for(check, WAIT_S):
            raise CalibrationError(f"the simulated table did not get ready in time ({what})")
        return seen[-1]

    def _events_ms(self, kind: str) -> list[int]:
        """The sample times of the simulator's ``kind`` events so far (call under the lock)."""
        return [e["t_ms"] for e in getattr(self.sim, "truth", ()) if e.get("event") == kind]

    def _last_event_ms(self, kind: str) -> int | None:
        with self.lock:
            times = self._events_ms(kind)
        return times[-1] if times else None

    def clear_disc(self) -> int | None:
        """Lift every pawn off and wait until the disc is empty and still; returns when it was."""
        with self.lock:
            count = len(self.sim.pawns)
        for _ in range(count):
            self._run("remove", {})
        return self._until(lambda: self.sim.idle and not self.sim.pawns and self.sim.disc.held == 0,
                           "empty disc")

    def press_weight(self, x_mm: float, y_mm: float, grams: float, reading_s: float) -> int | None:
        """Hold ``grams`` over (x, y) long enough for a reading of ``reading_s`` (settling included)
        that starts when the returned sample time is reached (the hand bears fully by then)."""
        self._until(lambda: self.sim.idle and self.sim.disc.held == 0, "the last press to end")
        with self.lock:
            presses = len(self._events_ms("hand"))
        self._run("press", {"x_mm": x_mm, "y_mm": y_mm, "grams": grams,
                            "duration_ms": min(RISE_MS + reading_s * 1000 + HOLD_MARGIN_MS, 10000.0)})
        # wait for the hand's event, not for the disc to be held: on a busy machine one batch of
        # samples can hold the whole press, and the held disc is never seen between two batches
        self._until(lambda: len(self._events_ms("hand")) > presses, "the weight to bear")
        began = self._last_event_ms("hand")  # when the hand touched (the samples are kept)
        return (began or 0) + RISE_MS

    def put_pawn(self, size: str) -> int | None:
        """Put one pawn of ``size`` at the centre; returns when it stood still (sample time)."""
        self._run("place", {"size": size, "x_mm": 0.0, "y_mm": 0.0})
        return self._until(lambda: self.sim.idle and any(p["size"] == size for p in self.sim.pawns),
                           f"the {size} pawn")

    def nudge(self) -> int | None:
        """Bump the table; returns the sample time when the disc has come to rest."""
        self._run("bump", {})  # done on the read-loop thread by the time this returns
        bumped = self._last_event_ms("bump")
        if bumped is None:
            bumped = self._until(lambda: True, "the bump")
        return (bumped or 0) + 1000
