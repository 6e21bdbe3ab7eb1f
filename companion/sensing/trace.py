"""Read and write table traces (``dingo-trace/1``): contract 1 of ``docs/architecture.md``.

The format is specified in ``shared/spec/table-trace.md``: ``# key: <JSON>`` metadata lines,
one column-header line ``t_ms,c0,c1,...``, then one integer row per sample (empty field =
missed read). Reading is streaming: the header is parsed and validated at once, rows are
parsed lazily while iterating, and every error names its line.
"""

from __future__ import annotations

import io
import json
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from companion.sensing.layout import DiscLayout, LayoutError

FORMAT = "dingo-trace/1"
RAW_MIN = -8388608
RAW_MAX = 8388607
BAD_CODES = (RAW_MAX, RAW_MIN, -1)  # glitch codes of an HX711 stream (rails, all bits set)
REQUIRED_KEYS = ("format", "rate_hz", "cells", "pawn_mass_g")
PAWN_SIZES = ("small", "medium", "large")


class TraceError(ValueError):
    """A malformed trace; ``str()`` is ``"line N: reason"`` when the line is known."""

    def __init__(self, message: str, line: int | None = None) -> None:
        self.line = line
        self.message = message
        super().__init__(f"line {line}: {message}" if line is not None else message)


@dataclass(frozen=True)
class CellSpec:
    """One load cell: position in the disc frame (mm) and calibration (grams = (raw-offset)/cpg)."""

    x_mm: float
    y_mm: float
    offset: float
    counts_per_gram: float

    def to_json(self) -> dict[str, float]:
        """The JSON object used in the ``cells`` metadata line."""
        return {"x_mm": self.x_mm, "y_mm": self.y_mm, "offset": self.offset,
                "counts_per_gram": self.counts_per_gram}


@dataclass(frozen=True)
class TraceHeader:
    """Trace metadata: sample rate, cells, pawn masses, disc layout and any unknown keys (kept)."""

    rate_hz: float
    cells: tuple[CellSpec, ...]
    pawn_mass_g: dict[str, float]
    layout: DiscLayout = field(default_factory=DiscLayout)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Sample:
    """One row: trace time in ms and the raw reading of each cell (None = missed read)."""

    t_ms: int
    raw: tuple[int | None, ...]


# slot setters: the parser's fast path builds a Sample without the frozen __init__ (same object)
_SET_T = Sample.__dict__["t_ms"].__set__
_SET_RAW = Sample.__dict__["raw"].__set__


def _number(value: Any, what: str, line: int) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise TraceError(f"{what} must be a finite number, got {value!r}", line)
    return float(value)


def _parse_cells(value: Any, line: int) -> tuple[CellSpec, ...]:
    if not isinstance(value, list) or not value:
        raise TraceError("cells must be a non-empty list of cell objects", line)
    cells = []
    for i, obj in enumerate(value):
        if not isinstance(obj, dict):
            raise TraceError(f"cells[{i}] must be an object", line)
        for key in ("x_mm", "y_mm", "offset", "counts_per_gram"):
            if key not in obj:
                raise TraceError(f"cells[{i}] is missing required key {key!r}", line)
        spec = CellSpec(*(_number(obj[k], f"cells[{i}].{k}", line)
                          for k in ("x_mm", "y_mm", "offset", "counts_per_gram")))
        if spec.counts_per_gram == 0:
            raise TraceError(f"cells[{i}].counts_per_gram must not be zero", line)
        cells.append(spec)
    return tuple(cells)


def _parse_pawns(value: Any, line: int) -> dict[str, float]:
    if not isinstance(value, dict):
        raise TraceError("pawn_mass_g must be an object {small, medium, large}", line)
    out = {}
    for size in PAWN_SIZES:
        if size not in value:
            raise TraceError(f"pawn_mass_g is missing required key {size!r}", line)
        mass = _number(value[size], f"pawn_mass_g.{size}", line)
        if mass <= 0:
            raise TraceError(f"pawn_mass_g.{size} must be positive, got {mass}", line)
        out[size] = mass
    for key, extra in value.items():
        if key not in out:
            out[key] = _number(extra, f"pawn_mass_g.{key}", line)
    return out


