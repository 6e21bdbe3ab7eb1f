"""Is a loud cell noisy, or is a load on the disc? The cells' levels of the last still second.

Physical loads move every cell's level with them, a cell's own electrical noise moves nothing
else (and is centred on its level). ``StillLevels`` keeps the per-cell levels of the last still
noise block and tells, for a loud cell, what the others did since (see ``docs/sensing.md``).
"""

from __future__ import annotations

import math

from companion.sensing.trace import BAD_CODES

_BAD_CODES = BAD_CODES
QUIET_SPAN_G = 3.0  # a noise block whose cells all stay within this is still (no press, no hand)

Column = tuple[int | None, ...]


def _span(col: Column) -> int | None:
    """Range of a column's valid reads without its extreme one on each side (a lone glitch
    spike is no activity); None with fewer than five."""
    valid = sorted(v for v in col if v is not None and v not in _BAD_CODES)
    return valid[-2] - valid[1] if len(valid) >= 5 else None


class StillLevels:
    """Per-cell levels (grams) of the last still noise block, and what moved since."""

    def __init__(self, offsets: list[int] | list[float], inv: list[float], heaviest_pawn_g: float) -> None:
        self._offset = offsets
        self._inv = inv
        self._scale = [abs(k) for k in inv]
        # a cell's level this far from its last still one is more than a pawn set down could move
        # it (its share is at most about 1.2 of its weight): a hand is on the disc
        self._moved_g = max(3.0, 1.25 * heaviest_pawn_g)
        self._quiet: list[float | None] | None = None

    def levels(self, columns: list[Column]) -> list[float | None] | None:
        """Median grams of each cell over a noise block, from its valid reads (None for a cell
        with fewer than three; None for all if the block is empty)."""
        if not columns or not columns[0]:
            return None
        out: list[float | None] = []
        for col, o, k in zip(columns, self._offset, self._inv, strict=True):
            valid = sorted(v for v in col if v is not None and v not in _BAD_CODES)
            out.append((valid[len(valid) // 2] - o) * k if len(valid) >= 3 else None)
        return out

    def note(self, columns: list[Column]) -> None:
        """Keep the cells' levels of a still block (every cell within ``QUIET_SPAN_G``: no press,
        no hand) as the reference of ``others_now``."""
        for col, scale in zip(columns, self._scale, strict=True):
            span = _span(col)
            if span is None or span * scale > QUIET_SPAN_G:
                return
        self._quiet = self.levels(columns)

    def others_now(self, i: int, levels: list[float | None] | None, columns: list[Column],
                   unused: set[int], sigmas: list[float]) -> str:
        """What the healthy cells other than a loud cell ``i`` (and other than the ``unused``,
        failed ones) did in this block: ``"moved"`` (a level left the last still one by more than
        a pawn could: a hand is on the disc, even if over cell ``i`` near the rim the others carry
        a small, even negative share of it), ``"busy"`` (one of them is not still: a press, or the
        hand's tremor) or ``"rest"`` (the loudness is ``i``'s own: noise moves nothing else)."""
        quiet = self._quiet
        if len(columns) == 1:
            # no other cell to ask: a hand moves the cell's own level far more than its noise
            # moves the median of a block (electrical noise is centred on the level)
            now = levels[0] if levels is not None else None
            before = quiet[0] if quiet is not None else None
            valid = sum(1 for v in columns[0] if v is not None and v not in _BAD_CODES)
            if now is not None and before is not None and valid and \
                    abs(now - before) > max(self._moved_g, 5.0 * sigmas[0] / math.sqrt(valid)):
                return "moved"
            return "rest"
        busy = False
        for k in range(len(columns)):
            if k == i or k in unused:
                continue
            span = _span(columns[k])
            if span is not None and span * self._scale[k] > QUIET_SPAN_G:
                busy = True
            now = levels[k] if levels is not None else None
            before = quiet[k] if quiet is not None else None
            if now is not None and before is not None and abs(now - before) > self._moved_g:
                return "moved"
        return "busy" if busy else "rest"
