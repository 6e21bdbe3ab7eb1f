"""The written-out fast paths (parser rows, cell sums, bookkeeping) agree with the careful ones."""

from __future__ import annotations

import io
import json
import math
import random
import struct
from operator import mul

import pytest

from companion.sensing.cells import CellFilter
from companion.sensing.settings import SensingSettings
from companion.sensing.trace import RAW_MAX, RAW_MIN, CellSpec, Sample, TraceError, TraceHeader, read_trace


def header(n: int, rate: float = 80.0) -> TraceHeader:
    """A table of ``n`` cells; one cell on the y axis and one wired the other way round."""
    cells = []
    for i in range(n):
        ang = 2 * math.pi * i / n + math.pi / 2
        x = 0.0 if i == 0 else round(120 * math.cos(ang), 1)
        cells.append(CellSpec(x, round(120 * math.sin(ang), 1), 1000.0 * i - 2000.0,
                              -410.0 if i == 1 else 395.0 + 7 * i))
    return TraceHeader(rate, tuple(cells), {"small": 2.1, "medium": 4.6, "large": 7.9})


def text_of(hdr: TraceHeader, rows: list[str]) -> str:
    cells = [{"x_mm": c.x_mm, "y_mm": c.y_mm, "offset": c.offset, "counts_per_gram": c.counts_per_gram}
             for c in hdr.cells]
    lines = ['# format: "dingo-trace/1"', f"# rate_hz: {hdr.rate_hz:g}", f"# cells: {json.dumps(cells)}",
             f"# pawn_mass_g: {json.dumps(hdr.pawn_mass_g)}",
             ",".join(["t_ms"] + [f"c{i}" for i in range(len(hdr.cells))])]
    return "\n".join(lines + rows) + "\n"


def odd_rows(n: int, seed: int) -> tuple[list[str], list[Sample]]:
    """Rows in every form the format allows, with the samples they stand for."""
    rng = random.Random(seed)
    rows, expected = [], []
    t = 0
    for k in range(600):
        t += rng.choice((12, 13, 25, 0))
        raw: list[int | None] = []
        fields = []
        for _ in range(n):
            r = rng.random()
            v: int | None = rng.randint(-400_000, 400_000)
            if r < 0.05:
                v = None
            elif r < 0.10:
                v = rng.choice((RAW_MAX, RAW_MIN, -1))
            raw.append(v)
            text = "" if v is None else str(v)
            if v is not None and r > 0.97:
                text = f" {v} " if v < 0 else f"+{v}"
            fields.append(text)
        line = ",".join([str(t)] + fields)
        if k % 50 == 7:
            line += "\r"
        if k % 97 == 3:
            rows.append("")
        rows.append(line)
        expected.append(Sample(t, tuple(raw)))
    return rows, expected


@pytest.mark.parametrize("n", [1, 3, 4, 5])
def test_rows_parse_as_the_careful_path_would(n: int) -> None:
    rows, expected = odd_rows(n, seed=n)
    hdr, it = read_trace(io.StringIO(text_of(header(n), rows), newline=""))
    got = list(it)
    assert got == expected
    assert all(type(v) is int for s in got for v in s.raw if v is not None)


@pytest.mark.parametrize("n", [1, 3, 4, 5])
@pytest.mark.parametrize(("t", "first", "extra", "reason"), [
    (40, "8388608", 0, "outside signed 24-bit"),
    (40, "-8388609", 0, "outside signed 24-bit"),
    (5, "1", 0, "must not decrease"),
    (40, "1_000", 0, "must be an integer or empty"),
    (40, "1", 1, "expected"),
])
def test_bad_rows_rejected_on_every_width(n: int, t: int, first: str, extra: int, reason: str) -> None:
    good = [f"{10 * k},{','.join(['100'] * n)}" for k in range(1, 4)]
    for fields in ([first] + ["7"] * (n - 1 + extra), ["7"] * (n - 1 + extra) + [first]):
        _, it = read_trace(io.StringIO(text_of(header(n), good + [",".join([str(t), *fields])])))
        with pytest.raises(TraceError) as err:
            list(it)
        assert err.value.line == 9 and reason in str(err.value)


def bits(v: float) -> bytes:
    return struct.pack("<d", v)


@pytest.mark.parametrize("n", [1, 3, 4, 5])
def test_cell_sums_bit_identical_to_the_general_formula(n: int) -> None:
    hdr = header(n)
    cells = CellFilter(hdr, SensingSettings())
    rng = random.Random(n)
    base = [rng.randint(-300_000, 300_000) for _ in range(n)]
    for k in range(3000):
        if k % 500 == 0:
            base = [rng.randint(-300_000, 300_000) for _ in range(n)]
        raw = tuple(b + rng.randint(-60, 60) for b in base)
        cells.update(12 * k, raw)
        ok = cells.ok
        for got, ks, c in ((cells.F, cells._kf, cells._cf), (cells.X, cells._kx, cells._cx),
                           (cells.Y, cells._ky, cells._cy)):
            assert bits(got) == bits(sum(map(mul, ok, ks)) - c)
    assert cells._fast  # the fast path was taken