def _read_header(lines: Iterator[str]) -> tuple[TraceHeader, int]:
    """Parse metadata lines and the column header; returns the header and the last line number."""
    meta: dict[str, tuple[Any, int]] = {}
    lineno = 0
    columns: str | None = None
    for raw_line in lines:
        lineno += 1
        text = raw_line.rstrip("\r\n")
        if lineno == 1 and text.startswith("\ufeff"):
            text = text[1:]
        if not text.strip():
            continue
        if not text.startswith("#"):
            columns = text
            break
        body = text[1:].strip()
        if not body:
            continue
        key, sep, rest = body.partition(":")
        key = key.strip()
        if not sep or not key:
            raise TraceError(f"metadata line must be '# key: <JSON value>', got {text!r}", lineno)
        try:
            value = json.loads(rest)
        except json.JSONDecodeError as exc:
            raise TraceError(f"metadata {key!r} is not valid JSON: {exc.msg}", lineno) from None
        if key in meta:
            raise TraceError(f"metadata key {key!r} given twice", lineno)
        if key == "format" and value != FORMAT:
            raise TraceError(f"unknown format version {value!r} (expected {FORMAT!r})", lineno)
        meta[key] = (value, lineno)
    if columns is None:
        raise TraceError("no column header line (t_ms,c0,...) found", lineno or 1)
    for key in REQUIRED_KEYS:
        if key not in meta:
            raise TraceError(f"missing required metadata key {key!r}", lineno)
    rate_value, rate_line = meta["rate_hz"]
    rate = _number(rate_value, "rate_hz", rate_line)
    if not 1 <= rate <= 1000:
        raise TraceError(f"rate_hz must be between 1 and 1000, got {rate}", rate_line)
    cells = _parse_cells(*meta["cells"])
    pawns = _parse_pawns(*meta["pawn_mass_g"])
    layout = DiscLayout()
    if "layout" in meta:
        value, lline = meta["layout"]
        try:
            layout = DiscLayout.from_json(value)
        except (LayoutError, TypeError) as exc:
            raise TraceError(str(exc), lline) from None
    extra = {k: v for k, (v, _) in meta.items() if k not in REQUIRED_KEYS and k != "layout"}
    expected = ["t_ms"] + [f"c{i}" for i in range(len(cells))]
    got = [c.strip() for c in columns.split(",")]
    if got != expected:
        raise TraceError(
            f"column header must be {','.join(expected)!r} for {len(cells)} cells, got {columns.strip()!r}",
            lineno)
    return TraceHeader(rate, cells, pawns, layout, extra), lineno


def _bad_int(text: str) -> bool:
    body = text.strip()
    if body[:1] in "+-":
        body = body[1:]
    return not body.isdigit() or not body.isascii()


def _row_error(parts: list[str], width: int, n_cells: int, last_t: int, lineno: int) -> TraceError:
    """The precise reason a row failed the fast parse."""
    if len(parts) != width:
        return TraceError(f"expected {width} columns (t_ms + {n_cells} cells), got {len(parts)}", lineno)
    head = parts[0]
    if _bad_int(head):
        return TraceError(f"t_ms must be an integer, got {head!r}", lineno)
    t_ms = int(head)
    if t_ms < 0:
        return TraceError(f"t_ms must not be negative, got {t_ms}", lineno)
    if t_ms < last_t:
        return TraceError(f"t_ms must not decrease ({t_ms} after {last_t})", lineno)
    for i in range(1, width):
        text = parts[i]
        if not text.strip():
            continue
        if _bad_int(text):
            return TraceError(f"c{i - 1} must be an integer or empty, got {text!r}", lineno)
        value = int(text)
        if value < RAW_MIN or value > RAW_MAX:
            return TraceError(f"c{i - 1} = {value} is outside signed 24-bit ({RAW_MIN}..{RAW_MAX})", lineno)
    return TraceError("malformed row", lineno)


