"""The raw-trace half of the session store: buffered samples written as compressed chunks."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

from companion.sensing.trace import Sample, TraceHeader, read_trace
from companion.session.base import SessionError, StoreBase, header_text
from companion.session.summary import Point, summarise
from companion.session.tracecodec import decode_chunk, encode_chunk


class TraceLog(StoreBase):
    """Stores each session's raw samples (``dingo-trace/1`` rows) as compressed chunks."""

    def set_trace_header(self, session_id: int, header: TraceHeader) -> None:
        """Attach the trace header (cells, calibration, rate) if ``start_session`` had none."""
        with self._lock:
            row = self._active(session_id)
            text = header_text(header)
            if row[1] is not None and row[1] != text:
                raise SessionError(f"session {session_id} already has a different trace header")
            with self._tx() as db:
                db.execute("UPDATE sessions SET trace_header=? WHERE id=?", (text, session_id))

    def append_samples(self, session_id: int, samples: Iterable[Sample]) -> None:
        """Buffer raw samples; a compressed chunk is written every ``chunk_ms`` of trace time.

        Trace times are kept non-decreasing across restarts: if a resumed session's source starts
        again from 0, its samples are shifted to continue after the last stored one.
        """
        with self._lock:
            if session_id not in self._writable:  # one query per session, not per call
                row = self._active(session_id)
                if row[1] is None:
                    raise SessionError(
                        f"session {session_id} has no trace header; pass header= to start_session")
                if session_id not in self._last_t:
                    self._load_trace_end(session_id, row[1])
                self._writable.add(session_id)
            buf = self._buffers.setdefault(session_id, [])
            n_cells = self._n_cells[session_id]
            rows = list(samples)
            for s in rows:  # all or nothing: check before buffering any
                if len(s.raw) != n_cells:
                    raise SessionError(
                        f"sample at t_ms={s.t_ms} has {len(s.raw)} cells, the trace has {n_cells}"
                    )
            offset = self._t_offset.get(session_id, 0)
            last = self._last_t[session_id]
            for s in rows:
                t = s.t_ms + offset
                if t < last:
                    offset += last - t + self._period[session_id]
                    t = s.t_ms + offset
                buf.append(s if offset == 0 else Sample(t, s.raw))
                last = t
                if t - buf[0].t_ms >= self._chunk_ms:
                    self._t_offset[session_id], self._last_t[session_id] = offset, last
                    self._flush(session_id)
            self._t_offset[session_id] = offset
            self._last_t[session_id] = last

    def shift_events(self, session_id: int, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Events with ``t_ms`` moved onto the stored trace's time line.

        Only differs after a restart whose source began again from 0 (see ``append_samples``):
        then the same shift is applied, so events and actions stay aligned with the stored trace.
        """
        offset = self._t_offset.get(session_id, 0)
        if not offset:
            return events
        return [dict(e, t_ms=e["t_ms"] + offset) if isinstance(e.get("t_ms"), int) else e for e in events]

    def _trace_now(self, session_id: int, htext: str | None) -> int | None:
        """Trace time of the last sample received for the session (stored or buffered), or None."""
        if htext is None:
            return None
        if session_id not in self._last_t:
            self._load_trace_end(session_id, htext)
        last = self._last_t[session_id]
        return None if last < 0 else last

    def _load_trace_end(self, session_id: int, htext: str) -> None:
        header, _ = read_trace(htext)
        self._n_cells[session_id] = len(header.cells)
        self._headers[session_id] = header
        self._period[session_id] = max(1, round(1000 / header.rate_hz))
        row = self.db.execute(
            "SELECT MAX(t1_ms) FROM trace_chunks WHERE session_id=?", (session_id,)
        ).fetchone()
        self._last_t[session_id] = -1 if row[0] is None else int(row[0])

    def _flush(self, session_id: int) -> None:
        buf = self._buffers.get(session_id)
        if not buf:
            return
        data = encode_chunk(buf, self._n_cells[session_id])
        summary = json.dumps(summarise(self._headers[session_id], buf), separators=(",", ":"))
        with self._tx() as db:
            row = db.execute(
                "SELECT COALESCE(MAX(idx), -1) FROM trace_chunks WHERE session_id=?", (session_id,)
            ).fetchone()
            db.execute(
                "INSERT INTO trace_chunks (session_id, idx, t0_ms, t1_ms, n_rows, data, summary)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (session_id, int(row[0]) + 1, buf[0].t_ms, buf[-1].t_ms, len(buf), data, summary),
            )
            db.execute(
                "UPDATE sessions SET trace_started_at=? WHERE id=? AND trace_started_at IS NULL",
                (self._clock() - buf[-1].t_ms / 1000.0, session_id),
            )
        buf.clear()

    def flush(self, session_id: int | None = None) -> None:
        """Write buffered samples now (of one session or of all)."""
        with self._lock:
            for sid in [session_id] if session_id is not None else list(self._buffers):
                self._flush(sid)

    def _forget(self, session_id: int) -> None:
        self._writable.discard(session_id)
        for d in (self._buffers, self._t_offset, self._last_t, self._n_cells, self._period, self._headers):
            d.pop(session_id, None)

    def trace_header(self, session_id: int) -> TraceHeader | None:
        """The session's trace header, or None if it has none."""
        with self._lock:
            text = self._row(session_id)[1]
        return None if text is None else read_trace(text)[0]

    def trace_started_at(self, session_id: int) -> float | None:
        """Wall-clock time (Unix seconds) of trace time 0, once samples were stored."""
        with self._lock:
            self._row(session_id)
            row = self.db.execute(
                "SELECT trace_started_at FROM sessions WHERE id=?", (session_id,)
            ).fetchone()
        return row[0]

    def samples(self, session_id: int) -> Iterator[Sample]:
        """The stored raw samples, in order (buffered ones are flushed first).

        A damaged chunk raises ``ChunkError`` naming it, while iterating.
        """
        with self._lock:
            self._row(session_id)
            self._flush(session_id)
            ids = [
                r[0]
                for r in self.db.execute(
                    "SELECT idx FROM trace_chunks WHERE session_id=? ORDER BY idx", (session_id,)
                )
            ]
        for idx in ids:
            with self._lock:
                (data,) = self.db.execute(
                    "SELECT data FROM trace_chunks WHERE session_id=? AND idx=?", (session_id, idx)
                ).fetchone()
            yield from decode_chunk(bytes(data))

    def iter_trace_text(self, session_id: int, rows_per_piece: int = 2000) -> Iterator[str]:
        """The session's trace as ``dingo-trace/1`` text, in pieces (header first): for streaming.

        Raises ``SessionError`` at once if the session has no trace; ``ChunkError`` while
        iterating if a stored chunk is damaged.
        """
        with self._lock:
            text = self._row(session_id)[1]
        if text is None:
            raise SessionError(f"session {session_id} has no stored trace")
        return self._trace_pieces(session_id, text, rows_per_piece)

    def _trace_pieces(self, session_id: int, header: str, rows_per_piece: int) -> Iterator[str]:
        yield header
        lines: list[str] = []
        for s in self.samples(session_id):
            lines.append(f"{s.t_ms},{','.join('' if v is None else str(v) for v in s.raw)}\n")
            if len(lines) >= rows_per_piece:
                yield "".join(lines)
                lines.clear()
        if lines:
            yield "".join(lines)

    def write_trace(self, session_id: int, stream: TextIO) -> int:
        """Write the session's trace as a ``dingo-trace/1`` file to ``stream``; returns the row count."""
        pieces = self.iter_trace_text(session_id)
        stream.write(next(pieces))  # the metadata and column-header lines
        n = 0
        for piece in pieces:
            stream.write(piece)
            n += piece.count("\n")
        return n

    def trace_stats(self, session_id: int) -> dict[str, int]:
        """Rows, chunks and compressed bytes of the session's stored trace."""
        with self._lock:
            self._row(session_id)
            r = self.db.execute(
                "SELECT COUNT(*), COALESCE(SUM(n_rows), 0), COALESCE(SUM(LENGTH(data)), 0)"
                " FROM trace_chunks WHERE session_id=?",
                (session_id,),
            ).fetchone()
        return {"chunks": r[0], "rows": r[1], "bytes": r[2]}

    def plot_series(self, session_id: int) -> list[Point]:
        """``[t_ms, mass_g, cop_x_mm, cop_y_mm]`` points (2 per second) of the whole stored trace."""
        with self._lock:
            self._row(session_id)
            self._flush(session_id)
            rows = self.db.execute(
                "SELECT summary FROM trace_chunks WHERE session_id=? ORDER BY idx", (session_id,)
            ).fetchall()
        return [p for (text,) in rows for p in json.loads(text)]
