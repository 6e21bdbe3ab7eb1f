"""The disc and the game agree, or say so: one comparison of what the sensors see with what the game
counts, and the card that brings them back together.

Pure functions over JSON (the pipeline's ``snapshot()`` and the game's state): no clock, no I/O. The
controller decides *when* to compare (the disc still for a while, nothing pending) and keeps the
deferred sensed actions (:class:`Deferred`): a sensed event the rules cannot take *now* is kept and
applied when it can, or shown on the card; it is never dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from companion.table.prompts import SIZES, pawns_text

EMPTY_DISC_G = 1.0
"""Below this (about half a small pawn) a still disc counts as empty."""


def _counts(items: Any) -> dict[str, int]:
    out = dict.fromkeys(SIZES, 0)
    if isinstance(items, dict):
        for s in SIZES:
            v = items.get(s)
            out[s] = int(v) if isinstance(v, int) and not isinstance(v, bool) else 0
    elif isinstance(items, list):
        for p in items:
            if isinstance(p, dict) and p.get("size") in SIZES:
                out[p["size"]] += 1
    return out


def comparable(sensing: dict) -> bool:
    """True when the sensors' picture can be trusted for a count: the disc still, level, no fault."""
    return bool(sensing) and sensing.get("still") is True and not sensing.get("faults") \
        and float(sensing.get("tilt") or 0.0) < 0.2 and isinstance(sensing.get("pawns"), list)


def disc_empty(sensing: dict) -> bool | None:
    """Whether a still disc is empty (no pawn, almost no mass); None when the sensors cannot tell."""
    if not comparable(sensing):
        return None
    return not sensing["pawns"] and abs(float(sensing.get("mass_g") or 0.0)) < EMPTY_DISC_G


@dataclass(frozen=True)
class Difference:
    """Pawns per size the sensors see minus those the game counts on the disc (after any ignore)."""

    sensed: dict[str, int]
    game: dict[str, int]
    delta: dict[str, int]

    @property
    def missing(self) -> dict[str, int]:
        """Pawns the game counts that the sensors no longer see (they fell or were lifted)."""
        return {s: -d for s, d in self.delta.items() if d < 0}

    @property
    def extra(self) -> dict[str, int]:
        """Pawns the sensors see that the game does not count (added, or sensed while refused)."""
        return {s: d for s, d in self.delta.items() if d > 0}


def difference(sensing: dict, state: dict, ignored: dict[str, int] | None = None) -> Difference | None:
    """The disagreement between sensors and game, or None when they agree or cannot be compared."""
    if not comparable(sensing) or state.get("phase") in (None, "setup", "over", "confirm_fall"):
        return None
    sensed = _counts(sensing.get("pawns"))
    game = _counts(state.get("disc"))
    ignored = ignored or {}
    delta = {s: sensed[s] - game[s] - int(ignored.get(s, 0)) for s in SIZES}
    if not any(delta.values()):
        return None
    return Difference(sensed, game, delta)


def owner_of_falls(state: dict) -> int | None:
    """The seat fallen pawns go back to now: the open fall window's, else the current player's."""
    window = state.get("fall_window") or {}
    seat = window.get("seat", state.get("current"))
    return seat if isinstance(seat, int) and not isinstance(seat, bool) else None


def _name(state: dict, seat: int | None) -> str:
    players = state.get("players") or []
    if isinstance(seat, int) and 0 <= seat < len(players):
        p = players[seat]
        return str(p.get("name", "?") if isinstance(p, dict) else p)
    return "the player"


def refused_falls(deferred: list[dict]) -> tuple[dict[str, int], bool, str | None]:
    """What the kept (refused) sensed falls add up to: ``(pawns, tipped, why the rules refused the last)``."""
    pawns: dict[str, int] = dict.fromkeys(SIZES, 0)
    tipped, why = False, None
    for item in deferred:
        action = item.get("action") or {}
        if action.get("type") != "fall":
            continue
        for size, n in _counts(action.get("pawns")).items():
            pawns[size] += n
        tipped = tipped or bool(action.get("tipped"))
        why = str(item.get("why") or why or "")
    return {k: v for k, v in pawns.items() if v}, tipped, why


def cancel_kept_placements(pawns: dict[str, int], deferred: Deferred) -> tuple[dict[str, int], list[dict]]:
    """A refused fall's ``pawns`` less the kept placements of the same sizes, newest first: a pawn put on
    the disc while the game could not take it, which fell off again, is owed to nobody. Returns the
    pawns left and the kept placements cancelled (taken out of ``deferred``)."""
    left = {s: n for s, n in _counts(pawns).items() if n}
    cancelled = []
    for item in reversed(list(deferred.items)):
        action = item.get("action") or {}
        size = action.get("size")
        if action.get("type") == "place" and left.get(size, 0) > 0:
            left[size] -= 1
            if not left[size]:
                del left[size]
            deferred.items.remove(item)
            cancelled.append(item)
    return left, cancelled


