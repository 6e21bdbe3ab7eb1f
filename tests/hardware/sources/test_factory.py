"""make_source: kind from argument > $DINGO_SOURCE > config, clear errors."""

from __future__ import annotations

import dataclasses

import pytest

from companion.config import Config, SourceConfig, TraceSourceConfig
from hardware.sources import SourceError, SourceFault, make_source, resolve_kind
from hardware.sources.gpio_source import GpioSource
from hardware.sources.serial_source import SerialSource
from hardware.sources.sim_source import SimSource


def config(**source: object) -> Config:
    return Config(source=dataclasses.replace(SourceConfig(), **source))


def test_kind_precedence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DINGO_SOURCE", raising=False)
    assert resolve_kind(config(kind="serial")) == "serial"
    monkeypatch.setenv("DINGO_SOURCE", "gpio")
    assert resolve_kind(config(kind="serial")) == "gpio"
    assert resolve_kind(config(kind="serial"), "sim") == "sim"


def test_unknown_kind_lists_valid_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DINGO_SOURCE", "usb")
    expected = r"'usb' \(from \$DINGO_SOURCE\); valid kinds: serial, gpio, sim, trace"
    with pytest.raises(SourceError, match=expected):
        make_source(Config())


def test_builds_each_kind_without_hardware(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DINGO_SOURCE", raising=False)
    assert isinstance(make_source(Config(), "serial"), SerialSource)
    assert isinstance(make_source(Config(), "gpio"), GpioSource)  # hx711 is imported only on open()
    sim = make_source(Config(), "sim")
    assert isinstance(sim, SimSource) and len(sim.header.cells) == 4
    with pytest.raises(SourceError, match=r"\[source.trace\] path"):
        make_source(Config(), "trace")
    with pytest.raises(SourceError, match="trace file not found"):
        make_source(config(trace=TraceSourceConfig(path="/nonexistent.trace.csv")), "trace")


def test_gpio_open_without_hx711_says_what_to_install() -> None:
    source = make_source(Config(), "gpio")
    with pytest.raises(SourceError, match=r"pip install 'dingo-companion\[pi\]'"):
        source.open()


def test_fault_kind_is_checked() -> None:
    with pytest.raises(ValueError, match="unknown fault kind 'bad'"):
        SourceFault(0, None, "bad", "x")
