"""Configuration: defaults, validation with file/line/reason, save and load round trips."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from companion.config import (
    CellConfig,
    Config,
    ConfigError,
    LayoutConfig,
    VenueConfig,
    config_to_toml,
    default_config,
    load_config,
    parse_config,
    save_config,
)
from companion.config import paths as config_paths
from companion.config.lines import key_lines, line_of


def refused(text: str) -> ConfigError:
    """Parse ``text`` expecting a ConfigError, and return it."""
    with pytest.raises(ConfigError) as info:
        parse_config(text, "cfg.toml")
    return info.value


def test_defaults_make_a_simulated_table_with_a_valid_header() -> None:
    config = default_config()
    assert config.source.kind == "sim"
    assert config.source.sim.cells == len(config.table.cells)
    header = config.table_header()
    assert header.rate_hz == 80.0
    assert len(header.cells) == 4
    assert header.cells[0].x_mm == 120.0 and header.cells[1].y_mm == 120.0
    assert header.pawn_mass_g == {"small": 2.1, "medium": 4.6, "large": 7.9}
    assert header.layout.locate(85.0, 10.0) == ("red", 4)


def test_empty_file_gives_defaults() -> None:
    assert parse_config("", "x.toml") == default_config()


def test_round_trip_through_toml_keeps_everything() -> None:
    base = default_config()
    config = dataclasses.replace(
        base,
        table=dataclasses.replace(
            base.table,
            cells=(CellConfig(100.0, 5.0, 84213.0, -412.7), CellConfig(-50.0, 86.6, -11873.0, 410.0),
                   CellConfig(-50.0, -86.6, 230511.0, 399.5)),
            layout=LayoutConfig(radius_mm=140.0, start_deg=30.0, ring_edges_mm=(20.0, 60.0, 100.0, 139.0),
                                numbers=(2, 4, 6)),
        ),
        source=dataclasses.replace(base.source, sim=dataclasses.replace(base.source.sim, cells=3)),
        panel=dataclasses.replace(base.panel, buzzer_pin=None, rgb_led_pins=()),
        web=dataclasses.replace(base.web, pin="2468", allowed_hosts=("dingo.local", "192.168.1.9")),
    )
    text = config_to_toml(config, header="written by a test")
    assert text.startswith("# written by a test\n")
    assert "buzzer_pin = -1" in text
    assert text.count("[[table.cells]]") == 3
    assert parse_config(text) == config
    header = parse_config(text).table_header()
    assert header.layout.radius_mm == 140.0 and header.layout.numbers == (2, 4, 6)
    assert header.cells[0].counts_per_gram == -412.7


def test_unknown_key_names_file_line_and_known_keys() -> None:
    err = refused("[web]\nhost = '0.0.0.0'\nprot = 8001\n")
    assert (err.file, err.line, err.key) == ("cfg.toml", 3, "web.prot")
    assert "unknown key 'prot'" in str(err) and "port" in err.reason
    assert str(err).startswith("cfg.toml:3: web.prot: ")


def test_unknown_section_is_refused() -> None:
    err = refused("# comment\n\n[webb]\nport = 1\n")
    assert err.line == 3 and err.key == "webb"


def test_wrong_type_is_refused_with_its_line() -> None:
    err = refused("[source]\nkind = 'sim'\n\n[source.sim]\nseed = 1\nnoise_g = 'loud'\n")
    assert err.line == 6 and err.key == "source.sim.noise_g"
    assert "expected a number" in err.reason and "'loud'" in err.reason


def test_booleans_are_not_integers() -> None:
    err = refused("[web]\nport = true\n")
    assert "expected an integer" in err.reason and err.line == 2


def test_table_expected_but_value_given() -> None:
    err = refused("source = 3\n")
    assert err.line == 1 and "expected a table" in err.reason


@pytest.mark.parametrize(
    ("text", "line", "key", "words"),
    [
        ("[web]\nport = 70000\n", 2, "web.port", "at most 65535"),
        ("[source]\nkind = 'usb'\n", 2, "source.kind", "not one of"),
        ("[table]\nrate_hz = 0\n", 2, "table.rate_hz", "at least 1"),
        ("[table.pawn_mass_g]\nsmall = -2\n", 2, "table.pawn_mass_g.small", "greater than 0"),
        ("[source.gpio]\ngain = 100\n", 2, "source.gpio.gain", "not one of"),
        ("[panel]\nroll_pin = 40\n", 2, "panel.roll_pin", "not a GPIO pin"),
        ("[panel]\nrgb_led_pins = [1, 2]\n", 2, "panel.rgb_led_pins", "3 entries"),
        ("[panel]\nseat_led_pins = [5, 6, 5]\n", 2, "panel.seat_led_pins[2]", "appears twice"),
        ("[web]\npin = '12a4'\n", 2, "web.pin", "4 to 12 digits"),
        ("[web]\nhost = ''\n", 2, "web.host", "must not be empty"),
        ("[table]\nrate_hz = nan\n", 2, "table.rate_hz", "finite"),
        ("[data]\ndir = ' '\n", 2, "data.dir", "must not be empty"),
        ("[rules]\nversion = 3\n", 2, "rules.version", "not one of"),
        ("[rules]\ndraw_window = 'turn'\n", 2, "rules.draw_window", "not one of"),
    ],
)
def test_impossible_values_are_refused(text: str, line: int, key: str, words: str) -> None:
    err = refused(text)
    assert (err.line, err.key) == (line, key)
    assert words in err.reason


def test_error_in_second_cell_points_at_that_cell() -> None:
    text = (
        "[source.sim]\ncells = 3\n\n"
        "[[table.cells]]\nx_mm = 1\ny_mm = 0\n\n"
        "[[table.cells]]\nx_mm = 2\ny_mm = 0\ncounts_per_gram = 0\n\n"
        "[[table.cells]]\nx_mm = 3\n"
    )
    err = refused(text)
    assert err.key == "table.cells[1].counts_per_gram" and err.line == 11
    assert "must not be 0" in err.reason


def test_cells_in_the_same_place_are_refused() -> None:
    text = "[source.sim]\ncells = 2\n[[table.cells]]\nx_mm = 5\n[[table.cells]]\nx_mm = 5\n"
    err = refused(text)
    assert err.key == "table.cells[1]" and err.line == 5


def test_cross_checks() -> None:
    assert "small < medium < large" in refused("[table.pawn_mass_g]\nmedium = 9.0\n").reason
    err = refused("[source]\nkind = 'trace'\n")
    assert err.key == "source.trace.path"
    parse_config("[source.sim]\ncells = 3\n")  # the simulator brings its own cells
    assert refused("[source.sim]\nnoise_g = 51\n").key == "source.sim.noise_g"
    err = refused("[source]\nkind = 'gpio'\n[source.gpio]\ndata_pins = [6, 13]\n")
    assert err.key == "source.gpio.data_pins" and err.line == 4
    err = refused("[source]\nkind = 'gpio'\n[source.gpio]\nclock_pin = 6\n")
    assert "also a data pin" in err.reason
    err = refused("[source]\nkind = 'gpio'\n[panel]\nenabled = true\nroll_pin = 13\n")
    assert "used twice" in err.reason and "source.gpio.data_pins[1]" in err.reason
    # the same pin is fine while the panel is disabled
    parse_config("[source]\nkind = 'gpio'\n[panel]\nroll_pin = 13\n")


def test_layout_errors() -> None:
    err = refused("[table.layout]\nring_edges_mm = [10, 30, 20, 40, 50, 60]\n")
    assert err.key == "table.layout.ring_edges_mm[2]" and "increase" in err.reason
    err = refused("[table.layout]\nradius_mm = 100\n")
    assert "outside the disc" in err.reason
    err = refused("[table.layout]\nnumbers = [2, 3]\n")
    assert err.key == "table.layout.numbers"


def test_unfitted_pin_is_minus_one_in_the_file_and_none_in_python() -> None:
    config = parse_config("[panel]\nbuzzer_pin = -1\n")
    assert config.panel.buzzer_pin is None
    assert "buzzer_pin" not in config.panel.pins()
    assert refused("[panel]\nbuzzer_pin = -2\n").key == "panel.buzzer_pin"
    assert refused("[panel]\nseat_led_pins = [-1]\n").key == "panel.seat_led_pins[0]"


def test_toml_syntax_error_gives_its_line() -> None:
    err = refused("[web]\nport = 8000\nhost = \n")
    assert err.line == 3 and "not valid TOML" in err.reason


def test_inline_table_and_dotted_keys_are_located() -> None:
    text = "[table]\npawn_mass_g = { small = 2, medium = 1, large = 9 }\n"
    err = refused(text)
    assert err.line == 2
    err = refused("web.port = 99999\n")
    assert err.line == 1 and err.key == "web.port"


def test_line_scanner_skips_multiline_strings_and_quoted_keys() -> None:
    text = 'a = """\n[fake]\nport = 1\n"""\n[web]\n"port" = 2\n[[x.y]]\nz = 1\n[[x.y]]\nz = 2\n'
    lines = key_lines(text)
    assert ("fake",) not in lines
    assert lines[("web", "port")] == 6
    assert lines[("x", "y", 1, "z")] == 10
    assert line_of(text, ("x", "y", 1, "w")) == 9
    assert line_of(text, ("nope",)) is None


def test_relative_paths_are_next_to_the_config_file(tmp_path: Path) -> None:
    path = tmp_path / "conf" / "config.toml"
    path.parent.mkdir()
    path.write_text("[data]\ndir = 'sessions'\n[source.trace]\npath = 'games/a.trace.csv'\n",
                    encoding="utf-8")
    config = load_config(path)
    assert config.data.dir == tmp_path / "conf" / "sessions"
    assert config.source.trace.path == str(tmp_path / "conf" / "games" / "a.trace.csv")
    path.write_text("[source.trace]\npath = '~/x.trace.csv'\n", encoding="utf-8")
    assert load_config(path).source.trace.path == str(Path.home() / "x.trace.csv")
    path.write_text("[source.trace]\npath = '/abs/x.trace.csv'\n", encoding="utf-8")
    assert load_config(path).source.trace.path == "/abs/x.trace.csv"


def test_gpio_source_with_the_panel_on_default_pins_is_valid() -> None:
    config = parse_config("[source]\nkind = 'gpio'\n[panel]\nenabled = true\n")
    used = list(config.panel.pins().values()) + [config.source.gpio.clock_pin, *config.source.gpio.data_pins]
    assert len(used) == len(set(used)) == 20


def test_load_missing_named_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        load_config(tmp_path / "absent.toml")


def test_default_path_resolution(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(config_paths, "SYSTEM_CONFIG", tmp_path / "etc" / "config.toml")
    monkeypatch.delenv("DINGO_CONFIG", raising=False)
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    assert config_paths.default_config_path() == tmp_path / "xdg" / "dingo-companion" / "config.toml"
    assert config_paths.default_data_dir() == tmp_path / "share" / "dingo-companion"
    assert load_config() == default_config()  # no file at the default place: defaults
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc" / "config.toml").write_text("[web]\nport = 8123\n", encoding="utf-8")
    assert config_paths.default_config_path() == tmp_path / "etc" / "config.toml"
    assert config_paths.default_data_dir() == config_paths.SYSTEM_DATA_DIR
    assert load_config().web.port == 8123
    monkeypatch.setenv("STATE_DIRECTORY", "/var/lib/x")
    assert config_paths.default_data_dir() == Path("/var/lib/x")
    monkeypatch.setenv("DINGO_CONFIG", str(tmp_path / "named.toml"))
    with pytest.raises(ConfigError, match="named.toml"):
        load_config()  # named by the environment but missing: an error, not silent defaults


def test_save_is_atomic_and_reloads(tmp_path: Path) -> None:
    path = tmp_path / "new" / "config.toml"
    config = dataclasses.replace(default_config(), web=dataclasses.replace(default_config().web, port=8111))
    save_config(path, config, header="hello")
    assert load_config(path) == config
    assert [p.name for p in path.parent.iterdir()] == ["config.toml"]  # no temp file left


def test_save_refuses_an_invalid_config_and_keeps_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    save_config(path, default_config())
    before = path.read_bytes()
    source = dataclasses.replace(default_config().source, kind="trace")
    bad = dataclasses.replace(default_config(), source=source)
    with pytest.raises(ConfigError, match=r"source\.trace\.path"):
        save_config(path, bad)
    assert path.read_bytes() == before


def test_unreadable_encoding_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b"[web]\nhost = '\xff'\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_config(path)


def test_every_key_is_documented() -> None:
    doc = (Path(__file__).parents[3] / "docs" / "configuration.md").read_text(encoding="utf-8")

    def walk(cls: type, prefix: str) -> list[str]:
        keys = []
        for f in dataclasses.fields(cls):
            optional = {"layout": LayoutConfig, "venue": VenueConfig}  # absent by default
            inner = optional[f.name]() if f.name in optional else getattr(cls(), f.name)
            if dataclasses.is_dataclass(inner):
                keys += walk(type(inner), f"{prefix}{f.name}.")
            elif f.name == "cells" and prefix == "table.":
                keys += walk(CellConfig, "table.cells.")
            else:
                keys.append(prefix + f.name)
        return keys

    keys = walk(Config, "")
    assert len(keys) > 40
    missing = [k for k in keys if f"`{k}`" not in doc]
    assert not missing, f"undocumented keys in docs/configuration.md: {missing}"


def test_save_keeps_the_top_comment_of_the_existing_file(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("# My table\n#\n# calibrated in May\n[web]\nport = 8001 # inline comments go\n",
                    encoding="utf-8")
    config = load_config(path)
    save_config(path, dataclasses.replace(config, web=dataclasses.replace(config.web, port=8002)))
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# My table\n#\n# calibrated in May\n[source]")
    assert load_config(path).web.port == 8002
    save_config(path, config, header="")
    assert path.read_text(encoding="utf-8").startswith("[source]")


def test_a_directory_is_not_a_config_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path)


def test_rules_options_for_new_games() -> None:
    rules = parse_config("[rules]\nversion = 2\nlast_pawn_gift = 'give'\n").rules
    assert rules.version == 2
    assert rules.options() == {"draw_window": "round", "last_pawn_gift": "give",
                               "placed_fell_default": "if_size_fell", "tip_attempt": "retry"}


def test_save_keeps_the_permission_bits(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    save_config(path, default_config())
    path.chmod(0o640)
    save_config(path, default_config())
    assert path.stat().st_mode & 0o777 == 0o640
