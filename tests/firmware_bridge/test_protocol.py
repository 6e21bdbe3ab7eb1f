"""Host parser of the bridge protocol: golden lines, rejects, and a fuzz test."""

from __future__ import annotations

import contextlib
import json
from dataclasses import asdict
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.protocol import (
    ErrorLine,
    Hello,
    ProtocolError,
    SampleLine,
    crc8,
    crc16,
    encode,
    parse_line,
)

GOLDEN = Path(__file__).resolve().parents[2] / "firmware_bridge" / "golden"


def golden(name: str) -> list[tuple[str, str]]:
    """(line, second column) pairs of a golden file, comments skipped."""
    rows = []
    for raw in (GOLDEN / name).read_text(encoding="ascii").splitlines():
        if raw.startswith("#") or not raw:
            continue
        line, _, rest = raw.partition("\t")
        rows.append((line, rest))
    return rows


def as_json(msg: Hello | SampleLine | ErrorLine) -> dict:
    """The golden-file JSON form of a parsed message."""
    if isinstance(msg, Hello):
        return {"type": "hello", "protocol": msg.protocol, "fw": msg.fw, "cells": msg.cells,
                "rate_hz": msg.rate_hz}
    if isinstance(msg, SampleLine):
        return {"type": "sample", "seq": msg.seq, "values": list(msg.values)}
    return {"type": "error", **asdict(msg)}


@pytest.mark.parametrize(("line", "expected"), golden("valid.txt"))
def test_golden_valid_lines_parse(line: str, expected: str) -> None:
    assert as_json(parse_line(line + "\r\n")) == json.loads(expected)
    assert as_json(parse_line(line.encode())) == json.loads(expected)


@pytest.mark.parametrize(("line", "reason"), golden("invalid.txt"))
def test_golden_invalid_lines_rejected(line: str, reason: str) -> None:
    with pytest.raises(ProtocolError, match=reason):
        parse_line(line)


def test_crc_check_values() -> None:
    # catalogue check values for "123456789": CRC-16/CCITT-FALSE (protocol 2), CRC-8/SMBUS (protocol 1)
    assert crc16(b"123456789") == 0x29B1
    assert crc8(b"123456789") == 0xF4


def test_hello_keeps_unknown_keys() -> None:
    msg = parse_line(encode("H,2,fw=0.2.0,cells=4,rate=80,board=pico"))
    assert isinstance(msg, Hello) and msg.extra == {"board": "pico"}


def test_every_single_byte_corruption_is_rejected() -> None:
    line = encode("S,12,84201,-11873,230511,-40012").rstrip("\r\n").encode()
    for i in range(len(line)):
        for bit in range(7):
            bad = bytearray(line)
            bad[i] ^= 1 << bit
            if bytes(bad) == line:
                continue
            with pytest.raises(ProtocolError):
                parse_line(bytes(bad))


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=300))
def test_fuzz_parser_never_crashes(data: bytes) -> None:
    with contextlib.suppress(ProtocolError):
        parse_line(data)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E, exclude_characters="*"),
               max_size=120), st.integers(0, 0xFFFF))
def test_fuzz_bad_checksum_never_accepted(body: str, check: int) -> None:
    good = crc16(body.encode())
    line = f"{body}*{check:04X}"
    if check == good:
        with contextlib.suppress(ProtocolError):
            parse_line(line)
    else:
        with pytest.raises(ProtocolError):
            parse_line(line)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 65535), st.lists(st.one_of(st.none(), st.integers(-(1 << 23), (1 << 23) - 1)),
                                        min_size=1, max_size=8))
def test_fuzz_sample_round_trip(seq: int, values: list[int | None]) -> None:
    body = ",".join(["S", str(seq)] + ["" if v is None else str(v) for v in values])
    assert parse_line(encode(body)) == SampleLine(seq, tuple(values))


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=80))
def test_table_crc_matches_the_bitwise_definition(data: bytes) -> None:
    from firmware_bridge.protocol import _crc8_bitwise, _crc16_bitwise

    assert crc8(data) == _crc8_bitwise(data)
    assert crc16(data) == _crc16_bitwise(data)
