"""Host side of the Dingo bridge line protocol (version 2); see ``PROTOCOL.md``.

``parse_line`` turns one line from the microcontroller into a :class:`Hello`,
:class:`SampleLine` or :class:`ErrorLine`, or raises :class:`ProtocolError`.
The CRC is computed here independently of the firmware's encoder so the golden
files test both implementations against each other.
"""

from __future__ import annotations

import binascii
import re
from dataclasses import dataclass, field

PROTOCOL_VERSION = 2
UPDATE_FIRMWARE = ("the bridge runs protocol-1 firmware (2-digit CRC-8 checksums); this companion speaks "
                   "protocol 2 (4-digit CRC-16): update the firmware as firmware_bridge/README.md says "
                   "(Pico: copy the three files of firmware_bridge/firmware/ again; Arduino: upload "
                   "dingo_bridge.ino again)")
MAX_LINE = 256
RAW_MIN = -(1 << 23)
RAW_MAX = (1 << 23) - 1
SEQ_MODULO = 1 << 16
ERROR_KINDS = ("late", "desync", "saturated", "timeout")

_INT = re.compile(r"-?[0-9]{1,9}")
_UINT = re.compile(r"[0-9]{1,9}")
_KIND = re.compile(r"[a-z_]{1,20}")
_KEY = re.compile(r"[a-z_][a-z0-9_]{0,19}")


class ProtocolError(ValueError):
    """A line that is not a valid protocol-2 line; the message says why."""


@dataclass(frozen=True)
class Hello:
    """``H`` line: the device announces itself."""

    protocol: int
    fw: str
    cells: int
    rate_hz: int
    extra: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class SampleLine:
    """``S`` line: one reading of every cell; ``None`` is a missed read."""

    seq: int
    values: tuple[int | None, ...]


@dataclass(frozen=True)
class ErrorLine:
    """``E`` line: a cell's read went wrong (late, desync, saturated, timeout)."""

    seq: int
    cell: int
    kind: str
    detail: str


Message = Hello | SampleLine | ErrorLine


def _crc8_bitwise(data: bytes) -> int:
    """CRC-8/SMBUS (polynomial 0x07, init 0, not reflected), bit by bit (the definition)."""
    crc = 0
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = ((crc << 1) ^ 0x07) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
    return crc


_CRC8_TABLE = bytes(_crc8_bitwise(bytes([i])) for i in range(256))  # immutable lookup table


def crc8(data: bytes) -> int:
    """CRC-8/SMBUS of ``data`` (protocol 1's checksum: only to recognise old firmware)."""
    crc = 0
    table = _CRC8_TABLE
    for byte in data:
        crc = table[crc ^ byte]
    return crc


def _crc16_bitwise(data: bytes) -> int:
    """CRC-16/CCITT-FALSE (polynomial 0x1021, init 0xFFFF, not reflected), bit by bit."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE of ``data`` (``binascii.crc_hqx`` computes exactly this, in C)."""
    return binascii.crc_hqx(data, 0xFFFF)


def encode(body: str) -> str:
    """Frame ``body`` as a protocol line: ``body*CCCC\\r\\n`` (CRC-16, four upper-case hex digits)."""
    return f"{body}*{crc16(body.encode('ascii')):04X}\r\n"


def _int(text: str, what: str, lo: int, hi: int, unsigned: bool = False) -> int:
    if not (_UINT if unsigned else _INT).fullmatch(text):
        raise ProtocolError(f"{what} is not an integer: {text!r}")
    value = int(text)
    if not lo <= value <= hi:
        raise ProtocolError(f"{what} {value} is outside {lo}..{hi}")
    return value


