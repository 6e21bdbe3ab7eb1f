"""``generate(family, seed, ...)``: one trace of a family table (game, bump-only or faults) with its truth.

Returns ``(header, samples, truth)`` in the shapes of ``hardware.sim.scenarios.generate`` (the
first truth record is the ``scenario`` line the scorer reads). Everything random comes from
``random.Random`` seeded by (family, seed, kind): same arguments, same trace. The legacy families
``sim`` and ``sim_alt`` call their own generators.
"""

from __future__ import annotations

import math
import random
from dataclasses import replace
from typing import Any

from companion.sensing.layout import DiscLayout
from companion.sensing.trace import CellSpec, Sample, TraceHeader
from hardware.sim.table import random_pawn_means
from hardware.sim_alt.loads import LoadTimeline, Platform, ring_positions
from hardware.simfamily.adc import FAULT_KINDS, Cell, CellFault, Link, sample_rows
from hardware.simfamily.families import Build, Family, draw_build, family, irregular_cells, pawn_set
from hardware.simfamily.footing import Footing
from hardware.simfamily.kids import CellMaterial, UsbHost, draw_materials
from hardware.simfamily.room import Room
from hardware.simfamily.table import SIZES, Table

KINDS = ("game", "bump_only", "faults")
PAWNS_PER_SIZE = {2: 8, 3: 6, 4: 5}

Trace = tuple[TraceHeader, list[Sample], list[dict[str, Any]]]


def _check(cells: int, rate_hz: float, noise_g: float, kind: str, minutes: float) -> None:
    if isinstance(cells, bool) or not isinstance(cells, int) or cells < 1 or cells == 2 or cells > 8:
        raise ValueError(f"cells must be 1 or 3..8, got {cells!r}")
    if not 1 <= rate_hz <= 1000:
        raise ValueError(f"rate_hz must be between 1 and 1000, got {rate_hz!r}")
    if not 0 <= noise_g <= 5:
        raise ValueError(f"noise_g must be between 0 and 5 g, got {noise_g!r}")
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    if not 0.1 <= minutes <= 300:
        raise ValueError(f"minutes must be between 0.1 and 300, got {minutes!r}")


