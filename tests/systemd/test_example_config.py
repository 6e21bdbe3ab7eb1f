"""The example configuration shipped for the Pi loads and says what the installer expects."""

from __future__ import annotations

from pathlib import Path

from companion.config import default_config, load_config

EXAMPLE = Path(__file__).parents[2] / "systemd" / "config.example.toml"


def test_example_config_loads_and_targets_the_pi() -> None:
    config = load_config(EXAMPLE)
    assert config.source.kind == "serial"
    assert config.data.dir == Path("/var/lib/dingo-companion")
    assert config.web.port == 8000
    defaults = default_config()
    # Apart from the source kind and the data dir the example spells out the defaults.
    assert config.table == defaults.table
    assert config.panel == defaults.panel
    assert config.rules == defaults.rules
    assert config.web == defaults.web
