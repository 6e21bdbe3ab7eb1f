"""The evening's results at the hub: standings per player and the exports (JSON, CSV, BG Stats).

Pure functions over the games :meth:`HubStore.games` returns. A player is known by name across
the tables (the names players type on their table's page).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from typing import Any

from companion.session.export import GAME_NAMES, SOURCE_NAME

CSV_COLUMNS = (
    "venue",
    "table",
    "session_id",
    "game",
    "started_utc",
    "ended_utc",
    "seat",
    "player",
    "rank",
    "score",
    "winner",
    "draw",
)


def _iso(t: Any) -> str | None:
    if not isinstance(t, int | float):
        return None
    return dt.datetime.fromtimestamp(t, dt.UTC).isoformat(timespec="seconds")


def standings(games: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per player: games, wins, draws, their ranks in order, mean rank; best first."""
    rows: dict[str, dict[str, Any]] = {}
    for game in games:
        winners = set(game.get("winners") or [])
        for p in game.get("players") or []:
            name = str(p.get("name") or "?")
            row = rows.setdefault(name, {"player": name, "games": 0, "wins": 0, "draws": 0, "ranks": []})
            row["games"] += 1
            if p.get("seat") in winners:
                row["wins"] += 1
            if game.get("draw"):
                row["draws"] += 1
            if isinstance(p.get("rank"), int):
                row["ranks"].append(p["rank"])
    for row in rows.values():
        ranks = row["ranks"]
        row["mean_rank"] = round(sum(ranks) / len(ranks), 2) if ranks else None
    return sorted(
        rows.values(),
        key=lambda r: (
            -r["wins"],
            r["mean_rank"] if r["mean_rank"] is not None else 99.0,
            -r["games"],
            r["player"].lower(),
        ),
    )


def export_json(games: list[dict[str, Any]], venue: str = "") -> dict[str, Any]:
    """Every game and the standings, as one JSON document."""
    return {
        "format": "dingo-venue-results/1",
        "venue": venue or None,
        "exported_utc": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "games": games,
        "standings": standings(games),
    }


def export_csv(games: list[dict[str, Any]]) -> str:
    """One CSV row per player per game (``CSV_COLUMNS``)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for g in games:
        winners = set(g.get("winners") or [])
        for p in g.get("players") or []:
            writer.writerow(
                [
                    g.get("venue"),
                    g.get("table"),
                    g.get("session_id"),
                    g.get("game"),
                    _iso(g.get("started_at")),
                    _iso(g.get("ended_at")),
                    p.get("seat"),
                    p.get("name"),
                    p.get("rank"),
                    p.get("score"),
                    p.get("seat") in winners,
                    bool(g.get("draw")),
                ]
            )
    return out.getvalue()


def bgstats_play(game: dict[str, Any]) -> dict[str, Any]:
    """One game as a BG Stats push-import play (the fields of ``companion.session.export``)."""
    winners = set(game.get("winners") or [])
    started = (
        game.get("started_at") if isinstance(game.get("started_at"), int | float) else game.get("ended_at")
    )
    players = []
    for p in sorted(game.get("players") or [], key=lambda p: p.get("seat", 0)):
        entry: dict[str, Any] = {
            "name": p.get("name"),
            "sourcePlayerId": p.get("name"),
            "winner": p.get("seat") in winners,
            "startPlayer": False,
            "seatOrder": int(p.get("seat", 0)) + 1,
        }
        if isinstance(p.get("rank"), int):
            entry["rank"] = p["rank"]
        if isinstance(p.get("score"), int | float):
            entry["score"] = p["score"]
        players.append(entry)
    has_points = any("score" in p for p in players) and game.get("game") not in GAME_NAMES
    play: dict[str, Any] = {
        "sourceName": SOURCE_NAME,
        "sourcePlayId": f"dingo-{game.get('venue')}-{game.get('table')}-{game.get('stream', '')[:8]}"
        f"-{game.get('session_id')}",
        "playDate": dt.datetime.fromtimestamp(float(started or 0)).strftime("%Y-%m-%d %H:%M:%S"),
        "game": {
            "name": GAME_NAMES.get(str(game.get("game")), str(game.get("game"))),
            "sourceGameId": str(game.get("game")),
            "highestWins": has_points,
            "noPoints": not has_points,
        },
        "players": players,
        "comments": f"table {game.get('table')} at {game.get('venue')}"
        + ("; draw" if game.get("draw") else ""),
    }
    if isinstance(game.get("ended_at"), int | float) and isinstance(started, int | float):
        play["durationMin"] = max(1, round((game["ended_at"] - started) / 60))
    return play


def export_bgstats(games: list[dict[str, Any]]) -> dict[str, Any]:
    """Every game as BG Stats push-import plays, each with its import link."""
    from companion.session.export import bgstats_url

    plays = [bgstats_play(g) for g in games]
    return {"format": "dingo-venue-bgstats/1", "plays": plays, "links": [bgstats_url(p) for p in plays]}