def reconcile_card(diff: Difference, state: dict, deferred: list[dict],
                   ignore: Callable[[str], dict]) -> dict:
    """The one card for a disagreement: what differs, the likely reason, and one-tap fixes.

    Choices map a label to an action JSON (a logged, undoable rules action), ``None`` (close the card:
    the table fixes the disc by hand) or ``ignore`` (the sensors are wrong: this difference is accepted).
    A sensed fall the rules refused (kept in ``deferred``) is named with the rules' reason, and the fall
    that brings the game to what the sensors see keeps whether the disc tipped.
    """
    missing, extra = diff.missing, diff.extra
    sensed_n, game_n = sum(diff.sensed.values()), sum(diff.game.values())
    lines = [f"The sensors see {sensed_n} pawn(s) on the disc ({pawns_text(diff.sensed)}); "
             f"the game counts {game_n} ({pawns_text(diff.game)})."]
    refused, tipped, why = refused_falls(deferred)
    if refused:
        lines.append(f"The sensors saw {'a tip' if tipped else 'a fall'} of {pawns_text(refused)}, which the "
                     f"rules refuse ({why}).")
    choices: dict[str, Any] = {}
    owner = owner_of_falls(state)
    if missing:
        if not refused:
            lines.append(f"Likely: {pawns_text(missing)} fell or were lifted off without being noticed.")
        else:
            lines.append(f"What the disc shows now: {pawns_text(missing)} fell.")
        what = "Tip" if tipped else "Fall"
        label = f"{pawns_text(missing)} fell: give them back to {_name(state, owner)}"
        choices[f"{what}: {label}" if refused else label] = {
            "type": "fall", "pawns": dict(missing), "tipped": tipped}
    if extra:
        waiting = [d for d in deferred if d.get("action", {}).get("type") == "place"]
        if waiting:
            lines.append("Likely: a placement was sensed while the game could not take it "
                         f"({waiting[-1].get('why', 'not possible then')}); it is kept and applied "
                         "as soon as the rules allow.")
        else:
            lines.append(f"Likely: {pawns_text(extra)} added to the disc without being counted.")
        expected = state.get("expected") or {}
        if expected.get("kind") == "place" and sum(extra.values()) == 1:
            size = next(iter(extra))
            choices[f"It is {_name(state, state.get('current'))}'s {size} pawn: count it"] = {
                "type": "place", "size": size}
        choices[f"Take {pawns_text(extra)} off the disc"] = None
    choices["Ignore: the sensors are wrong"] = ignore
    return {"kind": "reconcile", "title": "The disc and the game disagree", "text": " ".join(lines),
            "choices": choices}


def clear_disc_card(start_anyway: Callable[[str], dict], cancel: Callable[[str], dict]) -> dict:
    """The card shown when a new game is asked for on a disc that still holds pawns."""
    return {"kind": "clear_disc", "title": "Clear the disc",
            "text": "Pawns are still on the disc. Take them all off: the game starts by itself once the "
                    "disc is empty and still.",
            "choices": {"Start anyway": start_anyway, "Cancel the new game": cancel}}


@dataclass
class Deferred:
    """Sensed actions the rules refused when they arrived, oldest first, retried after each change."""

    limit: int = 8
    items: list[dict] = field(default_factory=list)

    def add(self, action: dict, event: dict, why: str, mark: int | None = None) -> None:
        """Keep ``action`` (from sensed ``event``) refused because ``why``; ``mark``: how many actions
        the game's history held then."""
        item = {"action": action, "event": event, "why": why}
        if mark is not None:
            item["mark"] = mark
        self.items.append(item)
        del self.items[:-self.limit]

    def drop_placements_before_a_1(self, history: list[dict]) -> list[dict]:
        """Take out the kept placements after which a 1 was rolled (in ``history``); return them.

        Face 1: "the player passes their turn without placing a pawn": a pawn put on the disc before
        that roll is the penalised player's (or the one reviewed before), never the next placer's."""
        gone = [item for item in self.items if (item.get("action") or {}).get("type") == "place"
                and isinstance(item.get("mark"), int)
                and any(a.get("type") == "roll" and a.get("number") == 1 for a in history[item["mark"]:])]
        for item in gone:
            self.items.remove(item)
        return gone

    def retry(self, apply: Callable[[dict, dict], bool]) -> list[dict]:
        """Apply what now applies (``apply(action, event)`` -> True if taken), in order; return those."""
        done: list[dict] = []
        progress = True
        while progress and self.items:
            progress = False
            for item in list(self.items):
                if apply(item["action"], item["event"]):
                    self.items.remove(item)
                    done.append(item)
                    progress = True
                    break
        return done

    def clear(self) -> None:
        """Forget every deferred action (new game, or the disc and the game agree again)."""
        self.items.clear()
