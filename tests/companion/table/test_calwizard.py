"""The calibration wizard without a browser: readings cut by sample time, on a busy read loop."""

from __future__ import annotations

import pytest

from companion.config import default_config
from companion.sensing.trace import Sample
from companion.table.build import build_table
from companion.table.calwizard import SampleTap


class Fault:
    def __init__(self, message: str) -> None:
        self.message = message


def samples(start_ms: int, end_ms: int) -> list[Sample]:
    """One sample every 12 ms (at 0, 12, 24 ... ms) from ``start_ms`` to before ``end_ms``."""
    return [Sample(t, (t,)) for t in range(0, end_ms, 12) if t >= start_ms]


def test_the_tap_cuts_a_reading_by_sample_time_whatever_the_batches() -> None:
    tap = SampleTap()
    tap.feed(samples(0, 1300))  # one long batch (a busy machine), then a short one
    tap.feed([Fault("cell 1 missed a read")] + samples(1300, 1400))
    assert tap.window(500, 1500, 0.0) is None  # not all of it has arrived yet
    tap.feed(samples(1400, 2700))
    got, faults = tap.window(500, 1500, 0.0)
    assert [s.t_ms for s in got] == list(range(504, 1500, 12))  # exactly the asked span, no more
    assert faults == ["cell 1 missed a read"]
    assert tap.window(2000, 2600, 0.0)[1] == []


def test_the_tap_forgets_old_samples_and_a_restarted_clock() -> None:
    tap = SampleTap(keep_ms=1000)
    tap.feed(samples(0, 3000))
    got, _ = tap.window(0, 2988, 0.0)
    assert got[0].t_ms >= 1988  # only the last second of sample time is kept
    tap.feed(samples(0, 600))  # the bridge restarted: its clock begins again
    assert [s.t_ms for s in tap.window(0, 588, 0.0)[0]] == list(range(0, 588, 12))
    assert tap.now_ms(0.0) == 588
    tap.reset()
    assert tap.now_ms(0.0) is None


def test_a_calibration_is_not_biased_by_a_busy_read_loop(tmp_path) -> None:
    # the simulated table at 10x real time; a batch of 1 s of table time is 0.1 s of wall time,
    # what a loaded 2-core machine does to the read loop. Before readings were cut by sample time,
    # the weight's readings ran past the simulated hand's press (cells "did not change", or the
    # scales came out too small and every pawn 8-57 % too heavy).
    table = build_table(default_config(), tmp_path / "data", source_kind="sim", source_options={"speed": 10},
                        config_path=tmp_path / "config.toml",
                        wizard_options={"seconds": 2.0, "settle_s": 0.3})
    table.loop.batch_s = 1.0 / 10
    wizard = table.calibration
    table.start()
    try:
        wizard.start(500)
        problems = []
        for _ in range(20):
            status = wizard.read()
            if status["problem"]:
                problems.append(status["problem"])
            if status["step"] == "done":
                break
    finally:
        table.stop()
    assert problems == [] and status["step"] == "done", problems
    truth = table.controller.sim.simulator
    result = status["result"]
    for cell, cpg in zip(truth.header.cells, result["counts_per_gram"], strict=True):
        assert cpg == pytest.approx(cell.counts_per_gram, rel=0.05)
    weighed = {e["size"]: e["mass_g"] for e in truth.truth if e.get("event") == "placed"}
    for size, mass in result["pawn_mass_g"].items():
        # each pawn weighed between two empty readings of 2 s: the small one's error is 1.1 % (1 sd)
        assert mass == pytest.approx(weighed[size], rel=0.05), (size, mass, weighed[size])
