"""The Pinuid Dobbal board: squares, names and the precomputed move tables (pure, cached per geometry).

Squares are numbered ``row * width + col``; row 0 is the back line of seat 0 (the starting player),
row ``height - 1`` the back line of seat 1. A square is named like a chess square: column letter
(``a`` = seat 0's left) and row number from 1 (``c1`` is seat 0's back line, third column).
Pins are kept as bit masks (bit ``i`` = square ``i``) so a move test is one AND.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

ORTHOGONAL: tuple[tuple[int, int], ...] = ((1, 0), (-1, 0), (0, 1), (0, -1))
DIAGONAL: tuple[tuple[int, int], ...] = ((1, 1), (1, -1), (-1, 1), (-1, -1))


class Board(NamedTuple):
    """The geometry of one board and rule reading; built once by :func:`board` and shared."""

    width: int
    height: int
    names: tuple[str, ...]
    index: dict[str, int]
    # rays[square][steps] = ((path mask of the squares crossed and landed on, target square), ...)
    rays: tuple[tuple[tuple[tuple[int, int], ...], ...], ...]
    # neighbours[square] = mask of the squares "next to" it (for the play-pin rule)
    neighbours: tuple[int, ...]
    back_line: tuple[int, int]  # mask of seat 0's and seat 1's back line
    row_of: tuple[int, ...]
    col_of: tuple[int, ...]

    @property
    def size(self) -> int:
        return self.width * self.height

    def square(self, col: int, row: int) -> int:
        return row * self.width + col

    def name(self, square: int) -> str:
        return self.names[square]


def square_name(col: int, row: int) -> str:
    """``(2, 0)`` -> ``"c1"``."""
    return f"{chr(ord('a') + col)}{row + 1}"


@lru_cache(maxsize=64)
def board(width: int, height: int, move_diagonals: bool, adjacent_diagonals: bool, max_steps: int) -> Board:
    """The board ``width`` x ``height`` with the move tables for straight moves of 1..``max_steps``."""
    n = width * height
    names = tuple(square_name(i % width, i // width) for i in range(n))
    dirs = ORTHOGONAL + (DIAGONAL if move_diagonals else ())
    near = ORTHOGONAL + (DIAGONAL if adjacent_diagonals else ())
    rays = []
    neighbours = []
    for sq in range(n):
        col, row = sq % width, sq // width
        by_steps: list[list[tuple[int, int]]] = [[] for _ in range(max_steps + 1)]
        for dc, dr in dirs:
            mask = 0
            for k in range(1, max_steps + 1):
                c, r = col + dc * k, row + dr * k
                if not (0 <= c < width and 0 <= r < height):
                    break
                target = r * width + c
                mask |= 1 << target
                by_steps[k].append((mask, target))
        rays.append(tuple(tuple(lst) for lst in by_steps))
        m = 0
        for dc, dr in near:
            c, r = col + dc, row + dr
            if 0 <= c < width and 0 <= r < height:
                m |= 1 << (r * width + c)
        neighbours.append(m)
    first_row = (1 << width) - 1
    return Board(width, height, names, {nm: i for i, nm in enumerate(names)}, tuple(rays), tuple(neighbours),
                 (first_row, first_row << (width * (height - 1))),
                 tuple(i // width for i in range(n)), tuple(i % width for i in range(n)))


def squares_of(mask: int) -> list[int]:
    """The square numbers of the set bits of ``mask``, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def line_between(b: Board, frm: int, to: int) -> tuple[int, int, bool] | None:
    """``(steps, path mask, diagonal)`` if ``to`` lies on a straight line (orthogonal or diagonal)
    from ``frm``, else None. The path mask covers the squares crossed and the target."""
    dc = b.col_of[to] - b.col_of[frm]
    dr = b.row_of[to] - b.row_of[frm]
    if (dc, dr) == (0, 0) or not (dc == 0 or dr == 0 or abs(dc) == abs(dr)):
        return None
    steps = max(abs(dc), abs(dr))
    sc, sr = (dc > 0) - (dc < 0), (dr > 0) - (dr < 0)
    mask = 0
    for k in range(1, steps + 1):
        mask |= 1 << b.square(b.col_of[frm] + sc * k, b.row_of[frm] + sr * k)
    return steps, mask, dc != 0 and dr != 0
