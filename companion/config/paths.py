"""Where the configuration file and the data directory live by default."""

from __future__ import annotations

import os
from pathlib import Path

SYSTEM_CONFIG = Path("/etc/dingo-companion/config.toml")
SYSTEM_DATA_DIR = Path("/var/lib/dingo-companion")
APP_DIR_NAME = "dingo-companion"


def _xdg(var: str, fallback: str) -> Path:
    """An XDG base directory: the variable if set and absolute, else ``~/<fallback>``."""
    value = os.environ.get(var, "")
    if value and os.path.isabs(value):
        return Path(value)
    return Path.home() / fallback


def default_config_path() -> Path:
    """The configuration file to use when none is named.

    ``$DINGO_CONFIG`` if set; else ``/etc/dingo-companion/config.toml`` when it exists (the Pi);
    else ``$XDG_CONFIG_HOME/dingo-companion/config.toml`` (``~/.config/...``).
    """
    env = os.environ.get("DINGO_CONFIG", "")
    if env:
        return Path(env).expanduser()
    if SYSTEM_CONFIG.exists():
        return SYSTEM_CONFIG
    return _xdg("XDG_CONFIG_HOME", ".config") / APP_DIR_NAME / "config.toml"


def default_data_dir() -> Path:
    """The data directory to use when the configuration names none.

    ``$STATE_DIRECTORY`` (set by systemd's ``StateDirectory=``) if set; else
    ``/var/lib/dingo-companion`` when the system configuration exists; else
    ``$XDG_DATA_HOME/dingo-companion`` (``~/.local/share/...``).
    """
    state = os.environ.get("STATE_DIRECTORY", "")
    if state:
        return Path(state.split(":")[0])
    if SYSTEM_CONFIG.exists():
        return SYSTEM_DATA_DIR
    return _xdg("XDG_DATA_HOME", ".local/share") / APP_DIR_NAME
