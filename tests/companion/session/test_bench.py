"""``bench session`` measures what it says (short run)."""

from __future__ import annotations

from pathlib import Path

from companion.bench.session import run_bench
from companion.session import SessionStore


def test_short_bench_figures_are_consistent(tmp_path: Path) -> None:
    r = run_bench(tmp_path, hours=0.01, action_every_s=8.0, seed=2)
    assert r["rows"] >= 0.01 * 3600 * 80
    assert 0 < r["trace_bytes"] < r["db_bytes"] and r["csv_bytes"] > 2 * r["trace_bytes"]
    assert r["wchar"] > r["trace_bytes"]
    with SessionStore(tmp_path) as store:
        stored = sum(store.trace_stats(s.id)["rows"] for s in store.list_sessions())
        assert stored == r["rows"]
        assert (
            sum(s.n_actions for s in store.list_sessions()) == r["actions"] + r["sessions"]
        )  # + new_game rows
