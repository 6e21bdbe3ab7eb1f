"""What SQLite would keep of a WAL (``companion.session.walcheck``), on WAL files built here."""

from __future__ import annotations

import struct
from pathlib import Path

from companion.session.walcheck import _checksum, wal_loss

PAGE = 512
MAGIC = 0x377F0682  # little-endian checksums


class Wal:
    """A WAL file written frame by frame with SQLite's salts and running checksums."""

    def __init__(self, salt1: int, salt2: int = 7) -> None:
        self.salt = (salt1, salt2)
        head = struct.pack(">6I", MAGIC, 3007000, PAGE, 0, salt1, salt2)
        self.sums = _checksum(head, 0, 0, False)
        self.data = bytearray(head + struct.pack(">2I", *self.sums))

    def frame(self, pgno: int, commit: int = 0, salt: tuple[int, int] | None = None,
              torn: bool = False) -> None:
        """Append a frame; ``torn``: its header written, its page still the old bytes."""
        fs1, fs2 = salt or self.salt
        page = bytes([pgno % 251]) * PAGE
        head8 = struct.pack(">2I", pgno, commit)
        sums = _checksum(page, *_checksum(head8, *self.sums, False), False)
        if salt is None:
            self.sums = sums
        body = bytes([99]) * PAGE if torn else page
        self.data += head8 + struct.pack(">4I", fs1, fs2, *sums) + body

    def write(self, path: Path) -> Path:
        path.write_bytes(bytes(self.data))
        return path


def test_an_intact_wal_loses_nothing(tmp_path: Path) -> None:
    w = Wal(100)
    w.frame(2)
    w.frame(3, commit=3)
    state = wal_loss(w.write(tmp_path / "a-wal"))
    assert state is not None and not state.loses_data and state.frames == 2


def test_a_frame_torn_mid_transaction_after_a_reset_over_older_frames_loses_nothing(tmp_path: Path) -> None:
    """After a checkpoint SQLite writes the WAL from its start again (salt-1 one up) over the
    older frames. Killed between a frame's header and its page, the file holds the committed
    frames, that torn frame of a transaction never committed, then the older generation: SQLite
    keeps the committed ones and drops the rest, so nothing acknowledged is lost."""
    w = Wal(101)
    w.frame(2)
    w.frame(3, commit=3)
    w.frame(4, torn=True)
    for pgno in (5, 6, 7):
        w.frame(pgno, commit=pgno if pgno == 7 else 0, salt=(100, 7))
    state = wal_loss(w.write(tmp_path / "b-wal"))
    assert state is not None and not state.loses_data, state.reason
    assert state.frames == 2


def test_a_commit_frame_beyond_a_torn_frame_is_damage(tmp_path: Path) -> None:
    """A frame of the current generation carrying a commit after a frame that fails its checksum:
    SQLite stops at the bad frame and never reaches that commit -- data it acknowledged is lost."""
    w = Wal(101)
    w.frame(2, commit=2)
    w.frame(3, torn=True)
    w.frame(4, commit=4)
    w.frame(5)
    state = wal_loss(w.write(tmp_path / "c-wal"))
    assert state is not None and state.loses_data


def test_a_commit_frame_cut_short_at_the_end_loses_nothing(tmp_path: Path) -> None:
    """Killed while writing the last frame of a commit (its header on disk, its page not yet):
    that transaction was never acknowledged."""
    w = Wal(101)
    w.frame(2, commit=2)
    w.frame(3)
    w.frame(4, commit=4)
    del w.data[-PAGE:]
    state = wal_loss(w.write(tmp_path / "d-wal"))
    assert state is not None and not state.loses_data, state.reason
    assert state.frames == 1
