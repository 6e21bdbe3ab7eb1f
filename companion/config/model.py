"""The configuration dataclasses and their defaults (a working simulated table).

Every field carries its limits in ``field(metadata=...)``; ``companion.config.validate``
reads them, so the schema lives in one place. Keys: ``min``/``max`` (inclusive bounds),
``choices`` (allowed values), ``len`` (allowed lengths of a list), ``pin`` (a BCM GPIO number,
0..27, where ``-1`` in the file means "not fitted"), ``nonzero``, ``positive``, ``doc`` (one line).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.config.paths import default_data_dir
from companion.config.venue import VenueConfig

if TYPE_CHECKING:  # pragma: no cover - typing only
    from companion.sensing.trace import TraceHeader

SOURCE_KINDS = ("serial", "gpio", "sim", "trace")
HX711_GAINS = (32, 64, 128)
MAX_BCM_PIN = 27


def _f(default: Any = None, factory: Any = None, **meta: Any) -> Any:
    """A dataclass field with validation metadata."""
    if factory is not None:
        return field(default_factory=factory, metadata=meta)
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class SerialConfig:
    """``[source.serial]``: the USB serial bridge to the microcontroller."""

    port: str = _f("auto", nonempty=True, doc='"auto" or a device path, e.g. /dev/dingo-bridge')
    baud: int = _f(115200, min=1200, max=4_000_000, doc="serial speed in bit/s")


@dataclass(frozen=True)
class GpioConfig:
    """``[source.gpio]``: HX711 boards wired straight to the Pi's GPIO header."""

    clock_pin: int = _f(5, pin=True, doc="BCM pin of the shared HX711 clock (PD_SCK)")
    data_pins: tuple[int, ...] = _f((6, 13, 19, 26), pin=True, min_len=1, max_len=16, unique=True,
                                    doc="BCM pin of each HX711 data line (DOUT), in cell order")
    gain: int = _f(128, choices=HX711_GAINS, doc="HX711 gain on channel A (128 or 64) or B (32)")


@dataclass(frozen=True)
class TraceSourceConfig:
    """``[source.trace]``: replay a recorded ``dingo-trace/1`` file as if it were live."""

    path: str = _f("", doc="the trace file (required when kind = \"trace\")")
    speed: float = _f(1.0, min=0.0, max=1000.0,
                      doc="1 = real time, 2 = twice as fast, 0 = as fast as possible")


@dataclass(frozen=True)
class SimConfig:
    """``[source.sim]``: the physical simulator."""

    seed: int = _f(0, min=0, max=2**63 - 1, doc="random seed (same seed, same table)")
    noise_g: float = _f(0.1, min=0.0, max=50.0, doc="standard deviation of the cell noise in grams")
    cells: int = _f(4, min=1, max=16, doc="number of simulated cells (the simulator has its own cell layout)")


@dataclass(frozen=True)
class SourceConfig:
    """``[source]``: where the samples come from."""

    kind: str = _f("sim", choices=SOURCE_KINDS, doc="serial, gpio, sim or trace")
    serial: SerialConfig = _f(factory=SerialConfig)
    gpio: GpioConfig = _f(factory=GpioConfig)
    trace: TraceSourceConfig = _f(factory=TraceSourceConfig)
    sim: SimConfig = _f(factory=SimConfig)


@dataclass(frozen=True)
class CellConfig:
    """``[[table.cells]]``: one load cell's position and calibration."""

    x_mm: float = _f(0.0, min=-1000.0, max=1000.0, doc="position in the disc's frame (mm)")
    y_mm: float = _f(0.0, min=-1000.0, max=1000.0, doc="position in the disc's frame (mm)")
    offset: float = _f(0.0, min=-8388608, max=8388607, doc="raw reading with the empty disc")
    counts_per_gram: float = _f(420.0, nonzero=True, min=-1e7, max=1e7,
                                doc="raw counts per gram (negative if wired the other way)")


def _default_cells() -> tuple[CellConfig, ...]:
    """Four cells on a 120 mm circle at 0, 90, 180 and 270 degrees, nominally calibrated."""
    return (
        CellConfig(120.0, 0.0, 0.0, 420.0),
        CellConfig(0.0, 120.0, 0.0, 420.0),
        CellConfig(-120.0, 0.0, 0.0, 420.0),
        CellConfig(0.0, -120.0, 0.0, 420.0),
    )


@dataclass(frozen=True)
class PawnMassConfig:
    """``[table.pawn_mass_g]``: calibrated mean mass of one pawn of each size."""

    small: float = _f(2.1, positive=True, max=1000.0, doc="grams")
    medium: float = _f(4.6, positive=True, max=1000.0, doc="grams")
    large: float = _f(7.9, positive=True, max=1000.0, doc="grams")

    def as_dict(self) -> dict[str, float]:
        """The masses as ``{"small": g, "medium": g, "large": g}`` (the trace format's form)."""
        return {"small": self.small, "medium": self.medium, "large": self.large}


