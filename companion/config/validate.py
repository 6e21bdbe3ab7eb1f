"""Turn parsed TOML into the configuration dataclasses, refusing anything wrong.

``build(cls, data)`` walks the dataclass fields and their metadata (see ``model``); every
problem raises ``Invalid(path, reason)`` where ``path`` is the key path, e.g.
``("table", "cells", 2, "x_mm")``. ``load_config`` turns that into a ``ConfigError`` with
the file and the line.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import math
import re
import types
import typing
from pathlib import Path
from typing import Any

from companion.config.model import MAX_BCM_PIN, Config
from companion.config.venue import check_venue

KeyPath = tuple[str | int, ...]


class Invalid(Exception):
    """One validation problem at a key path (internal; becomes ``ConfigError``)."""

    def __init__(self, path: KeyPath, reason: str) -> None:
        super().__init__(f"{dotted(path)}: {reason}")
        self.path = path
        self.reason = reason


def dotted(path: KeyPath) -> str:
    """``("table", "cells", 2, "x_mm")`` -> ``table.cells[2].x_mm``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out or "(top level)"


def _describe(value: Any) -> str:
    """A short description of a TOML value's type and value for error messages."""
    names = {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
             list: "an array", dict: "a table"}
    text = repr(value) if not isinstance(value, (dict, list)) else ""
    if len(text) > 40:
        text = text[:37] + "..."
    kind = next((n for t, n in names.items() if type(value) is t), type(value).__name__)
    return f"{kind} {text}".strip()


def _unwrap_optional(tp: Any) -> tuple[Any, bool]:
    """``X | None`` -> ``(X, True)``; anything else -> ``(tp, False)``."""
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) == 1:
            return args[0], True
    return tp, False


def _scalar(tp: Any, value: Any, path: KeyPath, meta: dict[str, Any]) -> Any:
    """Check and convert one scalar value against its type and limits."""
    if tp is bool:
        if not isinstance(value, bool):
            raise Invalid(path, f"expected true or false, got {_describe(value)}")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise Invalid(path, f"expected an integer, got {_describe(value)}")
    elif tp is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise Invalid(path, f"expected a number, got {_describe(value)}")
        if not math.isfinite(value):
            raise Invalid(path, f"expected a finite number, got {value}")
        value = float(value)
    elif tp in (str, Path):
        if not isinstance(value, str):
            raise Invalid(path, f"expected a string, got {_describe(value)}")
        if meta.get("nonempty") and not value.strip():
            raise Invalid(path, "must not be empty")
        if tp is Path:
            return Path(value).expanduser()
    else:  # pragma: no cover - schema error, not user error
        raise TypeError(f"unsupported config field type {tp!r}")
    if meta.get("pin") and not 0 <= value <= MAX_BCM_PIN:
        raise Invalid(path, f"{value} is not a GPIO pin: use a BCM number 0..{MAX_BCM_PIN}"
                      + (" (or -1 for not fitted)" if meta.get("optional") else ""))
    if "choices" in meta and value not in meta["choices"]:
        raise Invalid(path, f"{value!r} is not one of {', '.join(map(repr, meta['choices']))}")
    if meta.get("positive") and value <= 0:
        raise Invalid(path, f"must be greater than 0, got {value}")
    if meta.get("nonzero") and value == 0:
        raise Invalid(path, "must not be 0")
    if "min" in meta and value < meta["min"]:
        raise Invalid(path, f"must be at least {meta['min']}, got {value}")
    if "max" in meta and value > meta["max"]:
        raise Invalid(path, f"must be at most {meta['max']}, got {value}")
    return value


def _value(tp: Any, value: Any, path: KeyPath, meta: dict[str, Any]) -> Any:
    """Convert one field value of any supported type."""
    inner, optional = _unwrap_optional(tp)
    if dataclasses.is_dataclass(inner):
        return build(inner, value, path)
    if typing.get_origin(inner) is tuple:
        return _array(typing.get_args(inner)[0], value, path, meta)
    if optional and inner is int and value == -1 and not isinstance(value, bool):
        return None  # a pin that is not fitted
    return _scalar(inner, value, path, {**meta, "optional": optional})


def _array(item_tp: Any, value: Any, path: KeyPath, meta: dict[str, Any]) -> tuple[Any, ...]:
    """Convert a TOML array (or array of tables) into a tuple, checking length and uniqueness."""
    if not isinstance(value, list):
        raise Invalid(path, f"expected an array, got {_describe(value)}")
    n = len(value)
    if "len" in meta and n not in meta["len"]:
        raise Invalid(path, f"expected {' or '.join(map(str, meta['len']))} entries, got {n}")
    if n < meta.get("min_len", 0):
        raise Invalid(path, f"expected at least {meta['min_len']} entries, got {n}")
    if "max_len" in meta and n > meta["max_len"]:
        raise Invalid(path, f"expected at most {meta['max_len']} entries, got {n}")
    item_meta = {k: v for k, v in meta.items() if k not in ("len", "min_len", "max_len", "unique")}
    items = tuple(_value(item_tp, v, (*path, i), item_meta) for i, v in enumerate(value))
    if meta.get("unique"):
        seen: dict[Any, int] = {}
        for i, item in enumerate(items):
            if item in seen:
                raise Invalid((*path, i), f"{item!r} appears twice (entries {seen[item]} and {i})")
            seen[item] = i
    return items


