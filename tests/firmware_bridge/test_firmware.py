"""The MicroPython firmware's logic under CPython with fake HX711 pins."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware_bridge" / "firmware"
sys.path.insert(0, str(FIRMWARE))

import dingo_fw  # noqa: E402
import dingo_proto  # noqa: E402

from firmware_bridge.protocol import ErrorLine, SampleLine, parse_line  # noqa: E402


class Clock:
    """Fake microsecond clock: every reading advances it by one microsecond."""

    def __init__(self) -> None:
        self.t = 0

    def ticks_us(self) -> int:
        self.t += 1
        return self.t

    @staticmethod
    def ticks_diff(a: int, b: int) -> int:
        return a - b

    def sleep_us(self, us: int) -> None:
        self.t += us


class FakeChip:
    """An HX711: conversions become ready at scheduled times and are shifted out on SCK."""

    def __init__(self, clock: Clock, conversions: list[tuple[int, int]], stuck_low: bool = False):
        self.clock = clock
        self.conversions = list(conversions)  # (ready at us, signed value)
        self.stuck_low = stuck_low
        self.pulses = 0
        self.word = 0
        self.level = 1
        self.gain_pulses: list[int] = []

    def value(self, *args: int) -> int:  # the DOUT pin
        if self.stuck_low:
            return 0
        if self.pulses == 0:
            due = self.conversions and self.conversions[0][0] <= self.clock.t
            return 0 if due else 1
        return self.level

    def rise(self) -> None:
        if self.stuck_low:
            return
        if self.pulses == 0:
            if not self.conversions or self.conversions[0][0] > self.clock.t:
                self.word = 0xFFFFFF  # clocked mid-conversion: DOUT stays high, nothing consumed
            else:
                self.word = self.conversions.pop(0)[1] & 0xFFFFFF
        self.pulses += 1
        self.level = (self.word >> (24 - self.pulses)) & 1 if self.pulses <= 24 else 1

    def finish(self) -> None:
        """Called when SCK stays low: the chip records the gain the pulses selected."""
        if self.pulses:
            self.gain_pulses.append(self.pulses)
        self.pulses = 0


class FakeSck:
    """The shared clock pin; ``high_us`` simulates an interrupt stretching a pulse."""

    def __init__(self, clock: Clock, chips: list[FakeChip]):
        self.clock = clock
        self.chips = chips
        self.high_us = 0
        self.state = 0

    def value(self, v: int | None = None) -> int:
        if v is None:
            return self.state
        if v and not self.state:
            for chip in self.chips:
                chip.rise()
            self.clock.t += self.high_us
        self.state = v
        return v


def make(chips_spec: list[list[tuple[int, int]]], rate: int = 80, stuck: tuple[int, ...] = ()):
    clock = Clock()
    chips = [FakeChip(clock, c, stuck_low=i in stuck) for i, c in enumerate(chips_spec)]
    sck = FakeSck(clock, chips)
    bank = dingo_fw.Hx711Bank(sck, chips, clock.ticks_us, clock.ticks_diff)
    lines: list[str] = []
    sampler = dingo_fw.Sampler(bank, rate, lines.append, clock.ticks_us, clock.ticks_diff, clock.sleep_us)

    def step() -> list[str]:
        lines.clear()
        sampler.step()
        for chip in chips:
            chip.finish()
        return list(lines)

    return clock, chips, sck, sampler, step


def test_golden_lines_from_the_firmware_encoder() -> None:
    for raw in (FIRMWARE.parent / "golden" / "valid.txt").read_text().splitlines():
        if raw.startswith("#"):
            continue
        line, _, expected = raw.partition("\t")
        msg = json.loads(expected)
        if msg["type"] == "hello":
            out = dingo_proto.hello_line(msg["fw"], msg["cells"], msg["rate_hz"])
        elif msg["type"] == "sample":
            out = dingo_proto.sample_line(msg["seq"], msg["values"])
        else:
            out = dingo_proto.error_line(msg["seq"], msg["cell"], msg["kind"], msg["detail"])
        assert out == line + "\r\n"


def test_firmware_crc_matches_host() -> None:
    from firmware_bridge.protocol import _crc16_bitwise, crc16

    for body in (b"", b"S,1,2", b"123456789", bytes(range(32, 127))):
        assert dingo_proto.crc16(body) == crc16(body) == _crc16_bitwise(body)
    assert dingo_proto.crc16(b"123456789") == 0x29B1


def test_reads_every_chip_on_one_clock_with_gain_128() -> None:
    values = [84201, -11873, 8388606, -8388607]
    clock, chips, sck, sampler, step = make([[(0, v)] for v in values])
    lines = step()
    assert lines[0].startswith("H,2,fw=")
    msg = parse_line(lines[1])
    assert msg == SampleLine(0, tuple(values))
    assert [c.gain_pulses for c in chips] == [[25]] * 4
    assert len(lines) == 2


def test_saturated_value_is_sent_with_an_error_line() -> None:
    clock, chips, sck, sampler, step = make([[(0, 8388607)], [(0, 5)]])
    lines = step()
    assert parse_line(lines[1]) == SampleLine(0, (8388607, 5))
    assert parse_line(lines[2]) == ErrorLine(0, 0, "saturated", "8388607")


def test_late_chip_gives_missed_value_and_late_error() -> None:
    clock, chips, sck, sampler, step = make([[(0, 1)], [(50_000, 2)]])
    lines = step()
    msg = parse_line(lines[1])
    assert msg == SampleLine(0, (1, None))
    err = parse_line(lines[2])
    assert isinstance(err, ErrorLine) and err.kind == "late" and err.cell == 1
    assert 18_750 <= int(err.detail.split("=")[1]) < 19_500  # gave up after 1.5 periods


def test_missing_gain_bits_is_desync() -> None:
    clock, chips, sck, sampler, step = make([[(0, 7)], [(0, 0)]], stuck=(1,))
    lines = step()
    assert parse_line(lines[1]) == SampleLine(0, (7, None))
    assert parse_line(lines[2]) == ErrorLine(0, 1, "desync", "gain bits")


def test_stretched_clock_pulse_is_desync_for_all() -> None:
    clock, chips, sck, sampler, step = make([[(0, 7)], [(0, 8)]])
    sck.high_us = 70
    lines = step()
    assert parse_line(lines[1]) == SampleLine(0, (None, None))
    kinds = [parse_line(x) for x in lines[2:]]
    assert [(e.cell, e.kind) for e in kinds] == [(0, "desync"), (1, "desync")]


def test_sequence_counts_slots_so_host_sees_missed_conversions() -> None:
    period = 12_500
    sched = [(k * period, 100 + k) for k in range(6)]
    clock, chips, sck, sampler, step = make([list(sched)])
    seqs = []
    for k in (0, 1, 4, 5):  # the loop was busy during slots 2 and 3
        clock.t = max(clock.t, k * period)
        chips[0].conversions = [c for c in chips[0].conversions if c[0] >= k * period]
        lines = step()
        seqs.append(parse_line([x for x in lines if x.startswith("S")][0]).seq)
    assert seqs == [0, 1, 4, 5]


def test_hello_repeats_every_few_seconds() -> None:
    clock, chips, sck, sampler, step = make([[(k * 12_500, k) for k in range(500)]])
    hellos = 0
    for _ in range(480):  # 6 s at 80 Hz
        hellos += sum(1 for x in step() if x.startswith("H"))
    assert hellos == 2


def test_bad_configuration_is_refused() -> None:
    clock = Clock()
    with pytest.raises(ValueError, match="gain_pulses"):
        dingo_fw.Hx711Bank(FakeSck(clock, []), [FakeChip(clock, [])], clock.ticks_us, clock.ticks_diff,
                           gain_pulses=30)
    bank = dingo_fw.Hx711Bank(FakeSck(clock, []), [FakeChip(clock, [])], clock.ticks_us, clock.ticks_diff)
    with pytest.raises(ValueError, match="rate must be 10 or 80"):
        dingo_fw.Sampler(bank, 50, print, clock.ticks_us, clock.ticks_diff, clock.sleep_us)
