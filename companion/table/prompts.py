"""Questions for the host that sensors cannot answer, and readable lines for the event feed."""

from __future__ import annotations

import itertools
from typing import Any

SIZES = ("small", "medium", "large")
UNDO_AFTER_END = ("the game is over and saved as finished in the session log, which cannot be reopened: "
                  "it can no longer be undone; start a new game")


EXTRA_KEYS = ("counts", "seat")
"""Optional prompt fields the page gets: ``counts`` (a choice answered with pawn counts by size:
``{"choice": label, "max": {size: n}}``) and ``seat`` (the player the question is about)."""
NO_FALL_PROMPT = "tip_no_fall"
"""The prompt kind of "the disc tipped but no fall was seen"."""
NOTHING_FELL, THESE_FELL = "Nothing fell", "These pawns fell"


def fall_owner(state: dict) -> int | None:
    """The seat a fall goes to now (whose fall window is open, else whose turn it is)."""
    window = state.get("fall_window") or {}
    seat = window.get("seat", state.get("current"))
    return seat if isinstance(seat, int) and not isinstance(seat, bool) else None


def no_fall_prompt(state: dict) -> dict | None:
    """The question after a tip in which no fall was seen, or None when nothing could have fallen."""
    disc = {s: int((state.get("disc") or {}).get(s) or 0) for s in SIZES}
    seat = fall_owner(state)
    players = state.get("players") or []
    if not sum(disc.values()) or seat is None or not 0 <= seat < len(players):
        return None
    name = players[seat].get("name", "?") if isinstance(players[seat], dict) else str(players[seat])
    return {"kind": NO_FALL_PROMPT, "title": "The disc tipped but no fall was seen. Did any pawns fall?",
            "text": f"Pawns that fell go back to {name}: count them by size, or answer {NOTHING_FELL}.",
            "choices": {NOTHING_FELL: None, THESE_FELL: {"type": "fall", "tipped": True, "confident": True}},
            "counts": {"choice": THESE_FELL, "max": disc}, "seat": seat, "resolves": "fall"}


def check_pawns(raw: Any, disc: dict) -> dict[str, int]:
    """Pawn counts answered by the host, checked against the disc: ValueError naming the problem."""
    if not isinstance(raw, dict):
        raise ValueError(f"'pawns' must be an object of counts by size ({', '.join(SIZES)}), got {raw!r}")
    for key in raw:
        if key not in SIZES:
            raise ValueError(f"there is no pawn size {key!r}: the sizes are {', '.join(SIZES)}")
    out: dict[str, int] = {}
    for size in SIZES:
        n = raw.get(size, 0)
        if isinstance(n, bool) or not isinstance(n, int):
            raise ValueError(f"the count of {size} pawns must be a whole number, got {n!r}")
        if n < 0:
            raise ValueError(f"the count of {size} pawns cannot be negative, got {n}")
        on = int(disc.get(size) or 0)
        if n > on:
            raise ValueError(f"{n} {size} {'pawn' if n == 1 else 'pawns'} cannot have fallen: only {on} "
                             f"{size} {'pawn is' if on == 1 else 'pawns are'} on the disc")
        if n:
            out[size] = n
    if not out:
        raise ValueError(f"no pawn counted: count the pawns that fell, or answer {NOTHING_FELL!r}")
    return out


def fall_to_whom(text: str, action: dict, before: dict) -> str:
    """``text`` of an applied ``fall`` action, plus " to <name>" (whose fall window or turn it was)."""
    if action.get("type") != "fall":
        return text
    window = before.get("fall_window") or {}
    seat = window.get("seat", before.get("current"))
    players = before.get("players") or []
    if isinstance(seat, int) and 0 <= seat < len(players):
        text += f" to {players[seat].get('name')}"
    return text