def build(cls: type, data: Any, path: KeyPath = ()) -> Any:
    """Build dataclass ``cls`` from a TOML table; absent keys take their defaults."""
    if not isinstance(data, dict):
        raise Invalid(path, f"expected a table, got {_describe(data)}")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    for key in data:
        if key not in fields:
            raise Invalid((*path, key), f"unknown key {key!r}; known keys here: {', '.join(fields)}")
    hints = typing.get_type_hints(cls)
    kwargs = {name: _value(hints[name], data[name], (*path, name), dict(fields[name].metadata))
              for name in fields if name in data}
    return cls(**kwargs)


def check(config: Config) -> None:
    """Cross-field checks: things each value alone cannot tell (raises ``Invalid``)."""
    table, source, panel = config.table, config.source, config.panel
    masses = table.pawn_mass_g
    if not masses.small < masses.medium < masses.large:
        raise Invalid(("table", "pawn_mass_g"),
                      f"pawn masses must grow small < medium < large, got {masses.as_dict()}")
    positions: dict[tuple[float, float], int] = {}
    for i, cell in enumerate(table.cells):
        where = (cell.x_mm, cell.y_mm)
        if where in positions:
            raise Invalid(("table", "cells", i),
                          f"cell {i} is at the same place as cell {positions[where]} {where}")
        positions[where] = i
    if table.layout is not None:
        _check_layout(config)
    n_cells = len(table.cells)
    if source.kind == "trace" and not source.trace.path.strip():
        raise Invalid(("source", "trace", "path"), 'kind = "trace" needs [source.trace] path')
    if source.kind == "gpio":
        gpio = source.gpio
        if len(gpio.data_pins) != n_cells:
            raise Invalid(("source", "gpio", "data_pins"),
                          f"{len(gpio.data_pins)} data pins for {n_cells} cells in [[table.cells]]")
        if gpio.clock_pin in gpio.data_pins:
            raise Invalid(("source", "gpio", "clock_pin"), f"pin {gpio.clock_pin} is also a data pin")
    problem = host_problem(config.web.host)
    if problem:
        raise Invalid(("web", "host"), problem)
    for i, name in enumerate(config.web.allowed_hosts):
        if host_problem(name) and name != "*":
            raise Invalid(("web", "allowed_hosts", i), host_problem(name) or "")
    data_dir = Path(config.data.dir).expanduser()
    if data_dir.exists() and not data_dir.is_dir():
        raise Invalid(("data", "dir"), f"{data_dir} exists and is not a directory")
    if config.web.pin and not (config.web.pin.isdigit() and 4 <= len(config.web.pin) <= 12):
        raise Invalid(("web", "pin"), 'the PIN must be 4 to 12 digits, or "" for none')
    if panel.enabled:
        _check_panel_pins(config)
    check_venue(config.venue, Invalid)


_LABEL = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)")


def host_problem(host: str) -> str | None:
    """Why ``host`` is not an address or host name one can listen on / be reached by, or None."""
    name = host.strip()
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    if ":" in name:
        try:
            ipaddress.IPv6Address(name)
        except ValueError:
            return f"{host!r} is not an IPv6 address"
        return None
    parts = name.rstrip(".").split(".")
    if all(p.isdigit() for p in parts):
        try:
            ipaddress.IPv4Address(name)
        except ValueError:
            return f"{host!r} is not an IPv4 address (four numbers 0..255, e.g. 0.0.0.0)"
        return None
    if len(name) > 253 or not all(_LABEL.fullmatch(p) for p in parts):
        return f"{host!r} is not a valid host name or address"
    return None


def _check_layout(config: Config) -> None:
    """The disc layout must describe real rings inside the disc."""
    layout = config.table.layout
    assert layout is not None
    edges = layout.ring_edges_mm
    for i in range(1, len(edges)):
        if edges[i] <= edges[i - 1]:
            raise Invalid(("table", "layout", "ring_edges_mm", i), "ring edges must increase")
    if edges[-1] > layout.radius_mm:
        raise Invalid(("table", "layout", "ring_edges_mm"),
                      f"the last ring edge {edges[-1]} is outside the disc (radius_mm = {layout.radius_mm})")
    if len(layout.numbers) != len(edges) - 1:
        raise Invalid(("table", "layout", "numbers"),
                      f"{len(layout.numbers)} numbers for {len(edges) - 1} rings "
                      f"(ring_edges_mm has {len(edges)} edges)")


def _check_panel_pins(config: Config) -> None:
    """No GPIO pin may serve two purposes."""
    used: dict[int, str] = {}
    if config.source.kind == "gpio":
        used[config.source.gpio.clock_pin] = "source.gpio.clock_pin"
        used.update({p: f"source.gpio.data_pins[{i}]" for i, p in enumerate(config.source.gpio.data_pins)})
    for name, pin in config.panel.pins().items():
        if pin in used:
            raise Invalid(("panel", name.split("[")[0]),
                          f"pin {pin} is used twice ({used[pin]} and panel.{name})")
        used[pin] = f"panel.{name}"


def to_plain(obj: Any) -> Any:
    """A dataclass tree as TOML-ready data: tuples -> lists, Path -> str, unfitted pins -> -1."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        hints = typing.get_type_hints(type(obj))
        out: dict[str, Any] = {}
        for f in dataclasses.fields(obj):
            value = getattr(obj, f.name)
            if value is None:
                if _unwrap_optional(hints[f.name])[0] is int:
                    out[f.name] = -1
                continue  # an absent optional table
            out[f.name] = to_plain(value)
        return out
    if isinstance(obj, (tuple, list)):
        return [to_plain(v) for v in obj]
    if isinstance(obj, Path):
        return str(obj)
    return obj