def reference_sigmas(cells: CellFilter, block: list[tuple[int | None, ...]]) -> list[float]:
    """The noise estimate as first written: median |difference| of every third read, / 0.954."""
    rows = block[::3] if len(block) >= 48 else block
    out = []
    for i in range(cells.n):
        scale = abs(cells._inv[i])
        col = [r[i] for r in rows]
        diffs = sorted(abs(b - a) * scale for a, b in zip(col, col[1:], strict=False)
                       if a is not None and b is not None and a not in (RAW_MAX, RAW_MIN, -1)
                       and b not in (RAW_MAX, RAW_MIN, -1))
        out.append(diffs[len(diffs) // 2] / 0.954 if len(diffs) >= 4 else 0.0)
    return out


@pytest.mark.parametrize(("noise", "noisy_g", "noisy"),
                         [(30, 3.0, False), (400, 0.4, True), (3000, 3.0, True)])
def test_noise_estimate_exact_and_noisy_cell_found(noise: int, noisy_g: float, noisy: bool) -> None:
    """Cell 2 has uniform noise of +-``noise`` counts (about 400 counts per gram): below the glitch
    jump (fast rows, quiet-block shortcut considered) or far above it (careful rows)."""
    cells = CellFilter(header(4), SensingSettings(noisy_g=noisy_g))
    rng = random.Random(noise)
    events = []
    for second in range(4):
        block = []
        for k in range(80):
            raw = tuple(20_000 * (i + 1) + rng.randint(-30, 30)
                        + (rng.randint(-noise, noise) if i == 2 else 0) for i in range(4))
            if second == 3 and k == 40:
                raw = (None, *raw[1:])
            block.append(raw)
            events += cells.update(12 * (80 * second + k), raw) or []
        assert cells.noise_g == reference_sigmas(cells, block)
    found = [e["cell"] for e in events if e["kind"] == "noisy"]
    assert found == ([2] if noisy else [])


def test_stuck_cell_reported_after_stuck_ms_on_the_check_grid() -> None:
    hdr = header(4)
    s = SensingSettings()
    cells = CellFilter(hdr, s)
    rng = random.Random(3)
    events = []
    for k in range(800):
        raw = [rng.randint(-100, 100) + 1000 * i for i in range(4)]
        if k >= 101:
            raw[3] = 4242  # stuck from row 101 (the 102nd row)
        elif k % 64 in (15, 23):
            raw[3] = 777  # the same code at two checks in a row, then a new one: the run ends
        events += cells.update(12 * k, tuple(raw)) or []
    stuck = [e for e in events if e["kind"] == "stuck"]
    # checks every 8 rows (100 ms); the first check on the stuck code (row 104) starts the run,
    # and 20 more checks (2000 ms) of the same code make it a fault
    assert len(stuck) == 1 and stuck[0]["cell"] == 3
    assert stuck[0]["t_ms"] == 12 * (103 + 8 * 20)


@pytest.mark.parametrize(("family", "cells", "rate", "kind", "seed"), [
    ("pedestal-sync", 4, 80, "game", 3), ("pivot-spring", 3, 80, "game", 4),
    ("pedestal-free", 4, 10, "game", 5), ("pedestal-free", 1, 80, "game", 6),
    ("sim", 4, 80, "faults", 100_000), ("sim", 3, 80, "faults", 100_001),
    ("pedestal-free", 4, 80, "faults", 100_002), ("sim", 3, 10, "faults", 100_003),
])
def test_feed_many_gives_exactly_the_events_of_feed(family: str, cells: int, rate: int, kind: str,
                                                    seed: int) -> None:
    """``Pipeline.feed_many`` (replay's block path) writes out the still path of ``feed``: on game
    and fault traces (glitches, missed reads, failed and replaced cells, 1/3/4 cells, 10/80 Hz) it
    returns the same events, and leaves the pipeline in the same state, as ``feed`` on each sample."""
    from companion.sensing.pipeline import Pipeline
    from hardware.simfamily.generate import generate

    header, samples, _ = generate(seed, family_name=family, cells=cells, rate_hz=rate, noise_g=0.15,
                                  kind=kind, minutes=1.0)
    one, many = Pipeline(header), Pipeline(header)
    events = [e for s in samples for e in one.feed(s)]
    got = many.feed_many(iter(samples[: len(samples) // 2]))
    got += many.feed_many(iter(samples[len(samples) // 2:]))
    assert got == events and many.finish() == one.finish()
    assert many.snapshot() == one.snapshot()
    assert (many._n, many._level.bF, many._fX, many._level.noise, many._cells.F, many._cells._rows) == \
        (one._n, one._level.bF, one._fX, one._level.noise, one._cells.F, one._cells._rows)
