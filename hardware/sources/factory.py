"""``make_source(config, kind)``: pick and build the sample source.

The kind comes from the argument, else the environment variable ``DINGO_SOURCE``,
else ``[source] kind`` in the configuration. All reading of the configuration
for sources happens here, in one place.
"""

from __future__ import annotations

import os
from typing import Any

from hardware.sources.base import SampleSource, SourceError

SOURCE_KINDS = ("serial", "gpio", "sim", "trace")
ENV_VAR = "DINGO_SOURCE"


def resolve_kind(config: Any, kind: str | None = None) -> str:
    """The source kind to use, with a clear error naming where a bad value came from."""
    if kind:
        value, origin = kind, "the argument"
    elif os.environ.get(ENV_VAR, "").strip():
        value, origin = os.environ[ENV_VAR].strip(), f"${ENV_VAR}"
    else:
        value, origin = config.source.kind, "[source] kind in the configuration"
    if value not in SOURCE_KINDS:
        raise SourceError(f"unknown source kind {value!r} (from {origin}); "
                          f"valid kinds: {', '.join(SOURCE_KINDS)}")
    return value


def build_simulator(config: Any) -> Any:
    """A ``hardware.sim.TableSimulator`` for this configuration."""
    from hardware.sim import TableSimulator

    sim = config.source.sim
    layout = None
    if config.table.layout is not None:
        from companion.sensing.layout import DiscLayout

        layout = DiscLayout.from_json(config.table.layout.to_json())
    return TableSimulator(cells=sim.cells, rate_hz=config.table.rate_hz, noise_g=sim.noise_g, seed=sim.seed,
                          layout=layout)


def make_source(config: Any, kind: str | None = None, **options: Any) -> SampleSource:
    """Build (not open) the source; ``options`` go to the implementation (tests use them)."""
    chosen = resolve_kind(config, kind)
    src = config.source
    if chosen == "serial":
        from hardware.sources.serial_source import SerialSource

        return SerialSource(config.table_header(), src.serial.port, src.serial.baud, **options)
    if chosen == "gpio":
        from hardware.sources.gpio_source import GpioSource

        header = config.table_header()
        return GpioSource(header, src.gpio.clock_pin, src.gpio.data_pins, src.gpio.gain, **options)
    if chosen == "sim":
        from hardware.sources.sim_source import SimSource

        return SimSource(options.pop("simulator", None) or build_simulator(config), **options)
    from hardware.sources.trace_source import TraceSource

    if not src.trace.path.strip():
        raise SourceError('the trace source needs a file: set [source.trace] path = "..."')
    return TraceSource(src.trace.path, src.trace.speed, **options)
