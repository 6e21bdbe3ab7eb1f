"""A sample source that cannot be set up is reported and retried with back-off, never fatal."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import pytest

from companion.config import default_config
from companion.table.build import build_table
from companion.table.controller import TableController
from companion.table.game import DingoDiscGame
from companion.table.loop import SourceLoop
from companion.table.retry import RetryingSource


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, s: float) -> None:
        self.now += s


class Sample:
    def __init__(self, t_ms: int) -> None:
        self.t_ms = t_ms
        self.raw = (1, 2, 3, 4)


class Bridge:
    """A source that works once plugged in."""

    header = "config-header"

    def __init__(self) -> None:
        self.opened = 0
        self.t = 0

    def open(self) -> None:
        self.opened += 1

    def read(self, timeout_s: float) -> list:
        self.t += 10
        return [Sample(self.t)]

    def close(self) -> None:
        pass


class Plug:
    """``build()`` fails (no device) until ``plugged`` is set."""

    def __init__(self) -> None:
        self.plugged = False
        self.calls: list[float] = []
        self.bridge = Bridge()

    def build(self, clock: Clock) -> Bridge:
        self.calls.append(clock.now)
        if not self.plugged:
            raise OSError("no such device: /dev/ttyACM0")
        return self.bridge


def test_set_up_is_retried_with_back_off_until_the_bridge_is_plugged_in():
    clock, plug = Clock(), Plug()
    changes: list = []
    src = RetryingSource(lambda: plug.build(clock), "config-header", initial_s=1.0, max_s=4.0,
                         clock=clock, sleep=clock.sleep)
    src.on_change = changes.append
    src.open()  # never raises
    assert src.problem == "no such device: /dev/ttyACM0"
    (fault,) = src.read(0.05)  # the failure is reported once, as a whole-source fault
    assert fault.kind == "disconnected" and fault.cell is None
    assert fault.message == "sensor source unavailable: no such device: /dev/ttyACM0 (retrying)"
    for _ in range(400):  # 20 s of 50 ms reads
        items = src.read(0.05)
        assert all(getattr(i, "kind", None) == "disconnected" for i in items)
    gaps = [round(b - a, 2) for a, b in zip(plug.calls, plug.calls[1:], strict=False)]
    assert gaps[:4] == [1.0, 2.0, 4.0, 4.0]  # doubling, capped at max_s
    assert changes == ["no such device: /dev/ttyACM0"]  # said once, not at every attempt
    plug.plugged = True
    got: list = []
    for _ in range(200):
        got = src.read(0.05)
        if got:
            break
    assert got and hasattr(got[0], "raw") and src.problem is None
    assert changes[-1] is None and plug.bridge.opened == 1
    assert clock.now - plug.calls[-1] < 0.1  # read at once after the successful attempt


def test_the_table_shows_the_fault_and_recovers_when_the_source_comes_up():
    clock, plug = Clock(), Plug()
    src = RetryingSource(lambda: plug.build(clock), "config-header", clock=clock, sleep=clock.sleep)
    lights: list[str] = []

    class Panel:
        def set_status(self, kind: str) -> None:
            lights.append(kind)

    class Pipeline:
        def feed(self, sample) -> list:
            return []

    c = TableController(DingoDiscGame(), panel=Panel(), rng=random.Random(1), fault_clear_s=0.0)
    loop = SourceLoop(src, Pipeline(), c)
    loop.source.open()
    loop.step()
    msg = c.message()
    assert msg["status"]["source"].startswith("sensor source unavailable: no such device")
    assert lights[-1] == "fault"
    assert loop._unavailable()  # the loop does not add its own "no samples" line meanwhile
    plug.plugged = True
    clock.now += 60
    assert loop.step() == 1
    c.health_tick(True)
    assert "source" not in c.message()["status"] and lights[-1] == "waiting"
    assert any("Sensor fault over" in e["text"] for e in c.message()["feed"])


def test_an_unknown_kind_still_builds_a_table_that_reports_it(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("DINGO_SOURCE", "bogus")
    table = build_table(default_config(), tmp_path)
    try:
        table.start()
        assert table.source_kind is None and table.controller.mode == "none"
        problem = table.source_problem
        assert "unknown source kind 'bogus' (from $DINGO_SOURCE)" in problem
        assert "valid kinds: serial, gpio, sim, trace" in problem
    finally:
        table.stop()


@pytest.mark.skipif(importlib.util.find_spec("hx711") is not None, reason="hx711 is installed here")
def test_gpio_without_the_hx711_package_is_reported_not_fatal(tmp_path: Path):
    table = build_table(default_config(), tmp_path, source_kind="gpio")
    try:
        table.start()
        assert table.source_kind == "gpio"
        assert "hx711" in table.source_problem
    finally:
        table.stop()


def test_back_off_must_make_sense():
    with pytest.raises(ValueError, match="back-off"):
        RetryingSource(lambda: None, None, initial_s=5.0, max_s=1.0)
