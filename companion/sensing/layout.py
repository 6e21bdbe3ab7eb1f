"""The disc layout: colour zones (sectors) and number positions (rings).

Contract 2 of ``docs/architecture.md``. Geometry follows ``table-trace.md``: origin at the
disc centre, +x along the line at ``start_deg`` where the first zone starts, angles growing
counter-clockwise; zone ``k`` spans ``[start + k*w, start + (k+1)*w)`` with ``w = 360/len(zones)``;
number ``numbers[i]`` spans radii ``[ring_edges_mm[i], ring_edges_mm[i+1])``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

COLOURS: tuple[str, ...] = ("red", "yellow", "green", "blue", "purple", "orange")
"""The six colour names in die order (also the default zone order on the disc)."""


class LayoutError(ValueError):
    """A disc layout description is invalid (the message names the field)."""


def _float(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise LayoutError(f"layout: {name} must be a finite number, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class DiscLayout:
    """Zones and number rings of a disc; defaults are the standard Dingo Disc."""

    radius_mm: float = 150.0
    zones: tuple[str, ...] = COLOURS
    start_deg: float = 0.0
    ring_edges_mm: tuple[float, ...] = (25.0, 49.0, 73.0, 97.0, 121.0, 145.0)
    numbers: tuple[int, ...] = (2, 3, 4, 5, 6)

    def __post_init__(self) -> None:
        radius = _float(self.radius_mm, "radius_mm")
        if radius <= 0:
            raise LayoutError(f"layout: radius_mm must be positive, got {radius}")
        _float(self.start_deg, "start_deg")
        if not self.zones or not all(isinstance(z, str) and z for z in self.zones):
            raise LayoutError("layout: zones must be a non-empty list of names")
        if len(set(self.zones)) != len(self.zones):
            raise LayoutError("layout: zones must not repeat")
        edges = [_float(e, "ring_edges_mm[]") for e in self.ring_edges_mm]
        if len(edges) < 2 or any(b <= a for a, b in zip(edges, edges[1:], strict=False)) or edges[0] < 0:
            raise LayoutError("layout: ring_edges_mm must be at least 2 increasing non-negative radii")
        if edges[-1] > radius:
            raise LayoutError("layout: ring_edges_mm must not go beyond radius_mm")
        if len(self.numbers) != len(edges) - 1:
            raise LayoutError(
                f"layout: numbers needs {len(edges) - 1} entries (one per ring), got {len(self.numbers)}"
            )
        if not all(isinstance(n, int) and not isinstance(n, bool) for n in self.numbers):
            raise LayoutError("layout: numbers must be integers")

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DiscLayout:
        """Build a layout from its JSON form; missing fields take the defaults."""
        if not isinstance(data, dict):
            raise LayoutError(f"layout: expected an object, got {type(data).__name__}")
        known = {"radius_mm", "zones", "start_deg", "ring_edges_mm", "numbers"}
        kwargs: dict[str, Any] = {}
        for key, value in data.items():
            if key not in known:
                continue  # forward compatible: unknown fields ignored
            if key in ("zones", "ring_edges_mm", "numbers"):
                if not isinstance(value, list | tuple):
                    raise LayoutError(f"layout: {key} must be a list, got {value!r}")
                value = tuple(value)
            kwargs[key] = value
        return cls(**kwargs)

    def to_json(self) -> dict[str, Any]:
        """The JSON form (the same fields as in a trace header or config file)."""
        return {
            "radius_mm": self.radius_mm,
            "zones": list(self.zones),
            "start_deg": self.start_deg,
            "ring_edges_mm": list(self.ring_edges_mm),
            "numbers": list(self.numbers),
        }

    @property
    def sector_deg(self) -> float:
        """Angular width of one zone in degrees."""
        return 360.0 / len(self.zones)

    def locate(self, x_mm: float, y_mm: float, margin_mm: float = 0.0) -> tuple[str | None, int | None]:
        """Zone and number at a point, or (None, None) on a line (within ``margin_mm``), centre or rim."""
        r = math.hypot(x_mm, y_mm)
        edges = self.ring_edges_mm
        if r < edges[0] + margin_mm or r >= edges[-1] - margin_mm:
            return None, None
        ring = None
        for i in range(len(edges) - 1):
            if edges[i] <= r < edges[i + 1]:
                ring = i
                break
        if ring is None:
            return None, None
        if r - edges[ring] < margin_mm or edges[ring + 1] - r < margin_mm:
            return None, None
        angle = (math.degrees(math.atan2(y_mm, x_mm)) - self.start_deg) % 360.0
        width = self.sector_deg
        k = min(int(angle // width), len(self.zones) - 1)
        # distance from the point to the two radial lines bounding its sector
        into = math.radians(angle - k * width)
        left = math.radians((k + 1) * width - angle)
        if margin_mm > 0 and (r * math.sin(min(into, math.pi / 2)) < margin_mm
                              or r * math.sin(min(left, math.pi / 2)) < margin_mm):
            return None, None
        return self.zones[k], self.numbers[ring]

    def centre_of(self, zone: str, number: int) -> tuple[float, float]:
        """The middle (mid-angle, mid-radius) of a zone-and-number position, in mm."""
        if zone not in self.zones:
            raise LayoutError(f"layout: unknown zone {zone!r}")
        if number not in self.numbers:
            raise LayoutError(f"layout: unknown number {number!r}")
        k = self.zones.index(zone)
        i = self.numbers.index(number)
        r = (self.ring_edges_mm[i] + self.ring_edges_mm[i + 1]) / 2.0
        a = math.radians(self.start_deg + (k + 0.5) * self.sector_deg)
        return r * math.cos(a), r * math.sin(a)


def cells_span_area(xs: list[float], ys: list[float]) -> bool:
    """True when the cells span an area (3+ non-collinear): the centre of pressure is observable."""
    n = len(xs)
    if n < 3:
        return False
    for i in range(n):
        for j in range(i + 1, n):
            for k in range(j + 1, n):
                area = (xs[j] - xs[i]) * (ys[k] - ys[i]) - (xs[k] - xs[i]) * (ys[j] - ys[i])
                if abs(area) > 1.0:
                    return True
    return False
