"""Pawns the host says fell in a tip whose fall the sensors did not see (``Pipeline.told_fallen``).

When no mass left the platform but pawns fell, they lie on the base plate around the disc, still
weighed (the cells carry the plate). Which tracked pawns they were rests on the sizes the host
counted; among the pawns of a size, the likeliest are those nearest the low rim of the tip: the
disc tips towards the side its pawns weigh it down (their moment, as ``fallwatch`` reads the tip's
direction), so the pawns farthest along that direction, or the outermost ones when the disc was
too nearly balanced for the direction to be known. Pure: no state, nothing changed here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from companion.sensing.falls import POS_ERR_MM, SIZES, Pawn, pawn_moment


def tip_direction(pawns: list[Pawn]) -> tuple[float, float] | None:
    """The unit vector the disc tips towards (its tracked pawns' moment), or None when that moment
    is within its own error (``POS_ERR_MM`` on every pawn's position) or no pawn has a position."""
    placed = [p for p in pawns if p.x_mm is not None and p.y_mm is not None]
    mx, my = pawn_moment(placed)
    norm = math.hypot(mx, my)
    if not placed or norm <= POS_ERR_MM * math.sqrt(sum(p.mass_g ** 2 for p in placed)):
        return None
    return mx / norm, my / norm


def check_counts(counts: object, pawns: list[Pawn]) -> dict[str, int]:
    """``counts`` (pawns by size) checked against the tracked ``pawns``: the counts of every size,
    or ValueError naming the problem (not a mapping, an unknown size, a count that is not a whole
    number of at least 0, more pawns of a size than are tracked on the disc)."""
    if not isinstance(counts, Mapping):
        raise ValueError(f"the pawns that fell must be counts by size ({', '.join(SIZES)}), got {counts!r}")
    for size in counts:
        if size not in SIZES:
            raise ValueError(f"there is no pawn size {size!r}: the sizes are {', '.join(SIZES)}")
    out: dict[str, int] = {}
    for size in SIZES:
        n = counts.get(size, 0)
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"the count of {size} pawns must be a whole number of at least 0, got {n!r}")
        tracked = sum(1 for p in pawns if p.size == size)
        if n > tracked:
            raise ValueError(f"{n} {size} pawn{'' if n == 1 else 's'} cannot have fallen: the sensors "
                             f"track {tracked} {size} pawn{'' if tracked == 1 else 's'} on the disc")
        out[size] = n
    return out


def told_pawns(pawns: list[Pawn], counts: object) -> list[Pawn]:
    """The tracked pawns that the host's ``counts`` are (``check_counts``; ValueError as there):
    of each size, those nearest the low rim of the tip (``tip_direction``; else the outermost;
    pawns without a position after those with one, the latest placed first)."""
    wanted = check_counts(counts, pawns)
    toward = tip_direction(pawns)
    order = list(enumerate(pawns))

    def rank(item: tuple[int, Pawn]) -> tuple[int, float, int]:
        i, p = item
        if p.x_mm is None or p.y_mm is None:
            return (0, 0.0, i)
        along = p.x_mm * toward[0] + p.y_mm * toward[1] if toward is not None else math.hypot(p.x_mm, p.y_mm)
        return (1, along, i)

    order.sort(key=rank, reverse=True)
    out: list[Pawn] = []
    for size in SIZES:
        out.extend([p for _, p in order if p.size == size][:wanted[size]])
    return out
