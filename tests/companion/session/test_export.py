"""Exports: JSON, CSV, trace (round trip with read_trace), BG Stats push import; the CLI command."""

from __future__ import annotations

import csv
import io
import json
import urllib.parse
from pathlib import Path

import pytest

from companion.cli import main
from companion.sensing.trace import read_trace
from companion.session import SessionError, SessionStore
from companion.session.export import (
    bgstats_play,
    bgstats_url,
    export_json,
    resolve_session,
    write_csv,
    write_export,
)

NEW_GAME = {
    "type": "new_game",
    "game": "dingo-disc",
    "version": 1,
    "players": ["Ann", "Bob", "Cy"],
    "options": {},
}


def _played(tmp_path: Path, header_factory, samples_factory) -> tuple[SessionStore, int]:
    s = SessionStore(tmp_path)
    sid = s.start_session("dingo-disc", setup=NEW_GAME, header=header_factory(), started_at=1_790_000_000.0)
    s.append_action(sid, {"type": "first_player", "seat": 1}, source="page", at=1_790_000_010.0)
    s.append_action(sid, {"type": "roll", "number": 3, "colour": "red"}, actor=1, at=1_790_000_020.0)
    s.append_action(
        sid,
        {"type": "place", "size": "small", "sensed": True},
        t_ms=900,
        sensed=[{"event": "placed", "t_ms": 900, "size": "small", "zone": "red", "number": 3}],
        at=1_790_000_030.0,
    )
    s.append_samples(sid, samples_factory(400))
    s.end_session(sid, ranking=[2, 1, 3], outcome={"winner": 1, "draw": False}, ended_at=1_790_001_500.0)
    return s, sid


def test_json_has_everything(tmp_path: Path, header_factory, samples_factory) -> None:
    s, sid = _played(tmp_path, header_factory, samples_factory)
    doc = export_json(s, sid)
    json.dumps(doc)  # serialisable
    assert doc["session"]["winners"] == [1] and doc["session"]["duration_s"] == 1500.0
    assert [a["action"]["type"] for a in doc["actions"]] == ["new_game", "first_player", "roll", "place"]
    assert doc["events"][0]["event"] == "placed"
    assert doc["trace"]["rows"] == 400 and doc["trace"]["cells"] == 4
    assert doc["session"]["start_player"] == 1  # from first_player, though not set at the start
    s.close()


def test_csv_one_row_per_action(tmp_path: Path, header_factory, samples_factory) -> None:
    s, sid = _played(tmp_path, header_factory, samples_factory)
    buf = io.StringIO()
    assert write_csv(s, sid, buf) == 4
    rows = list(csv.DictReader(io.StringIO(buf.getvalue())))
    assert [r["action"] for r in rows] == ["new_game", "first_player", "roll", "place"]
    assert rows[2]["player"] == "Bob" and rows[1]["source"] == "page" and rows[3]["t_ms"] == "900"
    assert (rows[3]["size"], rows[3]["zone"], rows[3]["number"]) == ("small", "red", "3")
    assert (rows[2]["zone"], rows[2]["number"]) == ("red", "3")
    assert rows[0]["time"].startswith("2026-09-21T")
    assert not any(v.startswith(("{", "[", '"')) for r in rows for v in r.values())  # no JSON blobs
    s.close()


def test_trace_export_reads_back(tmp_path: Path, header_factory, samples_factory) -> None:
    s, sid = _played(tmp_path, header_factory, samples_factory)
    buf = io.StringIO()
    write_export(s, sid, "trace", buf)
    header, rows = read_trace(io.StringIO(buf.getvalue()))
    assert header == header_factory() and list(rows) == samples_factory(400)
    s.close()


def test_bgstats_play_fields(tmp_path: Path, header_factory, samples_factory) -> None:
    s, sid = _played(tmp_path, header_factory, samples_factory)
    play = bgstats_play(s, sid)
    assert play["sourceName"] == "Dingo Companion" and play["game"]["name"] == "Dingo Disc"
    assert play["durationMin"] == 25
    assert len(play["playDate"]) == 19 and play["playDate"][4] == "-" and play["playDate"][13] == ":"
    by_name = {p["name"]: p for p in play["players"]}
    assert by_name["Bob"]["winner"] and by_name["Bob"]["startPlayer"] and by_name["Bob"]["rank"] == 1
    assert not by_name["Ann"]["winner"] and not by_name["Ann"]["startPlayer"] and by_name["Cy"]["rank"] == 3
    assert "bggId" not in play["game"]  # never invented
    url = bgstats_url(play)
    assert url.startswith("https://app.bgstatsapp.com/createPlay.html?data=")
    assert json.loads(urllib.parse.unquote(url.split("data=", 1)[1])) == play
    assert bgstats_url(play, app=True).startswith("bgstats://")
    s.close()


def test_resolve_session_refs(tmp_path: Path, header_factory, samples_factory) -> None:
    s, sid = _played(tmp_path, header_factory, samples_factory)
    assert (
        resolve_session(s, "latest") == sid == resolve_session(s, f"#{sid}") == resolve_session(s, str(sid))
    )
    for bad, match in (("x", "must be a number"), ("99", "no session 99")):
        with pytest.raises(SessionError, match=match):
            resolve_session(s, bad)
    with pytest.raises(SessionError, match="unknown export format"):
        write_export(s, sid, "xml", io.StringIO())
    s.close()


def test_cli_export(tmp_path: Path, header_factory, samples_factory, capsys) -> None:
    s, sid = _played(tmp_path, header_factory, samples_factory)
    s.close()
    assert main(["export", str(sid), "--format", "bgstats", "--data-dir", str(tmp_path)]) == 0
    assert json.loads(capsys.readouterr().out)["players"][1]["winner"] is True
    out = tmp_path / "s.trace.csv"
    assert main(["export", "latest", "-f", "trace", "--out", str(out), "--data-dir", str(tmp_path)]) == 0
    header, rows = read_trace(out)
    assert len(list(rows)) == 400
    assert main(["export", "latest", "-f", "bgstats", "--url", "--data-dir", str(tmp_path)]) == 0
    assert capsys.readouterr().out.startswith("https://app.bgstatsapp.com/")
    assert main(["export", "42", "--data-dir", str(tmp_path)]) == 2
    assert "no session 42" in capsys.readouterr().err
    assert main(["export", "1", "--data-dir", str(tmp_path / "nowhere")]) == 2
    assert "no session log" in capsys.readouterr().err


def test_csv_names_the_player_from_the_actor_and_pawns_in_words(tmp_path: Path, header_factory) -> None:
    s = SessionStore(tmp_path)
    sid = s.start_session("dingo-disc", setup=NEW_GAME, header=header_factory(), started_at=1_790_000_000.0)
    s.append_action(sid, {"type": "fall", "pawns": {"small": 2, "medium": 0, "large": 1}, "tipped": True},
                    source="sensor", actor="sensor: Cy (seat 2)", at=1_790_000_010.0)
    buf = io.StringIO()
    write_csv(s, sid, buf)
    row = list(csv.DictReader(io.StringIO(buf.getvalue())))[1]
    assert (row["player"], row["by"], row["pawns"], row["details"]) == ("Cy", "sensor", "2 small + 1 large",
                                                                        "tipped=True")
    s.close()
