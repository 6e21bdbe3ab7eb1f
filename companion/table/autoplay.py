"""Computer seats: the companion plays a seat by itself when that seat decides.

A game's setup may give a seat to the computer (Pinuid Dobbal's ``seat_1`` / ``seat_2`` options:
``computer-random``, ``computer-greedy``, ``computer-mcts``); the game's options say so with
``options.computer(seat) -> strength | None``. After every change the controller asks whether a
computer seat decides now (:func:`due`); if so one decision starts (a thread by default; tests run
the jobs by hand). The controller draws a seed, the pure core chooses with ``random.Random(seed)``
(:func:`companion.table.computer.decide`; the search runs for about a second), and the move is
applied, if the game has not moved on meanwhile, as an action by the companion. The session log
keeps it with a ``{"event": "computer", "seat", "strength", "seed", "iterations"}`` record in its
``sensed`` list, so the choice can be derived again exactly (:func:`companion.table.computer.rederive`).

Dice stay real: while the dice are expected (a chance step) the computer waits like any player, for
the host's dice or the companion's roll. After an undo the computer waits too (``paused``) until
someone acts or asks it to play (``POST /api/computer``), so an undo can take its moves back.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from companion.table.current import CurrentMatch

log = logging.getLogger(__name__)

STRENGTH_NAMES = {"random": "random moves", "greedy": "greedy", "mcts": "Monte-Carlo search"}


def computer_seats(match: Any) -> dict[int, str]:
    """``{seat: strength}`` of the seats the computer plays in ``match`` (empty for other games)."""
    options = getattr(getattr(match, "state", None), "options", None)
    computer = getattr(options, "computer", None)
    if not callable(computer):
        return {}
    players = getattr(match.state, "names", ()) or ()
    out = {}
    for seat in range(len(players)):
        strength = computer(seat)
        if strength:
            out[seat] = str(strength)
    return out


def due(match: Any, state_json: dict) -> tuple[int, str] | None:
    """``(seat, strength)`` when a computer seat decides now; None otherwise (dice, a person, over)."""
    seats = computer_seats(match)
    if not seats or state_json.get("outcome") is not None or state_json.get("phase") == "over":
        return None
    to_move = state_json.get("to_move") or {}
    movers = to_move.get("seats") or []
    if to_move.get("chance") or len(movers) != 1 or movers[0] not in seats:
        return None
    if not [la for la in state_json.get("legal") or [] if not la.get("chance")]:
        return None
    return movers[0], seats[movers[0]]


def thread_runner(job: Callable[[], None]) -> None:
    """Run ``job`` on its own daemon thread (the controller's default)."""
    threading.Thread(target=job, name="computer-seat", daemon=True).start()


class ComputerSeats:
    """The seats the computer plays: whether one decides now, its thinking and its move.

    Called with the controller's lock held, except the decision's job, which thinks on the runner's
    thread and takes the lock (handed here) to apply its move. It is handed the current match, the
    random source of the seeds, the status lines and the controller's ``apply`` (lock held, unpublished)
    and ``changed`` (publish a new version).
    """

    def __init__(self, current: CurrentMatch, lock: Any, rng: Any, status: dict[str, str], *,
                 apply: Callable[..., dict], changed: Callable[[list[dict]], dict],
                 runner: Callable[[Callable[[], None]], None], think_s: float) -> None:
        """``runner`` runs a decision's job (a thread by default); ``think_s``: the search's time."""
        self._current = current
        self._lock = lock
        self._rng = rng
        self._status = status
        self._apply = apply
        self._changed = changed
        self._runner = runner
        self._think_s = think_s
        self.reset()

    def reset(self) -> None:
        """A new (or resumed, or abandoned) game: nobody thinks, nothing is paused."""
        self._thinking: dict | None = None
        self._paused = False
        self._last: dict | None = None

    def to_json(self) -> dict | None:
        """The page's ``computer``: its seats, who thinks, whether it waits, its last move (None: no seat)."""
        seats = computer_seats(self._current.match)
        if not seats:
            return None
        return {"seats": {str(s): v for s, v in seats.items()}, "thinking": self._thinking,
                "paused": self._paused, "last": self._last}

    def acted(self, source: str) -> None:
        """An action from ``source`` was applied: someone other than the computer acted, so a seat
        paused by an undo plays on."""
        if source != "computer":
            self._paused = False
            self._status.pop("computer", None)

    def undone(self) -> None:
        """An undo: the computer waits (an undo may take its moves back) until someone acts."""
        if computer_seats(self._current.match):
            self._thinking, self._paused = None, True

    def schedule(self) -> Callable[[], None] | None:
        """Mark a decision as started if one is due; its job (to :meth:`run` after publishing)."""
        if self._thinking is not None or self._paused:
            return None
        state = self._current.state()
        turn = due(self._current.match, state)
        if turn is None:
            return None
        seat, strength = turn
        seed = self._rng.randrange(2**32)
        names = state.get("players") or []
        name = str(names[seat]) if seat < len(names) else f"seat {seat + 1}"
        self._thinking = {"seat": seat, "name": name, "strength": strength}
        game, rules_state = str(state.get("game")), self._current.match.state
        return lambda: self._job(game, rules_state, seat, strength, seed)

    def run(self, job: Callable[[], None]) -> None:
        """Start a job :meth:`schedule` gave."""
        self._runner(job)

    def _job(self, game: str, rules_state: Any, seat: int, strength: str, seed: int) -> None:
        """Think (outside the lock), then apply the move if the game is where it was (the same state:
        a status line or a sensing change meanwhile does not make it think again)."""
        from companion.table.computer import decide

        try:
            action, record = decide(game, rules_state, strength, seed, self._think_s)
        except Exception as exc:  # noqa: BLE001 - the table must go on: the host can still move for it
            log.exception("the computer seat could not decide")
            with self._lock:
                self._thinking = None
                self._paused = True
                self._status["computer"] = f"the computer could not move: {exc}; tap 'Computer plays'"
                self._changed([])
            return
        with self._lock:
            where = getattr(self._current.match, "state", None)
            if self._thinking is None or self._thinking.get("seat") != seat or where is not rules_state:
                self._thinking = None  # the game moved on meanwhile: decide again from where it is now
                self._changed([])
                return
            self._thinking = None
            self._status.pop("computer", None)
            try:
                entry = self._apply(action.to_json(), "computer", [{**record, "seat": seat}], "companion")
            except Exception as exc:  # noqa: BLE001 - should not happen (the choice is a legal action)
                log.exception("the computer's move was refused")
                self._paused = True
                self._status["computer"] = f"the computer's move was refused: {exc}"
                self._changed([])
                return
            entry["text"] = f"Computer ({STRENGTH_NAMES.get(strength, strength)}): {entry['text']}"
            self._last = {"seat": seat, "strength": strength, "text": entry["text"]}
            self._changed([entry])
