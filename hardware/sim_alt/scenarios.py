"""``generate()``: the independent corpus (game, bump-only and fault traces).

Returns ``(header, samples, truth)`` like ``hardware.sim.scenarios.generate`` so that the
sensing benchmark scores both corpora with the same scorer. Everything random comes from
``random.Random(seed)`` (child generators drawn from it): same arguments, same trace.
"""

from __future__ import annotations

import math
import random

from companion.sensing.layout import DiscLayout
from companion.sensing.trace import CellSpec, Sample, TraceHeader
from hardware.sim_alt.hx711 import FAULT_KINDS, Channel, Climate, Fault, Link, sample_trace
from hardware.sim_alt.loads import LoadTimeline, Platform, ring_positions
from hardware.sim_alt.mechanics import Build, capacity, moment, tips
from hardware.sim_alt.play import Table

KINDS = ("game", "bump_only", "faults")
SIZES = ("small", "medium", "large")
PAWNS_PER_SIZE = {2: 8, 3: 6, 4: 5}


def draw_build(rng: random.Random) -> Build:
    """The physical constants of one table (documented in docs/simulator-alt.md)."""
    r_s = rng.uniform(2.5, 5.0)
    theta_rim = math.radians(rng.uniform(6, 12))
    gap = (150 - r_s) * math.sin(theta_rim)
    return Build(disc_mass=rng.uniform(250, 400), support_r=r_s, pivot_h=gap + rng.uniform(3, 12),
                 disc_com_b=rng.uniform(2, 12), disc_thick=rng.uniform(5, 9), rim_gap=gap,
                 pad_ms=(25.0, 60.0), ledge_r=150.0 if rng.random() < 0.5 else rng.uniform(160, 185),
                 drop_to_table=rng.uniform(25, 45))


def draw_masses(rng: random.Random) -> dict[str, float]:
    """Mean pawn masses of one set; in 40 % of sets a large pawn weighs about two mediums."""
    medium = rng.uniform(3.8, 5.2)
    large = 2 * medium * (1 + rng.uniform(-0.03, 0.03)) if rng.random() < 0.4 else rng.uniform(7.0, 9.0)
    return {"small": rng.uniform(1.7, 2.5), "medium": medium, "large": large}


def _check(cells: int, rate_hz: float, noise_g: float, kind: str, minutes: float) -> None:
    if isinstance(cells, bool) or not isinstance(cells, int) or cells < 1 or cells == 2 or cells > 8:
        raise ValueError(f"cells must be 1 or 3..8, got {cells!r}")
    if not 1 <= rate_hz <= 1000:
        raise ValueError(f"rate_hz must be between 1 and 1000, got {rate_hz!r}")
    if not 0 <= noise_g <= 5:
        raise ValueError(f"noise_g must be between 0 and 5 g, got {noise_g!r}")
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    if not 0.1 <= minutes <= 120:
        raise ValueError(f"minutes must be between 0.1 and 120, got {minutes!r}")


def generate(seed: int, *, cells: int = 4, rate_hz: float = 80, noise_g: float = 0.1, kind: str = "game",
             minutes: float = 3.0) -> tuple[TraceHeader, list[Sample], list[dict]]:
    """One simulated trace with its ground truth (first truth record: ``scenario``)."""
    _check(cells, rate_hz, noise_g, kind, minutes)
    master = random.Random(seed)
    rng_build, rng_play, rng_adc = (random.Random(master.getrandbits(64)) for _ in range(3))
    build = draw_build(rng_build)
    masses = draw_masses(rng_build)
    layout = DiscLayout()
    duration = int(minutes * 60000)
    # cells: nominal ring in the header, the real mounting a little off
    radius, rotation = rng_build.uniform(90, 140), rng_build.uniform(0, 360)
    nominal = ring_positions(cells, radius, rotation)
    real = nominal if cells == 1 else [(x + rng_build.gauss(0, 1.0), y + rng_build.gauss(0, 1.0))
                                       for x, y in nominal]
    platform = Platform(real, [rng_build.uniform(0.85, 1.15) for _ in range(cells)])
    channels, specs = [], []
    for x, y in nominal:
        cpg = rng_build.choice((-1, 1)) * rng_build.uniform(300, 500)
        zero = rng_build.uniform(-300_000, 300_000)
        sigma = noise_g * rng_build.uniform(0.75, 1.25)
        channels.append(Channel(cpg, zero, sigma * math.sqrt(0.85), sigma * math.sqrt(0.15),
                                rng_build.choice((-1, 1)) * rng_build.uniform(0.03, 0.12)))
        specs.append(CellSpec(round(x, 2), round(y, 2), round(zero + cpg * rng_build.gauss(0, 0.03)),
                              round(cpg * (1 + rng_build.gauss(0, 0.002)), 3)))
    climate = Climate(rng_build.uniform(0.2, 2.0), rng_build.uniform(120, 900), rng_build.uniform(0.05, 0.4),
                      rng_build.uniform(240, 900), rng_build.uniform(0, 6.3))
    timeline = LoadTimeline(duration + 30_000)
    table = Table(rng_play, build, layout, timeline, masses)
    meta: dict = {"event": "scenario", "generator": "sim_alt", "kind": kind, "seed": seed, "cells": cells,
                  "rate_hz": rate_hz, "noise_g": noise_g, "minutes": minutes, "duration_ms": duration}
    fault = None
    if kind == "game":
        _play(table, duration - 8000, skill=(0.5, 0.95), hands=0.07, removals=0.04)
    elif kind == "faults":
        onset = int(duration * rng_play.uniform(0.3, 0.6))
        fault = Fault(rng_play.randrange(cells), FAULT_KINDS[seed % 4], onset)
        table.truth.append({"event": "fault", "t_ms": onset, "cell": fault.cell, "kind": fault.kind})
        _play(table, duration - 8000, skill=(0.9, 1.0), hands=0.03, removals=0.02)
    else:
        _quiet_start(table, rng_play.randint(3, 8))
        meta["quiet_from_ms"] = int(table.t + 2000)
    bump_every = {"game": 30_000, "bump_only": 12_000, "faults": 40_000}[kind]
    t = rng_play.expovariate(1 / bump_every)
    while t < duration:
        table.bump(t)
        t += rng_play.expovariate(1 / bump_every)
    gaps = []
    if kind != "bump_only" or rng_play.random() < 0.5:
        for _ in range(max(1, int(minutes / 3))):
            start = rng_play.uniform(5000, duration)
            gaps.append((int(start), int(start + rng_play.uniform(200, 1500))))
    meta["gaps_ms"] = gaps
    meta["build"] = {k: round(v, 3) if isinstance(v, float) else v for k, v in vars(build).items()}
    meta["cells_true_mm"] = [[round(x, 2), round(y, 2)] for x, y in real]
    samples = sample_trace(rng_adc, timeline.arrays(), platform, channels, rate_hz, duration, climate, Link(),
                           gaps, fault)
    header = TraceHeader(rate_hz, tuple(specs), {s: round(m * (1 + rng_build.gauss(0, 0.003)), 3)
                                                 for s, m in masses.items()}, layout)
    truth = sorted((e for e in table.truth if e["t_ms"] <= duration), key=lambda e: e["t_ms"])
    return header, samples, [meta, *truth]


