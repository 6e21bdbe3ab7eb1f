"""Compact binary chunks of raw load-cell samples, for the trace stored in the session log.

A chunk holds consecutive samples of one session. Encoding (version 1):

* ``t_ms`` and every cell column are delta-encoded (first value absolute), column by column;
* a missed read (``None``) is kept in a bitmap and its delta slot is 0 (the next value's delta is
  taken from the last present value, so a gap costs nothing);
* the int32 delta arrays are byte-shuffled (all lowest bytes, then the next ...), which puts the
  long runs of 0x00/0xFF of small deltas next to each other, then ``zlib``-compressed.

The layout is ``MAGIC, version, n_rows, n_cells`` (little-endian) then the zlib body. A damaged
chunk raises ``ChunkError`` naming the problem; it never yields wrong samples silently (zlib checks
an Adler-32 of the body, and the decoded length is checked).
"""

from __future__ import annotations

import struct
import sys
import zlib
from array import array
from collections.abc import Sequence

from companion.sensing.trace import Sample

MAGIC = b"DTC"
VERSION = 1
_HEAD = struct.Struct("<3sBII")
_INT32_MIN = -(2**31)
_INT32_MAX = 2**31 - 1

__all__ = ["ChunkError", "decode_chunk", "encode_chunk"]


class ChunkError(ValueError):
    """A stored trace chunk that cannot be decoded (damaged or of an unknown version)."""


def _shuffle(values: array) -> bytes:
    """Little-endian int32 bytes, regrouped by byte position."""
    if sys.byteorder != "little":
        values = array("i", values)
        values.byteswap()
    raw = values.tobytes()
    return b"".join(raw[i::4] for i in range(4))


def _unshuffle(data: bytes, count: int) -> array:
    planes = [data[i * count : (i + 1) * count] for i in range(4)]
    raw = bytearray(4 * count)
    for i, plane in enumerate(planes):
        raw[i::4] = plane
    out = array("i")
    out.frombytes(bytes(raw))
    if sys.byteorder != "little":
        out.byteswap()
    return out


def encode_chunk(samples: Sequence[Sample], n_cells: int) -> bytes:
    """Encode consecutive samples (each with ``n_cells`` readings) into one compressed chunk."""
    n = len(samples)
    if n == 0:
        raise ValueError("encode_chunk: no samples to encode")
    deltas = array("i", bytes(4 * n * (n_cells + 1)))
    mask = bytearray((n * n_cells + 7) // 8)
    prev_t = 0
    for r, s in enumerate(samples):
        if len(s.raw) != n_cells:
            raise ValueError(
                f"encode_chunk: sample at t_ms={s.t_ms} has {len(s.raw)} cells, expected {n_cells}"
            )
        d = s.t_ms - prev_t
        if not _INT32_MIN <= d <= _INT32_MAX:
            raise ValueError(f"encode_chunk: t_ms={s.t_ms} out of range")
        deltas[r] = d
        prev_t = s.t_ms
    for c in range(n_cells):
        base = (c + 1) * n
        prev = 0
        for r, s in enumerate(samples):
            v = s.raw[c]
            if v is None:
                bit = r * n_cells + c
                mask[bit >> 3] |= 1 << (bit & 7)
                continue
            deltas[base + r] = v - prev
            prev = v
    body = zlib.compress(bytes(mask) + _shuffle(deltas), 6)
    return _HEAD.pack(MAGIC, VERSION, n, n_cells) + body


def decode_chunk(data: bytes) -> list[Sample]:
    """Decode a chunk made by ``encode_chunk`` back into the exact samples."""
    if len(data) < _HEAD.size:
        raise ChunkError(f"trace chunk too short ({len(data)} bytes)")
    magic, version, n, n_cells = _HEAD.unpack_from(data)
    if magic != MAGIC:
        raise ChunkError("trace chunk has a bad magic number (damaged data)")
    if version != VERSION:
        raise ChunkError(f"trace chunk version {version} is unknown (this build reads {VERSION})")
    try:
        body = zlib.decompress(data[_HEAD.size :])
    except zlib.error as exc:
        raise ChunkError(f"trace chunk is damaged: {exc}") from None
    mask_len = (n * n_cells + 7) // 8
    count = n * (n_cells + 1)
    if len(body) != mask_len + 4 * count:
        raise ChunkError(f"trace chunk body has {len(body)} bytes, expected {mask_len + 4 * count}")
    mask = body[:mask_len]
    deltas = _unshuffle(body[mask_len:], count)
    columns: list[list[int | None]] = []
    for c in range(n_cells):
        base = (c + 1) * n
        col: list[int | None] = []
        prev = 0
        for r in range(n):
            bit = r * n_cells + c
            if mask[bit >> 3] >> (bit & 7) & 1:
                col.append(None)
            else:
                prev += deltas[base + r]
                col.append(prev)
        columns.append(col)
    out = []
    t = 0
    for r in range(n):
        t += deltas[r]
        out.append(Sample(t, tuple(col[r] for col in columns)))
    return out
