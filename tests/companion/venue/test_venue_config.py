"""The ``[venue]`` section: off by default, validated with the line and the reason."""

from __future__ import annotations

import pytest

from companion.config import ConfigError, parse_config
from companion.config.venue import DEFAULT_PREFIX


def test_off_without_a_venue_section():
    assert parse_config("").venue is None


def test_a_venue_section_turns_it_on_with_defaults():
    venue = parse_config('[venue]\nname = "club"\ntable = "t07"\nhost = "broker.local"\n').venue
    assert venue is not None
    assert venue.prefix == DEFAULT_PREFIX
    assert venue.topic_prefix() == "dingo/club/tables/t07/"
    assert venue.broker_port == 1883 and not venue.use_tls


def test_tls_defaults_to_port_8883(tmp_path):
    ca = tmp_path / "ca.pem"
    ca.write_text("-----BEGIN CERTIFICATE-----\n")
    text = '[venue]\nname = "club"\ntable = "t1"\nhost = "b"\nca_file = "ca.pem"\n'
    path = tmp_path / "config.toml"
    path.write_text(text)
    venue = parse_config(text, path).venue
    assert venue.use_tls and venue.broker_port == 8883
    assert venue.ca_file == str(ca)  # relative to the configuration file's folder


@pytest.mark.parametrize(
    ("body", "line", "key", "reason"),
    [
        ('name = "club"\ntable = "t/1"\nhost = "b"', 3, "venue.table", "may not contain '/'"),
        ('name = "cl+ub"\ntable = "t1"\nhost = "b"', 2, "venue.name", "may not contain '+'"),
        ('name = "$SYS"\ntable = "t1"\nhost = "b"', 2, "venue.name", "may not start with '$'"),
        ('name = "club"\ntable = "t1"', None, "venue.host", "must not be empty"),
        ('name = "club"\ntable = "t1"\nhost = "b"\nport = 70000', 5, "venue.port", "at most 65535"),
        ('name = "club"\ntable = "t1"\nhost = "b"\npassword = "x"', 5, "venue.password", "needs a username"),
        (
            'name = "club"\ntable = "t1"\nhost = "b"\nca_file = "/nope/ca.pem"',
            5,
            "venue.ca_file",
            "no such file",
        ),
        ('name = "club"\ntable = "t1"\nhost = "b"\nprefix = "dingo/{venue}/"', 5, "venue.prefix", "{table}"),
        (
            'name = "club"\ntable = "t1"\nhost = "b"\nprefix = "dingo/#/{table}"',
            5,
            "venue.prefix",
            "wildcards",
        ),
        ('name = "club"\ntable = "t1"\nhost = "b"\nbroker = "x"', 5, "venue.broker", "unknown key"),
    ],
)
def test_bad_venue_settings_are_refused_naming_line_key_and_reason(body, line, key, reason):
    with pytest.raises(ConfigError) as info:
        parse_config("[venue]\n" + body + "\n", "config.toml")
    err = info.value
    assert err.key == key and reason in err.reason
    if line is not None:
        assert err.line == line


def test_an_empty_host_is_refused():
    with pytest.raises(ConfigError, match="venue.host: must not be empty"):
        parse_config('[venue]\nname = "club"\ntable = "t1"\nhost = ""\n')


def test_config_check_and_show(tmp_path, monkeypatch, capsys):
    from companion.cli import main

    path = tmp_path / "config.toml"
    path.write_text('[venue]\nname = "club"\ntable = "t1"\nhost = "b"\nusername = "u"\npassword = "secret"\n')
    monkeypatch.setenv("DINGO_CONFIG", str(path))
    assert main(["config", "check"]) == 0
    assert "venue 'club', table 't1': broker b:1883, topics dingo/club/tables/t1/*" in capsys.readouterr().out
    assert main(["config", "show"]) == 0
    shown = capsys.readouterr().out
    assert "secret" not in shown and 'password = "********"' in shown