def _play(table: Table, until: float, *, skill: tuple[float, float], hands: float, removals: float) -> None:
    """Turns of 2-4 players until ``until`` (ms): dice, a pawn, sometimes a hand or a removal."""
    rng = table.rng
    n_players = rng.randint(2, 4)
    skills = [rng.uniform(*skill) for _ in range(n_players)]
    stock = [dict.fromkeys(SIZES, PAWNS_PER_SIZE[n_players]) for _ in range(n_players)]
    player = 0
    while table.t < until:
        table.t += rng.uniform(1500, 5000)  # the dice
        if table.t >= until:
            break
        u = rng.random()
        if u < hands:
            table.hand()
        elif u < hands + removals and table.pawns:
            _remove_one(table, prefer_last=True)
        number = rng.randint(1, 6)
        available = [s for s in SIZES if stock[player][s] > 0]
        if not available:
            if all(not any(s.values()) for s in stock):  # game over: clear the disc, new game
                while table.pawns and table.t < until:
                    _remove_one(table, prefer_last=False)
                stock = [dict.fromkeys(SIZES, PAWNS_PER_SIZE[n_players]) for _ in range(n_players)]
            player = (player + 1) % n_players
            continue
        if number == 1:  # penalty: no placement
            player = (player + 1) % n_players
            continue
        zone = rng.choice(table.layout.zones)
        x, y = table.spot(zone, number)
        size = table.best_size(available, x, y) if rng.random() < skills[player] else rng.choice(available)
        stock[player][size] -= 1
        before = {p.pid for p in table.pawns}
        table.place(size, x, y)
        after = {p.pid for p in table.pawns}
        for e in table.truth:  # fallen pawns go back to the player (rulebook)
            if e["event"] == "fell" and e["pid"] in before | {table.next_pid - 1} and e["pid"] not in after \
                    and not e.get("_counted"):
                e["_counted"] = True
                stock[player][next(iter(e["pawns"]))] += 1
        player = (player + 1) % n_players
    for e in table.truth:
        e.pop("_counted", None)


def _remove_one(table: Table, prefer_last: bool) -> None:
    """Remove a pawn without tipping the disc (the last placed one if allowed)."""
    order = list(table.pawns)
    table.rng.shuffle(order)
    if prefer_last and table.last_placed in order:
        order.remove(table.last_placed)
        order.insert(0, table.last_placed)
    for pawn in order:
        if not tips(table.build, [p for p in table.pawns if p is not pawn]):
            table.remove(pawn)
            return


def _quiet_start(table: Table, n: int) -> None:
    """A few careful placements that keep the disc well within its limit (bump-only traces)."""
    rng = table.rng
    placed = 0
    for _ in range(200):
        if placed >= n:
            break
        zone, number = rng.choice(table.layout.zones), rng.randint(2, 5)
        x, y = table.spot(zone, number)
        size = table.best_size(list(SIZES), x, y)
        trial = table.pawns + [table.new_pawn(size, x, y)]
        table.next_pid -= 1
        _, mx, my = moment(trial)
        if math.hypot(mx, my) > 0.5 * capacity(table.build, trial):
            continue
        table.place(size, x, y, creep_ok=False)
        placed += 1
        table.t += rng.uniform(1000, 3000)
