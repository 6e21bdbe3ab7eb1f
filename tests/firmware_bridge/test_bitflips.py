"""The line CRC catches every 1-, 2- and 3-bit flip of the golden lines (issue 16 #10)."""

from __future__ import annotations

import os

import pytest

from firmware_bridge.bitflips import flip_report, golden_lines
from firmware_bridge.protocol import ProtocolError, crc8

LINES = golden_lines()
SHORT = sorted(LINES, key=len)[:3]


@pytest.mark.parametrize("line", LINES, ids=lambda b: b.decode().strip())
@pytest.mark.parametrize("bits", [1, 2])
def test_line_crc_is_weaker_than_protocol_md_says(line: bytes, bits: int) -> None:
    """Every 1- and 2-bit flip of every golden line is rejected."""
    r = flip_report(line, bits)
    assert r.accepted == 0 and r.same_message == 0, r.accepted_examples
    assert r.rejected == r.variants


@pytest.mark.parametrize("line", SHORT, ids=lambda b: b.decode().strip())
def test_every_3_bit_flip_of_short_golden_lines_is_rejected(line: bytes) -> None:
    r = flip_report(line, 3)
    assert r.accepted == 0, r.accepted_examples
    assert r.same_message == 2  # CR LF -> LF LF and CR CR: the same message, nothing changed


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("DINGO_BITFLIPS_ALL"),
                    reason="~35 CPU-minutes: DINGO_BITFLIPS_ALL=1 (or python -m firmware_bridge.bitflips 3)")
@pytest.mark.parametrize("line", LINES, ids=lambda b: b.decode().strip())
def test_every_3_bit_flip_of_every_golden_line_is_rejected(line: bytes) -> None:
    r = flip_report(line, 3)
    assert r.accepted == 0, r.accepted_examples


def _crc8_parser(line: bytes) -> bytes:
    """Protocol 1's framing (2-digit CRC-8): the weakness the issue found."""
    body, _, check = line.rstrip(b"\r\n").rpartition(b"*")
    if len(check) != 2 or any(c not in b"0123456789ABCDEF" for c in check) or b"*" in body \
            or any(not 0x20 <= c <= 0x7E for c in body) or int(check, 16) != crc8(body):
        raise ProtocolError("bad")
    return body


def test_the_count_finds_the_old_crc8_weakness() -> None:
    """The same count on protocol 1's CRC-8 finds 2-bit flips it lets through (so it can fail)."""
    body = b"S,0,84201,-11873,230511,-40012"
    line = body + b"*%02X\r\n" % crc8(body)
    assert flip_report(line, 2, _crc8_parser).accepted > 0
