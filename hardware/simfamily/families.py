"""Named families of simulated tables: each a distribution over the physical parameters of a table.

A family fixes the *kind* of table (support, clocking, rim stop, how players behave) and draws
every number from ranges per trace (``draw_build(family, rng)``). ``sim`` and ``sim_alt`` are the
two legacy simulators kept as families (``hardware/sim``, ``hardware/sim_alt``). The split of
families into *tuned* (the sensing code may be tuned on them) and *held back* (report only) is
fixed here and documented in docs/simulator-families.md.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from hardware.sim.table import random_pawn_means
from hardware.simfamily.disc import DISC_RADIUS, Support


@dataclass(frozen=True)
class Family:
    """A named parameter distribution (ranges are drawn uniformly per trace)."""

    name: str
    summary: str
    supports: tuple[str, ...] = ("pedestal",)
    clock: str = "free"  # free | sync | mixed
    rims: tuple[str, ...] = ("hard", "felt")
    creep: float = 0.0  # share of tables with a compliant (creeping) support top
    steady_place: float = 0.3  # share of placements with a steadying touch
    calib_pct: tuple[float, float] = (0.2, 2.0)  # header calibration error per cell (|%|)
    mount_mm: float = 2.0  # sd of each cell's real position off the header's (per axis)
    rate_error: float = 0.03  # +- relative error of each HX711's oscillator
    pinch_ms: tuple[float, float] = (100, 1000)
    ledge: float = 0.5  # share of tables whose base plate is wider than the disc
    legacy: str | None = None  # "sim" / "sim_alt": the old generators
    # living-room (docs/simulator-families.md); the defaults are the other families' behaviour
    cell_layout: str = "ring"  # ring (evenly on one circle) | irregular (home-built base)
    pawn_sets: str = "sim"  # sim (hardware/sim's sets) | varied (light, wooden, 1:2:3 rod sets too)
    rate_bias: tuple[float, float] = (0.0, 0.0)  # one oscillator bias shared by all the HX711s
    room: bool = False  # floor vibration, leaning, mains hum, 1/f noise, temperature (room.py)
    fast_players: float = 0.0  # share of players who take a turn every 1-2 s
    finger_slide: float = 0.0  # share of placements where the finger drags the pawn 2-8 mm
    hands: float = 0.08  # share of game turns with a hand on the disc
    # kids-club (docs/simulator-families.md, hardware/simfamily/kids.py); the defaults draw nothing new
    disc_mass_g: tuple[float, float] = (250, 450)
    ring_mm: tuple[float, float] = (95, 140)  # radius of the even cell ring
    mu: tuple[float, float] = (0.05, 0.35)  # static friction of the pawns on the disc
    pawn_spread: tuple[float, float] = (0.03, 0.03)  # +- manufacturing spread of a pawn's mass
    drop_place: float = 0.0  # share of placements where the pawn is dropped from a few mm
    cell_physics: bool = False  # load-cell creep, hysteresis, nonlinearity, span warm-up (kids.py)
    usb_host: bool = False  # a laptop reading over USB: polled reads, scheduling stalls (kids.py)
    # cafe-tablecloth (docs/simulator-families.md, footing.py); the defaults draw nothing new
    soft_feet: bool = False  # the unit on soft feet: bounce and sway of the whole unit, the table's vibration
    lower_ms: tuple[float, float] = (20, 80)  # the pawn's weight arrives over this long as it is set down
    press_ms: tuple[float, float] = (80, 700)  # how long the finger presses a placed pawn


FAMILIES: dict[str, Family] = {
    f.name: f
    for f in (
        Family("sim", "the main legacy simulator (hardware/sim)", legacy="sim"),
        Family("sim_alt", "the independent legacy simulator (hardware/sim_alt)", legacy="sim_alt"),
        Family(
            "pedestal-sync",
            "flat pedestal, all HX711s on one clock, hard or felt stop",
            supports=("pedestal",),
            clock="sync",
            rims=("hard", "felt"),
            calib_pct=(0.1, 1.0),
            mount_mm=1.0,
        ),
        Family(
            "pedestal-free",
            "flat pedestal, free-running HX711 clocks, any stop",
            supports=("pedestal",),
            clock="free",
            rims=("hard", "felt", "ringing", "bounce"),
        ),
        Family(
            "pivot-spring",
            "point pivot with a preloaded return spring, free clocks",
            supports=("pivot",),
            clock="free",
            rims=("hard", "felt", "ringing"),
        ),
        Family(
            "rocker",
            "rocker hub with a curved bottom (large residual moment when tipped), free clocks",
            supports=("rocker",),
            clock="free",
            rims=("felt", "bounce", "ringing"),
        ),
        Family(
            "creep-felt",
            "compliant pedestal top (tips after a slow creep), felt stop, steadying hands",
            supports=("pedestal", "rocker"),
            clock="mixed",
            rims=("felt",),
            creep=1.0,
            steady_place=0.5,
            calib_pct=(1.0, 2.0),
            mount_mm=3.0,
        ),
        Family(
            "ringing-bounce",
            "any support, ringing platform or bouncing rim, 1-2 % calibration, free clocks",
            supports=("pedestal", "pivot", "rocker"),
            clock="free",
            rims=("ringing", "bounce"),
            creep=0.3,
            steady_place=0.3,
            calib_pct=(1.0, 2.0),
            mount_mm=3.0,
            rate_error=0.04,
        ),
        Family(
            "living-room",
            "a home-built table in a lived-in room: cells off the even ring, other pawn sets, fast "
            "HX711s; floor vibration, leaning, mains hum, 1/f noise, temperature; quick players",
            supports=("pedestal", "pivot", "rocker"),
            clock="free",
            rims=("hard", "felt", "ringing", "bounce"),
            cell_layout="irregular",
            pawn_sets="varied",
            rate_bias=(-0.03, 0.10),
            room=True,
            fast_players=0.5,
            finger_slide=0.25,
            hands=0.14,
        ),
        Family(
            "kids-club",
            "a cheap-cell table on a laptop at a children's club: cell creep, hysteresis, nonlinearity "
            "and span warm-up; USB polling and stalls; light or heavy discs on small bases; dropped, "
            "slippery pawns with a wide mass spread; quick grabs",
            supports=("pedestal", "pivot", "rocker"),
            clock="free",
            rims=("hard", "felt", "ringing", "bounce"),
            pinch_ms=(40, 400),
            hands=0.12,
            disc_mass_g=(150, 700),
            ring_mm=(60, 140),
            mu=(0.03, 0.2),
            pawn_spread=(0.05, 0.08),
            drop_place=0.35,
            cell_physics=True,
            usb_host=True,
        ),
        Family(
            "cafe-tablecloth",
            "a unit on soft feet on a cloth-covered cafe table: every load change rings a bounce and a "
            "sway of the whole unit on its feet (6-40 Hz, lightly damped), the table's own vibration "
            "keeps them alive, an off-centre load leans it; grown-ups who set pawns down slowly and "
            "hold them long",
            supports=("pedestal", "pivot", "rocker"),
            clock="free",
            rims=("hard", "felt", "ringing", "bounce"),
            soft_feet=True,
            lower_ms=(20, 300),
            press_ms=(80, 1500),
        ),
    )
}

TUNED = ("sim", "sim_alt", "pedestal-sync", "pedestal-free", "pivot-spring", "living-room", "kids-club")
HELD_BACK = ("rocker", "creep-felt", "ringing-bounce", "cafe-tablecloth")


def family(name: str) -> Family:
    """The family called ``name`` (a clear error naming the known ones otherwise)."""
    try:
        return FAMILIES[name]
    except KeyError:
        raise ValueError(f"unknown table family {name!r}; known: {', '.join(FAMILIES)}") from None


@dataclass(frozen=True)
class Build:
    """Everything physical about one simulated table (drawn per trace)."""

    family: str
    support: Support
    disc_mass_g: float
    ledge_mm: float  # outer radius of the base plate (150: no ledge)
    clock: str  # free | sync
    steady_place: float
    pinch_ms: tuple[float, float]
    mu_range: tuple[float, float] = (0.05, 0.35)
    extra: dict = field(default_factory=dict)
    fast_players: float = 0.0  # share of players who take a turn every 1-2 s
    finger_slide: float = 0.0  # share of placements where the finger drags the pawn 2-8 mm
    pawn_spread: float = 0.03  # +- a pawn's mass off its set's mean (gaussian of sd half that, clipped)
    drop_place: float = 0.0  # share of placements where the pawn is dropped from a few mm
    lower_ms: tuple[float, float] = (20, 80)  # the pawn's weight arrives over this long
    press_ms: tuple[float, float] = (80, 700)  # the finger's press on a placed pawn


def _support(kind: str, rim: str, rng: random.Random, disc_mass: float, creep: bool) -> Support:
    stop = math.radians(rng.uniform(7, 15))
    height = rng.uniform(25, 50)
    rim_half = {
        "hard": rng.uniform(3, 8),
        "felt": rng.uniform(25, 60),
        "ringing": rng.uniform(4, 10),
        "bounce": rng.uniform(4, 9),
    }[rim]
    zeta = {
        "hard": rng.uniform(0.3, 0.6),
        "felt": rng.uniform(0.6, 0.95),
        "ringing": rng.uniform(0.2, 0.5),
        "bounce": rng.uniform(0.05, 0.15),
    }[rim]
    damping = rng.uniform(0.05, 0.3)
    creep_ms = rng.uniform(250, 800) if creep else 0.0
    creep_rad = math.radians(rng.uniform(0.15, 0.5)) if creep else 0.0
    creep_frac = rng.uniform(0.15, 0.35) if creep else 0.0
    if kind == "pedestal":
        com = rng.uniform(2, 12)
        return Support(
            kind,
            rng.uniform(2.0, 6.0),
            rng.uniform(0.0, 2.0),
            0.0,
            0.0,
            com,
            rng.uniform(4, 8),
            height,
            stop,
            rim,
            rim_half,
            zeta,
            damping,
            creep_ms,
            creep_rad,
            creep_frac,
        )
    if kind == "pivot":
        com = rng.uniform(5, 25)
        preload = rng.uniform(500, 1800)
        k = rng.uniform(0.2, 0.6) * disc_mass * com  # softer than gravity's pull: it goes over
        return Support(
            kind,
            0.0,
            rng.uniform(0.0, 1.0),
            preload,
            k,
            com,
            com + rng.uniform(-3, 3),
            height,
            stop,
            rim,
            rim_half,
            zeta,
            damping,
            creep_ms,
            creep_rad,
            creep_frac,
        )
    if kind == "rocker":
        curve = rng.uniform(5, 30)
        com = curve + rng.uniform(15, 55)  # above the centre of curvature: it goes over
        return Support(
            kind,
            rng.uniform(2.0, 5.0),
            curve,
            0.0,
            0.0,
            com,
            com + rng.uniform(2, 6),
            height,
            stop,
            rim,
            rim_half,
            zeta,
            damping,
            creep_ms,
            creep_rad,
            creep_frac,
        )
    raise ValueError(f"unknown support kind {kind!r} (pedestal, pivot, rocker)")


def draw_build(fam: Family, rng: random.Random) -> Build:
    """One table of family ``fam``."""
    if fam.legacy:
        raise ValueError(f"family {fam.name!r} is a legacy simulator; it has no simfamily build")
    kind = rng.choice(fam.supports)
    rim = rng.choice(fam.rims)
    disc_mass = rng.uniform(*fam.disc_mass_g)
    sup = _support(kind, rim, rng, disc_mass, rng.random() < fam.creep)
    clock = fam.clock if fam.clock != "mixed" else rng.choice(("free", "sync"))
    ledge = DISC_RADIUS if rng.random() >= fam.ledge else rng.uniform(160, 190)
    return Build(
        fam.name,
        sup,
        disc_mass,
        ledge,
        clock,
        fam.steady_place,
        fam.pinch_ms,
        mu_range=fam.mu,
        fast_players=fam.fast_players,
        finger_slide=fam.finger_slide,
        drop_place=fam.drop_place,
        lower_ms=fam.lower_ms,
        press_ms=fam.press_ms,
    )


def pawn_set(rng: random.Random) -> tuple[str, dict[str, float]]:
    """A pawn set of family ``varied``: (archetype, mean mass per size).

    * ``standard``: the sets of ``hardware/sim`` (half of them with a large weighing two mediums);
    * ``light``: moulded plastic, small 1.5-1.9 g, medium 2.1-2.4x, large 1.6-1.8x the medium;
    * ``wooden``: turned beech, small 2.6-3.2 g, medium 2.0-2.2x, large 1.6-1.75x the medium (to 12.3 g);
    * ``rod``: cut from one dowel at lengths 1:2:3 (small 2.0-2.8 g, each larger size within 3 % of
      2x and 3x the small): two smalls weigh a medium and a small and a medium weigh a large.
    """
    kind = rng.choice(("standard", "light", "wooden", "rod"))
    if kind == "standard":
        return kind, random_pawn_means(rng)
    if kind == "light":
        small = rng.uniform(1.5, 1.9)
        medium = small * rng.uniform(2.1, 2.4)
        large = medium * rng.uniform(1.6, 1.8)
    elif kind == "wooden":
        small = rng.uniform(2.6, 3.2)
        medium = small * rng.uniform(2.0, 2.2)
        large = medium * rng.uniform(1.6, 1.75)
    else:
        small = rng.uniform(2.0, 2.8)
        medium = 2 * small * rng.uniform(0.97, 1.03)
        large = 3 * small * rng.uniform(0.97, 1.03)
    return kind, {"small": round(small, 3), "medium": round(medium, 3), "large": round(large, 3)}


def irregular_cells(cells: int, rng: random.Random) -> list[tuple[float, float]] | None:
    """Cell positions of a home-built base (family ``irregular``), or None for 1 or 5+ cells (ring).

    3 cells: each at ``120 k`` deg +-25 deg of a random rotation, each at its own radius of 80-140 mm
    (a triangular frame cut to fit), redrawn until the disc's centre lies at least 30 mm inside the
    triangle (the base stands). 4 cells: the corners of a rectangle of half-sides 70-105 mm by
    0.65-1.0 of that, at any rotation, each corner off by up to 6 mm (a frame screwed together).
    """
    if cells == 3:
        rot = rng.uniform(0, 360)
        for _ in range(100):
            pts = []
            for k in range(3):
                a = math.radians(rot + 120 * k + rng.uniform(-25, 25))
                r = rng.uniform(80, 140)
                pts.append((r * math.cos(a), r * math.sin(a)))
            if _inside_margin(pts) >= 30:
                return pts
        raise RuntimeError("no standing 3-cell base drawn in 100 tries")  # pragma: no cover
    if cells == 4:
        a = rng.uniform(70, 105)
        b = a * rng.uniform(0.65, 1.0)
        rot = math.radians(rng.uniform(0, 360))
        c, s = math.cos(rot), math.sin(rot)
        out = []
        for sx, sy in ((1, 1), (-1, 1), (-1, -1), (1, -1)):
            x = sx * a + rng.uniform(-6, 6)
            y = sy * b + rng.uniform(-6, 6)
            out.append((x * c - y * s, x * s + y * c))
        return out
    return None


def _inside_margin(pts: list[tuple[float, float]]) -> float:
    """Distance from the origin to the nearest edge of the polygon ``pts`` (negative: outside)."""
    n = len(pts)
    area2 = sum(pts[i][0] * pts[(i + 1) % n][1] - pts[(i + 1) % n][0] * pts[i][1] for i in range(n))
    sign = 1.0 if area2 > 0 else -1.0
    out = math.inf
    for i in range(n):
        (x1, y1), (x2, y2) = pts[i], pts[(i + 1) % n]
        length = math.hypot(x2 - x1, y2 - y1)
        out = min(out, sign * (x1 * y2 - x2 * y1) / length)
    return out
