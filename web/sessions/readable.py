"""A logged game told in sentences a person reads ("Anna placed a large pawn on BLUE 4"), with names.

The logged actions are replayed through the game's own rules (``describe_action`` on the state each
met); undo entries take the last one back. A log the rules cannot replay falls back to the raw form.
"""

from __future__ import annotations

from typing import Any

from companion.table.prompts import pawns_text
from companion.table.summary import per_player


def _disc_sentence(before: dict, action: dict, text: str) -> str:
    """The Disc's lines with the player's name and the spot: "Anna placed a large pawn on BLUE 4",
    "Tip: 2 pawns back to Ben"; any other line as the rules tell it."""
    players = before.get("players") or []

    def name(seat: Any) -> str:
        ok = isinstance(seat, int) and 0 <= seat < len(players)
        return str(players[seat].get("name")) if ok else "?"

    kind, current = action.get("type"), before.get("current")
    if kind == "place":
        dice = before.get("dice") or {}
        zone, number = action.get("zone") or dice.get("colour"), action.get("number") or dice.get("number")
        where = f" on {str(zone).upper()} {number}" if zone and number else ""
        return f"{name(current)} placed a {action.get('size')} pawn{where}"
    if kind == "roll":
        return f"{name(current)} rolled {text[len('Rolled '):] if text.startswith('Rolled ') else text}"
    if kind == "fall":
        window = before.get("fall_window") or {}
        owner = name(window.get("seat", current))
        pawns = {k: v for k, v in (action.get("pawns") or {}).items() if v}
        n = sum(pawns.values())
        what = f"{n} pawn{'s' if n != 1 else ''} ({pawns_text(pawns)})"
        return f"Tip: {what} back to {owner}" if action.get("tipped") else f"{what} fell: back to {owner}"
    return text


def sentences(actions: list[dict]) -> tuple[list[str | None], dict[str, Any] | None]:
    """One sentence per logged action (None where it cannot be told), and the per-player summary."""
    from companion.games.match import GameMatch
    from companion.table.game import ModuleGame

    out: list[str | None] = []
    if not actions or actions[0].get("type") != "new_game":
        return [None] * len(actions), None
    try:
        rules = ModuleGame().rules_for(actions[0].get("game"))
        match = GameMatch(rules, actions[0])
        out.append(rules.describe_action(match.states[0], match.history[0]))
    except Exception:  # noqa: BLE001 - the history page must show whatever the log holds
        return [None] * len(actions), None
    for action in actions[1:]:
        try:
            if action.get("type") == "undo":
                undone = match.undo()
                out.append("Undone: " + rules.describe_action(match.state, undone))
                continue
            parsed = rules.action_from_json(action)
            text = rules.describe_action(match.state, parsed)
            if rules.name == "dingo-disc":
                text = _disc_sentence(match.state.to_json(), parsed.to_json(), text)
            match.apply(parsed)
            out.append(text)
        except Exception:  # noqa: BLE001
            out.append(None)
    return out, per_player(match)
