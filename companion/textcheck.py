"""Checks for text people type (player names) and a safe view of text read back from storage.

A name is stored only if it is valid Unicode (no lone surrogates), has no control or format
characters that would break a page or a CSV line, is not blank, and has at most ``MAX_NAME``
characters. Text read back from an older log is shown through :func:`displayable`, which
replaces what cannot be shown instead of failing the page.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

MAX_NAME = 40
REPLACEMENT = "\ufffd"


# What a name may not contain: C0/C1 controls, lone surrogates, and the invisible format
# characters that reorder or hide text (bidi overrides, zero-width spaces, BOM); the zero-width
# joiner stays (emoji sequences). web/openapi.yaml states the same class as a pattern.
FORBIDDEN = re.compile("[\x00-\x1f\x7f-\x9f\u00ad\u200b\u200c\u200e\u200f\u2028-\u202e"
                       "\u2060-\u206f\ufeff\ufff9-\ufffb\ud800-\udfff]")


def name_problem(name: object) -> str | None:
    """Why ``name`` cannot be a player's name, or None if it can."""
    if not isinstance(name, str):
        return f"must be a string, got {type(name).__name__}"
    if not name.strip():
        return "is empty"
    if len(name) > MAX_NAME:
        return f"is {len(name)} characters long; at most {MAX_NAME} are allowed"
    bad = FORBIDDEN.search(name)
    if bad is not None:
        ch, i = bad.group(), bad.start()
        if 0xD800 <= ord(ch) <= 0xDFFF:
            return f"is not valid Unicode (a lone surrogate U+{ord(ch):04X} at position {i})"
        return f"contains the control character U+{ord(ch):04X} at position {i}"
    return None


def check_name(name: object, what: str = "name") -> str:
    """``name`` if it is a usable player name, else ``ValueError`` saying why."""
    problem = name_problem(name)
    if problem is not None:
        raise ValueError(f"{what} {problem}")
    return name  # type: ignore[return-value]


def check_players(players: object) -> None:
    """Check every name in a ``new_game`` players list (names or ``{"name": ...}`` objects)."""
    if not isinstance(players, list | tuple):
        return  # the game's own parser says what is wrong with the shape
    for i, p in enumerate(players):
        name = p.get("name") if isinstance(p, dict) else p
        if isinstance(name, str) or isinstance(p, str):
            check_name(name, f"players[{i}]")


def displayable(value: Any) -> Any:
    """``value`` (str, or lists/dicts of them) with lone surrogates and control characters replaced."""
    if isinstance(value, str):
        if value.isprintable():
            return value
        return "".join(REPLACEMENT if unicodedata.category(c) in ("Cs", "Cc") and c not in "\t\n" else c
                       for c in value)
    if isinstance(value, list):
        return [displayable(v) for v in value]
    if isinstance(value, dict):
        return {k: displayable(v) for k, v in value.items()}
    return value
