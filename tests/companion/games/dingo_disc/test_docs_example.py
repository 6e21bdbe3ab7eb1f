"""docs/actions.md's state example has the fields of the real ``state.to_json()`` (no more, no fewer)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from companion.games.dingo_disc import FirstPlayer, NewGame, Place, Roll, apply, initial_state

DOC = Path(__file__).resolve().parents[4] / "docs" / "actions.md"


def _example() -> dict:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## The state", 1)[1]
    block = re.search(r"```json\n(.*?)```", section, re.S)
    assert block, "docs/actions.md: no JSON example under 'The state'"
    return json.loads(block.group(1))


def _real() -> dict:
    s = initial_state(NewGame(version=1, players=("Anna", "Bob")))
    s = apply(s, FirstPlayer(seat=0))
    s = apply(s, Roll(number=4, colour="blue"))
    s = apply(s, Place(size="small"))
    return s.to_json()


def test_the_documented_state_has_exactly_the_real_fields():
    doc, real = _example(), _real()
    assert set(doc) == set(real)
    for key in ("players", "disc_pawns"):
        assert set(doc[key][0]) == set(real[key][0]), key
    for key in ("dice", "fall_window", "disc", "in_hand", "options", "last_place"):
        assert set(doc[key]) == set(real[key]), key
