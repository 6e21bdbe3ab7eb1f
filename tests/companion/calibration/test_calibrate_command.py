"""``dingo-companion calibrate`` end to end on the simulated table, answers piped on stdin."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from companion.cli import main
from companion.config import load_config


def test_calibrate_on_the_simulator_saves_a_sane_result(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    from hardware.sim import TableSimulator

    monkeypatch.delenv("DINGO_SOURCE", raising=False)
    path = tmp_path / "config.toml"
    path.write_text('# my table\n# kitchen\n[source]\nkind = "sim"\n\n'
                    '[source.sim]\nseed = 7\nnoise_g = 0.05\n')
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n" * 40))
    status = main(["calibrate", "--config", str(path), "--weight-g", "200", "--seconds", "1",
                   "--settle", "0.3", "--sim-speed", "10", "--yes"])
    out = capsys.readouterr()
    assert status == 0, out.out + out.err
    assert "Saved to" in out.out
    saved = load_config(path)
    assert path.read_text().startswith("# my table\n# kitchen\n")
    truth = TableSimulator(seed=7, noise_g=0.05)  # same seed: the same simulated table
    for got, true in zip(saved.table.cells, truth.header.cells, strict=True):
        assert got.counts_per_gram == pytest.approx(true.counts_per_gram, rel=0.03)
        assert abs(got.offset - true.offset) / abs(true.counts_per_gram) < 1.0  # within 1 g
    for size, mass in truth.pawn_mass_g.items():
        assert getattr(saved.table.pawn_mass_g, size) == pytest.approx(mass, rel=0.08)


def test_calibrate_stops_cleanly_when_input_ends(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("DINGO_SOURCE", raising=False)
    path = tmp_path / "config.toml"
    path.write_text('[source]\nkind = "sim"\n')
    before = path.read_text()
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["calibrate", "--config", str(path), "--sim-speed", "8"]) == 1
    assert "nothing was saved" in capsys.readouterr().err
    assert path.read_text() == before


def test_sim_speed_refused_for_real_sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("DINGO_SOURCE", raising=False)
    path = tmp_path / "config.toml"
    path.write_text('[source]\nkind = "serial"\n')
    assert main(["calibrate", "--config", str(path), "--sim-speed", "8"]) == 2
    assert "--sim-speed only applies" in capsys.readouterr().err