def _rows(lines: Iterator[str], lineno: int, n_cells: int, closer: TextIO | None) -> Iterator[Sample]:
    """Parse data rows lazily; raises TraceError with the line number on the first bad row.

    Fast path: ``int()`` on every field of a clean row (it ignores the line end, as it ignores
    any surrounding whitespace); anything unusual (empty fields, underscores, out-of-range
    values, a wrong column count) goes through the careful checks. Tables of 3 and 4 cells
    (all real ones) have the fast path written out: it is most of the replay time.
    """
    if n_cells == 4:
        return _rows4(lines, lineno, closer)
    if n_cells == 3:
        return _rows3(lines, lineno, closer)
    return _rows_any(lines, lineno, n_cells, closer)


def _other_row(raw_line: str, width: int, n_cells: int, last_t: int, lineno: int) -> Sample | None:
    """A row the fast path did not take: None for a blank line, else the careful parse (or its error)."""
    if not raw_line.strip():
        return None
    return _careful_row(raw_line.rstrip("\r\n").split(","), width, n_cells, last_t, lineno)


def _rows4(lines: Iterator[str], lineno: int, closer: TextIO | None) -> Iterator[Sample]:
    """``_rows`` for 4 cells: one unpack and chained range checks."""
    last_t = 0
    lo, hi = RAW_MIN, RAW_MAX
    new, set_t, set_raw = object.__new__, _SET_T, _SET_RAW
    try:
        for raw_line in lines:
            lineno += 1
            if "_" not in raw_line:  # int() would accept "1_000"
                try:
                    t_ms, a, b, c, d = map(int, raw_line.split(","))
                except ValueError:
                    pass  # missed reads (empty fields), garbage or a wrong column count
                else:
                    if last_t <= t_ms and lo <= a <= hi and lo <= b <= hi and lo <= c <= hi and lo <= d <= hi:
                        last_t = t_ms
                        sample = new(Sample)  # Sample(t_ms, raw) without the frozen __init__'s cost
                        set_t(sample, t_ms)
                        set_raw(sample, (a, b, c, d))
                        yield sample
                        continue
            sample = _other_row(raw_line, 5, 4, last_t, lineno)
            if sample is not None:
                last_t = sample.t_ms
                yield sample
    finally:
        if closer is not None:
            closer.close()


def _rows3(lines: Iterator[str], lineno: int, closer: TextIO | None) -> Iterator[Sample]:
    """``_rows`` for 3 cells: one unpack and chained range checks."""
    last_t = 0
    lo, hi = RAW_MIN, RAW_MAX
    new, set_t, set_raw = object.__new__, _SET_T, _SET_RAW
    try:
        for raw_line in lines:
            lineno += 1
            if "_" not in raw_line:  # int() would accept "1_000"
                try:
                    t_ms, a, b, c = map(int, raw_line.split(","))
                except ValueError:
                    pass  # missed reads (empty fields), garbage or a wrong column count
                else:
                    if last_t <= t_ms and lo <= a <= hi and lo <= b <= hi and lo <= c <= hi:
                        last_t = t_ms
                        sample = new(Sample)
                        set_t(sample, t_ms)
                        set_raw(sample, (a, b, c))
                        yield sample
                        continue
            sample = _other_row(raw_line, 4, 3, last_t, lineno)
            if sample is not None:
                last_t = sample.t_ms
                yield sample
    finally:
        if closer is not None:
            closer.close()


def _rows_any(lines: Iterator[str], lineno: int, n_cells: int, closer: TextIO | None) -> Iterator[Sample]:
    """``_rows`` for any number of cells."""
    width = n_cells + 1
    last_t = 0
    new, set_t, set_raw = object.__new__, _SET_T, _SET_RAW
    try:
        for raw_line in lines:
            lineno += 1
            if "_" not in raw_line:  # int() would accept "1_000"
                try:
                    values = tuple(map(int, raw_line.split(",")))
                except ValueError:
                    values = ()  # missed reads (empty fields) or garbage: the careful path decides
                if len(values) == width:
                    t_ms = values[0]
                    raw = values[1:]
                    if last_t <= t_ms and min(raw) >= RAW_MIN and max(raw) <= RAW_MAX:
                        last_t = t_ms
                        sample = new(Sample)
                        set_t(sample, t_ms)
                        set_raw(sample, raw)
                        yield sample
                        continue
            sample = _other_row(raw_line, width, n_cells, last_t, lineno)
            if sample is not None:
                last_t = sample.t_ms
                yield sample
    finally:
        if closer is not None:
            closer.close()


