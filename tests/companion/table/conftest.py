"""Shared helpers of the table tests."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from companion.table.controller import TableController


def _play_to_the_end(c: TableController) -> None:
    """Start a two-player game on ``c`` and play it (green 2, the first size offered) until it ends."""
    c.new_game({"version": 1, "players": ["A", "B"]})
    c.apply({"type": "first_player", "seat": 0})
    for _ in range(200):
        exp = c.message()["state"]["expected"]
        if exp["kind"] == "none":
            return
        if exp["kind"] == "roll":
            c.enter_roll({"colour": "green", "number": 2})
        elif exp["kind"] == "place":
            c.apply({"type": "place", "size": exp["sizes"][0]})
        elif exp["kind"] == "end_game":
            c.press_button("confirm")
        else:
            raise AssertionError(exp)
    raise AssertionError("the game did not end")


@pytest.fixture
def play_to_the_end() -> Callable[[TableController], None]:
    """The helper that plays a two-player game on a controller to its end."""
    return _play_to_the_end
