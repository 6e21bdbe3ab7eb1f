"""Dingo bridge line protocol, encoder side (runs on MicroPython and on CPython).

Kept free of CPython-only features (no dataclasses, no typing imports) so the
same file is copied to the Pico. The host parser lives in
``firmware_bridge/protocol.py``; both are tested against ``firmware_bridge/golden``.
"""

PROTOCOL_VERSION = 2

# CRC-16/CCITT-FALSE: polynomial 0x1021, init 0xFFFF, no reflection, as a table of 256
# 16-bit entries: one lookup per byte keeps the encoder cheap on the RP2040.
_CRC_TABLE = [0] * 256
for _i in range(256):
    _c = _i << 8
    for _ in range(8):
        _c = ((_c << 1) ^ 0x1021) & 0xFFFF if _c & 0x8000 else (_c << 1) & 0xFFFF
    _CRC_TABLE[_i] = _c


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) of ``data``."""
    crc = 0xFFFF
    table = _CRC_TABLE
    for b in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ b]
    return crc


def frame(body: str) -> str:
    """Append ``*CCCC`` (four upper-case hex digits of the CRC-16 of ``body``) and CRLF."""
    return f"{body}*{crc16(body.encode()):04X}\r\n"


def hello_line(fw: str, cells: int, rate: int) -> str:
    """The hello line: protocol version, firmware version, cell count, rate in Hz."""
    return frame(f"H,{PROTOCOL_VERSION},fw={fw},cells={cells},rate={rate}")


def sample_line(seq: int, values: list) -> str:
    """A sample line; ``None`` in ``values`` is a missed read (empty field)."""
    parts = ["S", str(seq & 0xFFFF)]
    for v in values:
        parts.append("" if v is None else str(v))
    return frame(",".join(parts))


def error_line(seq: int, cell: int, kind: str, detail: str = "") -> str:
    """An error line for one cell: kind is late, desync, saturated or timeout."""
    return frame(f"E,{seq & 0xFFFF},{cell},{kind},{detail}")
