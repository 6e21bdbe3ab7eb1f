"""Plain sentences and button labels for Pinuid Dobbal states and actions."""

from __future__ import annotations

from typing import Any

from companion.games.pinuid_dobbal.actions import Assign, Move, NewGame, PutBack, Remove, Roll
from companion.games.pinuid_dobbal.state import SKIP_REASONS, State

STEP_NAMES = {1: "a running pin", 2: "the play-pin", 3: "a running pin"}


def _or(values: Any) -> str:
    return " or ".join(str(v) for v in sorted(set(values)))


def label(s: State, a: Any) -> str:
    """A short button label."""
    if isinstance(a, Roll):
        if s.options.play_pin_die == "coloured":
            return f"Dice {a.dice[0]}-{a.dice[1]}, play-pin {a.dice[2]}"
        return f"Dice {a.dice[0]}-{a.dice[1]}-{a.dice[2]}"
    if isinstance(a, Assign):
        return f"Play-pin moves {a.play}"
    if isinstance(a, Move):
        return f"{'Play-pin' if s.step == 2 else 'Pin'} {a.frm} to {a.to}"
    if isinstance(a, Remove):
        return f"Remove pin {a.at}"
    if isinstance(a, PutBack):
        return f"Put a pin back on {a.at}"
    return getattr(a, "type", str(a))


def describe_action(s: State, a: Any) -> str:
    """A sentence for ``a`` applied to ``s`` (names, not seats)."""
    if isinstance(a, NewGame):
        return f"New game of Pinuid Dobbal: {' against '.join(a.players)}"
    who = s.names[s.current]
    if isinstance(a, Roll):
        if s.options.play_pin_die == "coloured":
            return (f"{who} rolls {a.dice[0]} and {a.dice[1]} for the running pins"
                    f" and {a.dice[2]} for the play-pin")
        return f"{who} rolls {a.dice[0]}, {a.dice[1]} and {a.dice[2]}"
    if isinstance(a, Assign):
        return f"{who} moves the play-pin with the {a.play}"
    if isinstance(a, Move):
        what = "the play-pin" if s.step == 2 else "a running pin"
        return f"{who} moves {what} from {a.frm} to {a.to}"
    if isinstance(a, Remove):
        return f"{who} uses the double to remove {s.names[1 - s.current]}'s pin on {a.at}"
    if isinstance(a, PutBack):
        return f"{who} uses the double to put a pin back on {a.at}"
    return str(a)


def skip_sentences(s: State) -> list[str]:
    """Why steps of this turn (or the last one, before the next roll) were skipped."""
    mover = s.current if s.phase in ("move", "assign", "over") else 1 - s.current
    who = "Step" if mover == s.current and s.phase != "over" else f"{s.names[mover]}'s step"
    out = []
    for step, rule, d in s.skips:
        out.append(f"{who} {step} skipped: " + SKIP_REASONS[rule].format(d=d, name=s.names[mover]))
    return out


def describe_next(s: State) -> str:
    """What happens next, with the reasons of any step skipped since the last roll."""
    text = _next(s)
    if s.skips and s.phase != "over":
        text += ". " + "; ".join(skip_sentences(s))
    return text


def _next(s: State) -> str:
    """What happens next, e.g. "Anna: move a running pin 1 or 3 (step 1 of 3)"."""
    who = s.names[s.current]
    if s.phase == "over":
        if s.winner is None:
            return "The game is over"
        return f"{s.names[s.winner]} wins: the play-pin and a running pin side by side on the far back line"
    if s.phase == "roll":
        return f"{who}: roll the three dice"
    if s.phase == "assign":
        return f"{who}: choose the die for the play-pin ({_or(s.dice)})"
    if s.step == 2:
        return f"{who}: move the play-pin {s.dice[2]} (step 2 of 3)"
    text = f"{who}: move a running pin {_or(s.left)} (step {s.step} of 3)"
    if s.double:
        if s.options.double_normal_turn:
            text = f"{who}: a double! Move a running pin {_or(s.left)}, or remove or put back a pin instead"
        else:
            text = f"{who}: a double! Remove one of the opponent's pins or put one of yours back"
    return text