@dataclass(frozen=True)
class LayoutConfig:
    """``[table.layout]``: the disc layout (spec fields; absent = the default disc)."""

    radius_mm: float = _f(150.0, positive=True, max=1000.0, doc="disc radius")
    zones: tuple[str, ...] = _f(("red", "yellow", "green", "blue", "purple", "orange"),
                                min_len=1, max_len=36, unique=True, nonempty=True,
                                doc="colour zones counter-clockwise from start_deg")
    start_deg: float = _f(0.0, min=-360.0, max=360.0, doc="angle where the first zone starts")
    ring_edges_mm: tuple[float, ...] = _f((25.0, 49.0, 73.0, 97.0, 121.0, 145.0), min_len=2, max_len=32,
                                          min=0.0, max=1000.0, doc="ring radii, increasing")
    numbers: tuple[int, ...] = _f((2, 3, 4, 5, 6), min_len=1, max_len=31, unique=True,
                                  min=0, max=1000, doc="the number of each ring, inside out")

    def to_json(self) -> dict[str, Any]:
        """The layout as the spec's JSON object (lists, not tuples)."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}


@dataclass(frozen=True)
class TableConfig:
    """``[table]``: the physical table: sample rate, cells, pawns, disc."""

    rate_hz: float = _f(80.0, min=1.0, max=1000.0, doc="nominal HX711 sample rate (10 or 80)")
    pawn_mass_g: PawnMassConfig = _f(factory=PawnMassConfig)
    cells: tuple[CellConfig, ...] = _f(factory=_default_cells, min_len=1, max_len=16)
    layout: LayoutConfig | None = _f(None, doc="absent = the default disc")


@dataclass(frozen=True)
class PanelConfig:
    """``[panel]``: optional buttons, LEDs and buzzer on the GPIO header (BCM numbers, -1 = not fitted)."""

    enabled: bool = _f(False, doc="drive the panel (needs gpiozero and a Pi)")
    roll_pin: int | None = _f(17, pin=True, doc="button: roll the dice")
    confirm_pin: int | None = _f(27, pin=True, doc="button: confirm")
    undo_pin: int | None = _f(22, pin=True, doc="button: undo")
    seat_led_pins: tuple[int, ...] = _f((12, 16, 20, 21, 23, 24), pin=True, max_len=6, unique=True,
                                        doc="one LED per seat, seat 1 first")
    rgb_led_pins: tuple[int, ...] = _f((9, 10, 11), pin=True, len=(0, 3), unique=True,
                                       doc="red, green, blue legs of the colour LED, or []")
    fall_led_pin: int | None = _f(25, pin=True, doc="LED lit after a fall")
    buzzer_pin: int | None = _f(18, pin=True, doc="buzzer")
    status_led_pin: int | None = _f(4, pin=True, doc="status LED (see the host guide for patterns)")

    def pins(self) -> dict[str, int]:
        """Every fitted pin by a readable name, e.g. ``{"roll_pin": 17, "seat_led_pins[0]": 12}``."""
        out: dict[str, int] = {}
        for name, value in asdict(self).items():
            if isinstance(value, bool) or value is None:
                continue
            if isinstance(value, (tuple, list)):
                out.update({f"{name}[{i}]": p for i, p in enumerate(value)})
            else:
                out[name] = value
        return out


@dataclass(frozen=True)
class WebConfig:
    """``[web]``: the tablet page."""

    host: str = _f("0.0.0.0", nonempty=True, doc="address to listen on (0.0.0.0 = every interface)")
    port: int = _f(8000, min=0, max=65535, doc="TCP port (0 = any free port)")
    pin: str = _f("", doc='table PIN for host actions, 4-12 digits ("" = generated, kept in the data dir)')
    allowed_hosts: tuple[str, ...] = _f((), nonempty=True,
                                        doc="extra Host names the page answers to, besides the machine's own")


@dataclass(frozen=True)
class DataConfig:
    """``[data]``: where sessions and traces are kept."""

    dir: Path = _f(factory=lambda: default_data_dir(), nonempty=True,
                   doc="data directory (relative = next to the config file)")


@dataclass(frozen=True)
class RulesConfig:
    """``[rules]``: default rule options for new games (docs/actions.md, ``new_game``)."""

    version: int = _f(1, choices=(1, 2), doc="rulebook version: 1 (colour die) or 2 (own colour zone)")
    draw_window: str = _f("round", choices=("round", "cycle"), doc='what "the same turn" means for a draw')
    last_pawn_gift: str = _f("keep", choices=("keep", "give"),
                             doc="penalty: does a giver with one pawn left give it")
    placed_fell_default: str = _f("if_size_fell", choices=("if_size_fell", "no"),
                                  doc="whether an unknown placed pawn counts as fallen")
    tip_attempt: str = _f("retry", choices=("retry", "pass"),
                          doc="a tip that takes the pawn just placed: another try (retry) or the turn passes")

    def options(self) -> dict[str, str]:
        """The ``new_game.options`` object for the rules core."""
        return {"draw_window": self.draw_window, "last_pawn_gift": self.last_pawn_gift,
                "placed_fell_default": self.placed_fell_default, "tip_attempt": self.tip_attempt}


@dataclass(frozen=True)
class Config:
    """The whole configuration file."""

    source: SourceConfig = _f(factory=SourceConfig)
    table: TableConfig = _f(factory=TableConfig)
    panel: PanelConfig = _f(factory=PanelConfig)
    web: WebConfig = _f(factory=WebConfig)
    data: DataConfig = _f(factory=DataConfig)
    rules: RulesConfig = _f(factory=RulesConfig)
    venue: VenueConfig | None = _f(None, doc="absent = this table publishes to no venue broker")

    def table_header(self) -> TraceHeader:
        """The trace header (cells, calibration, rate, pawn masses, layout) this table produces."""
        from companion.sensing.layout import DiscLayout
        from companion.sensing.trace import CellSpec, TraceHeader

        layout = DiscLayout.from_json(self.table.layout.to_json()) if self.table.layout else DiscLayout()
        cells = tuple(CellSpec(c.x_mm, c.y_mm, c.offset, c.counts_per_gram) for c in self.table.cells)
        return TraceHeader(rate_hz=self.table.rate_hz, cells=cells,
                           pawn_mass_g=self.table.pawn_mass_g.as_dict(), layout=layout, extra={})

    def to_dict(self) -> dict[str, Any]:
        """The configuration as plain TOML-ready data (lists, strings; ``-1`` for unfitted pins)."""
        from companion.config.validate import to_plain

        return to_plain(self)
