"""A light summary of the raw trace for plots: mass and centre of pressure, a few points a second.

Computed when each trace chunk is written (so a 4-hour session's page never decodes 1.15 M
rows): grams per cell = ``(raw - offset) / counts_per_gram`` (the spec's calibration), mass = their
sum, centre of pressure = the mass-weighted mean of the cell positions when the mass is at least
``MIN_COP_MASS_G`` (below that it is noise and left ``None``).
"""

from __future__ import annotations

from collections.abc import Sequence

from companion.sensing.trace import Sample, TraceHeader

BUCKET_MS = 500
MIN_COP_MASS_G = 1.0

Point = list[float | int | None]  # [t_ms, mass_g, cop_x_mm, cop_y_mm]


def _point(header: TraceHeader, rows: Sequence[Sample]) -> Point | None:
    n = len(header.cells)
    sums = [0.0] * n
    counts = [0] * n
    for s in rows:
        for i, v in enumerate(s.raw):
            if v is not None:
                sums[i] += v
                counts[i] += 1
    if not all(counts):
        return None  # a cell missed every read in this bucket: no honest total
    grams = [(sums[i] / counts[i] - c.offset) / c.counts_per_gram for i, c in enumerate(header.cells)]
    mass = sum(grams)
    x = y = None
    if mass >= MIN_COP_MASS_G:
        x = round(sum(g * c.x_mm for g, c in zip(grams, header.cells, strict=True)) / mass, 1)
        y = round(sum(g * c.y_mm for g, c in zip(grams, header.cells, strict=True)) / mass, 1)
    return [rows[-1].t_ms, round(mass, 2), x, y]


def summarise(header: TraceHeader, samples: Sequence[Sample], bucket_ms: int = BUCKET_MS) -> list[Point]:
    """One ``[t_ms, mass_g, cop_x, cop_y]`` point per ``bucket_ms`` of samples (bucket means)."""
    out: list[Point] = []
    bucket: list[Sample] = []
    start: int | None = None
    for s in samples:
        if start is None:
            start = s.t_ms
        if s.t_ms - start >= bucket_ms and bucket:
            p = _point(header, bucket)
            if p is not None:
                out.append(p)
            bucket, start = [], s.t_ms
        bucket.append(s)
    if bucket:
        p = _point(header, bucket)
        if p is not None:
            out.append(p)
    return out
