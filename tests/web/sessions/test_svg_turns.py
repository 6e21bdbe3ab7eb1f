"""The timeline labels every placement with its player, even one placed after the last plotted point."""

from __future__ import annotations

from web.sessions.svg import timeline_svg


def test_a_placement_after_the_last_plotted_point_keeps_its_player_label():
    series = [(0, 0.0, 0.0, 0.0), (500, 2.0, 1.0, 1.0)]
    svg = timeline_svg(series, [], turns=[(200.0, "Zoe"), (4000.0, "Yan")])
    assert 'class="turn-name"' in svg and ">Zoe</text>" in svg and ">Yan</text>" in svg
