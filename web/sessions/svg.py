"""Server-rendered SVG pictures for the history pages (no JavaScript, no external libraries).

Only presentation attributes are used (no ``style``), so the page's strict Content-Security-Policy
(``style-src 'self'``) allows them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape
from typing import Any

ZONE_FILL = {
    "red": "#d62828",
    "yellow": "#f4c20d",
    "green": "#2a9d4b",
    "blue": "#1f6fd1",
    "purple": "#7b3fa0",
    "orange": "#f07c1b",
}
EVENT_COLOUR = {
    "placed": "#2a9d4b",
    "removed": "#888888",
    "tipped": "#d62828",
    "fell": "#b5179e",
    "hand": "#f07c1b",
    "settled": "#1f6fd1",
    "fault": "#000000",
}
MAX_POINTS = 1200


def _fmt(v: float) -> str:
    return f"{v:.1f}"


def _thin(points: Sequence[Sequence[Any]], limit: int = MAX_POINTS) -> list[Sequence[Any]]:
    """Keep at most ``limit`` points, evenly spaced (the first and the last kept)."""
    if len(points) <= limit:
        return list(points)
    step = (len(points) - 1) / (limit - 1)
    return [points[round(i * step)] for i in range(limit)]


def _polyline(pts: list[tuple[float, float]], colour: str) -> str:
    if not pts:
        return ""
    body = " ".join(f"{_fmt(x)},{_fmt(y)}" for x, y in pts)
    return f'<polyline points="{body}" fill="none" stroke="{colour}" stroke-width="1.5"/>'


def timeline_svg(
    series: Sequence[Sequence[Any]],
    events: Sequence[dict[str, Any]],
    *,
    width: int = 960,
    height: int = 360,
    disc_radius_mm: float = 150.0,
    turns: Sequence[tuple[float, str]] = (),
) -> str:
    """Mass (top band) and centre of pressure x/y (bottom band) against trace time, events marked;
    ``turns``: (trace ms, player name) where a player placed, labelled above the chart."""
    left, right, top, gap = 56, 12, 38, 28  # three rows of player labels above the chart
    band = (height - top - gap - 36) / 2
    pts = _thin(series)
    t_end = max(  # the chart spans the trace, the events and every placement (a label is never lost)
        [p[0] for p in pts] + [e.get("t_ms", 0) for e in events if isinstance(e.get("t_ms"), int)]
        + [t for t, _ in turns if t >= 0] + [1]
    )
    masses = [p[1] for p in pts if p[1] is not None]
    m_max = max(masses + [1.0]) * 1.1
    m_min = min(masses + [0.0])

    def tx(t: float) -> float:
        """Trace time to x."""
        return left + (width - left - right) * t / t_end

    def my(m: float) -> float:
        """Mass to y (top band)."""
        return top + band * (1 - (m - m_min) / (m_max - m_min or 1))

    c_top = top + band + gap

    def cy(v: float) -> float:
        """Centre-of-pressure coordinate to y (bottom band)."""
        return c_top + band * (1 - (v + disc_radius_mm) / (2 * disc_radius_mm))

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="100%" '
        f'role="img" aria-label="mass and centre of pressure over time">',
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
    ]
    for y0, label in ((top, "mass (g)"), (c_top, "centre of pressure (mm)")):
        out.append(
            f'<rect x="{left}" y="{_fmt(y0)}" width="{width - left - right}" height="{_fmt(band)}" '
            f'fill="#f6f6f6" stroke="#cccccc"/>'
        )
        out.append(f'<text x="{left + 4}" y="{_fmt(y0 + 12)}" font-size="11" fill="#444444">{label}</text>')
    out.append(
        f'<text x="{left - 4}" y="{_fmt(top + 10)}" font-size="10" text-anchor="end">{m_max:.0f}</text>'
    )
    out.append(
        f'<text x="{left - 4}" y="{_fmt(top + band)}" font-size="10" text-anchor="end">{m_min:.0f}</text>'
    )
    for v in (disc_radius_mm, 0, -disc_radius_mm):
        out.append(
            f'<text x="{left - 4}" y="{_fmt(cy(v) + 3)}" font-size="10" text-anchor="end">{v:.0f}</text>'
        )
    out.append(
        f'<line x1="{left}" x2="{width - right}" y1="{_fmt(cy(0))}" y2="{_fmt(cy(0))}" stroke="#cccccc"/>'
    )
    for i in range(6):
        t = t_end * i / 5
        out.append(
            f'<text x="{_fmt(tx(t))}" y="{height - 14}" font-size="10" text-anchor="middle">'
            f"{_clock(t / 1000)}</text>"
        )
    for e in events:
        t = e.get("t_ms")
        if not isinstance(t, int):
            continue
        kind = str(e.get("event", "?"))
        colour = EVENT_COLOUR.get(kind, "#555555")
        x = _fmt(tx(t))
        out.append(
            f'<line class="event event-{escape(kind)}" x1="{x}" x2="{x}" y1="{top}" '
            f'y2="{_fmt(c_top + band)}" stroke="{colour}" stroke-width="1" stroke-dasharray="3,2">'
            f"<title>{escape(kind)} at {_clock(t / 1000)}</title></line>"
        )
    for x, row, who in _turn_labels([(tx(t), who) for t, who in turns if 0 <= t <= t_end]):
        xs = _fmt(x)
        out.append(f'<line class="turn" x1="{xs}" x2="{xs}" y1="{top}" y2="{_fmt(c_top + band)}" '
                   f'stroke="#999999" stroke-width="0.8"/>')
        out.append(f'<text class="turn-name" x="{xs}" y="{top - 4 - 11 * row}" font-size="10" '
                   f'fill="#333333">{escape(who)}</text>')
    out.append(_polyline([(tx(p[0]), my(p[1])) for p in pts if p[1] is not None], "#222222"))
    out.append(_polyline([(tx(p[0]), cy(p[2])) for p in pts if p[2] is not None], "#1f6fd1"))
    out.append(_polyline([(tx(p[0]), cy(p[3])) for p in pts if p[3] is not None], "#d62828"))
    lx = width - right - 150
    out.append(
        f'<text x="{lx}" y="{_fmt(c_top + 12)}" font-size="11" fill="#1f6fd1">x</text>'
        f'<text x="{lx + 16}" y="{_fmt(c_top + 12)}" font-size="11" fill="#d62828">y</text>'
    )
    if not pts:
        out.append(
            f'<text x="{width / 2}" y="{height / 2}" font-size="14" text-anchor="middle" '
            f'fill="#888888">no trace stored for this session</text>'
        )
    out.append("</svg>")
    return "\n".join(out)


def _turn_labels(turns: Sequence[tuple[float, str]], rows: int = 3) -> list[tuple[float, int, str]]:
    """Place the player labels of the turns (x, name) in up to ``rows`` rows so none overlaps the one
    before it in its row; a label that finds no room is left out, except a player's first, which
    always shows (so every player is named however crowded the game was)."""
    last_end = [-1e9] * rows
    named: set[str] = set()
    placed = []
    for x, who in sorted(turns):
        width = 6 * max(len(who), 4)
        row = next((r for r in range(rows) if x >= last_end[r]), None)
        if row is None and who not in named:
            row = min(range(rows), key=lambda r: last_end[r])
        if row is None:
            continue
        last_end[row] = x + width
        named.add(who)
        placed.append((x, row, who))
    return placed


def _clock(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


def _sector(cx: float, cy: float, r0: float, r1: float, a0: float, a1: float) -> str:
    """An annular sector path; angles in degrees counter-clockwise from +x (SVG y points down)."""

    def pt(r: float, a: float) -> str:
        """Polar point to SVG coordinates."""
        rad = math.radians(a)
        return f"{_fmt(cx + r * math.cos(rad))},{_fmt(cy - r * math.sin(rad))}"

    return (
        f"M{pt(r0, a0)} L{pt(r1, a0)} A{_fmt(r1)},{_fmt(r1)} 0 0 0 {pt(r1, a1)} "
        f"L{pt(r0, a1)} A{_fmt(r0)},{_fmt(r0)} 0 0 1 {pt(r0, a0)} Z"
    )


def disc_svg(
    counts: dict[tuple[str, int], int],
    *,
    zones: Sequence[str] = tuple(ZONE_FILL),
    ring_edges_mm: Sequence[float] = (25, 49, 73, 97, 121, 145),
    numbers: Sequence[int] = (2, 3, 4, 5, 6),
    start_deg: float = 0.0,
    size: int = 360,
) -> str:
    """The disc seen from above, each zone x number cell shaded by its count (labelled)."""
    scale = (size / 2 - 10) / ring_edges_mm[-1]
    c = size / 2
    peak = max(list(counts.values()) + [1])
    span = 360 / len(zones)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {size} {size}" width="{size}" '
        f'role="img" aria-label="where tipping placements stood">'
    ]
    for k, zone in enumerate(zones):
        a0 = start_deg + span * k
        for j, number in enumerate(numbers):
            n = counts.get((zone, number), 0)
            r0, r1 = ring_edges_mm[j] * scale, ring_edges_mm[j + 1] * scale
            opacity = 0.12 + 0.88 * n / peak if n else 0.08
            out.append(
                f'<path class="spot" data-zone="{escape(zone)}" data-number="{number}" data-tips="{n}" '
                f'd="{_sector(c, c, r0, r1, a0, a0 + span)}" fill="{ZONE_FILL.get(zone, "#888888")}" '
                f'fill-opacity="{opacity:.2f}" stroke="#ffffff" stroke-width="1">'
                f"<title>{escape(zone)} {number}: {n} tip(s)</title></path>"
            )
            if n:
                mid = math.radians(a0 + span / 2)
                rm = (r0 + r1) / 2
                out.append(
                    f'<text x="{_fmt(c + rm * math.cos(mid))}" y="{_fmt(c - rm * math.sin(mid) + 4)}" '
                    f'font-size="11" text-anchor="middle" fill="#000000">{n}</text>'
                )
    out.append(f'<circle cx="{c}" cy="{c}" r="{_fmt(ring_edges_mm[0] * scale)}" fill="#dddddd"/>')
    out.append("</svg>")
    return "\n".join(out)


def bars_svg(items: Sequence[tuple[str, float]], *, width: int = 480, unit: str = "") -> str:
    """A horizontal bar chart of ``(label, value)`` pairs."""
    row = 22
    height = row * max(1, len(items)) + 8
    peak = max([v for _, v in items] + [1])
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" role="img">'
    ]
    for i, (label, value) in enumerate(items):
        y = 4 + i * row
        w = (width - 180) * value / peak
        out.append(f'<text x="120" y="{y + 15}" font-size="12" text-anchor="end">{escape(label)}</text>')
        out.append(f'<rect x="126" y="{y + 3}" width="{_fmt(w)}" height="{row - 8}" fill="#1f6fd1"/>')
        out.append(f'<text x="{_fmt(130 + w)}" y="{y + 15}" font-size="12">{value:g}{escape(unit)}</text>')
    out.append("</svg>")
    return "\n".join(out)
