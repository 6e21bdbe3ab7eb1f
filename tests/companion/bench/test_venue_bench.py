"""``bench venue`` at toy size: it runs end to end and its figures are measured, not made up."""

from __future__ import annotations

import os

import pytest

from companion.venue.broker import find_mosquitto

pytestmark = pytest.mark.skipif(find_mosquitto() is None and not os.environ.get("CI"),
                                reason="mosquitto is not installed (scripts/dev.sh test installs it)")


def test_two_tables_for_a_few_seconds(tmp_path):
    from companion.bench.venue import run_bench

    fig = run_bench(tmp_path, n_tables=2, minutes=0.1, every_s=0.3, seed=2, say=lambda *_: None)
    assert fig["exactly_once_in_order"] is True
    assert fig["events"] == fig["events_at_hub"] > 10
    lat = fig["latency_ms"]
    assert lat["n"] == fig["actions"] and 0 < lat["p50"] <= lat["p95"] <= lat["max"]
    assert fig["shown"]["api_online"] == 2
    assert fig["hub"]["peak_rss_mb"] > 5 and fig["broker"]["peak_rss_mb"] > 1
    assert fig["table_messages_per_s"] > 0
    if fig["shown"]["browser_cards"] is not None:
        assert fig["shown"]["browser_cards"]["cards"] == 2