class PendingPrompts:
    """Open prompts by id; each has a title, a text and ``choices``: label -> action JSON or None."""

    def __init__(self, limit: int = 8) -> None:
        """Keep at most ``limit`` prompts (the oldest is dropped beyond that)."""
        self._items: dict[str, dict] = {}
        self._ids = itertools.count(1)
        self._limit = limit

    def add(self, prompt: dict) -> dict:
        """Store a prompt (``kind``, ``title``, ``text``, ``choices``, optional ``resolves``); return it."""
        if not isinstance(prompt.get("choices"), dict) or not prompt["choices"]:
            raise ValueError("a prompt needs at least one choice")
        item = {"id": f"p{next(self._ids)}", "kind": prompt.get("kind", "confirm"),
                "title": str(prompt.get("title", "Please confirm")), "text": str(prompt.get("text", "")),
                "choices": dict(prompt["choices"]), "resolves": prompt.get("resolves"),
                **{k: prompt[k] for k in EXTRA_KEYS if prompt.get(k) is not None}}
        # one prompt per kind: a newer question replaces an older one of the same kind
        for key in [k for k, v in self._items.items() if v["kind"] == item["kind"]]:
            del self._items[key]
        self._items[item["id"]] = item
        while len(self._items) > self._limit:
            del self._items[next(iter(self._items))]
        return item

    def get(self, prompt_id: str) -> dict | None:
        """The prompt with this id, or None."""
        return self._items.get(prompt_id)

    def remove(self, prompt_id: str) -> None:
        """Forget a prompt (answered or obsolete)."""
        self._items.pop(prompt_id, None)

    def has_kind(self, kind: str) -> bool:
        """True if a prompt of ``kind`` is open."""
        return any(v["kind"] == kind for v in self._items.values())

    def remove_kind(self, kind: str) -> bool:
        """Forget the prompts of ``kind``; True if there was one."""
        keys = [k for k, v in self._items.items() if v["kind"] == kind]
        for key in keys:
            del self._items[key]
        return bool(keys)

    def clear(self) -> None:
        """Forget every prompt (new game)."""
        self._items.clear()

    def resolve_for(self, action: Any) -> None:
        """Drop prompts that an applied action made obsolete (same ``resolves`` action type)."""
        kind = action.get("type") if isinstance(action, dict) else None
        for key in [k for k, v in self._items.items() if kind and v.get("resolves") == kind]:
            del self._items[key]

    def items(self) -> list[dict]:
        """The open prompts as stored (choices with their actions), oldest first."""
        return list(self._items.values())

    def to_json(self) -> list[dict]:
        """The open prompts for the page, oldest first (choices by label only; ``counts`` and ``seat``
        when the prompt has them)."""
        return [{"id": p["id"], "kind": p["kind"], "title": p["title"], "text": p["text"],
                 "choices": list(p["choices"]), **{k: p[k] for k in EXTRA_KEYS if k in p}}
                for p in self._items.values()]


def pawns_text(pawns: dict | None) -> str:
    """``{"small": 2, "large": 1}`` -> ``"2 small + 1 large"``."""
    parts = [f"{int(pawns[s])} {s}" for s in SIZES if pawns and pawns.get(s)]
    return " + ".join(parts) if parts else "no pawn"


def describe_event(event: dict, names: list[str] | None = None) -> str:
    """A short line for the feed, e.g. ``"Placed a medium pawn on BLUE 4"`` or ``"Hand on the disc!"``."""
    kind = event.get("event")
    where = (f"{str(event.get('zone')).upper()} {event.get('number')}" if event.get("zone")
             else "a line (no zone)")
    unsure = " (unsure)" if event.get("confident") is False else ""
    if kind == "placed":
        return f"Placed a {event.get('size', '?')} pawn on {where}{unsure}"
    if kind == "removed":
        return f"A {event.get('size', '?')} pawn was lifted off{unsure}"
    if kind == "tipped":
        return "The disc tipped!"
    if kind == "fell":
        count = sum(int(v) for v in (event.get("pawns") or {}).values() if isinstance(v, int | float))
        noun = "pawn" if count == 1 else "pawns"
        return f"{count} {noun} fell ({pawns_text(event.get('pawns'))}){unsure}"
    if kind == "hand":
        return f"Hand on the disc! ({event.get('duration_ms', 0) / 1000:.1f} s)"
    if kind == "settled":
        return "The disc is still again"
    if kind == "fault":
        return f"Sensor fault: cell {event.get('cell')} {event.get('kind')}"
    return str(kind or "event")