def _split_frame(line: bytes | str) -> str:
    if isinstance(line, str):
        try:
            line = line.encode("ascii")
        except UnicodeEncodeError:
            raise ProtocolError("line is not ASCII") from None
    line = line.rstrip(b"\r\n")
    if len(line) > MAX_LINE:
        raise ProtocolError(f"line longer than {MAX_LINE} bytes")
    if any(b < 0x20 or b > 0x7E for b in line):
        raise ProtocolError("line has non-printable bytes")
    text = line.decode("ascii")
    body, star, check = text.rpartition("*")
    if not star:
        raise ProtocolError("no checksum ('*CK' missing)")
    if "*" in body:
        raise ProtocolError("more than one '*' in line")
    if len(check) != 4 or any(c not in "0123456789ABCDEF" for c in check):
        if len(check) == 2 and all(c in "0123456789ABCDEF" for c in check) \
                and int(check, 16) == crc8(body.encode("ascii")):
            raise ProtocolError(UPDATE_FIRMWARE)
        raise ProtocolError(f"checksum must be four upper-case hex digits, got {check!r}")
    expected = crc16(body.encode("ascii"))
    if int(check, 16) != expected:
        raise ProtocolError(f"bad checksum {check} (expected {expected:04X})")
    return body


def _parse_hello(fields: list[str]) -> Hello:
    if len(fields) < 2:
        raise ProtocolError("hello line without protocol version")
    version = _int(fields[1], "protocol version", 0, 999, unsigned=True)
    if version != PROTOCOL_VERSION:
        if version < PROTOCOL_VERSION:
            raise ProtocolError(f"unsupported protocol version {version}: {UPDATE_FIRMWARE}")
        raise ProtocolError(f"unsupported protocol version {version} (this host speaks {PROTOCOL_VERSION}): "
                            "update the companion")
    pairs: dict[str, str] = {}
    for item in fields[2:]:
        key, eq, value = item.partition("=")
        if not eq or not _KEY.fullmatch(key):
            raise ProtocolError(f"hello field is not key=value: {item!r}")
        if key in pairs:
            raise ProtocolError(f"hello field {key!r} repeated")
        pairs[key] = value
    for key in ("fw", "cells", "rate"):
        if key not in pairs:
            raise ProtocolError(f"hello line misses {key}=")
    if not pairs["fw"]:
        raise ProtocolError("hello line has an empty fw=")
    cells = _int(pairs.pop("cells"), "cells", 1, 16, unsigned=True)
    rate = _int(pairs.pop("rate"), "rate", 1, 1000, unsigned=True)
    fw = pairs.pop("fw")
    return Hello(version, fw, cells, rate, pairs)


def _parse_sample(fields: list[str]) -> SampleLine:
    if len(fields) < 3:
        raise ProtocolError("sample line without values")
    seq = _int(fields[1], "sequence number", 0, SEQ_MODULO - 1, unsigned=True)
    values = tuple(
        None if f == "" else _int(f, f"cell {i} value", RAW_MIN, RAW_MAX) for i, f in enumerate(fields[2:])
    )
    return SampleLine(seq, values)


def _parse_error(body: str) -> ErrorLine:
    fields = body.split(",", 4)
    if len(fields) < 4:
        raise ProtocolError("error line needs E,<seq>,<cell>,<kind>[,<detail>]")
    seq = _int(fields[1], "sequence number", 0, SEQ_MODULO - 1, unsigned=True)
    cell = _int(fields[2], "cell", 0, 15, unsigned=True)
    if not _KIND.fullmatch(fields[3]):
        raise ProtocolError(f"error kind is not a word: {fields[3]!r}")
    return ErrorLine(seq, cell, fields[3], fields[4] if len(fields) > 4 else "")


def parse_line(line: bytes | str) -> Message:
    """Parse one line (with or without its CRLF); raise :class:`ProtocolError` if invalid."""
    body = _split_frame(line)
    kind = body[:2]
    if kind == "H,":
        return _parse_hello(body.split(","))
    if kind == "S,":
        return _parse_sample(body.split(","))
    if kind == "E,":
        return _parse_error(body)
    raise ProtocolError(f"unknown line type {body[:1]!r}")
