"""The serial source end to end over a pseudo-terminal: samples, faults, unplug/replug."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import select
import threading
import time
from pathlib import Path

import pytest

from companion.config import Config, SerialConfig, SourceConfig
from companion.sensing.trace import Sample
from firmware_bridge.protocol import encode
from hardware.sources import SourceFault, make_source


class FakeBridge:
    """A device thread writing protocol lines at 80 Hz to a pty behind a symlink."""

    def __init__(self, link: Path, cells: int = 4) -> None:
        self.link = link
        self.cells = cells
        self.seq = 0
        self.talking = threading.Event()
        self.talking.set()
        self.skip: set[int] = set()
        self.errors: dict[int, str] = {}
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self.master = -1
        self.plug()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def plug(self) -> None:
        with self._lock:
            self.master, self.slave = os.openpty()
            os.symlink(os.ttyname(self.slave), self.link)
            self.seq = 0
        self.hello()

    def hello(self) -> None:
        os.write(self.master, encode(f"H,2,fw=0.1.0,cells={self.cells},rate=80").encode())

    def unplug(self) -> None:
        with self._lock:
            os.unlink(self.link)
            os.close(self.master)
            os.close(self.slave)
            self.master = -1

    def _run(self) -> None:
        while not self._stop.wait(1 / 80):
            with self._lock:
                if self.master < 0 or not self.talking.is_set():
                    continue
                if select.select([self.master], [], [], 0)[0] and b"?" in os.read(self.master, 100):
                    self.hello()  # the host asks who we are (as the firmware answers '?')
                seq = self.seq
                self.seq += 1
                if seq in self.skip:
                    continue
                values = ",".join(str(1000 * c + seq) for c in range(self.cells))
                data = encode(f"S,{seq},{values}").encode()
                if seq in self.errors:
                    data += encode(f"E,{seq},2,{self.errors[seq]},x").encode()
                with contextlib.suppress(OSError):
                    os.write(self.master, data)

    def stop(self) -> None:
        self._stop.set()
        self.thread.join(1)
        if self.master >= 0:
            self.unplug()


def serial_config(link: Path) -> Config:
    serial = SerialConfig(port=str(link))
    return Config(source=dataclasses.replace(SourceConfig(), kind="serial", serial=serial))


def collect(source, until, timeout_s: float = 15.0) -> list:
    """Read until ``until(items)`` holds; ``timeout_s`` is only the bound for a broken link."""
    items: list = []
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        items.extend(source.read(0.05))
        if until(items):
            return items
    raise AssertionError(f"condition not met; last items {items[-5:]}")


def faults(items: list, kind: str) -> list[SourceFault]:
    return [i for i in items if isinstance(i, SourceFault) and i.kind == kind]


@pytest.fixture
def rig(tmp_path: Path):
    link = tmp_path / "dingo-bridge"
    bridge = FakeBridge(link)
    cfg = serial_config(link)
    source = make_source(cfg, backoff_s=(0.05, 0.2))
    source.open()
    yield bridge, source
    source.close()
    bridge.stop()


def test_samples_carry_firmware_time_and_faults_arrive(rig) -> None:
    bridge, source = rig
    # once the link is up (lines sent before the host opened the port are not read), the next
    # lines lose two samples and carry three errors; set under the bridge's lock, so a busy
    # machine cannot let the bridge pass those lines first
    first = collect(source, lambda it: any(isinstance(i, Sample) for i in it))
    with bridge._lock:
        base = bridge.seq + 1
        bridge.skip = {base + 5, base + 6}
        bridge.errors = {base + 8: "saturated", base + 9: "late", base + 10: "desync"}
    items = first + collect(source, lambda it: any(isinstance(i, Sample) and i.raw[0] >= base + 15
                                                   for i in it))
    got = [i for i in items if isinstance(i, Sample)]
    assert all(len(s.raw) == 4 for s in got)
    # t_ms follows the sequence numbers: 12.5 ms per slot, the two lost lines leave a 37.5 ms hole
    by_seq = {s.raw[0]: s.t_ms for s in got}
    assert by_seq[base + 4] - by_seq[base] == 50
    assert by_seq[base + 7] - by_seq[base + 4] in (37, 38)
    assert faults(items, "read_error") and "2 sample(s) lost" in faults(items, "read_error")[0].message
    assert [f.cell for f in faults(items, "saturated")] == [2]
    assert faults(items, "late") and faults(items, "desync")
    assert source.stats.hello is not None and source.stats.hello.cells == 4


def test_silent_device_is_a_fault_within_two_seconds(rig) -> None:
    bridge, source = rig
    collect(source, lambda it: any(isinstance(i, Sample) for i in it))
    bridge.talking.clear()
    start = time.monotonic()
    collect(source, lambda it: bool(faults(it, "silent")))
    assert time.monotonic() - start < 2.0
    bridge.talking.set()
    collect(source, lambda it: any(isinstance(i, Sample) for i in it))


def test_unplug_and_replug_without_restarting(rig) -> None:
    bridge, source = rig
    first = collect(source, lambda it: any(isinstance(i, Sample) for i in it))
    bridge.unplug()
    start = time.monotonic()
    collect(source, lambda it: bool(faults(it, "disconnected")))
    assert time.monotonic() - start < 1.0
    time.sleep(0.3)
    bridge.plug()
    again = collect(source, lambda it: len([i for i in it if isinstance(i, Sample)]) >= 3)
    last_before = max(i.t_ms for i in first if isinstance(i, Sample))
    assert min(i.t_ms for i in again if isinstance(i, Sample)) > last_before


def test_cell_count_mismatch_is_reported(tmp_path: Path) -> None:
    link = tmp_path / "bridge3"
    bridge = FakeBridge(link, cells=3)
    cfg = serial_config(link)
    source = make_source(cfg)
    source.open()
    try:
        items = collect(source, lambda it: len(faults(it, "read_error")) >= 2)
        messages = " ".join(f.message for f in faults(items, "read_error"))
        assert "reads 3 cells but the configuration lists 4" in messages
        assert not any(isinstance(i, Sample) for i in items)
    finally:
        source.close()
        bridge.stop()
