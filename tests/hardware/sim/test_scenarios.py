"""The corpus generator and the ``simulate`` command."""

import json
from collections import Counter
from pathlib import Path

import pytest

from companion.cli import main
from companion.sensing.trace import read_trace
from hardware.sim import generate


def test_game_is_deterministic_and_realistic() -> None:
    a = generate(21, cells=4, rate_hz=80, noise_g=0.1, kind="game", minutes=1.0)
    b = generate(21, cells=4, rate_hz=80, noise_g=0.1, kind="game", minutes=1.0)
    assert a[1] == b[1] and a[2] == b[2]
    header, samples, truth = a
    assert truth[0]["event"] == "scenario" and truth[0]["kind"] == "game"
    times = [e["t_ms"] for e in truth[1:]]
    assert times == sorted(times)
    counts = Counter(e["event"] for e in truth)
    assert counts["placed"] >= 5
    assert 55_000 <= samples[-1].t_ms <= 70_000
    for e in truth:
        if e["event"] == "placed":
            assert {"size", "mass_g", "x_mm", "y_mm", "zone", "number", "on_line"} <= set(e)
    assert len(samples) < 60 * 80 * 1.1 and len(samples) > 60 * 80 * 0.9  # dropped rows are rare


def test_games_tip_a_few_times_not_every_placement() -> None:
    tips = placements = 0
    for seed in range(4):
        _, _, truth = generate(seed, kind="game", rate_hz=10, minutes=3.0)
        c = Counter(e["event"] for e in truth)
        tips, placements = tips + c["tipped"], placements + c["placed"]
    assert 2 <= tips <= placements / 4


def test_bump_only_is_quiet_after_warm_up() -> None:
    _, samples, truth = generate(3, kind="bump_only", rate_hz=10, minutes=1.5)
    quiet = truth[0]["quiet_from_ms"]
    late = [e["event"] for e in truth[1:] if e["t_ms"] >= quiet]
    assert late and set(late) == {"bump"}
    assert samples[-1].t_ms > quiet + 60_000


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_fault_scenario_has_one_fault_of_each_kind_by_seed(seed: int) -> None:
    _, samples, truth = generate(seed, kind="faults", cells=3, rate_hz=10, minutes=0.5)
    faults = [e for e in truth if e["event"] == "fault"]
    assert len(faults) == 1
    assert faults[0]["kind"] == ("stuck", "saturated", "disconnected", "noisy")[seed]
    assert samples[-1].t_ms >= faults[0]["t_ms"] + 5000


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="unknown scenario kind"):
        generate(1, kind="party")
    with pytest.raises(ValueError, match="minutes"):
        generate(1, minutes=0)
    with pytest.raises(ValueError, match="cells"):
        generate(1, cells=0)


def test_simulate_command_writes_trace_and_truth(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert main(["simulate", "--out", str(out), "--seed", "4", "--cells", "3", "--rate", "10",
                 "--minutes", "0.5", "--noise", "0.2"]) == 0
    header, rows = read_trace(out / "table.trace.csv")
    samples = list(rows)
    assert len(header.cells) == 3 and header.rate_hz == 10 and len(samples) > 250
    truth = [json.loads(line) for line in (out / "truth.jsonl").read_text().splitlines()]
    assert truth[0]["event"] == "scenario" and truth[0]["seed"] == 4
    again = tmp_path / "again"
    main(["simulate", "--out", str(again), "--seed", "4", "--cells", "3", "--rate", "10",
          "--minutes", "0.5", "--noise", "0.2"])
    assert (again / "table.trace.csv").read_bytes() == (out / "table.trace.csv").read_bytes()


def test_simulate_rejects_bad_noise(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--out", str(tmp_path), "--noise", "-1"]) == 2
    assert "--noise" in capsys.readouterr().err


def test_noise_and_pawn_masses_are_what_the_scenario_says() -> None:
    import statistics

    header, samples, truth = generate(8, cells=4, rate_hz=80, noise_g=0.25, kind="game", minutes=0.5)
    quiet = [s for s in samples if s.t_ms < 1450 and None not in s.raw]
    for i, cell in enumerate(header.cells):
        grams = [(s.raw[i] - cell.offset) / cell.counts_per_gram for s in quiet]
        mid = statistics.median(grams)
        sigma = 1.4826 * statistics.median(abs(g - mid) for g in grams)  # robust to glitches
        assert 0.25 * 0.8 * 0.75 < sigma < 0.25 * 1.2 * 1.25  # +-20 % per cell, sampling error
    for e in truth:
        if e["event"] == "placed":
            assert abs(e["mass_g"] / header.pawn_mass_g[e["size"]] - 1) <= 0.0501