class Rig:
    """A family table ready to be scripted: build, pawn set, cells, timeline and the ``Table``."""

    def __init__(
        self,
        fam: Family,
        seed: int | str,
        *,
        cells: int,
        rate_hz: float,
        noise_g: float,
        duration_ms: float,
        build: Build | None = None,
    ) -> None:
        master = random.Random(f"simfamily/{fam.name}/{seed}")
        self.rng_build, self.rng_play, self.rng_adc = (
            random.Random(master.getrandbits(64)) for _ in range(3)
        )
        # the living-room draws (cell layout, pawn set, HX711 bias, the room) come from a fourth
        # stream, drawn after the other three: the other families' traces stay as they were
        self.rng_env = random.Random(master.getrandbits(64))
        # and the kids-club draws (cell materials, the USB host, the pawns' spread) from a fifth
        self.rng_kids = random.Random(master.getrandbits(64))
        # and the cafe-tablecloth draws (the unit on its feet, the table's vibration) from a sixth
        self.rng_foot = random.Random(master.getrandbits(64))
        rb, renv, rk = self.rng_build, self.rng_env, self.rng_kids
        self.family = fam
        self.build = build or draw_build(fam, rb)
        if fam.pawn_spread != (0.03, 0.03):
            self.build = replace(self.build, pawn_spread=rk.uniform(*fam.pawn_spread))
        self.pawn_set = "sim"
        if fam.pawn_sets == "varied":
            self.pawn_set, self.masses = pawn_set(renv)
        else:
            self.masses = random_pawn_means(rb)
        self.layout = DiscLayout()
        self.rate_hz = rate_hz
        self.cells = cells
        self.noise_g = noise_g
        self.duration_ms = duration_ms
        radius, rotation = rb.uniform(*fam.ring_mm), rb.uniform(0, 360)
        self.nominal = ring_positions(cells, radius, rotation)
        if fam.cell_layout == "irregular":
            self.nominal = irregular_cells(cells, renv) or self.nominal
        self.rate_bias = renv.uniform(*fam.rate_bias) if fam.rate_bias != (0.0, 0.0) else 0.0
        self.room: Room | None = None
        if fam.room:
            sup = self.build.support
            base_g = renv.uniform(300, 900)  # base plate and support above the cells (in the offset)
            self.room = Room(
                renv,
                duration_ms,
                cells,
                tare_g=self.build.disc_mass_g + base_g,
                tare_z_gmm=self.build.disc_mass_g * (sup.height_mm + sup.com_mm)
                + base_g * renv.uniform(5, 15),
                pawn_z_mm=sup.height_mm + sup.top_mm + 7.0,
            )
        self.real = (
            self.nominal
            if cells == 1
            else [(x + rb.gauss(0, fam.mount_mm), y + rb.gauss(0, fam.mount_mm)) for x, y in self.nominal]
        )
        self.platform = Platform(self.real, [rb.uniform(0.85, 1.15) for _ in range(cells)])
        self.materials: list[CellMaterial] | None = None
        if fam.cell_physics:
            tare = self.build.disc_mass_g + rk.uniform(300, 900)  # disc, base plate and support
            self.materials = draw_materials(rk, self.platform.cell_forces(tare, 0.0, 0.0))
        self.usb: UsbHost | None = None
        self.stalls: list[tuple[float, float]] = []
        if fam.usb_host:
            self.usb = UsbHost.draw(rk)
            self.stalls = self.usb.stalls(rk, duration_ms)
        self.footing: Footing | None = None
        if fam.soft_feet:
            sup = self.build.support
            self.footing = Footing.draw(
                self.rng_foot,
                disc_g=self.build.disc_mass_g,
                disc_z_mm=sup.height_mm + sup.com_mm,
                ledge_mm=self.build.ledge_mm,
            )
        period = 1000.0 / rate_hz
        if self.rate_bias:
            period *= 1 / (1 + self.rate_bias)  # the whole batch of HX711s runs fast (or slow)
        common = period * (1 + rb.uniform(-0.015, 0.015))
        phase0 = rb.uniform(0, period)
        self.adc: list[Cell] = []
        specs = []
        for i, (x, y) in enumerate(self.nominal):
            cpg = rb.choice((-1, 1)) * rb.uniform(300, 900)
            zero = rb.uniform(-300_000, 300_000)
            sigma = noise_g * rb.uniform(0.8, 1.2)
            white = 0.85
            if self.room is not None:
                self.room.set_sigma(i, sigma)
                white = self.room.cells[i].white_share
            if self.build.clock == "free":
                per = period * (1 + rb.uniform(-fam.rate_error, fam.rate_error))
                phase = rb.uniform(0, per)
            else:
                per, phase = common, phase0
            self.adc.append(
                Cell(
                    cpg,
                    zero,
                    per,
                    phase,
                    sigma * math.sqrt(white),
                    sigma * math.sqrt(0.15),
                    rb.uniform(-0.1, 0.1),
                )
            )
            err = rb.choice((-1, 1)) * rb.uniform(*fam.calib_pct) / 100
            specs.append(
                CellSpec(
                    round(x, 2), round(y, 2), round(zero + cpg * rb.gauss(0, 0.03)), round(cpg * (1 + err), 3)
                )
            )
        self.header = TraceHeader(
            float(rate_hz),
            tuple(specs),
            dict(self.masses),
            self.layout,
            {"generator": f"hardware.simfamily/{fam.name}"},
        )
        self.timeline = LoadTimeline(int(duration_ms) + 40_000)
        self.table = Table(self.rng_play, self.build, self.layout, self.timeline, self.masses)
        if self.room is not None:
            self.table.truth.extend(self.room.truth())

    def meta(self, kind: str, seed: int | str, minutes: float) -> dict[str, Any]:
        """The first truth record."""
        sup = self.build.support
        return {
            "event": "scenario",
            "t_ms": 0,
            "generator": "simfamily",
            "family": self.family.name,
            "kind": kind,
            "seed": seed,
            "cells": self.cells,
            "rate_hz": self.rate_hz,
            "noise_g": self.noise_g,
            "minutes": minutes,
            "duration_ms": int(self.duration_ms),
            "build": {
                "support": sup.kind,
                "rim": sup.rim,
                "flat_mm": round(sup.flat_mm, 2),
                "curve_mm": round(sup.curve_mm, 2),
                "preload_gmm": round(sup.preload_gmm),
                "com_mm": round(sup.com_mm, 1),
                "stop_deg": round(math.degrees(sup.stop_rad), 1),
                "creep_ms": round(sup.creep_ms),
                "disc_mass_g": round(self.build.disc_mass_g, 1),
                "ledge_mm": round(self.build.ledge_mm, 1),
                "clock": self.build.clock,
            },
            "clocks": [
                {"period_ms": round(c.period_ms, 4), "phase_ms": round(c.phase_ms, 3)} for c in self.adc
            ],
            "cells_true_mm": [[round(x, 2), round(y, 2)] for x, y in self.real],
            **self._living_room_meta(),
            **self._kids_meta(),
            **({"footing": self.footing.meta()} if self.footing is not None else {}),
        }

    def _kids_meta(self) -> dict[str, Any]:
        """The scenario record's extra keys of the kids-club draws (none for the other families)."""
        out: dict[str, Any] = {}
        if self.family.pawn_spread != (0.03, 0.03):
            out["pawn_spread_pct"] = round(100 * self.build.pawn_spread, 2)
        if self.materials is not None:
            out["cell_materials"] = [m.meta() for m in self.materials]
        if self.usb is not None:
            out["usb"] = self.usb.meta(self.stalls)
        return out

    def _living_room_meta(self) -> dict[str, Any]:
        """The scenario record's extra keys of the living-room draws (none for the other families)."""
        fam = self.family
        out: dict[str, Any] = {}
        if fam.pawn_sets != "sim":
            out["pawn_set"] = self.pawn_set
        if fam.cell_layout != "ring":
            out["cell_layout"] = fam.cell_layout
        if fam.rate_bias != (0.0, 0.0):
            out["rate_bias"] = round(self.rate_bias, 4)
        if self.room is not None:
            out["room"] = self.room.meta()
        return out

    def sample(
        self,
        gaps: list[tuple[int, int]] | None = None,
        fault: CellFault | None = None,
        link: Link | None = None,
    ) -> list[Sample]:
        """The logged rows of the whole script."""
        loads = self.timeline.arrays()
        if self.room is not None:
            loads = self.room.apply(loads)
        if self.footing is not None:
            loads = self.footing.apply(loads, self.rng_foot)
        mats = self.materials
        rows = sample_rows(
            self.rng_adc,
            loads,
            self.platform,
            self.adc,
            self.duration_ms,
            link or Link(),
            gaps or [],
            fault,
            extra=self.room.reading if self.room is not None else None,
            cell_load=(lambda c, vals: mats[c].apply(vals)) if mats is not None else None,
        )
        if self.usb is not None:
            rows, stalls = self.usb.retime(self.rng_kids, rows, self.stalls)
            self.table.truth.extend(stalls)
        return rows

    def finish(self, meta: dict[str, Any], samples: list[Sample]) -> Trace:
        """Header, samples and the time-ordered truth (scenario line first)."""
        truth = sorted(
            (e for e in self.table.truth if e["t_ms"] <= self.duration_ms), key=lambda e: e["t_ms"]
        )
        meta["duration_ms"] = samples[-1].t_ms if samples else 0
        return self.header, samples, [meta, *truth]


