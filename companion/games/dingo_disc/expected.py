"""``expected``: what the table must do next, with a short human prompt (for the page and panel)."""

from __future__ import annotations

from typing import Any

from companion.games.dingo_disc.actions import SIZES, Counts
from companion.games.dingo_disc.state import State


def _where(zone: str | None, number: int | None) -> str:
    return "a line" if zone is None or number is None else f"{zone.upper()} {number}"


def _sizes(c: Counts) -> list[str]:
    return [SIZES[i] for i in range(3) if c[i] > 0]


def describe_counts(c: Counts) -> str:
    """``(1, 0, 2)`` -> ``"1 small, 2 large"`` (``"nothing"`` when empty)."""
    parts = [f"{c[i]} {SIZES[i]}" for i in range(3) if c[i]]
    return ", ".join(parts) or "nothing"


def expected(s: State) -> dict[str, Any]:
    """The next thing the table must do: ``kind``, ``player`` (seat or None), ``prompt`` and details."""
    names = s.names
    cur = s.current
    phase = s.phase
    if phase == "first_player":
        return {"kind": "first_player", "player": None, "players": list(names),
                "prompt": "Choose the first player (the youngest?) or let the companion draw one"}
    if phase == "colours":
        assert cur is not None
        taken = [c for c in s.colours if c is not None]
        retry = bool(s.colour_rolls) and s.colour_rolls[-1].taken and s.colour_rolls[-1].seat == cur
        prompt = f"{names[cur]}: roll the colour die"
        if retry:
            prompt = f"{s.colour_rolls[-1].colour.upper()} is taken. {prompt} again"
        return {"kind": "roll_colour", "player": cur, "taken": taken, "retry": retry, "prompt": prompt}
    if phase == "roll":
        assert cur is not None
        window = s.window.seat if s.window is not None else None
        take = "roll" if s.dice_taken else "take the dice and roll"
        if s.version == 1:
            out = {"kind": "roll", "player": cur, "dice": ["colour", "number"], "zone": None,
                   "prompt": f"{names[cur]}: {take} both dice"}
        else:
            zone = s.colours[cur]
            assert zone is not None
            out = {"kind": "roll", "player": cur, "dice": ["number"], "zone": zone,
                   "prompt": f"{names[cur]}: {take} the number die (your zone: {zone.upper()})"}
        out["dice_taken"] = s.dice_taken
        out["fall_window"] = window
        return out
    if phase == "penalty":
        assert cur is not None
        giver = s.givers[0]
        return {"kind": "give", "player": giver, "receiver": cur, "sizes": _sizes(s.supply[giver]),
                "prompt": f"Penalty: {names[giver]}, give {names[cur]} one pawn of your choice"}
    if phase == "place":
        assert cur is not None
        again = f" (attempt {s.attempt})" if s.attempt > 1 else ""
        return {"kind": "place", "player": cur, "zone": s.dice_colour, "number": s.dice_number,
                "attempt": s.attempt, "sizes": _sizes(s.supply[cur]),
                "prompt": f"{names[cur]}: place a pawn of your choice in "
                          f"{_where(s.dice_colour, s.dice_number)}{again}"}
    if phase == "review":
        assert cur is not None and s.review is not None
        r = s.review
        return {"kind": "review_placement", "player": cur, "flag": r.flag_id, "zone": s.dice_colour,
                "number": s.dice_number, "sensed_zone": r.sensed_zone, "sensed_number": r.sensed_number,
                "prompt": f"{names[cur]}'s pawn is on {_where(r.sensed_zone, r.sensed_number)}, rolled "
                          f"{_where(s.dice_colour, s.dice_number)}: accept or redo"}
    if phase == "confirm_fall":
        assert s.pending_fall is not None
        w = s.window
        owner = w.seat if w is not None else cur
        pf = s.pending_fall
        return {"kind": "confirm_fall", "player": owner, "pawns": dict(zip(SIZES, pf.pawns, strict=True)),
                "placed_fell": pf.placed_fell,
                "prompt": f"Confirm what fell: {describe_counts(pf.pawns)}"
                          + (f" (back to {names[owner]})" if owner is not None else "")}
    if phase == "ending":
        return {"kind": "end_game", "player": None,
                "prompt": "Every pawn is placed: confirm the disc is still to end the game"}
    winner = s.winner
    result = "draw (match nul)" if s.draw else (f"{names[winner]} wins" if winner is not None else "over")
    return {"kind": "none", "player": None, "winner": winner, "draw": s.draw,
            "prompt": f"Game over: {result}"}
