"""The hub's store, standings, exports and page (Flask test client; no broker needed)."""

from __future__ import annotations

import csv
import io
import json
import time

import pytest

from companion.venue.hubstore import HubStore, MessageError
from companion.venue.results import standings
from companion.venue.view import LiveView
from web.hub.app import create_hub_app

STREAM = "0" * 32


def game_over(table, seq, sid, players, ranks, ended, draw=False):
    best = min(ranks)
    return {
        "schema": "dingo-venue-event/1",
        "venue": "club",
        "table": table,
        "stream": STREAM,
        "seq": seq,
        "session_id": sid,
        "kind": "game_over",
        "at": ended,
        "t_ms": None,
        "text": "Game over",
        "result": {
            "game": "dingo-disc",
            "started_at": ended - 600,
            "ended_at": ended,
            "players": [
                {"seat": i, "name": n, "rank": r, "score": None}
                for i, (n, r) in enumerate(zip(players, ranks, strict=True))
            ],
            "winners": [] if draw else [i for i, r in enumerate(ranks) if r == best],
            "draw": draw,
            "outcome": {"winner": ranks.index(best), "draw": draw},
        },
    }


def action(table, seq, sid, kind="roll", **extra):
    return {
        "schema": "dingo-venue-event/1",
        "venue": "club",
        "table": table,
        "stream": STREAM,
        "seq": seq,
        "session_id": sid,
        "kind": "action",
        "log_index": seq,
        "at": time.time(),
        "t_ms": None,
        "action": {"type": kind, **extra},
        "actor": None,
        "source": "page",
        "sensed": [],
        "text": kind,
    }


def state(table, players, to_move=0):
    return {
        "schema": "dingo-venue-state/1",
        "venue": "club",
        "table": table,
        "at": time.time(),
        "version": 3,
        "session_id": 1,
        "last_seq": 2,
        "summary": {
            "game": "dingo-disc",
            "phase": "turn",
            "score_kind": "pawns_left",
            "next": "roll",
            "over": False,
            "winners": [],
            "draw": False,
            "to_move": [to_move],
            "players": [
                {"seat": i, "name": n, "score": 10 + i, "rank": None, "to_move": i == to_move}
                for i, n in enumerate(players)
            ],
        },
        "state": {},
    }


@pytest.fixture
def store(tmp_path):
    s = HubStore(tmp_path)
    now = time.time()
    s.put_status({"venue": "club", "table": "t1", "status": "online", "at": now})
    s.put_status({"venue": "club", "table": "t2", "status": "offline"})
    s.put_state(state("t1", ["Ann", "Bob"]))
    s.put_state(state("t2", ["Cy", "Dee"], to_move=1))
    s.put_event(game_over("t1", 5, 1, ["Ann", "Bob"], [1, 2], now - 100))
    s.put_event(game_over("t2", 9, 1, ["Cy", "Dee", "Ann"], [2, 3, 1], now - 50))
    s.put_event(action("t2", 10, 2, "fall", pawns={"small": 1}, tipped=True))
    yield s
    s.close()


@pytest.fixture
def client(store):
    return create_hub_app(LiveView(store), venue="club").test_client()


def test_an_event_is_stored_once_per_table_stream_and_sequence_number(store):
    assert store.put_event(action("t1", 6, 2)) is True
    assert store.put_event(action("t1", 6, 2)) is False
    assert store.put_event(action("t1", 6, 2) | {"stream": "1" * 32}) is True  # another stream
    assert [e["seq"] for e in store.events("club", "t1")] == [5, 6, 6]


@pytest.mark.parametrize(
    "bad", [{"table": "t1"}, {"venue": "club", "table": "t1", "stream": STREAM, "kind": "action", "seq": 0}]
)
def test_a_bad_event_is_refused(store, bad):
    with pytest.raises(MessageError):
        store.put_event(bad)


def test_a_reopen_withdraws_the_result_and_a_new_game_over_replaces_it(store):
    assert len(store.games()) == 2
    store.put_event(action("t1", 6, 1, "reopen"))
    assert [g["table"] for g in store.games()] == ["t2"]
    store.put_event(game_over("t1", 8, 1, ["Ann", "Bob"], [2, 1], time.time()))
    t1 = [g for g in store.games() if g["table"] == "t1"]
    assert len(t1) == 1 and t1[0]["winners"] == [1]


def test_standings_count_games_wins_and_ranks_by_player(store):
    rows = {r["player"]: r for r in standings(store.games())}
    assert rows["Ann"] == {
        "player": "Ann",
        "games": 2,
        "wins": 2,
        "draws": 0,
        "ranks": [1, 1],
        "mean_rank": 1.0,
    }
    assert rows["Bob"]["wins"] == 0 and rows["Bob"]["ranks"] == [2]
    assert [r["player"] for r in standings(store.games())][0] == "Ann"


def test_tables_api_greys_offline_tables_and_shows_whose_turn_and_a_fall(client):
    data = client.get("/api/tables").get_json()
    t = {x["table"]: x for x in data["tables"]}
    assert t["t1"]["status"] == "online" and t["t2"]["status"] == "offline"
    assert t["t1"]["to_move"] == ["Ann"] and t["t2"]["to_move"] == ["Dee"]
    assert [p["score"] for p in t["t1"]["players"]] == [10, 11]
    assert t["t2"]["alert"]["text"] == "fall"
    assert t["t1"]["alert"] is None


def test_results_and_the_three_exports(client):
    res = client.get("/api/results").get_json()
    assert len(res["games"]) == 2 and res["standings"][0]["player"] == "Ann"
    body = client.get("/export/results.json")
    assert body.headers["Content-Disposition"].startswith("attachment")
    doc = json.loads(body.data)
    assert doc["format"] == "dingo-venue-results/1" and len(doc["games"]) == 2
    rows = list(csv.DictReader(io.StringIO(client.get("/export/results.csv").get_data(as_text=True))))
    assert len(rows) == 5 and {r["player"] for r in rows if r["winner"] == "True"} == {"Ann"}
    bg = json.loads(client.get("/export/bgstats.json").data)
    assert len(bg["plays"]) == 2 and len(bg["links"]) == 2
    play = bg["plays"][0]
    assert play["sourceName"] == "Dingo Companion" and play["game"]["name"] == "Dingo Disc"
    assert [p["winner"] for p in play["players"]] == [True, False]
    assert all("startPlayer" in p for p in play["players"])


def test_the_page_and_its_assets_are_served_locally(client):
    page = client.get("/").get_data(as_text=True)
    assert "http://" not in page and "https://" not in page
    for asset in ("/tablet.css", "/static/hub.css", "/static/hub.js"):
        resp = client.get(asset)
        assert resp.status_code == 200, asset
        assert b"https://" not in resp.data and b"http://" not in resp.data


def test_the_stream_starts_with_a_snapshot_of_every_table(store):
    view = LiveView(store)
    app = create_hub_app(view, venue="club", heartbeat_s=0.2)
    with app.test_client() as c:
        resp = c.get("/api/stream", buffered=False)
        chunks = resp.response
        first = next(chunks)
        snap = next(chunks).decode() if isinstance(first, bytes) else next(chunks)
        assert "event: snapshot" in snap and '"t1"' in snap and '"t2"' in snap
        view.changed("club", "t1", "state", {})
        view.push()
        nxt = next(chunks)
        nxt = nxt.decode() if isinstance(nxt, bytes) else nxt
        assert "event: tables" in nxt and '"t1"' in nxt
        resp.close()
