"""Scenario generator for the corpus: game-like play, bump-only quiet tables, cell faults.

``generate(seed, cells=, rate_hz=, noise_g=, kind=)`` drives a ``TableSimulator`` the way
players would and returns ``(header, samples, truth)``; the first truth record is a
``{"event": "scenario", ...}`` description (kind, seed, duration, and for ``bump_only`` the time
from which the table is quiet, ``quiet_from_ms``).
"""

from __future__ import annotations

import math
import random
from typing import Any

from companion.sensing.trace import Sample, TraceHeader
from hardware.sim.hx711 import FAULT_KINDS
from hardware.sim.table import SIZES, TableSimulator

KINDS = ("game", "bump_only", "faults")


def _run(sim: TableSimulator, rng: random.Random, out: list[Sample], ms: float, bumps_per_s: float) -> None:
    """Let ``ms`` pass; table bumps strike at random meanwhile (Poisson, ``bumps_per_s``)."""
    left = ms
    while left > 0:
        wait = min(left, rng.expovariate(bumps_per_s) * 1000 if bumps_per_s > 0 else left)
        out.extend(sim.run_for(wait))
        left -= wait
        if left > 0:
            sim.bump()


def _run_until_idle(sim: TableSimulator, rng: random.Random, out: list[Sample], bumps_per_s: float,
                    limit_ms: float = 15_000) -> None:
    waited = 0.0
    while not sim.idle and waited < limit_ms:
        _run(sim, rng, out, 100, bumps_per_s)
        waited += 100


def _choose(sim: TableSimulator, rng: random.Random, stock: dict[str, int], x: float, y: float,
            careful: float) -> str | None:
    """A player's choice of size for a spot: keep the disc balanced (mostly), else any size."""
    sizes = [s for s in SIZES if stock[s] > 0]
    if not sizes:
        return None
    if rng.random() > careful:
        return rng.choice(sizes)
    mx = sum(p["mass_g"] * p["x_mm"] for p in sim.pawns)
    my = sum(p["mass_g"] * p["y_mm"] for p in sim.pawns)
    means = sim.header.pawn_mass_g
    return min(sizes, key=lambda s: math.hypot(mx + means[s] * x, my + means[s] * y))


def _spot(sim: TableSimulator, rng: random.Random) -> tuple[float, float]:
    """Where a die roll sends the pawn: near a position's centre, sometimes on a line or the rim."""
    layout = sim.layout
    zone = rng.choice(layout.zones)
    number = rng.choice(layout.numbers)
    x, y = layout.centre_of(zone, number)
    r, a = math.hypot(x, y), math.atan2(y, x)
    u = rng.random()
    if u < 0.06:  # straddling a ring line
        i = layout.numbers.index(number)
        r = layout.ring_edges_mm[i + rng.choice((0, 1))] + rng.gauss(0, 2)
    elif u < 0.12:  # straddling a zone line
        a += math.radians(layout.sector_deg / 2) * rng.choice((-1, 1)) + rng.gauss(0, 0.01)
    elif u < 0.15 and number == layout.numbers[-1]:
        r = rng.uniform(138, min(148, layout.radius_mm - 2))  # careless, right at the rim
    else:
        r += rng.gauss(0, 4)
        a += rng.gauss(0, 3.5 / max(r, 25))
    r = max(5.0, min(r, layout.radius_mm - 2))
    return r * math.cos(a), r * math.sin(a)


def _play_turn(sim: TableSimulator, rng: random.Random, stock: dict[str, int], out: list[Sample],
               careful: float, extras: bool, bumps: float) -> None:
    x, y = _spot(sim, rng)
    size = _choose(sim, rng, stock, x, y, careful)
    if size is not None and rng.random() > 1 / 6:  # a 1 on the die: penalty, no placement
        stock[size] -= 1
        sim.place(size, x, y)
        if math.hypot(x, y) > 137 and rng.random() < 0.6:
            sim.creep_last(rng.uniform(0.3, 1.5) + 1.5)
        _run(sim, rng, out, 1500, bumps)
        _run_until_idle(sim, rng, out, bumps)
    if extras and rng.random() < 0.08:
        a = rng.uniform(0, 2 * math.pi)
        r = rng.uniform(60, 150)
        force = -rng.uniform(30, 150) if rng.random() < 0.15 else rng.uniform(50, 800)
        sim.press(r * math.cos(a), r * math.sin(a), force, rng.uniform(300, 5000))
        _run(sim, rng, out, 600, bumps)
        _run_until_idle(sim, rng, out, bumps)
    if extras and rng.random() < 0.04 and sim.pawns:
        sim.remove_last()
        _run(sim, rng, out, 1200, bumps)
        _run_until_idle(sim, rng, out, bumps)


