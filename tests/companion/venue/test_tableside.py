"""The venue publisher wired into a real ``build_table`` and ``doctor``'s venue check."""

from __future__ import annotations

import dataclasses
import io

from companion.config import default_config
from companion.venue.broker import LocalBroker, free_port
from companion.venue.doctor import report_venue


def config_for(port, **extra):
    from companion.config.venue import VenueConfig

    venue = VenueConfig(name="club", table="t1", host="127.0.0.1", port=port, **extra)
    return dataclasses.replace(default_config(), venue=venue)


def test_build_table_without_a_venue_section_publishes_nothing(tmp_path):
    from companion.table.build import build_table

    table = build_table(default_config(), tmp_path)
    try:
        assert table.venue is None
    finally:
        table.stop()


def test_build_table_with_an_unreachable_broker_runs_and_says_so(tmp_path, wait):
    from companion.table.build import build_table

    table = build_table(config_for(free_port()), tmp_path)
    table.start()
    try:
        assert table.venue is not None
        wait(lambda: "venue" in table.controller.message()["status"], what="the page's venue status")
        assert "cannot reach the broker" in table.controller.message()["status"]["venue"]
        table.controller.new_game({"players": ["Ann", "Bob"], "version": 1})  # the game is not held up
        assert table.controller.message()["state"]["phase"] != "setup"
    finally:
        table.stop()


def test_build_table_publishes_to_the_broker(tmp_path, broker, hub, wait):
    from companion.table.build import build_table

    table = build_table(config_for(broker.port), tmp_path)
    table.start()
    try:
        table.controller.new_game({"players": ["Ann", "Bob"], "version": 1})
        wait(lambda: hub.seqs() == [1], what="the new_game at the hub")
        wait(lambda: (hub.store.tables()[0]["state"] or {}).get("summary", {}).get("players"), what="state")
    finally:
        table.stop()
    wait(lambda: hub.store.tables()[0]["status"] == "offline", what="offline after a clean stop")


def test_doctor_says_whether_the_broker_accepts_the_login(tmp_path):
    out = io.StringIO()
    assert report_venue(default_config(), out) is True and out.getvalue() == ""  # no [venue]: nothing to say
    with LocalBroker(tmp_path / "b", users={"t1": "right"}) as b:
        out = io.StringIO()
        assert report_venue(config_for(b.port, username="t1", password="right"), out) is True
        assert "ok: the broker accepted the login" in out.getvalue()
        out = io.StringIO()
        assert report_venue(config_for(b.port, username="t1", password="wrong"), out) is False
        assert "refused the login" in out.getvalue() and "username and password" in out.getvalue()
    out = io.StringIO()
    assert report_venue(config_for(free_port()), out, timeout_s=2) is False
    assert "cannot reach the broker" in out.getvalue()
