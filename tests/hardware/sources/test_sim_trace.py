"""The simulator source (real time, drivable) and the trace source (real time or at once)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from companion.config import Config
from companion.sensing.trace import Sample, write_trace
from hardware.sim import TableSimulator
from hardware.sources import SourceFault, make_source
from hardware.sources.trace_source import TraceSource


def test_sim_source_runs_in_real_time_and_is_drivable() -> None:
    source = make_source(Config(), "sim")
    source.open()
    got: list = []
    start = time.monotonic()
    with source.lock:
        source.simulator.place("large", 60.0, 0.0)
    while time.monotonic() - start < 0.5:
        got.extend(source.read(0.05))
    elapsed = time.monotonic() - start
    source.close()
    assert all(isinstance(s, Sample) for s in got)
    # about rate x elapsed samples (the simulator drops ~1 row in 400)
    assert abs(len(got) - 80 * elapsed) <= 4
    assert [s.t_ms for s in got] == sorted(s.t_ms for s in got)


def test_sim_read_respects_timeout() -> None:
    source = make_source(Config(), "sim")
    source.open()
    source.read(0.0)
    start = time.monotonic()
    out = source.read(0.001)
    assert time.monotonic() - start < 0.05
    assert len(out) <= 1


@pytest.fixture
def trace_file(tmp_path: Path) -> Path:
    sim = TableSimulator(seed=3, gaps=False)
    path = tmp_path / "t.trace.csv"
    write_trace(path, sim.header, sim.run_for(1000))
    return path


def test_trace_as_fast_as_possible(trace_file: Path) -> None:
    source = TraceSource(trace_file, speed=0)
    source.open()
    got: list = []
    while not source.finished:
        got.extend(source.read(0.1))
    assert 78 <= len(got) <= 82 and all(isinstance(s, Sample) for s in got)
    assert source.header.rate_hz == 80.0


def test_trace_in_real_time_at_double_speed(trace_file: Path) -> None:
    source = TraceSource(trace_file, speed=2)
    source.open()
    got: list = []
    start = time.monotonic()
    while not source.finished:
        got.extend(source.read(0.05))
    elapsed = time.monotonic() - start
    assert 0.45 <= elapsed <= 0.9  # one second of trace at twice the speed
    assert len(got) >= 78


def test_trace_read_never_blocks_longer_than_timeout(trace_file: Path) -> None:
    source = TraceSource(trace_file, speed=0.01)  # 100 times slower than real time
    source.open()
    source.read(0)
    start = time.monotonic()
    source.read(0.05)
    assert time.monotonic() - start < 0.1


def test_bad_row_becomes_a_fault(tmp_path: Path, trace_file: Path) -> None:
    text = trace_file.read_text().splitlines()
    text[12] = "oops,1,2,3,4"
    bad = tmp_path / "bad.trace.csv"
    bad.write_text("\n".join(text) + "\n")
    source = TraceSource(bad, speed=0)
    source.open()
    got: list = []
    while not source.finished:
        got.extend(source.read(0.1))
    assert isinstance(got[-1], SourceFault) and "line 13" in got[-1].message
