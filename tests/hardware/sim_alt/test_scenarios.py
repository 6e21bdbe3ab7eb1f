"""The independent corpus generator: determinism, trace round-trip, truth consistent with the signal."""

from __future__ import annotations

import io
import math
import statistics

import pytest

from companion.bench.sensing import corpus_plan, run_table
from companion.sensing.trace import RAW_MAX, RAW_MIN, TraceWriter, read_trace
from hardware.sim_alt import generate


def _text(header, samples) -> str:
    buf = io.StringIO()
    writer = TraceWriter(buf, header)
    for s in samples:
        writer.write(s)
    return buf.getvalue()


def test_same_seed_same_trace_other_seed_other_trace() -> None:
    a = generate(11, cells=3, rate_hz=80, noise_g=0.1, kind="game", minutes=0.6)
    b = generate(11, cells=3, rate_hz=80, noise_g=0.1, kind="game", minutes=0.6)
    c = generate(12, cells=3, rate_hz=80, noise_g=0.1, kind="game", minutes=0.6)
    assert _text(a[0], a[1]) == _text(b[0], b[1]) and a[2] == b[2]
    assert _text(a[0], a[1]) != _text(c[0], c[1])


@pytest.mark.parametrize(("cells", "rate"), [(4, 80), (3, 10), (1, 80)])
def test_trace_round_trips_through_the_trace_reader(cells: int, rate: int) -> None:
    header, samples, truth = generate(3, cells=cells, rate_hz=rate, noise_g=0.2, kind="game", minutes=0.5)
    back_header, rows = read_trace(_text(header, samples))
    back = list(rows)
    assert back == samples and back_header.cells == header.cells and back_header.rate_hz == rate
    assert len(header.cells) == cells and truth[0]["event"] == "scenario" and truth[0]["cells"] == cells
    times = [s.t_ms for s in samples]
    assert times == sorted(times)
    assert abs(len(samples) - 30 * rate) < 0.1 * 30 * rate + 20  # rate within a few % + drops/gaps
    values = [v for s in samples for v in s.raw if v is not None]
    assert all(RAW_MIN <= v <= RAW_MAX for v in values)


def _grams(header, samples, t0: int, t1: int) -> list[float]:
    """Median calibrated grams per cell over [t0, t1] (robust to glitches and bumps)."""
    out = []
    for i, cell in enumerate(header.cells):
        vals = [(s.raw[i] - cell.offset) / cell.counts_per_gram
                for s in samples if t0 <= s.t_ms <= t1 and s.raw[i] is not None]
        out.append(statistics.median(vals))
    return out


@pytest.mark.parametrize("seed", [1, 2])
def test_placements_weigh_their_mass_at_their_position(seed: int) -> None:
    header, samples, truth = generate(seed, cells=4, rate_hz=80, noise_g=0.02, kind="bump_only", minutes=1.0)
    placed = [e for e in truth if e["event"] == "placed"]
    assert 3 <= len(placed) <= 8
    before = _grams(header, samples, 200, 1000)
    for e in placed:
        after = _grams(header, samples, e["t_ms"] + 400, e["t_ms"] + 1100)
        df = [a - b for a, b in zip(after, before, strict=True)]
        mass = sum(df)
        x = sum(f * c.x_mm for f, c in zip(df, header.cells, strict=True)) / mass
        y = sum(f * c.y_mm for f, c in zip(df, header.cells, strict=True)) / mass
        assert mass == pytest.approx(e["mass_g"], abs=0.1)
        assert math.hypot(x - e["x_mm"], y - e["y_mm"]) < 3.0  # mounting error ~1 mm, noise, drift
        assert e["zone"] is None or (e["zone"], e["number"]) != (None, None)
        before = after


@pytest.mark.parametrize(("seed", "kind"),
                         [(0, "stuck"), (1, "saturated"), (2, "disconnected"), (3, "noisy")])
def test_fault_traces_fail_one_cell_from_the_onset(seed: int, kind: str) -> None:
    header, samples, truth = generate(seed, cells=4, rate_hz=80, noise_g=0.1, kind="faults", minutes=0.5)
    fault = next(e for e in truth if e["event"] == "fault")
    assert fault["kind"] == kind
    after = [s.raw[fault["cell"]] for s in samples if s.t_ms > fault["t_ms"] + 50]
    if kind == "stuck":
        assert len(set(after)) == 1
    elif kind == "saturated":
        assert len(set(after)) == 1 and after[0] in (RAW_MAX, RAW_MIN)
    elif kind == "disconnected":
        assert set(after) <= {-1, None} and -1 in after
    else:
        cell = header.cells[fault["cell"]]
        spread = statistics.pstdev([(v - cell.offset) / cell.counts_per_gram for v in after if v is not None])
        assert spread > 10


def test_games_tip_fall_and_use_the_scorer_vocabulary() -> None:
    events = []
    for seed in (2, 5):
        events += generate(seed, cells=4, rate_hz=10, noise_g=0.1, kind="game", minutes=4)[2]
    kinds = {e["event"] for e in events}
    assert {"placed", "tipped", "fell", "hand", "removed", "bump", "settled"} <= kinds
    for e in events:
        if e["event"] == "fell":
            assert e["lands_t_ms"] > e["t_ms"] and sum(e["pawns"].values()) == 1
        if e["event"] == "placed":
            assert e["size"] in ("small", "medium", "large") and isinstance(e["on_line"], bool)


def test_bad_arguments_are_named() -> None:
    with pytest.raises(ValueError, match="cells"):
        generate(1, cells=2)
    with pytest.raises(ValueError, match="kind"):
        generate(1, kind="chaos")
    with pytest.raises(ValueError, match="minutes"):
        generate(1, minutes=0)


class _Silent:
    def __init__(self, header) -> None:
        pass

    def feed(self, sample) -> list[dict]:
        return []

    def finish(self) -> list[dict]:
        return []


def test_bench_plan_and_table_run_the_alt_corpus() -> None:
    plan = corpus_plan(1, True, 10, 3, corpus="alt")
    assert {p["corpus"] for p in plan} == {"alt"} and "corpus" not in corpus_plan(1, True, 10, 3)[0]
    with pytest.raises(ValueError, match="corpus"):
        corpus_plan(1, True, 10, 3, corpus="other")
    tally = run_table([p for p in plan if p["kind"] == "game"], pipeline_factory=_Silent)
    assert tally.placed_true > 5 and tally.placed_matched == 0
