"""Tests for the dingo-trace/1 reader and writer."""

from __future__ import annotations

import io
import json

import pytest

from companion.sensing.layout import DiscLayout
from companion.sensing.trace import (
    CellSpec,
    Sample,
    TraceError,
    TraceHeader,
    TraceWriter,
    read_trace,
    write_trace,
)

CELLS = [{"x_mm": 120.0, "y_mm": 0.0, "offset": 84213, "counts_per_gram": 412.7},
         {"x_mm": -60.0, "y_mm": 103.9, "offset": -11873, "counts_per_gram": -400.0},
         {"x_mm": -60.0, "y_mm": -103.9, "offset": 230511, "counts_per_gram": 405.0}]


def make_text(meta: dict | None = None, columns: str = "t_ms,c0,c1,c2", rows: list[str] | None = None,
              drop: str | None = None) -> str:
    base = {"format": "dingo-trace/1", "rate_hz": 80, "cells": CELLS,
            "pawn_mass_g": {"small": 2.1, "medium": 4.6, "large": 7.9}}
    base.update(meta or {})
    if drop:
        del base[drop]
    lines = [f"# {k}: {json.dumps(v)}" for k, v in base.items()]
    lines.append(columns)
    lines.extend(rows if rows is not None else ["0,84201,-11873,230511", "12,84199,,230515"])
    return "\n".join(lines) + "\n"


def read_all(text: str) -> tuple[TraceHeader, list[Sample]]:
    header, rows = read_trace(io.StringIO(text))
    return header, list(rows)


def test_reads_header_and_rows_with_missed_reads() -> None:
    header, rows = read_all(make_text())
    assert header.rate_hz == 80
    assert header.cells[1] == CellSpec(-60.0, 103.9, -11873, -400.0)
    assert header.pawn_mass_g["medium"] == 4.6
    assert header.layout == DiscLayout()
    assert rows == [Sample(0, (84201, -11873, 230511)), Sample(12, (84199, None, 230515))]


def test_unknown_metadata_kept_and_layout_read() -> None:
    layout = {"radius_mm": 200, "zones": ["a", "b", "c"], "start_deg": 10,
              "ring_edges_mm": [20, 60, 100], "numbers": [1, 2]}
    header, _ = read_all(make_text({"table_id": "kitchen", "future": [1, 2], "layout": layout}))
    assert header.extra == {"table_id": "kitchen", "future": [1, 2]}
    assert header.layout.zones == ("a", "b", "c")
    assert header.layout.radius_mm == 200


@pytest.mark.parametrize("key", ["format", "rate_hz", "cells", "pawn_mass_g"])
def test_missing_required_key_named(key: str) -> None:
    with pytest.raises(TraceError, match=key) as info:
        read_all(make_text(drop=key))
    assert info.value.line is not None


def test_unknown_format_version_with_line() -> None:
    with pytest.raises(TraceError, match=r"^line 1: unknown format version"):
        read_all(make_text({"format": "dingo-trace/2"}))


def test_bad_json_metadata_line() -> None:
    text = make_text().replace('# rate_hz: 80', '# rate_hz: eighty')
    with pytest.raises(TraceError, match=r"^line 2: .*rate_hz"):
        read_all(text)


def test_bad_column_header() -> None:
    with pytest.raises(TraceError, match=r"^line 5: column header"):
        read_all(make_text(columns="t_ms,c0,c1"))


@pytest.mark.parametrize(("row", "reason"), [
    ("24,84201,abc,230511", "c1 must be an integer"),
    ("24,84201.5,1,230511", "c0 must be an integer"),
    ("2x,1,1,1", "t_ms must be an integer"),
    ("24,1,1", "expected 4 columns"),
    ("24,1,1,1,1", "expected 4 columns"),
    ("24,8388608,1,1", "outside signed 24-bit"),
    ("24,1,-8388609,1", "outside signed 24-bit"),
    ("5,1,1,1", "must not decrease"),
    ("24,1_000,1,1", "c0 must be an integer"),
])
def test_bad_rows_rejected_with_line_number(row: str, reason: str) -> None:
    text = make_text(rows=["0,1,2,3", "12,1,2,3", row, "40,1,2,3"])
    header, rows = read_trace(io.StringIO(text))
    assert next(rows) == Sample(0, (1, 2, 3))
    next(rows)
    with pytest.raises(TraceError, match=reason) as info:
        next(rows)
    assert info.value.line == 8
    assert str(info.value).startswith("line 8: ")


def test_rail_values_accepted_as_readings() -> None:
    _, rows = read_all(make_text(rows=["0,8388607,-8388608,-1"]))
    assert rows[0].raw == (8388607, -8388608, -1)


def test_rate_out_of_range() -> None:
    with pytest.raises(TraceError, match="rate_hz"):
        read_all(make_text({"rate_hz": 0}))


def test_cell_missing_key_and_zero_gain() -> None:
    with pytest.raises(TraceError, match="counts_per_gram"):
        read_all(make_text({"cells": [{"x_mm": 0, "y_mm": 0, "offset": 0}]}, columns="t_ms,c0"))
    with pytest.raises(TraceError, match="zero"):
        read_all(make_text({"cells": [{"x_mm": 0, "y_mm": 0, "offset": 0, "counts_per_gram": 0}]},
                           columns="t_ms,c0"))


def test_no_column_header() -> None:
    text = "\n".join(make_text().splitlines()[:4]) + "\n"
    with pytest.raises(TraceError, match="column header"):
        read_all(text)


def test_round_trip_through_file(tmp_path) -> None:
    header, rows = read_all(make_text({"layout": DiscLayout(start_deg=15).to_json(), "note": "x"}))
    path = tmp_path / "t.trace.csv"
    write_trace(path, header, rows)
    header2, rows2 = read_trace(path)
    assert header2 == header
    assert list(rows2) == rows


def test_writer_streams_and_checks_width() -> None:
    header, _ = read_all(make_text())
    out = io.StringIO()
    writer = TraceWriter(out, header)
    writer.write(Sample(0, (1, None, -3)))
    assert out.getvalue().splitlines()[-1] == "0,1,,-3"
    with pytest.raises(ValueError, match="cells"):
        writer.write(Sample(1, (1, 2)))


def test_crlf_and_blank_lines() -> None:
    text = make_text().replace("\n", "\r\n") + "\r\n"
    header, rows = read_all(text)
    assert len(rows) == 2 and rows[1].raw[1] is None


def test_not_utf8(tmp_path) -> None:
    path = tmp_path / "bin.trace.csv"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(TraceError, match="UTF-8"):
        read_trace(path)


def test_settings_reject_negative() -> None:
    from companion.sensing.settings import SensingSettings
    with pytest.raises(ValueError, match="still_ms"):
        SensingSettings(still_ms=-1)
