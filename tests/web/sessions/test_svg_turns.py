"""The timeline labels every placement with its player, even one placed after the last plotted point."""

from __future__ import annotations

from web.sessions.svg import timeline_svg


def test_a_placement_after_the_last_plotted_point_keeps_its_player_label():
    series = [(0, 0.0, 0.0, 0.0), (500, 2.0, 1.0, 1.0)]
    svg = timeline_svg(series, [], turns=[(200.0, "Zoe"), (4000.0, "Yan")])
    assert 'class="turn-name"' in svg and ">Zoe</text>" in svg and ">Yan</text>" in svg


def test_every_player_is_named_even_when_a_whole_game_fits_in_a_few_pixels():
    series = [(0, 0.0, 0.0, 0.0), (3_600_000, 2.0, 1.0, 1.0)]  # an hour of trace, a two-second game
    turns = [(1000.0 + 100 * i, ("Yan", "Zoe", "Ann", "Bob")[i % 4]) for i in range(40)]
    svg = timeline_svg(series, [], turns=turns)
    for name in ("Yan", "Zoe", "Ann", "Bob"):
        assert f">{name}</text>" in svg
