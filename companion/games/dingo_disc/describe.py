"""Plain sentences for Dingo Disc actions (the table's feed, the protocol's ``describe_action``)."""

from __future__ import annotations

from typing import Any

SIZES = ("small", "medium", "large")


def pawns_text(pawns: dict | None) -> str:
    """``{"small": 2, "large": 1}`` -> ``"2 small + 1 large"``."""
    parts = [f"{int(pawns[s])} {s}" for s in SIZES if pawns and pawns.get(s)]
    return " + ".join(parts) if parts else "no pawn"


def describe_action(action: dict, names: list[str]) -> str:
    """A feed line for an action JSON, with player names where the action names a seat."""
    def who(seat: Any) -> str:
        return names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else f"seat {seat}"

    kind = action.get("type")
    if kind == "new_game":
        return f"New game (version {action.get('version')}): " + ", ".join(action.get("players") or [])
    if kind == "first_player":
        return f"{who(action.get('seat'))} plays first" + (" (drawn)" if action.get("drawn") else "")
    if kind == "roll":
        number = action.get("number")
        face = "PENALTY (1)" if number == 1 else str(number)
        colour = action.get("colour")
        return f"Rolled {str(colour).upper() + ' ' if colour else ''}{face}"
    if kind == "roll_colour":
        return f"Colour die: {str(action.get('colour')).upper()}"
    if kind == "give":
        return f"{who(action.get('giver'))} gives a {action.get('size')} pawn"
    if kind == "place":
        where = (f"{str(action.get('zone')).upper()} {action.get('number')}" if action.get("zone")
                 else "a line" if action.get("sensed") else "the rolled spot")
        return f"Placed a {action.get('size')} pawn on {where}"
    if kind == "fall":
        fell = pawns_text(action.get("pawns"))
        return ("Tipped! " if action.get("tipped") else "") + f"{fell} fell" + (
            " (to confirm)" if action.get("confident") is False else "")
    if kind in ("confirm_fall", "correct_fall"):
        pawns = action.get("pawns")
        return ("Fall confirmed" if kind == "confirm_fall" else "Fall corrected") + (
            f": {pawns_text(pawns)}" if pawns else "")
    if kind == "hand":
        return f"Hand on the disc! ({int(action.get('duration_ms') or 0) / 1000:.1f} s)"
    if kind == "removed":
        return f"A {action.get('size')} pawn was lifted off"
    labels = {"take_dice": "Dice taken", "accept_placement": "Placement accepted",
              "redo_placement": "Placement to redo", "end_game": "Game over",
              "dismiss_flag": "Flag dismissed", "correct_size": f"Size corrected to {action.get('size')}"}
    return labels.get(str(kind), str(kind))


def fall_to_whom(text: str, action: dict, before: dict) -> str:
    """``text`` of an applied ``fall`` action, plus " to <name>" (whose fall window or turn it was)."""
    if action.get("type") != "fall":
        return text
    window = before.get("fall_window") or {}
    seat = window.get("seat", before.get("current"))
    players = before.get("players") or []
    if isinstance(seat, int) and 0 <= seat < len(players):
        player = players[seat]
        text += f" to {player.get('name') if isinstance(player, dict) else player}"
    return text
