"""Raw trace storage: compressed chunks, exact round trip, dingo-trace/1 export, restarts."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from companion.sensing.trace import Sample, read_trace
from companion.session import SessionStore
from companion.session.tracecodec import ChunkError, decode_chunk, encode_chunk


def test_codec_round_trip_exact(samples_factory) -> None:
    rows = samples_factory(500, seed=3)
    rows[0] = Sample(rows[0].t_ms, (None, None, None, None))
    rows[7] = Sample(rows[7].t_ms, (8388607, -8388608, -1, 0))
    data = encode_chunk(rows, 4)
    assert decode_chunk(data) == rows
    assert len(data) < 500 * 4 * 3  # well under the raw 3 bytes per reading


def test_codec_rejects_damage_clearly(samples_factory) -> None:
    data = bytearray(encode_chunk(samples_factory(100), 4))
    with pytest.raises(ChunkError, match="magic"):
        decode_chunk(b"XYZ" + bytes(data[3:]))
    data[-5] ^= 0xFF
    with pytest.raises(ChunkError, match="damaged"):
        decode_chunk(bytes(data))
    with pytest.raises(ChunkError, match="too short"):
        decode_chunk(b"DT")
    with pytest.raises(ValueError, match="cells"):
        encode_chunk([Sample(0, (1, 2))], 4)


def test_samples_round_trip_through_store_and_export(tmp_path: Path, header_factory, samples_factory) -> None:
    header = header_factory()
    rows = samples_factory(2000, seed=5)
    s = SessionStore(tmp_path, chunk_ms=2000)
    sid = s.start_session("dingo-disc", ["Ann", "Bob"], header=header)
    for i in range(0, len(rows), 7):
        s.append_samples(sid, rows[i : i + 7])
    stats = s.trace_stats(sid)
    assert stats["chunks"] >= 10  # written while playing, not only at the end
    s.close()  # flushes the tail
    s = SessionStore(tmp_path)
    assert list(s.samples(sid)) == rows
    assert s.trace_header(sid) == header
    buf = io.StringIO()
    assert s.write_trace(sid, buf) == len(rows)
    back_header, back_rows = read_trace(io.StringIO(buf.getvalue()))
    assert back_header == header and list(back_rows) == rows
    assert s.session(sid).has_trace and s.trace_started_at(sid) is not None
    s.close()


def test_resumed_source_restarting_at_zero_keeps_time_monotonic(
    tmp_path: Path, header_factory, samples_factory
) -> None:
    s = SessionStore(tmp_path, chunk_ms=1000)
    sid = s.start_session("dingo-disc", ["Ann", "Bob"], header=header_factory())
    first = samples_factory(300, seed=1)
    s.append_samples(sid, first)
    s.close()
    s = SessionStore(tmp_path, chunk_ms=1000)  # "after a power cut": the source starts at 0 again
    second = samples_factory(300, seed=2)
    s.append_samples(sid, second)
    s.flush()
    got = list(s.samples(sid))
    assert len(got) == 600
    assert all(a.t_ms <= b.t_ms for a, b in zip(got, got[1:], strict=False))
    assert first[-1].t_ms < got[300].t_ms <= first[-1].t_ms + 13  # about one 80 Hz period later
    assert [g.raw for g in got[300:]] == [r.raw for r in second]
    shift = got[300].t_ms - second[0].t_ms
    s.append_events(sid, [{"event": "tipped", "t_ms": 100}])  # the new source's time line
    s.append_action(sid, {"type": "fall"}, t_ms=120, sensed=[{"event": "fell", "t_ms": 120}])
    assert [e["t_ms"] for e in s.events(sid)] == [100 + shift, 120 + shift]
    assert s.actions(sid)[-1].t_ms == 120 + shift
    s.close()


def test_samples_with_wrong_cell_count_are_refused(store: SessionStore, header_factory) -> None:
    sid = store.start_session("dingo-disc", ["Ann", "Bob"], header=header_factory(3))
    with pytest.raises(ValueError, match="3"):
        store.append_samples(sid, [Sample(0, (1, 2, 3, 4))])


def test_end_session_flushes_the_buffer(store: SessionStore, header_factory, samples_factory) -> None:
    sid = store.start_session("dingo-disc", ["Ann", "Bob"], header=header_factory())
    store.append_samples(sid, samples_factory(10))
    assert store.trace_stats(sid)["rows"] == 0
    store.end_session(sid, ranking=[1, 2])
    assert store.trace_stats(sid)["rows"] == 10


def test_a_damaged_chunk_is_reported_not_silently_replayed(
    tmp_path: Path, header_factory, samples_factory, capsys
) -> None:
    from companion.cli import main
    from companion.session.replay_cli import replay_stored

    s = SessionStore(tmp_path, chunk_ms=1000)
    sid = s.start_session("dingo-disc", ["Ann", "Bob"], header=header_factory())
    s.append_samples(sid, samples_factory(600))
    s.end_session(sid, ranking=[1, 2])
    (data,) = s.db.execute("SELECT data FROM trace_chunks WHERE session_id=? AND idx=2", (sid,)).fetchone()
    broken = bytes(data[:20]) + bytes(b ^ 0x5A for b in data[20:40]) + bytes(data[40:])
    s.db.execute("UPDATE trace_chunks SET data=? WHERE session_id=? AND idx=2", (broken, sid))
    with pytest.raises(ChunkError, match="damaged"):
        list(s.samples(sid))
    s.close()
    out = tmp_path / "t.csv"
    assert main(["export", str(sid), "-f", "trace", "-o", str(out), "--data-dir", str(tmp_path)]) == 1
    assert "damaged" in capsys.readouterr().err and not out.exists()
    stdout, err = io.StringIO(), io.StringIO()
    assert replay_stored(str(sid), stdout, data_dir=tmp_path, err=err) == 1
    assert stdout.getvalue() == "" and "damaged" in err.getvalue()


def test_host_actions_are_stamped_with_the_trace_time(
    tmp_path: Path, header_factory, samples_factory
) -> None:
    """Without t_ms, an action gets the trace time of the last sample received (for replay's order)."""
    rows = samples_factory(300, seed=2)
    s = SessionStore(tmp_path, chunk_ms=1000)
    sid = s.start_session("dingo-disc", ["A", "B"], header=header_factory())
    s.append_action(sid, {"type": "roll", "number": 3})  # before any sample: unknown
    s.append_samples(sid, rows[:100])
    s.append_action(sid, {"type": "roll", "number": 4})  # buffered samples count too
    s.append_action(sid, {"type": "place", "size": "small"}, t_ms=5)  # given: kept
    s.close()
    s = SessionStore(tmp_path, chunk_ms=1000)  # after a restart: the last stored sample
    s.append_undo(sid)
    assert [a.t_ms for a in s.actions(sid)] == [None, rows[99].t_ms, 5, rows[99].t_ms]
    s.close()
