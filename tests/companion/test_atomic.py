"""Tests for companion.atomic."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from unittest import mock

import pytest

from companion import atomic
from companion.atomic import atomic_write_bytes, atomic_write_text, atomic_writer


def test_writes_new_file_with_mode(tmp_path: Path) -> None:
    target = tmp_path / "cal.toml"
    atomic_write_bytes(target, b"abc", mode=0o600)
    assert target.read_bytes() == b"abc"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_replaces_existing_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "config.toml"
    target.write_text("old")
    atomic_write_text(target, "new ✓")
    assert target.read_text(encoding="utf-8") == "new ✓"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.toml"]


def test_fsyncs_file_and_directory(tmp_path: Path) -> None:
    target = tmp_path / "x"
    calls: list[int] = []
    real = os.fsync

    def spy(fd: int) -> None:
        calls.append(fd)
        real(fd)

    with mock.patch.object(atomic.os, "fsync", side_effect=spy):
        atomic_write_bytes(target, b"1")
    assert len(calls) == 2  # the file, then the directory


def test_failure_keeps_old_content(tmp_path: Path) -> None:
    target = tmp_path / "config.toml"
    target.write_text("old")
    with mock.patch.object(atomic.os, "replace", side_effect=OSError("disk full")), pytest.raises(OSError):
        atomic_write_text(target, "new")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.toml"]


def test_bad_input_named(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="bytes"):
        atomic_write_bytes(tmp_path / "a", "text")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="str"):
        atomic_write_text(tmp_path / "a", b"x")  # type: ignore[arg-type]
    with pytest.raises(FileNotFoundError, match="does not exist"):
        atomic_write_text(tmp_path / "missing" / "a", "x")
    (tmp_path / "d").mkdir()
    with pytest.raises(IsADirectoryError, match="directory"):
        atomic_write_text(tmp_path / "d", "x")


def test_streaming_writer_replaces_only_on_success(tmp_path: Path) -> None:
    target = tmp_path / "big.csv"
    target.write_text("old")
    with atomic_writer(target) as out:
        for i in range(1000):
            out.write(f"{i}\n")
        assert target.read_text() == "old"  # not visible before the end
    assert target.read_text().splitlines()[-1] == "999"
    with pytest.raises(RuntimeError), atomic_writer(target) as out:
        out.write("half")
        raise RuntimeError("export failed")
    assert target.read_text().splitlines()[-1] == "999"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.csv"]
    with pytest.raises(FileNotFoundError, match="does not exist"), atomic_writer(tmp_path / "no" / "x"):
        pass