Scenario = tuple[TraceHeader, list[Sample], list[dict[str, Any]]]


def generate(seed: int, *, cells: int = 4, rate_hz: float = 80, noise_g: float = 0.1,
             kind: str = "game", minutes: float = 3.0) -> Scenario:
    """Simulate one scenario; deterministic per arguments. Returns (header, samples, truth)."""
    if kind not in KINDS:
        raise ValueError(f"unknown scenario kind {kind!r}; expected one of {', '.join(KINDS)}")
    if isinstance(cells, bool) or not isinstance(cells, int) or cells < 1:
        raise ValueError(f"cells must be a positive integer, got {cells!r}")
    if not isinstance(minutes, int | float) or not 0.1 <= minutes <= 600:
        raise ValueError(f"minutes must be between 0.1 and 600, got {minutes!r}")
    rng = random.Random(f"scenario/{seed}/{kind}")
    # builds differ: the cells sit on a circle of 100-135 mm, at any rotation
    rotation = round(rng.uniform(0, 360 / cells), 1) if cells > 1 else 0.0
    sim = TableSimulator(cells=cells, rate_hz=rate_hz, noise_g=noise_g, seed=seed,
                         cell_radius_mm=round(rng.uniform(100, 135), 1), cell_rotation_deg=rotation)
    out: list[Sample] = []
    end_ms = minutes * 60_000
    meta: dict[str, Any] = {"event": "scenario", "t_ms": 0, "kind": kind, "seed": seed, "cells": cells,
                            "rate_hz": rate_hz, "noise_g": noise_g}
    out.extend(sim.run_for(rng.uniform(1500, 3000)))  # the pipeline may learn its zero first
    if kind == "game":
        players = rng.randint(2, 4)
        per = {2: 8, 3: 6, 4: 5}[players]
        stock = {s: per * players for s in SIZES}
        careful = rng.uniform(0.6, 0.9)
        while sim.t_ms < end_ms - 8000 and any(stock.values()):
            _run(sim, rng, out, rng.uniform(2500, 7000), 1 / 40)
            _play_turn(sim, rng, stock, out, careful, extras=True, bumps=1 / 40)
            if rng.random() < 0.01:
                sim.long_gap(rng.uniform(300, 2000))
        _run(sim, rng, out, max(3000.0, end_ms - sim.t_ms), 1 / 40)
    elif kind == "bump_only":
        stock = {s: 8 for s in SIZES}
        for _ in range(rng.randint(3, 8)):
            x, y = _spot(sim, rng)
            if math.hypot(x, y) > 130:
                continue
            size = _choose(sim, rng, stock, x, y, careful=1.0)
            if size is None:
                break
            stock[size] -= 1
            sim.place(size, x, y)
            _run(sim, rng, out, 1500, 0.0)
            _run_until_idle(sim, rng, out, 0.0)
        out.extend(sim.run_for(3000))
        meta["quiet_from_ms"] = sim.t_ms
        _run(sim, rng, out, max(10_000.0, end_ms - sim.t_ms), 1 / 15)
    else:
        stock = {s: 6 for s in SIZES}
        fault_at = rng.uniform(0.3, 0.6) * end_ms
        cell = rng.randrange(cells)
        fault = FAULT_KINDS[seed % len(FAULT_KINDS)]
        faulted = False
        while sim.t_ms < end_ms - 3000:
            if not faulted and sim.t_ms >= fault_at:
                sim.set_fault(cell, fault)
                faulted = True
            _run(sim, rng, out, rng.uniform(2000, 5000), 1 / 40)
            if any(stock.values()):
                _play_turn(sim, rng, stock, out, careful=0.9, extras=False, bumps=1 / 40)
        if not faulted:
            sim.set_fault(cell, fault)
        out.extend(sim.run_for(max(6000.0, end_ms - sim.t_ms)))
    meta["duration_ms"] = out[-1].t_ms if out else 0
    return sim.header, out, [meta, *sim.truth]
