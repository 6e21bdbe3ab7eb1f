"""The table's health as the panel's status LED shows it, and when a fault counts as cleared.

The LED shows ``fault`` while a sensor or source fault is active, else ``waiting`` while the table
waits for the host (no game yet, the game is over, or a host prompt/confirmation is open), else
``running``. :class:`StatusLight` sets the LED only when that changes (a blink pattern restarted
on every state version would flicker), and :class:`FaultClock` decides when a fault has cleared.
:class:`PanelHealth` is the controller's stage that drives the panel and keeps the fault lines.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

HOST_KINDS = frozenset({
    "new_game", "first_player", "give", "review_placement", "confirm_fall", "end_game", "none",
})
"""``expected`` kinds that wait for the host on the page (or the panel's confirm button)."""

INFO_PROMPTS = frozenset({"resume"})
"""Prompt kinds that inform the host but hold nothing up (the game goes on): not ``waiting``."""

FAULT_CLEAR_S = 3.0
"""A source fault counts as cleared after this long without a new report while samples flow."""


def is_fault_key(key: str) -> bool:
    """True for the status keys that are sensor/source faults (``source``, ``cell<N>``)."""
    return key == "source" or (key.startswith("cell") and key[4:].lstrip("-").isdigit())


def led_status(state: dict, pending: list, status: dict[str, str]) -> str:
    """``fault``, ``waiting`` or ``running`` for this state, open prompts and status lines."""
    if any(is_fault_key(k) for k in status):
        return "fault"
    expected = (state.get("expected") or {}).get("kind")
    pending = [p for p in pending if not (isinstance(p, dict) and p.get("kind") in INFO_PROMPTS)]
    if pending or state.get("phase") in (None, "setup", "over") or expected in HOST_KINDS:
        return "waiting"
    return "running"


def turn_light(state: dict) -> tuple[int | None, str | None]:
    """``(seat, colour)`` for the panel's turn LEDs: who acts, in the zone to place in or their colour."""
    expected = state.get("expected") or {}
    seat = expected.get("player")
    players = state.get("players") or []
    player = players[seat] if isinstance(seat, int) and 0 <= seat < len(players) else None
    colour = expected.get("zone") or (player.get("colour") if isinstance(player, dict) else None)
    return seat, colour


class StatusLight:
    """What the panel's status LED shows; it is set again only when the pattern changes."""

    def __init__(self) -> None:
        """Nothing shown yet."""
        self.shown: str | None = None

    def show(self, panel: Any, kind: str) -> bool:
        """Show ``kind`` on ``panel`` unless it already does; True if the LED was set."""
        if panel is None or kind == self.shown:
            return False
        set_status = getattr(panel, "set_status", None)
        if set_status is None:
            return False
        try:
            set_status(kind)
        except Exception:  # noqa: BLE001 - a panel failure must never stop the table
            log.exception("panel set_status(%r) failed", kind)
            return False
        self.shown = kind
        return True

    def forget(self) -> None:
        """A new panel (or a forced refresh): the next :meth:`show` sets the LED whatever it shows."""
        self.shown = None


class FaultClock:
    """When each fault key was last reported, to decide which active faults have cleared."""

    def __init__(self, clear_s: float = FAULT_CLEAR_S) -> None:
        """``clear_s``: quiet time after the last report before a source fault counts as gone."""
        if not clear_s >= 0:
            raise ValueError(f"clear_s must be >= 0, got {clear_s}")
        self.clear_s = clear_s
        self._seen: dict[str, float] = {}

    def reported(self, key: str, now: float) -> None:
        """A fault for ``key`` was (re)reported at ``now`` (monotonic seconds)."""
        self._seen[key] = now

    def cleared(self, status: dict[str, str], sensing_faults: dict, samples_flow: bool,
                now: float) -> list[str]:
        """The active fault keys of ``status`` that are over.

        A fault is over when samples flow, nothing reported it for ``clear_s``, and (for a cell)
        the sensing pipeline no longer lists that cell among its faults.
        """
        if not samples_flow:
            return []
        sensed = {str(c) for c in (sensing_faults or {})}
        gone = []
        for key in status:
            if not is_fault_key(key):
                continue
            if now - self._seen.get(key, float("-inf")) < self.clear_s:
                continue
            if key.startswith("cell") and key[4:] in sensed:
                continue
            gone.append(key)
        for key in gone:
            self._seen.pop(key, None)
        return gone


class PanelHealth:
    """The panel (status LED, turn LEDs, the fall signal) and the fault lines of the status.

    Called with the controller's lock held; handed the status lines, the panel (or None; ``attach``
    replaces it), the faults' quiet time and a monotonic clock. A panel failure is logged, never raised.
    """

    def __init__(self, status: dict[str, str], panel: Any = None, clear_s: float = FAULT_CLEAR_S,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        """See the class."""
        self._status = status
        self._panel = panel
        self._light = StatusLight()
        self._faults = FaultClock(clear_s)
        self._now = monotonic

    def attach(self, panel: Any) -> None:
        """Use ``panel`` from now on (its status LED is set again at the next change)."""
        self._panel = panel
        self._light.forget()

    def reported(self, key: str, message: str) -> bool:
        """A fault for ``key`` (``source``, ``cell<N>``) says ``message``; True if its status line changed."""
        self._faults.reported(key, self._now())
        if self._status.get(key) == message:
            return False
        self._status[key] = message
        return True

    def over(self, sensing_faults: dict, samples_flow: bool) -> list[str]:
        """Forget the fault lines that are over (see :class:`FaultClock`); a feed text for each."""
        texts = []
        for key in self._faults.cleared(self._status, sensing_faults, samples_flow, self._now()):
            self._status.pop(key, None)
            what = "the sample source" if key == "source" else f"cell {key[4:]}"
            texts.append(f"Sensor fault over: {what}")
        return texts

    def published(self, message: dict) -> None:
        """A new version went out (``message``): the status LED and the turn LEDs follow it."""
        self._light.show(self._panel, led_status(message["state"], message["pending"], message["status"]))
        if self._panel is not None:
            _call(self._panel, "show_turn", *turn_light(message["state"]))

    def led(self, state: dict, pending: list) -> None:
        """Set the status LED for ``state`` and the open prompts (nothing else changed)."""
        self._light.show(self._panel, led_status(state, pending, self._status))

    def force(self, kind: str) -> None:
        """Show ``running``, ``fault``, ``waiting`` or ``off`` on the status LED."""
        self._light.show(self._panel, kind)

    def tipped(self) -> None:
        """The disc tipped: the panel signals the fall."""
        if self._panel is not None:
            _call(self._panel, "signal_fall")


def _call(obj: Any, name: str, *args: Any) -> None:
    """Call an optional adapter method; an adapter failure is logged, never raised."""
    fn = getattr(obj, name, None)
    if fn is None:
        return
    try:
        fn(*args)
    except Exception:  # noqa: BLE001
        log.exception("%s.%s failed", type(obj).__name__, name)
