"""Shared by the simulator families' tests."""

from __future__ import annotations

# the truth fields the sensing benchmark's scorer reads, per truth event
SCORED_FIELDS = {
    "placed": ("t_ms", "size", "mass_g", "x_mm", "y_mm", "zone", "number"),
    "removed": ("t_ms", "size", "mass_g"),
    "tipped": ("t_ms",),
    "fell": ("t_ms", "pawns", "mass_g"),
    "hand": ("t_ms", "duration_ms"),
    "fault": ("t_ms", "cell", "kind"),
}
