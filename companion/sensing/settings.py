"""Tunable thresholds of the sensing pipeline, with the physical reason for each default.

Times are in milliseconds and converted to sample counts from the trace's rate, so the same
settings work at 10 and at 80 samples per second. See ``docs/sensing.md`` for the reasoning.
"""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class SensingSettings:
    """Thresholds of the pipeline (defaults tuned to physics, see docs/sensing.md)."""

    # --- per-cell glitch rejection ---------------------------------------------------------
    glitch_jump_g: float = 3.0  # a lone per-cell jump larger than this must be confirmed by the next read
    # --- stillness and change detection ---------------------------------------------------
    fast_tau_ms: float = 20.0  # smoothing of the trigger signals (less than a sample at 10 Hz)
    baseline_tau_ms: float = 3000.0  # still baseline follows slow drift with this time constant
    trigger_min_g: float = 0.9  # smallest total-force change that starts a segment
    trigger_sigmas: float = 5.0  # ... or this many noise sigmas of the smoothed force
    still_ms: float = 300.0  # a level is still when it stays within tolerance this long
    still_min_samples: int = 4
    still_tol_min_g: float = 1.0  # range tolerance of the total force while still
    still_tol_sigmas: float = 7.0
    level_ms: float = 500.0  # averaging window for the level after a placement (position accuracy)
    level_min_samples: int = 6
    # --- pawn matching --------------------------------------------------------------------
    pawn_tol_frac: float = 0.10  # pawns vary a few per cent around the header mean
    pawn_tol_min_g: float = 0.45  # plus measurement noise of two levels
    # closer than this to a line: zone/number null (a straddling pawn). Kept small: the position
    # error (p95 5-10 mm) makes a wider margin null clear placements (2 mm cost 0.01-0.03 of
    # zone accuracy on the independent corpus), while a missed straddle only skips a flag.
    line_margin_mm: float = 1.0
    # --- hands and bumps ------------------------------------------------------------------
    hand_min_ms: float = 300.0  # shorter disturbances with no net change are bumps
    hand_min_g: float = 10.0  # smallest sustained extra force that counts as a hand
    hand_max_hold_ms: float = 12000.0  # an unexplained level is accepted (re-anchored) after this long
    # --- tipping ------------------------------------------------------------------------------
    tip_excess_gmm: float = 140.0  # moment change beyond what any force on the disc could explain
    tip_sigmas: float = 6.0  # ... and at least this many moment-noise sigmas
    # the excess must persist this long: two readings at 80 Hz (one reading can be a knock's turning
    # point, the moment swinging back the next, or the cells' own timing skewing a fast press)
    tip_confirm_ms: float = 25.0
    tip_lag_ms: float = 100.0  # the quiet reference for the excess is this old
    tip_lag_two_from_ms: float = 50.0  # readings this far apart (<= 20 Hz): that test needs two in a row
    tip_ref_ms: float = 50.0  # ... averaged over this long
    tip_cur_ms: float = 25.0  # the current value is averaged over this long
    tip_persist_ms: float = 150.0  # ... unless the excess has lasted this long (a bump cannot)
    tip_quiet_ms: float = 50.0  # the total force must be quiet this long for a moment excess to count
    strike_min_g: float = 4.0  # the rim striking its stop: a force pulse at least this big
    strike_ms: float = 45.0  # ... and at most this long
    strike_rim_frac: float = 0.85  # ... centred at least this far out (fraction of the radius)
    tip_settle_ms: float = 500.0  # after a tip the level must be still this long
    tip_max_unlevel_ms: float = 2000.0  # still but not level this long: accept as settled anyway
    tip_block_ms: float = 50.0  # the residual tip test's block (longer than the cells' timing skew)
    tip_refractory_ms: float = 3000.0  # after a tip episode no new moment tip (the disc righting) ...
    # release watch: right after a finger lets go, the level must be where the press put the pawn
    release_skip_ms: float = 25.0  # the finger's lift still shows this long
    release_window_ms: float = 75.0  # the level is averaged over this long
    release_min_ms: float = 35.0  # ... and at least this long (two readings at low rates)
    # watched this long after the release: a small excess tips slowly (onset to rim p90 ~1.7 s), its
    # load creeping outwards all along, and a pawn at rest never drifts (the level tests end sooner)
    release_watch_ms: float = 1000.0
    release_aim_mm: float = 8.0  # a finger presses within a few mm of the pawn: its mass times that
    release_floor_gmm: float = 45.0  # ... at least this much
    release_motion_gmm: float = 15.0  # ... or moving by this much while the force stays quiet
    release_sigmas: float = 5.0  # ... added (in quadrature) to this many noise sigmas of the mean
    release_quiet_g: float = 1.0  # the force stays this quiet (a tipping disc's inertia moves it a bit)
    # a pawn set down lightly (no press episode) watched by its drift alone: off, because on a
    # compliant top (held-back creep tables) it read the top's lean as a tip, up to a second before
    # the disc went over, and that tip was then lost in the episode (see docs/sensing.md)
    release_watch_light: bool = False
    # --- faults ---------------------------------------------------------------------------
    stuck_ms: float = 2000.0  # identical raw codes this long: a real HX711 never repeats so long
    stuck_min_samples: int = 12
    rail_ms: float = 500.0  # pinned at 8388607 / -8388608 this long: saturated
    rail_min_samples: int = 4
    disconnected_ms: float = 1000.0  # no readings (or constant -1) this long
    disconnected_min_samples: int = 5
    noisy_g: float = 3.0  # per-cell noise sigma (grams) far above any normal HX711 set-up
    noisy_ms: float = 2000.0  # ... sustained this long
    fault_clear_ms: float = 5000.0  # a faulted cell must behave this long to be reported again

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type in (bool, "bool"):
                if not isinstance(value, bool):
                    raise ValueError(f"sensing setting {f.name} must be true or false, got {value!r}")
                continue
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise ValueError(f"sensing setting {f.name} must be a non-negative number, got {value!r}")
