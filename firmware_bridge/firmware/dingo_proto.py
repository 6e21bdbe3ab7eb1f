"""Dingo bridge line protocol, encoder side (runs on MicroPython and on CPython).

Kept free of CPython-only features (no dataclasses, no typing imports) so the
same file is copied to the Pico. The host parser lives in
``firmware_bridge/protocol.py``; both are tested against ``firmware_bridge/golden``.
"""

PROTOCOL_VERSION = 1

# CRC-8, polynomial 0x07, init 0x00, no reflection (CRC-8/SMBUS), as a table:
# one lookup per byte keeps the encoder cheap on the RP2040.
_CRC_TABLE = bytearray(256)
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = ((_c << 1) ^ 0x07) & 0xFF if _c & 0x80 else (_c << 1) & 0xFF
    _CRC_TABLE[_i] = _c


def crc8(data: bytes) -> int:
    """CRC-8/SMBUS (poly 0x07, init 0) of ``data``."""
    crc = 0
    table = _CRC_TABLE
    for b in data:
        crc = table[crc ^ b]
    return crc


def frame(body: str) -> str:
    """Append ``*CK`` (two upper-case hex digits of the CRC-8 of ``body``) and CRLF."""
    return f"{body}*{crc8(body.encode()):02X}\r\n"


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