def _careful_row(parts: list[str], width: int, n_cells: int, last_t: int, lineno: int) -> Sample:
    """Parse a row with missed reads (empty fields) or odd spacing; raise on anything malformed."""
    if len(parts) != width:
        raise _row_error(parts, width, n_cells, last_t, lineno)
    head = parts[0]
    if _bad_int(head):
        raise _row_error(parts, width, n_cells, last_t, lineno)
    t_ms = int(head)
    if t_ms < last_t or t_ms < 0:
        raise _row_error(parts, width, n_cells, last_t, lineno)
    raw: list[int | None] = []
    for i in range(1, width):
        text = parts[i]
        if not text or text.isspace():
            raw.append(None)
            continue
        if _bad_int(text):
            raise _row_error(parts, width, n_cells, last_t, lineno)
        value = int(text)
        if value < RAW_MIN or value > RAW_MAX:
            raise _row_error(parts, width, n_cells, last_t, lineno)
        raw.append(value)
    return Sample(t_ms, tuple(raw))


def read_trace(source: str | Path | TextIO) -> tuple[TraceHeader, Iterator[Sample]]:
    """Open a trace (path or text stream): header validated now, rows parsed while iterating.

    A ``str`` is a path unless it contains a newline (then it is the trace text itself).
    """
    closer: TextIO | None = None
    if isinstance(source, Path) or (isinstance(source, str) and "\n" not in source):
        stream: TextIO = open(source, encoding="utf-8", newline="")  # noqa: SIM115 - closed by _rows
        closer = stream
    elif isinstance(source, str):
        stream = io.StringIO(source, newline="")
    else:
        stream = source
    lines = iter(stream)
    try:
        header, lineno = _read_header(lines)
    except UnicodeDecodeError as exc:
        if closer is not None:
            closer.close()
        raise TraceError(f"not UTF-8 text: {exc.reason}") from None
    except BaseException:
        if closer is not None:
            closer.close()
        raise
    return header, _rows(lines, lineno, len(header.cells), closer)


class TraceWriter:
    """Write a trace to a text stream, one sample at a time (header written on construction)."""

    def __init__(self, stream: TextIO, header: TraceHeader) -> None:
        self._stream = stream
        self._n = len(header.cells)
        meta: dict[str, Any] = {
            "format": FORMAT,
            "rate_hz": int(header.rate_hz) if float(header.rate_hz).is_integer() else header.rate_hz,
            "cells": [c.to_json() for c in header.cells],
            "pawn_mass_g": header.pawn_mass_g,
            "layout": header.layout.to_json(),
        }
        for key, value in header.extra.items():
            if key not in meta:
                meta[key] = value
        for key, value in meta.items():
            stream.write(f"# {key}: {json.dumps(value)}\n")
        stream.write(",".join(["t_ms"] + [f"c{i}" for i in range(self._n)]) + "\n")

    def write(self, sample: Sample) -> None:
        """Append one sample row (None = missed read, written as an empty field)."""
        if len(sample.raw) != self._n:
            raise ValueError(f"sample has {len(sample.raw)} cells, trace has {self._n}")
        fields = ["" if v is None else str(int(v)) for v in sample.raw]
        self._stream.write(f"{int(sample.t_ms)},{','.join(fields)}\n")


def write_trace(path: str | Path, header: TraceHeader, samples: Iterable[Sample]) -> None:
    """Write a whole trace file at ``path``."""
    with open(path, "w", encoding="utf-8", newline="") as stream:
        writer = TraceWriter(stream, header)
        for sample in samples:
            writer.write(sample)
