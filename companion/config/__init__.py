"""TOML configuration: load, validate, save atomically (contract 6 of docs/architecture.md).

>>> config = load_config()              # $DINGO_CONFIG, /etc/dingo-companion/..., or ~/.config/...
>>> header = config.table_header()      # companion.sensing.trace.TraceHeader
>>> save_config(path, dataclasses.replace(config, web=dataclasses.replace(config.web, port=8080)))

An unknown key, a wrong type or an impossible value raises ``ConfigError`` whose message
names the file, the line and the reason: ``/etc/dingo-companion/config.toml:12: web.port:
must be at most 65535, got 80000``. Every key is documented in docs/configuration.md.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import stat
import tomllib
from pathlib import Path
from typing import Any

import tomli_w

from companion.config.lines import line_of
from companion.config.model import (
    CellConfig,
    Config,
    DataConfig,
    GpioConfig,
    LayoutConfig,
    PanelConfig,
    PawnMassConfig,
    RulesConfig,
    SerialConfig,
    SimConfig,
    SourceConfig,
    TableConfig,
    TraceSourceConfig,
    WebConfig,
)
from companion.config.paths import default_config_path, default_data_dir
from companion.config.validate import Invalid, build, check, dotted, to_plain
from companion.config.venue import VenueConfig, check_venue_files

__all__ = [
    "CellConfig", "Config", "ConfigError", "DataConfig", "GpioConfig", "LayoutConfig", "PanelConfig",
    "PawnMassConfig", "RulesConfig", "SerialConfig", "SimConfig", "SourceConfig", "TableConfig",
    "TraceSourceConfig", "VenueConfig", "WebConfig", "config_to_toml", "default_config",
    "default_config_path", "default_data_dir", "load_config", "parse_config", "save_config",
]

# Exit status of `dingo-companion run` when the configuration is refused; the unit lists it in
# RestartPreventExitStatus= so a bad file is reported once in the journal, not crash-looped.
CONFIG_ERROR_EXIT = 78  # EX_CONFIG from sysexits.h


class ConfigError(ValueError):
    """The configuration file is missing, unreadable or invalid.

    ``file``, ``line`` (1-based, or ``None``), ``key`` (dotted key path or ``None``) and
    ``reason``; ``str()`` is ``"<file>:<line>: <key>: <reason>"``.
    """

    def __init__(
        self, file: str | Path, reason: str, line: int | None = None, key: str | None = None
    ) -> None:
        self.file = str(file)
        self.line = line
        self.key = key
        self.reason = reason
        where = f"{self.file}:{line}" if line is not None else self.file
        super().__init__(f"{where}: {key + ': ' if key else ''}{reason}")


def default_config() -> Config:
    """The configuration used when there is no file: a working simulated table."""
    return Config()


def _layout_check(config: Config) -> None:
    """Let the sensing layout itself vet ``[table.layout]`` (its own rules, its own message)."""
    if config.table.layout is None:
        return
    from companion.sensing.layout import DiscLayout

    try:
        DiscLayout.from_json(config.table.layout.to_json())
    except ValueError as exc:
        raise Invalid(("table", "layout"), str(exc)) from exc


def parse_config(text: str, file: str | Path = "<config>") -> Config:
    """Validate TOML ``text`` into a ``Config``; ``file`` names it in errors and anchors relative paths."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        match = re.search(r"\(at line (\d+), column \d+\)", str(exc))
        reason = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        raise ConfigError(file, f"not valid TOML: {reason}", int(match.group(1)) if match else None) from exc
    try:
        config = build(Config, data)
        check(config)
        _layout_check(config)
        config = _anchor_paths(config, data, file)
        check_venue_files(config.venue, Invalid)
    except Invalid as exc:
        raise ConfigError(file, exc.reason, line_of(text, exc.path), dotted(exc.path)) from exc
    return config


