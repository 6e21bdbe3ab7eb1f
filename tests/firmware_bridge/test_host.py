"""The host reader against pyserial's loop:// and a pseudo-terminal emulating the device."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
import serial
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.host import BridgeReader, LinkEvent, StreamSample, find_device
from firmware_bridge.protocol import ErrorLine, encode


def collect(reader: BridgeReader, until, timeout_s: float = 3.0) -> list:
    """Items from the reader until ``until(items)`` is true or the timeout passes."""
    items: list = []
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        items.extend(item for _, item in reader.get(0.05))
        if until(items):
            return items
    raise AssertionError(f"condition not met in {timeout_s} s; got {items[-10:]}")


def samples(items: list) -> list[StreamSample]:
    return [i for i in items if isinstance(i, StreamSample)]


def events(items: list, kind: str) -> list[LinkEvent]:
    return [i for i in items if isinstance(i, LinkEvent) and i.kind == kind]


def sample(seq: int, *values: int | None) -> bytes:
    return encode(",".join(["S", str(seq)] + ["" if v is None else str(v) for v in values])).encode()


@pytest.fixture
def loop():
    port = serial.serial_for_url("loop://", timeout=0.05)
    reader = BridgeReader("loop://", opener=lambda url, baud: port)
    reader.start()
    yield port, reader
    reader.stop()


def test_loop_resyncs_after_garbage_and_bad_checksums(loop) -> None:
    port, reader = loop
    port.write(b"\x00\xff garbage without newline " * 3 + b"\n")
    port.write(encode("H,2,fw=0.1.0,cells=2,rate=80").encode())
    port.write(sample(0, 1, 2))
    port.write(b"S,1,1,2*0000\r\n")  # bad checksum: skipped
    port.write(b"noise" + sample(2, 5, 6))  # garbage glued before a line: that line is lost
    port.write(sample(3, 7, None))
    port.write(encode("E,3,1,late,us=19000").encode())
    items = collect(reader, lambda it: any(isinstance(i, ErrorLine) for i in it))
    got = samples(items)
    assert [(s.seq, s.values) for s in got] == [(0, (1, 2)), (3, (7, None))]
    assert got[1].index - got[0].index == 3
    gaps = events(items, "gap")
    assert len(gaps) == 1 and gaps[0].count == 2
    assert reader.stats.bad_lines >= 3  # garbage, bad checksum, the glued line (and the '?' echo)
    assert reader.stats.hello is not None and reader.stats.hello.cells == 2
    assert reader.stats.lost_samples == 2


def test_sequence_wraps_without_a_gap(loop) -> None:
    port, reader = loop
    for seq in (65534, 65535, 0, 1):
        port.write(sample(seq, 10))
    items = collect(reader, lambda it: len(samples(it)) == 4)
    idx = [s.index for s in samples(items)]
    assert idx == list(range(idx[0], idx[0] + 4))
    assert not events(items, "gap")


def test_silent_device_reported_within_two_seconds(loop) -> None:
    port, reader = loop
    start = time.monotonic()
    port.write(sample(0, 1))
    collect(reader, lambda it: bool(events(it, "silent")))
    assert time.monotonic() - start < 2.0
    port.write(sample(1, 2))
    collect(reader, lambda it: bool(events(it, "resumed")))


def test_get_never_blocks_longer_than_asked(loop) -> None:
    port, reader = loop
    start = time.monotonic()
    reader.get(0.1)
    assert time.monotonic() - start < 0.3


def test_silence_limit_must_be_under_two_seconds() -> None:
    with pytest.raises(ValueError, match="silence_s"):
        BridgeReader("loop://", silence_s=3)


class PtyDevice:
    """A fake bridge on a pseudo-terminal, reachable through a by-id style symlink."""

    def __init__(self, link: Path) -> None:
        self.link = link
        self.master = self.slave = -1
        self.plug()

    def plug(self) -> None:
        self.master, self.slave = os.openpty()
        os.symlink(os.ttyname(self.slave), self.link)

    def write(self, data: bytes) -> None:
        os.write(self.master, data)

    def unplug(self) -> None:
        os.unlink(self.link)
        os.close(self.master)
        os.close(self.slave)

    def close(self) -> None:
        if self.link.is_symlink():
            self.unplug()


def test_pty_unplug_and_replug_reconnects(tmp_path: Path) -> None:
    by_id = tmp_path / "by-id"
    by_id.mkdir()
    device = PtyDevice(by_id / "usb-MicroPython_Board_in_FS_mode_e6614c311b-if00")
    reader = BridgeReader("auto", by_id_dir=by_id, backoff_s=(0.05, 0.2))
    reader.start()
    try:
        collect(reader, lambda it: bool(events(it, "connected")))
        for seq in range(3):
            device.write(sample(seq, seq))
        first = collect(reader, lambda it: len(samples(it)) == 3)
        device.unplug()
        collect(reader, lambda it: bool(events(it, "disconnected")))
        time.sleep(0.3)  # a few failed reopen attempts with back-off
        device.plug()
        collect(reader, lambda it: bool(events(it, "connected")))
        for seq in range(3):  # the firmware restarted: its sequence starts again at 0
            device.write(sample(seq, 100 + seq))
        second = collect(reader, lambda it: len(samples(it)) == 3)
        assert samples(second)[0].index > samples(first)[-1].index
        assert reader.stats.connects == 2 and reader.stats.disconnects == 1
    finally:
        reader.stop()
        device.close()


def test_find_device_prefers_named_by_id_links(tmp_path: Path) -> None:
    (tmp_path / "usb-FTDI_Something-if00").touch()
    (tmp_path / "usb-Raspberry_Pi_Pico_E660-if00").touch()
    assert find_device("auto", tmp_path).endswith("Pico_E660-if00")
    assert find_device("/dev/ttyACM3", tmp_path) == "/dev/ttyACM3"
    (tmp_path / "usb-Raspberry_Pi_Pico_E660-if00").unlink()
    assert find_device("auto", tmp_path).endswith("FTDI_Something-if00")


def test_missing_device_reported_and_retried(tmp_path: Path) -> None:
    reader = BridgeReader(str(tmp_path / "nope"), backoff_s=(0.02, 0.05))
    reader.start()
    try:
        items = collect(reader, lambda it: bool(events(it, "disconnected")))
        assert "cannot open" in events(items, "disconnected")[0].message
        time.sleep(0.2)
        assert not events([i for _, i in reader.get(0)], "disconnected")  # reported once, not per retry
    finally:
        reader.stop()


class ChunkDevice:
    """Returns the given byte chunks from read(), then fails like an unplugged device."""

    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = list(chunks)
        self.in_waiting = 0

    def read(self, n: int) -> bytes:
        if not self.chunks:
            raise serial.SerialException("device reports readiness to read but returned no data")
        return self.chunks.pop(0)

    def write(self, data: bytes) -> int:
        return len(data)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.binary(max_size=40), st.booleans()), min_size=1, max_size=30),
       st.integers(1, 50))
def test_fuzz_stream_never_crashes_and_keeps_every_clean_line(parts: list[tuple[bytes, bool]],
                                                              chunk: int) -> None:
    stream = b""
    expected = []
    for seq, (garbage, newline_after_garbage) in enumerate(parts):
        stream += garbage + (b"\n" if newline_after_garbage else b"")
        if stream == b"" or stream.endswith(b"\n"):
            expected.append(seq)  # a line that starts right after a newline must come through
        stream += sample(seq, seq, -seq)
    chunks = [stream[i:i + chunk] for i in range(0, len(stream), chunk)]
    reader = BridgeReader("fake", opener=lambda u, b: ChunkDevice(chunks))
    reason = reader._pump(ChunkDevice(chunks))
    assert reason is not None and reason.startswith("device lost")
    got = [item.seq for _, item in reader.get(0) if isinstance(item, StreamSample)]
    assert set(expected) <= set(got)
    assert set(got) <= set(range(len(parts)))


def test_list_devices_puts_by_id_links_first(tmp_path: Path) -> None:
    from firmware_bridge.host import list_devices

    target = tmp_path / "ttyACM0"
    target.touch()
    (tmp_path / "by-id").mkdir()
    (tmp_path / "by-id" / "usb-MicroPython_Board-if00").symlink_to(target)
    devices = list_devices(tmp_path / "by-id")
    assert devices[0] == (str(tmp_path / "by-id" / "usb-MicroPython_Board-if00"), f"-> {target}", True)
