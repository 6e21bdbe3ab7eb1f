"""What SQLite would keep of a ``-wal`` file, read before SQLite opens it.

SQLite replays a WAL frame by frame while the salts match and the running checksum holds, up to
the last commit frame; whatever follows (a truncated or overwritten tail, a bad header) it
discards silently. :func:`wal_loss` walks the frames the same way and says how many bytes would
be dropped, so the store can keep a copy and say that recent actions may be missing.
"""

from __future__ import annotations

import contextlib
import struct
from dataclasses import dataclass
from pathlib import Path

WAL_MAGIC = (0x377F0682, 0x377F0683)
HEADER = 32
FRAME_HEADER = 24


@dataclass(frozen=True)
class WalState:
    """``size`` bytes on disk; ``kept`` bytes SQLite would use; ``frames`` committed frames."""

    size: int
    kept: int
    frames: int
    reason: str | None

    @property
    def loses_data(self) -> bool:
        """True if SQLite would discard part of the file that holds frames."""
        return self.reason is not None


def _checksum(data: bytes, s0: int, s1: int, big_endian: bool) -> tuple[int, int]:
    fmt = (">" if big_endian else "<") + f"{len(data) // 4}I"
    words = struct.unpack(fmt, data)
    for i in range(0, len(words), 2):
        s0 = (s0 + words[i] + s1) & 0xFFFFFFFF
        s1 = (s1 + words[i + 1] + s0) & 0xFFFFFFFF
    return s0, s1


def wal_loss(path: Path) -> WalState | None:
    """The state of the WAL at ``path`` (None if there is none or it is empty)."""
    try:
        data = Path(path).read_bytes()
    except OSError:
        return None
    if not data:
        return None
    if len(data) < HEADER:
        return WalState(len(data), 0, 0, f"the WAL is cut short ({len(data)} bytes, no header)")
    magic, _version, page_size, _ckpt, salt1, salt2, c1, c2 = struct.unpack(">8I", data[:HEADER])
    if magic not in WAL_MAGIC:
        return WalState(len(data), 0, 0, "the WAL header is overwritten")
    big = bool(magic & 1)
    s0, s1 = _checksum(data[:24], 0, 0, big)
    if (s0, s1) != (c1, c2) or page_size < 512 or page_size & (page_size - 1):
        return WalState(len(data), 0, 0, "the WAL header fails its checksum")
    frame = FRAME_HEADER + page_size
    pos, kept, frames, committed = HEADER, HEADER, 0, 0
    while pos + frame <= len(data):
        pgno, commit, fs1, fs2, fc1, fc2 = struct.unpack(">6I", data[pos:pos + FRAME_HEADER])
        if (fs1, fs2) != (salt1, salt2) or pgno == 0:
            break
        s0, s1 = _checksum(data[pos:pos + 8], s0, s1, big)
        s0, s1 = _checksum(data[pos + FRAME_HEADER:pos + frame], s0, s1, big)
        if (s0, s1) != (fc1, fc2):
            break
        pos += frame
        frames += 1
        if commit:
            kept, committed = pos, frames
    # What SQLite itself had committed: the wal-index (-shm) keeps it (mxFrame, and the salts).
    shm = Path(str(path)[:-4] + "-shm") if str(path).endswith("-wal") else None
    if shm is not None and shm.exists():
        with contextlib.suppress(OSError, struct.error):
            head = shm.read_bytes()[:48]
            mx_frame = struct.unpack("=I", head[16:20])[0]
            if head[32:40] == data[16:24] and mx_frame > committed:  # salts: the header's bytes
                return WalState(len(data), kept, committed,
                                f"the WAL holds {committed} committed frames but SQLite had written "
                                f"{mx_frame}: it is cut short or damaged")
    rest = data[kept:]
    if not rest.strip(b"\0"):
        return WalState(len(data), kept, committed, None)  # nothing but zeros (or nothing) after
    # a crash mid-commit leaves one unfinished transaction at the end: its frames carry the current
    # salts but no commit frame follows; killed between a frame's header and its page, one of them
    # fails its checksum -- and after a reset (SQLite writes the WAL from its start again) older
    # frames follow it. Only a whole commit frame of the current salts beyond a bad frame is data
    # lost (a commit frame cut short at the end of the file was being written: never acknowledged).
    lost = f"{len(data) - kept} bytes of the WAL after frame {committed} are cut short or damaged"
    damaged = WalState(len(data), kept, committed, lost)
    while pos + FRAME_HEADER <= len(data):
        _pgno, commit, fs1, fs2 = struct.unpack(">4I", data[pos:pos + 16])
        if (fs1, fs2) != (salt1, salt2):
            break
        if commit and pos + frame <= len(data):
            return damaged
        pos += frame
    if pos >= len(data) or not data[pos:].strip(b"\0"):
        return WalState(len(data), kept, committed, None)  # nothing but zeros (or nothing) after
    # the unfinished transaction's last frame may be cut short at the end of the file
    if len(data) - pos < frame or pos + frame == len(data):
        return WalState(len(data), kept, committed, None)
    # (SQLite adds 1 to salt-1 at each reset: an older frame's salt-1 is a little smaller)
    if len(data) - pos >= FRAME_HEADER:
        old_salt1 = struct.unpack(">I", data[pos + 8:pos + 12])[0]
        if 0 < (salt1 - old_salt1) & 0xFFFFFFFF < 1_000_000:
            return WalState(len(data), kept, committed, None)
    return damaged