def _anchor_paths(config: Config, data: dict[str, Any], file: str | Path) -> Config:
    """Relative ``data.dir`` and ``source.trace.path`` written in a file are taken from its folder."""
    if file == "<config>":
        return config
    base = Path(file).resolve().parent
    if "dir" in data.get("data", {}) and not config.data.dir.is_absolute():
        config = dataclasses.replace(config, data=DataConfig(dir=base / config.data.dir))
    venue = config.venue
    if venue is not None and venue.ca_file and not Path(venue.ca_file).expanduser().is_absolute():
        venue = dataclasses.replace(venue, ca_file=str(base / venue.ca_file))
        config = dataclasses.replace(config, venue=venue)
    trace = config.source.trace
    if trace.path:
        full = Path(trace.path).expanduser()
        full = full if full.is_absolute() else base / full
        if str(full) != trace.path:
            source = dataclasses.replace(config.source, trace=dataclasses.replace(trace, path=str(full)))
            config = dataclasses.replace(config, source=source)
    return config


def load_config(path: str | Path | None = None) -> Config:
    """Load and validate the configuration file.

    ``path=None`` uses ``default_config_path()``; if that file does not exist (and was not named
    by ``$DINGO_CONFIG``) the defaults are returned. A named file that is missing is an error.
    """
    explicit = path is not None or bool(os.environ.get("DINGO_CONFIG"))
    file = Path(path) if path is not None else default_config_path()
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        if not explicit:
            return default_config()
        raise ConfigError(file, "no such file (create one with: dingo-companion config init)") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(file, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    except OSError as exc:
        raise ConfigError(file, f"cannot read: {exc.strerror or exc}") from exc
    return parse_config(text, file)


def config_to_toml(config: Config, header: str = "") -> str:
    """The configuration as TOML text (``header`` lines are prefixed with ``# ``)."""
    plain: dict[str, Any] = to_plain(config)
    table = plain.pop("table")
    cells = table.pop("cells")
    layout = table.pop("layout", None)
    parts = ["".join(f"# {line}".rstrip() + "\n" for line in header.splitlines())]
    parts.append(tomli_w.dumps({"source": plain.pop("source"), "table": table}))
    # [[table.cells]] rather than an inline array: one cell per block, easy to edit by hand.
    parts.extend(f"\n[[table.cells]]\n{tomli_w.dumps(cell)}" for cell in cells)
    if layout is not None:
        parts.append("\n" + tomli_w.dumps({"table": {"layout": layout}}))
    parts.append("\n" + tomli_w.dumps(plain))
    return _ARRAY_RE.sub(_one_line_array, "".join(parts))


# tomli-w writes every array one item per line; short arrays of plain values read better on one.
_ARRAY_RE = re.compile(r"\[\n((?:    [^\n\[\]{}#]*,\n)+)\]")


def _one_line_array(match: re.Match[str]) -> str:
    """``[\\n    1,\\n    2,\\n]`` -> ``[1, 2]``."""
    items = [line.strip().removesuffix(",") for line in match.group(1).splitlines()]
    return "[" + ", ".join(items) + "]"


def _leading_comment(path: Path) -> str:
    """The comment block at the top of an existing file (without ``# ``), or ``""``."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return ""
    kept = []
    for line in lines:
        if not line.startswith("#"):
            break
        kept.append(line[2:] if line.startswith("# ") else line[1:])
    return "\n".join(kept)


def save_config(path: str | Path, config: Config, header: str | None = None) -> None:
    """Validate ``config`` and write it to ``path`` atomically (temp file, fsync, rename).

    ``header`` becomes the comment at the top; ``None`` keeps the existing file's top comment.
    Other comments of an existing file are not kept (the file is rewritten from ``config``).
    """
    from companion.atomic import atomic_write_text

    try:
        check(config)
        _layout_check(config)
    except Invalid as exc:
        raise ConfigError(path, exc.reason, None, dotted(exc.path)) from exc
    target = Path(path)
    if header is None:
        header = _leading_comment(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        before = target.stat()
    except OSError:
        before = None
    # An existing file keeps its permission bits and group (on the Pi: 0640 root:dingo).
    mode = stat.S_IMODE(before.st_mode) if before else 0o644
    atomic_write_text(target, config_to_toml(config, header), mode=mode)
    if before is not None and target.stat().st_gid != before.st_gid:
        with contextlib.suppress(OSError):
            os.chown(target, -1, before.st_gid)
