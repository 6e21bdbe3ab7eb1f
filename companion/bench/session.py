"""``dingo-companion bench session``: disk cost of logging a long physical session.

Simulates HOURS of play at the table (default 4 h, 4 cells at 80 samples/s = 1.15 M rows): the
raw samples come from the physical simulator (``hardware.sim.generate``, game scenarios back to
back), the simulator's events are logged as sensed events, and a random legal game advances by one
action every ``--action-every`` seconds of table time (new games start as games end). Everything
goes through ``SessionStore`` exactly as ``run`` uses it (WAL, ``synchronous=FULL``, 5 s trace
chunks). Prints: rows, actions, the bytes the process wrote (``/proc/self/io``: ``wchar`` =
bytes passed to ``write()``, ``write_bytes`` = bytes sent to the block device), the database and
WAL sizes, the compressed trace size, the size of the same trace as a ``dingo-trace/1`` text file,
and the elapsed time.
"""

from __future__ import annotations

import argparse
import io
import random
import tempfile
import time
from pathlib import Path


def _io() -> dict[str, int]:
    try:
        text = Path("/proc/self/io").read_text()
    except OSError:
        return {}
    return {k: int(v) for k, v in (line.split(": ") for line in text.splitlines())}


def run_bench(data_dir: Path, hours: float, action_every_s: float, seed: int) -> dict[str, float]:
    """Log a simulated session of ``hours`` into ``data_dir``; return the measured figures."""
    from companion.games.dingo_disc import Match, action_from_json
    from companion.sensing.trace import Sample
    from companion.session import SessionStore
    from companion.session.randomplay import new_game, next_action, ranking
    from hardware.sim import generate

    rng = random.Random(seed)
    target_ms = int(hours * 3600 * 1000)
    before = _io()
    t0 = time.perf_counter()
    rows = actions = sessions = events = 0
    store = SessionStore(data_dir)
    header0 = None
    sid = -1
    match = None
    next_action_ms = 0
    offset = 0
    scenario = 0
    try:
        while offset < target_ms:
            header, samples, truth = generate(seed * 1000 + scenario, kind="game")
            scenario += 1
            if header0 is None:
                header0 = header
                setup = new_game(rng)
                sid = store.start_session("dingo-disc", setup=setup, header=header0)
                match = Match(action_from_json(setup))
                sessions += 1
            for i in range(0, len(samples), 8):
                batch = [Sample(s.t_ms + offset, s.raw) for s in samples[i : i + 8]]
                store.append_samples(sid, batch)
                rows += len(batch)
                if batch[-1].t_ms >= next_action_ms and match is not None:
                    next_action_ms += int(action_every_s * 1000)
                    action = next_action(match.state.to_json(), rng)
                    if action is None:
                        match = None  # game over: the next game starts on the next scenario
                    else:
                        match.apply(action_from_json(action))
                        store.append_action(sid, action, source="bench", t_ms=batch[-1].t_ms)
                        actions += 1
            evs = [
                dict(e, t_ms=int(e["t_ms"]) + offset)
                for e in truth
                if e.get("event") != "scenario" and isinstance(e.get("t_ms"), int | float)
            ]
            for e in evs:
                e["t_ms"] = int(e["t_ms"])
            store.append_events(sid, evs)
            events += len(evs)
            offset = samples[-1].t_ms + offset + 13
            if match is None:
                store.end_session(sid, ranking=[1] * len(store.session(sid).players))
                setup = new_game(rng)
                sid = store.start_session("dingo-disc", setup=setup, header=header0)
                match = Match(action_from_json(setup))
                sessions += 1
        if match is not None:
            store.end_session(sid, ranking=ranking(match.state.to_json()))
        store.flush()
        trace_bytes = store.db.execute("SELECT COALESCE(SUM(LENGTH(data)), 0) FROM trace_chunks").fetchone()[
            0
        ]
        summary_bytes = store.db.execute(
            "SELECT COALESCE(SUM(LENGTH(summary)), 0) FROM trace_chunks"
        ).fetchone()[0]
        wal_peak = Path(f"{store.path}-wal").stat().st_size if Path(f"{store.path}-wal").exists() else 0
        csv_bytes = 0
        if hours <= 1.0:  # the text size is only measured for short runs (it is ~20 bytes/row)
            buf = io.StringIO()
            for s in store.list_sessions():
                if s.has_trace:
                    store.write_trace(s.id, buf)
            csv_bytes = len(buf.getvalue().encode())
    finally:
        store.close()
    elapsed = time.perf_counter() - t0
    after = _io()
    return {
        "hours": hours,
        "rows": rows,
        "actions": actions,
        "events": events,
        "sessions": sessions,
        "wchar": after.get("wchar", 0) - before.get("wchar", 0),
        "write_bytes": after.get("write_bytes", 0) - before.get("write_bytes", 0),
        "db_bytes": (data_dir / "sessions.db").stat().st_size,
        "wal_peak_bytes": wal_peak,
        "trace_bytes": trace_bytes,
        "summary_bytes": summary_bytes,
        "csv_bytes": csv_bytes,
        "elapsed_s": elapsed,
    }


def _mb(n: float) -> str:
    return f"{n / 1e6:.2f} MB"


def _main(args: argparse.Namespace) -> int:
    if args.hours <= 0 or args.action_every <= 0:
        print("bench session: --hours and --action-every must be positive")
        return 2
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        r = run_bench(Path(tmp), args.hours, args.action_every, args.seed)
    rows = r["rows"]
    print(
        f"bench session: {r['hours']:g} h of table time, {rows} sample rows x 4 cells, "
        f"{r['actions']} actions, {r['events']} sensed events, {r['sessions']} session(s)"
    )
    print(
        f"  bytes written by the process: wchar {_mb(r['wchar'])}, to the block device (write_bytes) "
        f"{_mb(r['write_bytes'])}"
    )
    print(f"  database file: {_mb(r['db_bytes'])} (WAL file at the end: {_mb(r['wal_peak_bytes'])})")
    print(
        f"  compressed raw trace: {_mb(r['trace_bytes'])} = {r['trace_bytes'] / max(rows, 1):.2f} bytes/row; "
        f"plot summaries {_mb(r['summary_bytes'])}"
    )
    if r["csv_bytes"]:
        print(
            f"  the same trace as dingo-trace/1 text: {_mb(r['csv_bytes'])} "
            f"(compression x{r['csv_bytes'] / max(r['trace_bytes'], 1):.1f})"
        )
    print(
        f"  elapsed {r['elapsed_s']:.1f} s ({rows / r['elapsed_s']:.0f} rows/s, "
        f"{r['hours'] * 3600 / r['elapsed_s']:.0f}x real time); "
        f"data dir under {args.dir or tempfile.gettempdir()}"
    )
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``bench session``."""
    p = subparsers.add_parser("session", help="bytes written and sizes of logging a simulated long session")
    p.add_argument("--hours", type=float, default=4.0, help="table time to simulate (default 4)")
    p.add_argument(
        "--action-every", type=float, default=8.0, help="seconds of table time per action (default 8)"
    )
    p.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    p.add_argument(
        "--dir", default=None, help="where to create the temporary data directory (default: system temp)"
    )
    p.set_defaults(func=_main)


__all__ = ["register", "run_bench"]
