"""Shared by the simulator families' tests."""

from __future__ import annotations

import hashlib
import json

# the truth fields the sensing benchmark's scorer reads, per truth event
SCORED_FIELDS = {
    "placed": ("t_ms", "size", "mass_g", "x_mm", "y_mm", "zone", "number"),
    "removed": ("t_ms", "size", "mass_g"),
    "tipped": ("t_ms",),
    "fell": ("t_ms", "pawns", "mass_g"),
    "hand": ("t_ms", "duration_ms"),
    "fault": ("t_ms", "cell", "kind"),
}


def trace_digest(*args: object, **kw: object) -> str:
    """A short digest of one generated trace and its truth (``generate``'s arguments): a family's
    traces staying byte-identical across a change is checked against digests taken before it."""
    from companion.bench.sensing import trace_text
    from hardware.simfamily.generate import generate

    h, s, t = generate(*args, **kw)  # type: ignore[arg-type]
    return hashlib.sha256((trace_text(h, s) + json.dumps(t)).encode()).hexdigest()[:16]
