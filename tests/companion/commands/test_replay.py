"""``dingo-companion replay``: JSON Lines on stdout, malformed traces rejected with a line number."""

from __future__ import annotations

import json
import math
import random
import sys

import pytest

from companion.cli import main
from companion.sensing.trace import CellSpec, Sample, TraceHeader, write_trace

CELLS = tuple(CellSpec(120 * math.cos(math.radians(45 + 90 * i)), 120 * math.sin(math.radians(45 + 90 * i)),
                       1000.0 * i, 400.0) for i in range(4))
HEADER = TraceHeader(80.0, CELLS, {"small": 2.1, "medium": 4.6, "large": 7.9})


def placement_samples() -> list[Sample]:
    """A large pawn set down at (52, 30) (red 3) with a finger press at t = 2 s."""
    rng = random.Random(3)
    out = []
    for k in range(80 * 6):
        t = k / 80
        f = 0.0
        if t >= 2.0:
            f = 7.9
        if 2.0 <= t < 2.3:
            f += 100
        raw = []
        for c in CELLS:
            g = f / 4 + f * (52 * c.x_mm + 30 * c.y_mm) / (120 ** 2 * 2) + rng.gauss(0, 0.05)
            raw.append(int(round(c.offset + c.counts_per_gram * g)))
        out.append(Sample(int(t * 1000), tuple(raw)))
    return out


def test_replay_prints_json_lines(tmp_path, capsys) -> None:
    path = tmp_path / "t.trace.csv"
    write_trace(path, HEADER, placement_samples())
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    events = [json.loads(line) for line in out]
    assert [e["event"] for e in events] == ["placed"]
    assert events[0]["size"] == "large" and events[0]["zone"] == "red" and events[0]["number"] == 3


def test_malformed_trace_rejected_without_partial_output(tmp_path, capsys) -> None:
    path = tmp_path / "bad.trace.csv"
    write_trace(path, HEADER, placement_samples())
    lines = path.read_text().splitlines()
    bad_line = len(lines) - 3  # late in the file: events were already detected before it
    lines[bad_line - 1] = "5990,1,x,3,4"
    path.write_text("\n".join(lines) + "\n")
    assert main(["replay", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"line {bad_line}" in captured.err and "c1" in captured.err


def test_bad_header_rejected(tmp_path, capsys) -> None:
    path = tmp_path / "bad.trace.csv"
    path.write_text('# format: "dingo-trace/9"\nt_ms,c0\n0,1\n')
    assert main(["replay", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and "line 1" in captured.err and "format" in captured.err


def test_unknown_reference_without_session_store(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "companion.session.replay_cli", None)
    assert main(["replay", str(tmp_path / "nope")]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and "no such trace file" in captured.err


def test_stored_session_is_delegated(tmp_path, capsys, monkeypatch) -> None:
    import types
    calls = []
    fake = types.ModuleType("companion.session.replay_cli")

    def replay_stored(ref: str, out) -> int:
        calls.append(ref)
        out.write('{"event": "settled", "t_ms": 1}\n')
        return 0
    fake.replay_stored = replay_stored  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "companion.session.replay_cli", fake)
    assert main(["replay", "session-42"]) == 0
    assert calls == ["session-42"]
    assert json.loads(capsys.readouterr().out)["event"] == "settled"


@pytest.mark.parametrize("text", ["", "# format: \"dingo-trace/1\"\n"])
def test_empty_or_truncated_trace(tmp_path, capsys, text: str) -> None:
    path = tmp_path / "empty.trace.csv"
    path.write_text(text)
    assert main(["replay", str(path)]) == 1
    assert capsys.readouterr().out == ""


def test_events_past_the_memory_spool_go_through_a_temporary_file(tmp_path, capsys, monkeypatch) -> None:
    """Events are held in memory up to ``SPOOL_BYTES``, then in a temporary file: the same output."""
    from companion.commands import replay

    path = tmp_path / "t.trace.csv"
    write_trace(path, HEADER, placement_samples())
    assert main(["replay", str(path)]) == 0
    in_memory = capsys.readouterr().out
    monkeypatch.setattr(replay, "SPOOL_BYTES", 10)
    assert main(["replay", str(path)]) == 0
    assert capsys.readouterr().out == in_memory and in_memory.count("\n") == 1
