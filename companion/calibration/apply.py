"""Put a calibration result into a configuration (a new ``Config``; saving is the caller's job)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Calibration:
    """The result of a calibration: per-cell offsets and counts per gram, and pawn masses."""

    offsets: tuple[float, ...]
    counts_per_gram: tuple[float, ...]
    pawn_mass_g: dict[str, float]


def apply_calibration(config: Any, cal: Calibration) -> Any:
    """``config`` with the cells' offset/counts_per_gram and the pawn masses replaced."""
    cells = config.table.cells
    if len(cal.offsets) != len(cells) or len(cal.counts_per_gram) != len(cells):
        raise ValueError(f"calibration has {len(cal.offsets)} cells, the configuration {len(cells)}")
    new_cells = tuple(dataclasses.replace(c, offset=round(o, 1), counts_per_gram=round(k, 4))
                      for c, o, k in zip(cells, cal.offsets, cal.counts_per_gram, strict=True))
    rounded = {k: round(v, 3) for k, v in cal.pawn_mass_g.items()}
    masses = dataclasses.replace(config.table.pawn_mass_g, **rounded)
    table = dataclasses.replace(config.table, cells=new_cells, pawn_mass_g=masses)
    return dataclasses.replace(config, table=table)
