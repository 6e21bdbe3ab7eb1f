"""A way out of a wrong answer: when the rules refuse a correction, the legal ones closest to it.

Pure over the match: each candidate is tried with the rules' pure ``apply`` on the current state
(nothing changes); the ones the rules take are returned, closest to what was asked first.
"""

from __future__ import annotations

import itertools
from typing import Any

from companion.table.prompts import SIZES, pawns_text

PAWN_ACTIONS = ("fall", "confirm_fall", "correct_fall")
"""Actions whose ``pawns`` count a refused answer can be brought back into range."""
MAX_EACH = 12


def _counts(pawns: Any) -> dict[str, int]:
    pawns = pawns if isinstance(pawns, dict) else {}
    return {s: max(0, int(pawns.get(s) or 0)) if isinstance(pawns.get(s), int | float) else 0 for s in SIZES}


def _legal(rules: Any, state: Any, action: dict) -> bool:
    try:
        rules.apply(state, rules.action_from_json(action))
    except Exception:  # noqa: BLE001 - IllegalAction or a bad form: either way not a way out
        return False
    return True


def is_legal(match: Any, action: dict) -> bool:
    """Whether the rules take ``action`` (JSON) in ``match``'s current state (nothing changes)."""
    return match is not None and _legal(match.rules, match.state, action)


def _label(action: dict) -> str:
    pawns = _counts(action.get("pawns"))
    placed = action.get("placed_fell")
    tail = "" if placed is None else ", the pawn just placed too" if placed else ", not the pawn just placed"
    return f"{pawns_text(pawns)} fell{tail}"


def alternatives(match: Any, action: Any, state_json: dict, limit: int = 3) -> list[dict]:
    """Legal actions of the refused ``action``'s type, closest first: ``[{"action", "label"}]``.

    The state's ``legal`` list gives the candidates when it lists concrete actions of that type;
    for the pawn counts of a fall (or its confirmation or correction) counts near the asked ones
    are tried, from no pawn up to what is on the disc.
    """
    if match is None or not isinstance(action, dict):
        return []
    kind = action.get("type")
    rules, state = match.rules, match.state
    if kind in PAWN_ACTIONS:
        asked = _counts(action.get("pawns"))
        on_disc = _counts(state_json.get("disc"))
        pending = (state_json.get("pending_fall") or {}).get("pawns") or {}
        last = (state_json.get("last_fall") or {}).get("pawns") or {}
        ranges = [range(0, min(MAX_EACH, max(asked[s], on_disc[s] + _counts(pending)[s]
                                              + _counts(last)[s])) + 1) for s in SIZES]
        placed_options = [action.get("placed_fell")] + [v for v in (True, False, None)
                                                         if v != action.get("placed_fell")]
        found: list[tuple[int, int, dict]] = []
        for combo in itertools.product(*ranges):
            pawns = dict(zip(SIZES, combo, strict=True))
            if not any(combo) and any(asked.values()):
                continue
            dist = sum(abs(pawns[s] - asked[s]) for s in SIZES)
            for rank, placed in enumerate(placed_options):
                candidate = {**action, "pawns": pawns, "placed_fell": placed}
                if candidate != action and _legal(rules, state, candidate):
                    found.append((dist, rank, candidate))
                    break
        found.sort(key=lambda f: (f[0], f[1], -sum(f[2]["pawns"].values())))
        return [{"action": a, "label": _label(a)} for _, _, a in found[:limit]]
    same = [la for la in state_json.get("legal") or [] if (la.get("action") or {}).get("type") == kind]
    return [{"action": la["action"], "label": la.get("label") or kind} for la in same[:limit]]