def generate(
    seed: int,
    *,
    family_name: str = "pedestal-free",
    cells: int = 4,
    rate_hz: float = 80,
    noise_g: float = 0.1,
    kind: str = "game",
    minutes: float = 3.0,
) -> Trace:
    """One simulated trace of family ``family_name`` with its ground truth."""
    fam = family(family_name)
    if fam.legacy == "sim":
        from hardware.sim.scenarios import generate as legacy

        return legacy(seed, cells=cells, rate_hz=rate_hz, noise_g=noise_g, kind=kind, minutes=minutes)
    if fam.legacy == "sim_alt":
        from hardware.sim_alt.scenarios import generate as legacy

        return legacy(seed, cells=cells, rate_hz=rate_hz, noise_g=noise_g, kind=kind, minutes=minutes)
    _check(cells, rate_hz, noise_g, kind, minutes)
    duration = minutes * 60_000
    rig = Rig(
        fam,
        f"{seed}/{kind}/{cells}/{rate_hz:g}",
        cells=cells,
        rate_hz=rate_hz,
        noise_g=noise_g,
        duration_ms=duration,
    )
    table, rng = rig.table, rig.rng_play
    meta = rig.meta(kind, seed, minutes)
    fault = None
    if kind == "game":
        play(table, duration - 8000, skill=(0.5, 0.95), hands=fam.hands, removals=0.05)
    elif kind == "faults":
        onset = int(duration * rng.uniform(0.3, 0.6))
        fault = CellFault(rng.randrange(cells), FAULT_KINDS[seed % 4], onset)
        table.truth.append({"event": "fault", "t_ms": onset, "cell": fault.cell, "kind": fault.kind})
        play(table, duration - 8000, skill=(0.9, 1.0), hands=0.03, removals=0.02)
    else:
        quiet_start(table, rng.randint(3, 8))
        meta["quiet_from_ms"] = int(table.t + 2000)
    every = {"game": 35_000, "bump_only": 12_000, "faults": 40_000}[kind]
    t = rng.expovariate(1 / every)
    while t < duration:
        if kind != "bump_only" or t > meta.get("quiet_from_ms", 0):
            table.bump(t)
        t += rng.expovariate(1 / every)
    gaps = []
    if kind != "bump_only" or rng.random() < 0.5:
        for _ in range(max(1, int(minutes / 3))):
            start = rng.uniform(5000, duration)
            gaps.append((int(start), int(start + rng.uniform(200, 1500))))
    meta["gaps_ms"] = gaps
    return rig.finish(meta, rig.sample(gaps, fault))


