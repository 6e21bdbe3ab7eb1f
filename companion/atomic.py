"""Atomic file writes that survive a pulled plug.

The recipe: write a temporary file in the same directory, ``fsync`` it, ``rename`` it over the
target (atomic on POSIX), then ``fsync`` the directory so the rename itself is durable. A reader
sees either the old complete file or the new complete file, never a half-written one.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, TextIO

__all__ = ["atomic_write_bytes", "atomic_write_text", "atomic_writer", "fsync_dir"]


def fsync_dir(directory: str | os.PathLike[str]) -> None:
    """Flush a directory entry to disk (no-op where directories cannot be opened, e.g. Windows)."""
    try:
        fd = os.open(os.fspath(directory), os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def _replacing(path: str | os.PathLike[str], mode: int, open_mode: str, **open_kw: Any) -> Iterator[IO[Any]]:
    """The recipe above: a temporary file (opened with ``open_mode``) that replaces ``path`` on exit.

    If the block raises, the temporary file is removed and ``path`` is left untouched.
    """
    target = Path(path)
    directory = target.parent
    if not directory.is_dir():
        raise FileNotFoundError(f"cannot write {target}: directory {directory} does not exist")
    if target.is_dir():
        raise IsADirectoryError(f"cannot write {target}: it is a directory")
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, open_mode, **open_kw) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise
    fsync_dir(directory)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes, mode: int = 0o644) -> None:
    """Replace ``path`` with ``data`` atomically and durably, with permission bits ``mode``.

    The parent directory must exist. Raises ``TypeError`` for non-bytes data and ``OSError``
    (e.g. ``FileNotFoundError``, ``IsADirectoryError``) naming the path when the write fails;
    on failure the previous file, if any, is left untouched and no temporary file remains.
    """
    if not isinstance(data, bytes | bytearray | memoryview):
        raise TypeError(f"atomic_write_bytes: data must be bytes, not {type(data).__name__}")
    with _replacing(path, mode, "wb") as handle:
        handle.write(data)


def atomic_write_text(
    path: str | os.PathLike[str], text: str, mode: int = 0o644, encoding: str = "utf-8"
) -> None:
    """Replace ``path`` with ``text`` (encoded with ``encoding``) atomically; see ``atomic_write_bytes``."""
    if not isinstance(text, str):
        raise TypeError(f"atomic_write_text: text must be str, not {type(text).__name__}")
    atomic_write_bytes(path, text.encode(encoding), mode=mode)


@contextlib.contextmanager
def atomic_writer(
    path: str | os.PathLike[str], mode: int = 0o644, encoding: str = "utf-8"
) -> Iterator[TextIO]:
    """A text stream whose content replaces ``path`` atomically when the ``with`` block ends.

    For large outputs written piece by piece (e.g. a 4-hour trace export). If the block raises,
    the temporary file is removed and ``path`` is left untouched.
    """
    with _replacing(path, mode, "w", encoding=encoding, newline="") as handle:
        yield handle
