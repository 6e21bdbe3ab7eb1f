"""The history pages: list, timeline with SVG plot and events, statistics with the disc, exports."""

from __future__ import annotations

import json
import random
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from flask import Flask

from companion.sensing.trace import CellSpec, Sample, TraceHeader, read_trace
from companion.session import SessionStore
from web.sessions import create_blueprint, duration

SVG = "{http://www.w3.org/2000/svg}"


def _header() -> TraceHeader:
    cells = (
        CellSpec(120, 0, 1000, 100),
        CellSpec(0, 120, 1000, 100),
        CellSpec(-120, 0, 1000, 100),
        CellSpec(0, -120, 1000, 100),
    )
    return TraceHeader(rate_hz=80, cells=cells, pawn_mass_g={"small": 2.1, "medium": 4.6, "large": 7.9})


def _samples(n: int, load_g: float, at_x: float) -> list[Sample]:
    """A load at (at_x, 0): split between cell 0 (x=+120) and cell 2 (x=-120) by the lever rule."""
    rng = random.Random(0)
    w0 = (at_x + 120) / 240
    out = []
    for i in range(n):
        g0, g2 = load_g * w0, load_g * (1 - w0)
        raw = (
            1000 + round(g0 * 100) + rng.randint(-5, 5),
            1000 + rng.randint(-5, 5),
            1000 + round(g2 * 100) + rng.randint(-5, 5),
            1000 + rng.randint(-5, 5),
        )
        out.append(Sample(i * 12, raw))
    return out


@pytest.fixture
def client(tmp_path: Path):
    store = SessionStore(tmp_path, chunk_ms=1000)
    a = store.start_session(
        "dingo-disc", ["Ann", "Bob"], version="1", header=_header(), started_at=1_790_000_000.0
    )
    store.append_action(a, {"type": "roll", "number": 4, "colour": "blue"}, at=1_790_000_005.0)
    store.append_action(
        a,
        {"type": "place", "size": "large", "sensed": True},
        at=1_790_000_010.0,
        sensed=[{"event": "placed", "t_ms": 1000, "size": "large", "zone": "blue", "number": 4}],
    )
    store.append_events(a, [{"event": "tipped", "t_ms": 2000}, {"event": "settled", "t_ms": 2600}])
    store.append_samples(a, _samples(400, 20.0, 60.0))
    store.end_session(a, ranking=[1, 2], outcome={"winner": 0}, ended_at=1_790_000_600.0)
    b = store.start_session("dingo-disc", ["Ann", "Cy"], started_at=1_790_100_000.0)
    store.append_action(b, {"type": "roll", "number": 2, "colour": "red"})
    store.append_action(b, {"type": "place", "size": "small"})
    store.append_action(b, {"type": "fall", "pawns": {"small": 1}, "tipped": True})
    store.end_session(b, ranking=[2, 1], ended_at=1_790_100_900.0)
    store.start_session("dingo-disc", ["Dee", "Eve"], started_at=1_790_200_000.0)  # unfinished
    app = Flask(__name__)
    app.register_blueprint(create_blueprint(store))
    yield app.test_client(), store, a, b
    store.close()


def _svgs(html: str) -> list[ET.Element]:
    out = []
    start = 0
    while (i := html.find("<svg", start)) >= 0:
        j = html.index("</svg>", i) + len("</svg>")
        out.append(ET.fromstring(html[i:j]))  # well-formed XML
        start = j
    return out


def test_list_shows_date_players_winner_duration(client) -> None:
    c, _, a, _ = client
    html = c.get("/sessions/").get_data(as_text=True)
    assert "Ann, Bob" in html and "10 min 00 s" in html and "Dee, Eve" in html
    assert html.count('<tr class="status-finished">') == 2 and "status-active" in html
    assert f'href="/sessions/{a}"' in html


