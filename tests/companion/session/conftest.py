"""Shared fixtures for the session-log tests."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from companion.sensing.trace import CellSpec, Sample, TraceHeader
from companion.session import SessionStore


def make_header(n_cells: int = 4, rate_hz: float = 80) -> TraceHeader:
    """A plausible 4-cell table header."""
    cells = tuple(CellSpec(120.0 * (i % 2), 120.0 * (i // 2), 84000.0 + i, 410.0 - i) for i in range(n_cells))
    return TraceHeader(rate_hz=rate_hz, cells=cells, pawn_mass_g={"small": 2.1, "medium": 4.6, "large": 7.9})


def make_samples(n: int, seed: int = 1, n_cells: int = 4, t0: int = 0) -> list[Sample]:
    """Noisy raw rows with some missed reads and uneven timing."""
    rng = random.Random(seed)
    out, t = [], t0
    for _ in range(n):
        t += rng.choice((12, 13, 12, 25))
        raw = tuple(None if rng.random() < 0.01 else 84000 + rng.randint(-300, 300) for _ in range(n_cells))
        out.append(Sample(t, raw))
    return out


@pytest.fixture
def store(tmp_path: Path):
    """A fresh store in a temporary data directory, closed afterwards."""
    s = SessionStore(tmp_path / "data")
    yield s
    s.close()


@pytest.fixture
def header_factory():
    """``make_header`` as a fixture (test modules cannot import conftest under importlib mode)."""
    return make_header


@pytest.fixture
def samples_factory():
    """``make_samples`` as a fixture."""
    return make_samples
