"""``dingo-companion doctor`` against the simulator, a trace, loop:// and a fake bridge on a pty."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
import serial

from companion.cli import main
from companion.sensing.trace import Sample, write_trace
from firmware_bridge.host import probe
from firmware_bridge.protocol import encode
from hardware.sim import TableSimulator


def test_doctor_on_the_simulator_says_ok(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("DINGO_CONFIG", str(tmp_path / "none.toml"))
    (tmp_path / "none.toml").write_text('[source]\nkind = "sim"\n')
    monkeypatch.delenv("DINGO_SOURCE", raising=False)
    status = main(["doctor", "--seconds", "1", "--no-probe"])
    out = capsys.readouterr().out
    assert "Serial devices:" in out
    rows = [line.split() for line in out.splitlines() if line[:4].strip().isdigit()]
    assert len(rows) == 4
    for row in rows:
        measured, configured = (float(x) for x in row[1].split("/"))
        assert configured == 80 and 70 <= measured <= 82
    assert status == 0, out


def test_doctor_names_the_problem_cells(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    sim = TableSimulator(seed=1, gaps=False)
    samples = sim.run_for(3000)
    # cell 1 stuck, cell 2 saturated, cell 3 at 10 Hz (7 of every 8 reads missed)
    broken = [Sample(s.t_ms, (s.raw[0], 1234, 8388607, s.raw[3] if k % 8 == 0 else None))
              for k, s in enumerate(samples)]
    path = tmp_path / "bad.trace.csv"
    write_trace(path, sim.header, broken)
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'[source]\nkind = "trace"\n\n[source.trace]\npath = "{path}"\nspeed = 0\n')
    monkeypatch.delenv("DINGO_SOURCE", raising=False)
    status = main(["doctor", "--config", str(cfg), "--seconds", "0.5", "--no-probe"])
    out = capsys.readouterr().out
    assert status == 1
    assert "cell 1: stuck:" in out and "cell 2: saturated:" in out and "cell 3: slow:" in out
    assert "RATE pin" in out
    assert "cell 0:" not in out


def test_probe_recognises_the_bridge_and_strangers(tmp_path: Path) -> None:
    master, slave = os.openpty()
    name = os.ttyname(slave)
    stop = threading.Event()

    def device() -> None:  # answers '?' with a hello line, like the firmware
        while not stop.is_set():
            try:
                data = os.read(master, 100)
            except OSError:
                return
            if b"?" in data:
                os.write(master, b"junk\r\n" + encode("H,2,fw=0.1.0,cells=4,rate=80").encode())

    thread = threading.Thread(target=device, daemon=True)
    thread.start()
    try:
        assert probe(name, timeout_s=1.0) == "Dingo bridge (protocol 2, fw 0.1.0, 4 cells, 80 Hz)"
    finally:
        stop.set()
        os.close(master)
        os.close(slave)
        thread.join(1)
    loop = serial.serial_for_url("loop://", timeout=0.05)
    assert probe("loop://", timeout_s=0.3, opener=lambda u, b: loop).startswith("answers, but not")
    assert probe(str(tmp_path / "nothing")).startswith("cannot open")
