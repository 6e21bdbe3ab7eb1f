"""Commands from the page to the physical simulator (``hardware.sim.TableSimulator``).

Requests are validated here (a clear 4xx message for bad input), then run on the read-loop
thread between two reads (:meth:`SimControl.drain`), so the simulator is only ever touched by
one thread. When no loop runs (tests, tools) they run at once under a lock.
"""

from __future__ import annotations

import math
import queue
import threading
from concurrent.futures import Future
from typing import Any

from companion.table.errors import RequestError

SIZES = ("small", "medium", "large")
FAULT_KINDS = ("disconnected", "stuck", "saturated", "noisy", "none")
COMMANDS = ("place", "press", "bump", "knock", "knock_base", "remove", "clear", "slide", "fault")
FIELDS: dict[str, frozenset[str]] = {
    "place": frozenset({"size", "zone", "number", "x_mm", "y_mm"}),
    "press": frozenset({"x_mm", "y_mm", "grams", "duration_ms"}),
    "fault": frozenset({"cell", "kind"}),
}
"""The body fields each command takes (none for the others); any other field is refused."""


class SimError(ValueError):
    """A simulator command is malformed (the message names the field)."""

    status = 400


def _number(body: dict, key: str, lo: float, hi: float, default: float | None = None) -> float:
    value = body.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise SimError(f"'{key}' must be a number from {lo:g} to {hi:g}, got {value!r}")
    if not lo <= value <= hi:
        raise SimError(f"'{key}' must be from {lo:g} to {hi:g}, got {value!r}")
    return float(value)


def parse_command(command: str, body: Any, layout: Any) -> tuple[str, tuple, dict, str]:
    """Validate ``body`` for ``command``: (simulator method, args, kwargs, human text)."""
    if command not in COMMANDS:
        raise SimError(f"unknown simulator command {command!r}; expected one of {list(COMMANDS)}")
    if body is None:
        body = {}
    if not isinstance(body, dict):
        raise SimError("the simulator command body must be a JSON object")
    unknown = sorted(set(body) - FIELDS.get(command, frozenset()))
    if unknown:
        allowed = sorted(FIELDS.get(command, ()))
        raise SimError(f"'{command}' takes no field {', '.join(map(repr, unknown))}"
                       f" (it takes: {', '.join(allowed) or 'no body'})")
    radius = float(getattr(layout, "radius_mm", 150.0))
    if command == "place":
        size = body.get("size")
        if size not in SIZES:
            raise SimError(f"'size' must be one of {list(SIZES)}, got {size!r}")
        if "zone" in body or "number" in body:
            zones = tuple(getattr(layout, "zones", ()))
            numbers = tuple(getattr(layout, "numbers", ()))
            zone, number = body.get("zone"), body.get("number")
            if zone not in zones:
                raise SimError(f"'zone' must be one of {list(zones)}, got {zone!r}")
            if isinstance(number, bool) or number not in numbers:
                raise SimError(f"'number' must be one of {list(numbers)}, got {number!r}")
            return "place_at", (size, zone, number), {}, f"{size} pawn put on {zone.upper()} {number}"
        x = _number(body, "x_mm", -radius, radius)
        y = _number(body, "y_mm", -radius, radius)
        if math.hypot(x, y) > radius:
            raise SimError(f"({x:g}, {y:g}) mm is off the disc (radius {radius:g} mm)")
        return "place", (size, x, y), {}, f"{size} pawn put at ({x:.0f}, {y:.0f}) mm"
    if command == "press":
        x = _number(body, "x_mm", -radius, radius, 0.0)
        y = _number(body, "y_mm", -radius, radius, 0.0)
        grams = _number(body, "grams", 1.0, 5000.0, 300.0)
        ms = _number(body, "duration_ms", 50.0, 10000.0, 1500.0)
        return "press", (x, y, grams, ms), {}, f"a hand presses {grams:.0f} g for {ms / 1000:.1f} s"
    if command == "bump":
        return "bump", (), {}, "the table is bumped"
    if command == "knock":
        return "knock_over", (), {}, "the disc is knocked over"
    if command == "knock_base":
        return ("knock_over", (True,), {},
                "the disc is knocked over: what falls lands on the base plate and stays there")
    if command == "remove":
        return "remove_last", (), {}, "the last pawn is lifted off"
    if command == "clear":
        return "clear_disc", (), {}, "every pawn is taken off the disc (and off the base plate)"
    if command == "slide":
        return "creep_last", (0.2,), {}, "the last pawn slides off the rim"
    cell = body.get("cell")
    if isinstance(cell, bool) or not isinstance(cell, int) or not 0 <= cell < 16:
        raise SimError(f"'cell' must be a cell index (0..15), got {cell!r}")
    kind = body.get("kind")
    if kind not in FAULT_KINDS:
        raise SimError(f"'kind' must be one of {list(FAULT_KINDS)}, got {kind!r}")
    return "set_fault", (cell, None if kind == "none" else kind), {}, f"cell {cell}: fault {kind}"


class SimControl:
    """Runs validated commands on a simulator, on the read-loop thread when one is running."""

    def __init__(self, simulator: Any) -> None:
        """Wrap ``simulator`` (an object with the TableSimulator live API)."""
        self.simulator = simulator
        self._queue: queue.Queue = queue.Queue()
        self._lock = threading.Lock()
        self.loop_running = False

    def run(self, command: str, body: Any, layout: Any, timeout_s: float = 3.0) -> dict:
        """Validate and run one command; returns ``{"command", "text", "result"}``."""
        method, args, kwargs, text = parse_command(command, body, layout)
        fn = getattr(self.simulator, method, None)
        if fn is None:
            raise SimError(f"this simulator cannot {command}")
        if self.loop_running:
            future: Future = Future()
            self._queue.put((fn, args, kwargs, future))
            result = future.result(timeout=timeout_s)
        else:
            with self._lock:
                result = fn(*args, **kwargs)
        return {"command": command, "text": text, "result": _plain(result)}

    def request(self, command: str, body: Any, layout: Any) -> dict:
        """:meth:`run` for a page's request: RequestError 404 (unknown command), 400 (malformed),
        409 (the simulator refused it) or 503 (it did not answer in time)."""
        try:
            return self.run(command, body, layout)
        except SimError as exc:
            raise RequestError(str(exc), 404 if str(exc).startswith("unknown") else 400) from exc
        except (ValueError, TypeError, RuntimeError) as exc:
            raise RequestError(f"the simulator refused {command}: {exc}", 409) from exc
        except TimeoutError as exc:
            raise RequestError("the simulator did not answer in time", 503) from exc

    def drain(self) -> None:
        """Run queued commands (called by the read loop between reads)."""
        while True:
            try:
                fn, args, kwargs, future = self._queue.get_nowait()
            except queue.Empty:
                return
            with self._lock:
                try:
                    future.set_result(fn(*args, **kwargs))
                except Exception as exc:  # noqa: BLE001 - handed back to the requesting thread
                    future.set_exception(exc)


def _plain(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return str(value)
