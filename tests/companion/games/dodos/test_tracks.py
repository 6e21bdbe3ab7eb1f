"""Tracks as data files: the shipped placeholders load and say so; a bad file names its problem;
the invariants catch inconsistent cards and positions."""

from __future__ import annotations

import pytest

from companion.games.dodos.tracks import MAPS, TRACKS, TrackFormatError, parse_track_file


def test_tracks_four_maps_each_inner_and_outer_placeholders():
    assert list(TRACKS) == list(MAPS) == ["dodino-island", "ignis-volcano", "polaria-iceberg", "boreal-sky"]
    for sides in TRACKS.values():
        assert set(sides) == {"inner", "outer"}
        assert all(t.placeholder for t in sides.values())
        assert sides["inner"].hexes < sides["outer"].hexes


def test_tracks_special_hexes_where_the_rulebook_puts_them():
    assert TRACKS["ignis-volcano"]["inner"].flames and not TRACKS["dodino-island"]["inner"].flames
    assert TRACKS["polaria-iceberg"]["inner"].deep_snow and not TRACKS["polaria-iceberg"]["outer"].deep_snow
    assert TRACKS["polaria-iceberg"]["outer"].shortcuts and TRACKS["boreal-sky"]["outer"].glass_ramps


def _file(**inner):
    return {"map": "x", "title": "X", "inner": {"hexes": 20, **inner}, "outer": {"hexes": 30}}


@pytest.mark.parametrize(("inner", "word"), [
    ({"hexes": 5}, "hexes must be a whole number >= 10"),
    ({"flames": [18]}, "not a starting hex"),
    ({"flames": [4], "shortcuts": [{"signal": 4, "rejoin": 9, "hexes": 2}]}, "both a flame"),
    ({"shortcuts": [{"signal": 2, "rejoin": 5, "hexes": 3}]}, "not shorter"),
    ({"glass_ramps": [{"ramp": 3, "landings": [4, 5], "smallest_paw": 4}]}, "across the sky"),
    ({"glass_ramps": [{"ramp": 3, "landings": [6, 7], "smallest_paw": 9}]}, "smallest paw"),
    ({"lava": 1}, "unknown field 'lava'"),
    ({"deep_snow": "yes"}, "deep_snow"),
])
def test_track_file_errors_name_the_field(inner, word):
    with pytest.raises(TrackFormatError, match=word):
        parse_track_file(_file(**inner), "x.json")


def test_track_file_needs_both_sides():
    with pytest.raises(TrackFormatError, match="missing field 'outer'"):
        parse_track_file({"map": "x", "title": "X", "inner": {"hexes": 20}}, "x.json")


def test_invariants_catch_cards_not_conserved_and_bad_positions(h):
    s = h.start(2)
    assert h.rules.invariants(s) == []
    assert any("Movement cards" in p for p in h.rules.invariants(h.edit(s, deck=3)))
    t = h.start(1, track="boreal-sky", side="inner")
    assert any("sky" in p for p in h.rules.invariants(h.edit(t, r0={"p": 11})))
    u = h.start(1, track="polaria-iceberg", side="inner")
    assert any("shortcut" in p for p in h.rules.invariants(h.edit(u, r0={"p": 3, "route": [0, 2]})))