def play(table: Table, until: float, *, skill: tuple[float, float], hands: float, removals: float) -> None:
    """Turns of 2-4 players until ``until`` (ms): dice, a pawn, sometimes a hand or a removal."""
    rng = table.rng
    n_players = rng.randint(2, 4)
    skills = [rng.uniform(*skill) for _ in range(n_players)]
    share = table.b.fast_players
    fast = [rng.random() < share for _ in range(n_players)] if share else [False] * n_players
    stock = [dict.fromkeys(SIZES, PAWNS_PER_SIZE[n_players]) for _ in range(n_players)]
    player = 0
    while table.t < until:
        # a fast player has the die rolled and the pawn in hand while the last one settles
        table.t += rng.uniform(300, 1000) if fast[player] else rng.uniform(1500, 5000)
        if table.t >= until:
            break
        u = rng.random()
        if u < hands:
            table.hand()
        elif u < hands + removals and table.pawns:
            _remove_one(table, prefer_last=True)
        available = [s for s in SIZES if stock[player][s] > 0]
        if not available:
            if all(not any(s.values()) for s in stock):
                while table.pawns and table.t < until:
                    if not _remove_one(table, prefer_last=False):
                        break
                stock = [dict.fromkeys(SIZES, PAWNS_PER_SIZE[n_players]) for _ in range(n_players)]
            player = (player + 1) % n_players
            continue
        number = rng.randint(1, 6)
        if number == 1:
            player = (player + 1) % n_players
            continue
        zone = rng.choice(table.layout.zones)
        x, y = table.spot(zone, number)
        size = table.best_size(available, x, y) if rng.random() < skills[player] else rng.choice(available)
        stock[player][size] -= 1
        before = {p.pid for p in table.pawns}
        table.place(size, x, y)
        after = {p.pid for p in table.pawns}
        gone = (before | {table.next_pid - 1}) - after
        for e in table.truth:  # fallen pawns go back to their player
            if e["event"] == "fell" and e["pid"] in gone and not e.get("_back"):
                e["_back"] = True
                stock[player][next(iter(e["pawns"]))] += 1
        player = (player + 1) % n_players
    for e in table.truth:
        e.pop("_back", None)


def _remove_one(table: Table, prefer_last: bool) -> bool:
    order = list(table.pawns)
    table.rng.shuffle(order)
    if prefer_last and table.last_placed in order:
        order.remove(table.last_placed)
        order.insert(0, table.last_placed)
    return any(table.remove(p) for p in order[:6])


def quiet_start(table: Table, n: int) -> None:
    """A few careful placements well within the disc's limit (bump-only traces)."""
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
        if not table.balanced(trial, 0.4, (250.0, x, y)):
            continue
        table.place(size, x, y, press_g=rng.uniform(20, 150), slide_ok=False)
        placed += 1
        table.t += rng.uniform(1000, 3000)
