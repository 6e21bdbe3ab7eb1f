"""``dingo-companion config init|check|show|path`` through the real CLI parser."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main
from companion.config import default_config, load_config


def test_init_check_show_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "etc" / "config.toml"
    assert main(["config", "--config", str(path), "path"]) == 0
    assert capsys.readouterr().out.strip() == str(path)
    assert main(["config", "--config", str(path), "init"]) == 0
    assert load_config(path) == default_config()
    assert path.read_text(encoding="utf-8").startswith("# Dingo Companion configuration.")
    assert main(["config", "--config", str(path), "init"]) == 1
    assert "already exists" in capsys.readouterr().err
    assert main(["config", "--config", str(path), "check"]) == 0
    assert ": ok (source sim, 4 cells" in capsys.readouterr().out
    assert main(["config", "--config", str(path), "show", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["web"]["port"] == 8000 and len(shown["table"]["cells"]) == 4


def test_check_reports_file_line_and_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[web]\nport = 8000\nhots = 'x'\n", encoding="utf-8")
    assert main(["config", "--config", str(path), "check"]) == 1
    err = capsys.readouterr().err
    assert f"{path}:3: web.hots: unknown key 'hots'" in err
    assert main(["config", "--config", str(path), "show"]) == 1


def test_show_without_a_file_prints_loadable_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("companion.config.paths.SYSTEM_CONFIG", tmp_path / "no-etc" / "config.toml")
    monkeypatch.delenv("DINGO_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert main(["config", "show"]) == 0
    out = capsys.readouterr().out
    assert "does not exist" in out
    saved = tmp_path / "shown.toml"
    saved.write_text(out, encoding="utf-8")
    assert load_config(saved).table == default_config().table
    assert main(["config", "check"]) == 0
    assert "defaults" in capsys.readouterr().out


def test_urls_prints_addresses_qr_and_svg(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[web]\nport = 8123\n", encoding="utf-8")
    assert main(["config", "--config", str(path), "urls"]) == 0
    out = capsys.readouterr().out
    assert ".local:8123/" in out and "scan this code" in out and "\u2588" in out
    assert main(["config", "--config", str(path), "urls", "--no-qr"]) == 0
    assert "scan" not in capsys.readouterr().out
    path.write_text("[web]\nhost = '127.0.0.1'\nport = 8123\n", encoding="utf-8")
    assert main(["config", "--config", str(path), "urls", "--svg"]) == 0
    svg = capsys.readouterr().out
    assert svg.startswith("<svg") and "http://127.0.0.1:8123/" in svg
