"""Statistics across sessions: wins and draws per player, lengths, tips and where they happened."""

from __future__ import annotations

from pathlib import Path

from companion.session import SessionStore
from companion.session.stats import compute_stats


def test_stats_across_sessions(tmp_path: Path) -> None:
    with SessionStore(tmp_path) as s:
        a = s.start_session("dingo-disc", ["Ann", "Bob"], started_at=0.0)
        s.append_action(
            a,
            {"type": "place", "size": "small"},
            sensed=[{"event": "placed", "t_ms": 10, "zone": "green", "number": 6}],
        )
        s.append_events(
            a, [{"event": "tipped", "t_ms": 20}, {"event": "tipped", "t_ms": 30}]
        )  # 2nd: no new placement
        s.end_session(a, ranking=[1, 2], ended_at=600.0)
        b = s.start_session("dingo-disc", ["Ann", "Bob", "Cy"], started_at=1000.0)
        s.end_session(b, ranking=[1, 1, 3], ended_at=1300.0)  # a draw between Ann and Bob
        c = s.start_session("dingo-disc", ["Cy", "Bob"], started_at=2000.0)
        s.append_action(c, {"type": "roll", "number": 5, "colour": "orange"})
        s.append_action(c, {"type": "place", "size": "large"})  # typed: as rolled
        s.append_action(c, {"type": "fall", "pawns": {"large": 1}, "tipped": True})
        s.append_action(c, {"type": "roll", "number": 3, "colour": "red"})
        s.append_action(c, {"type": "place", "size": "small", "zone": "blue", "number": 2})
        s.append_action(c, {"type": "fall", "pawns": {"small": 1}, "tipped": False})  # slid off: no tip
        s.end_session(c, ranking=[1, 2], ended_at=2900.0)
        s.start_session("dingo-disc", ["Dee", "Eve"])
        s.abandon(s.start_session("dingo-disc", ["Fay", "Gus"]))
        st = compute_stats(s)
    assert (st.finished, st.unfinished, st.abandoned) == (3, 1, 1)
    p = {name: (ps.played, ps.wins, ps.draws) for name, ps in st.players.items()}
    assert p == {"Ann": (2, 1, 1), "Bob": (3, 0, 1), "Cy": (2, 1, 0)}
    assert sorted(st.durations_s) == [300.0, 600.0, 900.0]
    assert sorted(st.tips_per_game) == [0, 1, 2]
    assert dict(st.tip_spots) == {("green", 6): 1, ("orange", 5): 1}
    assert st.unattributed_tips == 1
    assert st.to_json()["players"][0]["name"] in ("Ann", "Cy")