def test_timeline_plots_mass_and_cop_with_events(client) -> None:
    c, store, a, _ = client
    resp = c.get(f"/sessions/{a}")
    assert resp.status_code == 200
    html = resp.get_data(as_text=True)
    (plot,) = _svgs(html)
    lines = plot.findall(f"{SVG}polyline")
    assert len(lines) == 3  # mass, cop x, cop y
    kinds = [e.get("class") for e in plot.findall(f"{SVG}line") if (e.get("class") or "").startswith("event")]
    assert kinds == ["event event-placed", "event event-tipped", "event event-settled"]
    series = store.plot_series(a)
    assert len(series) >= 8
    assert all(abs(p[1] - 20.0) < 0.2 and abs(p[2] - 60.0) < 1.0 and abs(p[3]) < 1.0 for p in series)
    assert "export.trace" in html and "app.bgstatsapp.com/createPlay.html" in html
    assert "roll" in html and "placed" in html


def test_statistics_page(client) -> None:
    c, *_ = client
    html = c.get("/sessions/stats").get_data(as_text=True)
    assert "2 finished game(s), 1 unfinished" in html
    svgs = _svgs(html)
    disc = svgs[-1]
    spots = {
        (p.get("data-zone"), p.get("data-number")): int(p.get("data-tips"))
        for p in disc.findall(f"{SVG}path")
    }
    assert len(spots) == 30
    # the sensed placement (blue 4) tipped in game a; the typed one (red 2, as rolled) in game b
    assert spots[("blue", "4")] == 1 and spots[("red", "2")] == 1 and sum(spots.values()) == 2
    assert "Mean 1.0 tip(s) per game" in html


def test_exports_download(client) -> None:
    c, _, a, b = client
    r = c.get(f"/sessions/{a}/export.trace")
    assert r.status_code == 200 and "attachment" in r.headers["Content-Disposition"]
    header, rows = read_trace(r.get_data(as_text=True))
    assert header == _header() and len(list(rows)) == 400
    doc = json.loads(c.get(f"/sessions/{a}/export.json").get_data(as_text=True))
    assert doc["session"]["id"] == a
    assert c.get(f"/sessions/{b}/export.csv").get_data(as_text=True).startswith("seq,time,t_ms,player,action")
    play = json.loads(c.get(f"/sessions/{b}/export.bgstats").get_data(as_text=True))
    assert [p["winner"] for p in play["players"]] == [False, True]
    assert c.get(f"/sessions/{b}/export.trace").status_code == 404  # b has no trace
    assert c.get(f"/sessions/{a}/export.xml").status_code == 404
    assert c.get("/sessions/999").status_code == 404
    assert c.get("/sessions/api").get_json()["sessions"][0]["players"][0]["name"] == "Dee"


def test_pages_need_no_inline_style_or_script(client) -> None:
    c, _, a, _ = client
    for url in ("/sessions/", f"/sessions/{a}", "/sessions/stats"):
        html = c.get(url).get_data(as_text=True)
        assert "style=" not in html and "<script" not in html and "<style" not in html
    assert c.get("/sessions/static/sessions.css").status_code == 200


def test_duration_format() -> None:
    assert duration(3725) == "1 h 02 min" and duration(75) == "1 min 15 s" and duration(None) == "—"


def test_ids_beyond_sqlite_range_are_404(client) -> None:
    c, *_ = client
    huge = "99999999999999999999"
    for url in (f"/sessions/{huge}", f"/sessions/api/{huge}", f"/sessions/{huge}/export.json",
                f"/sessions/{2**63}/export.trace", f"/sessions/{2**63 - 1}"):
        assert c.get(url).status_code == 404, url


def test_damaged_data_is_a_409_naming_the_problem(client) -> None:
    c, store, a, _ = client
    store.db.execute("UPDATE trace_chunks SET data=X'00010203' WHERE session_id=? AND idx=0", (a,))
    r = c.get(f"/sessions/{a}/export.trace")
    assert r.status_code == 409 and f"session {a} is damaged" in r.get_data(as_text=True)
    store.db.execute("UPDATE trace_chunks SET summary='{not json' WHERE session_id=?", (a,))
    r = c.get(f"/sessions/{a}")
    assert r.status_code == 409
    assert f"the stored data of session {a} is damaged" in r.get_json()["error"]
