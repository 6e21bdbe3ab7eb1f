"""The GPIO source with a fake ``hx711`` driver: values, rejected reads, slow reads."""

from __future__ import annotations

import itertools
import sys
import time
import types

import pytest

from companion.config import Config
from companion.sensing.trace import Sample
from hardware.sources import SourceFault, make_source


class FakeHX711:
    """Stands in for ``hx711.HX711``: scripted results per data pin."""

    scripts: dict[int, itertools.cycle] = {}
    made: list[dict] = []

    def __init__(self, dout_pin: int, pd_sck_pin: int, gain: int = 128, channel: str = "A") -> None:
        FakeHX711.made.append({"dout": dout_pin, "sck": pd_sck_pin, "gain": gain, "channel": channel})
        self.dout = dout_pin

    def _read(self):
        value = next(self.scripts[self.dout])
        if value == "slow":
            time.sleep(0.05)
            return 1
        return value


@pytest.fixture
def fake_hx711(monkeypatch: pytest.MonkeyPatch):
    module = types.ModuleType("hx711")
    module.HX711 = FakeHX711
    monkeypatch.setitem(sys.modules, "hx711", module)
    FakeHX711.made = []
    yield FakeHX711


def read_until(source, n: int) -> list:
    items: list = []
    end = time.monotonic() + 3
    while time.monotonic() < end and sum(isinstance(i, Sample) for i in items) < n:
        items.extend(source.read(0.05))
    return items


def test_cells_share_the_clock_and_values_arrive(fake_hx711) -> None:
    fake_hx711.scripts = {6: itertools.cycle([10, 11]), 13: itertools.cycle([20]),
                          19: itertools.cycle([30]), 26: itertools.cycle([-40])}
    source = make_source(Config(), "gpio")
    source.open()
    try:
        items = read_until(source, 4)
    finally:
        source.close()
    assert {m["sck"] for m in fake_hx711.made} == {5}
    assert [m["dout"] for m in fake_hx711.made] == [6, 13, 19, 26]
    samples = [i for i in items if isinstance(i, Sample)]
    assert samples[0].raw == (10, 20, 30, -40) and samples[1].raw == (11, 20, 30, -40)


def test_rejected_and_slow_reads_are_faults_not_values(fake_hx711) -> None:
    fake_hx711.scripts = {6: itertools.cycle([False, 5]), 13: itertools.cycle(["slow"]),
                          19: itertools.cycle([7]), 26: itertools.cycle([8])}
    source = make_source(Config(), "gpio", max_read_s=0.02)
    source.open()
    try:
        items = read_until(source, 2)
    finally:
        source.close()
    samples = [i for i in items if isinstance(i, Sample)]
    assert samples[0].raw == (None, None, 7, 8)
    assert samples[1].raw == (5, None, 7, 8)
    fault_kinds = [(f.cell, f.kind) for f in items if isinstance(f, SourceFault)][:3]
    assert fault_kinds == [(0, "read_error"), (1, "late"), (1, "late")]
    assert source.faults["rejected"] >= 1 and source.faults["late"] >= 2


def test_channel_b_for_gain_32(fake_hx711) -> None:
    import dataclasses

    from companion.config import GpioConfig, SourceConfig

    fake_hx711.scripts = {p: itertools.cycle([1]) for p in (6, 13, 19, 26)}
    cfg = Config(source=dataclasses.replace(SourceConfig(), gpio=GpioConfig(gain=32)))
    source = make_source(cfg, "gpio")
    source.open()
    source.close()
    assert {m["channel"] for m in fake_hx711.made} == {"B"}
