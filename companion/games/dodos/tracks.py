"""The four Dodino World tracks as data (``tracks/*.json``) and the geometry of moving along one.

A racer's position is its *progress* ``p``: hexes from the finish line along its route. The first hex
past the line is 0, the first hex behind it -1 (so the starting hexes are -1, -2, -3) and a racer
with ``p >= hexes`` has completed the lap and is past the line. Hex ``p % hexes`` is the hex of the
loop. On a Polaria shortcut a racer also has a ``route`` ``[shortcut index, j]`` (j = 0: standing on
the signal with the roll won; 1..k: the shortcut's k hexes) and its progress is counted as hexes
still to go to the rejoin hex, so "furthest" stays "fewest hexes left".

The shipped files are placeholders (the rulebook gives no hex counts): see the docs for measuring a
board. Pure: the files are read once at import from the package.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

MAPS: tuple[str, ...] = ("dodino-island", "ignis-volcano", "polaria-iceberg", "boreal-sky")
"""The four tracks, in Cup order."""

SIDES: tuple[str, ...] = ("inner", "outer")


class TrackFormatError(ValueError):
    """A track file is malformed; the message names the file and the field."""


@dataclass(frozen=True)
class Shortcut:
    """A Polaria shortcut: the signal hex, the regular-path hex it rejoins, its own hexes between."""

    signal: int
    rejoin: int
    hexes: int


@dataclass(frozen=True)
class GlassRamp:
    """A Boreal Sky glass ramp: the ramp hex, the landing hexes after the sky and the smallest paw."""

    ramp: int
    landings: tuple[int, ...]
    smallest_paw: int


@dataclass(frozen=True)
class Track:
    """One side (inner/outer) of one map."""

    map: str
    title: str
    side: str
    hexes: int
    placeholder: bool
    flames: tuple[int, ...] = ()
    shortcuts: tuple[Shortcut, ...] = ()
    glass_ramps: tuple[GlassRamp, ...] = ()
    deep_snow: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"map": self.map, "title": self.title, "side": self.side, "hexes": self.hexes,
                "placeholder": self.placeholder, "flames": list(self.flames), "deep_snow": self.deep_snow,
                "shortcuts": [{"signal": s.signal, "rejoin": s.rejoin, "hexes": s.hexes}
                              for s in self.shortcuts],
                "glass_ramps": [{"ramp": g.ramp, "landings": list(g.landings), "smallest_paw": g.smallest_paw}
                                for g in self.glass_ramps]}

    # --- lookups by loop hex ---------------------------------------------------------------------

    def hex_of(self, p: int) -> int:
        return p % self.hexes

    def lap_of(self, p: int) -> int:
        """1 on the lap being run (and on the starting hexes behind the line), 2 once past the line."""
        return 1 if p < self.hexes else 2

    def ramp_at(self, h: int) -> GlassRamp | None:
        return next((g for g in self.glass_ramps if g.ramp == h), None)

    def landing_ramp(self, h: int) -> GlassRamp | None:
        return next((g for g in self.glass_ramps if h in g.landings), None)

    def signal_at(self, h: int) -> int | None:
        return next((i for i, s in enumerate(self.shortcuts) if s.signal == h), None)

    # --- one step --------------------------------------------------------------------------------

    def shortcut_progress(self, p_base: int, idx: int, j: int) -> int:
        """Progress of hex ``j`` (0 = signal) of shortcut ``idx`` in the lap starting at ``p_base``."""
        s = self.shortcuts[idx]
        if j == 0:
            return p_base + s.signal
        return p_base + s.rejoin - (s.hexes + 1 - j)

    def lap_base(self, p: int, route: tuple[int, int] | None) -> int:
        if route is None:
            return p - self.hex_of(p)
        idx, j = route
        s = self.shortcuts[idx]
        anchor = s.signal if j == 0 else s.rejoin - (s.hexes + 1 - j)
        return p - anchor

    def forward(self, p: int, route: tuple[int, int] | None, *, challenger: bool) -> tuple[int, Any]:
        """One hex forward (not for a player standing on a glass ramp: that is a jump)."""
        if route is not None:
            idx, j = route
            base = self.lap_base(p, route)
            s = self.shortcuts[idx]
            if j < s.hexes:
                return self.shortcut_progress(base, idx, j + 1), (idx, j + 1)
            return base + s.rejoin, None
        ramp = self.ramp_at(self.hex_of(p))
        if ramp is not None and challenger:
            return p - ramp.ramp + ramp.smallest_paw, None
        return p + 1, None

    def backward(self, p: int, route: tuple[int, int] | None) -> tuple[int, Any]:
        """One hex back: along the shortcut back to its signal, else the regular path; from the first
        landing hex across the sky back to its glass ramp."""
        if route is not None:
            idx, j = route
            base = self.lap_base(p, route)
            if j >= 2:
                return self.shortcut_progress(base, idx, j - 1), (idx, j - 1)
            if j == 1:
                return base + self.shortcuts[idx].signal, None
            return p - 1, None
        ramp = self.landing_ramp(self.hex_of(p))
        if ramp is not None and self.hex_of(p) == ramp.landings[0]:
            return p - self.hex_of(p) + ramp.ramp, None
        return p - 1, None


def _ints(where: str, value: Any) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise TrackFormatError(f"{where} must be a list of hex numbers, got {value!r}")
    return tuple(value)


def _int(where: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise TrackFormatError(f"{where} must be a whole number >= {low}, got {value!r}")
    return value


def parse_side(map_name: str, title: str, side: str, data: Any, placeholder: bool) -> Track:
    """Build and check one side of a track file; raise TrackFormatError naming the field."""
    where = f"{map_name}.{side}"
    if not isinstance(data, dict):
        raise TrackFormatError(f"{where} must be an object")
    known = {"hexes", "flames", "shortcuts", "glass_ramps", "deep_snow"}
    for key in data:
        if key not in known:
            raise TrackFormatError(f"{where}: unknown field {key!r} (fields: {', '.join(sorted(known))})")
    n = _int(f"{where}.hexes", data.get("hexes"), 10)
    usable = range(0, n - 3)  # the three starting hexes behind the line hold nothing special
    special: dict[int, str] = {}

    def claim(h: int, what: str) -> None:
        if h not in usable:
            raise TrackFormatError(f"{where}: {what} hex {h} must be in 0..{n - 4} (not a starting hex)")
        if h in special:
            raise TrackFormatError(f"{where}: hex {h} is both {special[h]} and {what}")
        special[h] = what

    flames = _ints(f"{where}.flames", data.get("flames", []))
    for h in flames:
        claim(h, "a flame")
    shortcuts = []
    for i, raw in enumerate(data.get("shortcuts", [])):
        w = f"{where}.shortcuts[{i}]"
        if not isinstance(raw, dict) or set(raw) != {"signal", "rejoin", "hexes"}:
            raise TrackFormatError(f"{w} must be an object with signal, rejoin and hexes")
        sc = Shortcut(_int(f"{w}.signal", raw["signal"], 0), _int(f"{w}.rejoin", raw["rejoin"], 0),
                      _int(f"{w}.hexes", raw["hexes"], 1))
        if not sc.signal + sc.hexes + 1 < sc.rejoin:
            raise TrackFormatError(f"{w}: a shortcut of {sc.hexes} hexes from {sc.signal} to {sc.rejoin} "
                                   "is not shorter than the regular path")
        claim(sc.signal, "a shortcut signal")
        claim(sc.rejoin, "a shortcut rejoin")
        shortcuts.append(sc)
    ramps = []
    for i, raw in enumerate(data.get("glass_ramps", [])):
        w = f"{where}.glass_ramps[{i}]"
        if not isinstance(raw, dict) or set(raw) != {"ramp", "landings", "smallest_paw"}:
            raise TrackFormatError(f"{w} must be an object with ramp, landings and smallest_paw")
        ramp = _int(f"{w}.ramp", raw["ramp"], 0)
        landings = _ints(f"{w}.landings", raw["landings"])
        paw = _int(f"{w}.smallest_paw", raw["smallest_paw"], 0)
        if not landings or paw not in landings or min(landings) <= ramp + 1:
            raise TrackFormatError(f"{w}: landings must follow the ramp across the sky and hold "
                                   "the smallest paw")
        claim(ramp, "a glass ramp")
        for h in landings:
            claim(h, "a landing")
        ramps.append(GlassRamp(ramp, tuple(sorted(landings)), paw))
    snow = data.get("deep_snow", False)
    if not isinstance(snow, bool):
        raise TrackFormatError(f"{where}.deep_snow must be true or false")
    return Track(map_name, title, side, n, placeholder, tuple(sorted(flames)), tuple(shortcuts),
                 tuple(ramps), snow)


def parse_track_file(data: Any, name: str) -> dict[str, Track]:
    """A whole track file (both sides); raise TrackFormatError naming the field."""
    if not isinstance(data, dict):
        raise TrackFormatError(f"{name}: a track file is a JSON object")
    for key in ("map", "title", "inner", "outer"):
        if key not in data:
            raise TrackFormatError(f"{name}: missing field {key!r}")
    placeholder = data.get("placeholder", False)
    if not isinstance(placeholder, bool):
        raise TrackFormatError(f"{name}.placeholder must be true or false")
    return {side: parse_side(data["map"], data["title"], side, data[side], placeholder) for side in SIDES}


def _load() -> dict[str, dict[str, Track]]:
    out = {}
    base = resources.files("companion.games.dodos") / "tracks"
    for name in MAPS:
        data = json.loads((base / f"{name}.json").read_text(encoding="utf-8"))
        out[name] = parse_track_file(data, f"{name}.json")
    return out


TRACKS: dict[str, dict[str, Track]] = _load()
"""``TRACKS[map][side]``: the shipped track data."""


def load_deck() -> tuple[tuple[str, int, int], ...]:
    """The configured Challenger deck: ``(kind, speed, count)`` rows (a placeholder composition)."""
    base = resources.files("companion.games.dodos")
    data = json.loads((base / "challenger-deck.json").read_text(encoding="utf-8"))
    return tuple((c["kind"], c["speed"], c["count"]) for c in data["cards"])


CHALLENGER_DECK = load_deck()
