"""Exports of one logged session: JSON (everything), CSV (the actions), the raw trace
(``dingo-trace/1``) and a BG Stats play (their documented push-import JSON).

BG Stats push import (``https://app.bgstatsapp.com/createPlay.html?data=<url-encoded JSON>``,
also ``bgstats://app.bgstatsapp.com/createPlay.html?data=...`` on a phone with the app). Fields
used, as documented by BG Stats: ``sourceName`` (required), ``sourcePlayId``, ``playDate``
(``"YYYY-MM-DD HH:mm:ss"``, local time), ``durationMin``, ``comments``, ``game`` (``name``,
``sourceGameId``, ``highestWins``, ``noPoints``; ``bggId`` optional and only sent when known),
``players`` (``name``, ``sourcePlayerId``, ``rank``, ``score``, ``winner``, ``startPlayer``,
``seatOrder``; ``winner`` and ``startPlayer`` always present since the Android app rejects a player
without them). The game's ``name`` is its module's ``title``; its ``scoring`` decides the rest:
``points`` -> ``highestWins`` true, ``noPoints`` false and each player's ``score`` (a string, as BG
Stats keeps scores) from the logged outcome; ``rank`` -> ``noPoints``, ranks; ``winner`` -> ``noPoints``,
winners only.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
import urllib.parse
from typing import Any, TextIO

from companion.session.base import UNDO, SessionError
from companion.session.records import SessionInfo
from companion.session.store import SessionStore

FORMATS = ("json", "csv", "trace", "bgstats")
SOURCE_NAME = "Dingo Companion"
GAME_NAMES = {"dingo-disc": "Dingo Disc", "dingo_disc": "Dingo Disc"}
"""Titles of games that are not (or no longer) registered; a registered game's own title wins."""


def game_facts(game: str) -> tuple[str, str]:
    """``(title, scoring)`` of a logged game: the registered module's, else the name and ``"rank"``."""
    from companion.session.rebuild import game_rules

    try:
        rules = game_rules(game)
    except SessionError:
        return GAME_NAMES.get(game, game), "rank"
    return str(rules.title), str(getattr(rules, "scoring", "rank"))
CSV_COLUMNS = ("seq", "time_utc", "t_ms", "actor", "source", "type", "action", "sensed")


def resolve_session(store: SessionStore, ref: str | int) -> int:
    """A session id from ``"12"``, ``"#12"``, ``"session-12"`` or ``"latest"``; SessionError if none."""
    text = str(ref).strip().lower()
    if text in ("latest", "last"):
        sessions = store.list_sessions(limit=1)
        if not sessions:
            raise SessionError(f"no sessions logged yet in {store.path}")
        return sessions[0].id
    for prefix in ("#", "session-", "session"):
        if text.startswith(prefix):
            text = text[len(prefix) :]
            break
    if not text.isdigit():
        raise SessionError(f"session must be a number, '#N' or 'latest', got {ref!r}")
    sid = int(text)
    store.session(sid)  # raises naming the session if absent
    return sid


def _iso(t: float | None) -> str | None:
    return None if t is None else dt.datetime.fromtimestamp(t, dt.UTC).isoformat(timespec="milliseconds")


def export_json(store: SessionStore, session_id: int) -> dict[str, Any]:
    """Everything about a session except the raw samples: record, actions, events, trace summary."""
    info = store.session(session_id)
    header = store.trace_header(session_id)
    title, scoring = game_facts(info.game)
    return {
        "format": "dingo-session/1",
        "session": info.to_json() | {"started_utc": _iso(info.started_at), "ended_utc": _iso(info.ended_at),
                                     "title": title, "scoring": scoring},
        "actions": [a.to_json() for a in store.actions(session_id)],
        "effective_actions": store.effective_actions(session_id),
        "events": store.events(session_id),
        "trace": None
        if header is None
        else {
            "rate_hz": header.rate_hz,
            "cells": len(header.cells),
            "started_at": store.trace_started_at(session_id),
            **store.trace_stats(session_id),
        },
    }


def write_csv(store: SessionStore, session_id: int, stream: TextIO) -> int:
    """The action log as CSV (one row per logged action, undo rows included); returns the row count."""
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    n = 0
    for a in store.actions(session_id):
        writer.writerow(
            [
                a.seq,
                _iso(a.at),
                "" if a.t_ms is None else a.t_ms,
                "" if a.actor is None else json.dumps(a.actor),
                a.source or "",
                a.action.get("type", ""),
                json.dumps(a.action, sort_keys=True),
                json.dumps(a.sensed, sort_keys=True),
            ]
        )
        n += 1
    return n


def _start_player(store: SessionStore, info: SessionInfo) -> int | None:
    if info.start_player is not None:
        return info.start_player
    for action in store.effective_actions(info.id):
        if action.get("type") == "first_player" and isinstance(action.get("seat"), int):
            return int(action["seat"])
    return None


def bgstats_play(store: SessionStore, session_id: int) -> dict[str, Any]:
    """The session as one BG Stats push-import play (see the module docstring for the fields)."""
    info = store.session(session_id)
    title, scoring = game_facts(info.game)
    start = _start_player(store, info)
    winners = set(info.winners)
    scores = (info.outcome or {}).get("scores") if scoring == "points" else None
    players = []
    for p in sorted(info.players, key=lambda p: p["seat"]):
        seat = p["seat"]
        entry: dict[str, Any] = {
            "name": p["name"],
            "sourcePlayerId": p["name"],
            "winner": seat in winners,
            "startPlayer": seat == start,
            "seatOrder": seat + 1,
        }
        if info.ranking is not None and scoring != "winner":
            entry["rank"] = info.ranking[seat]
        if isinstance(scores, list) and seat < len(scores) and isinstance(scores[seat], int | float):
            value = scores[seat]
            entry["score"] = str(int(value)) if float(value).is_integer() else str(value)
        players.append(entry)
    local = dt.datetime.fromtimestamp(info.started_at).strftime("%Y-%m-%d %H:%M:%S")
    play: dict[str, Any] = {
        "sourceName": SOURCE_NAME,
        "sourcePlayId": f"dingo-companion-{session_id}-{int(info.started_at)}",
        "playDate": local,
        "game": {
            "name": title,
            "sourceGameId": info.game,
            "highestWins": scoring == "points",
            "noPoints": scoring != "points",
        },
        "players": players,
    }
    if info.duration_s is not None:
        play["durationMin"] = max(1, round(info.duration_s / 60))
    notes = []
    if info.status != "finished":
        notes.append(f"session {info.status}, not finished")
    if info.outcome and info.outcome.get("draw"):
        notes.append("draw")
    notes.append(f"rules version {info.version}" if info.version else "")
    play["comments"] = "; ".join(n for n in notes if n)
    if isinstance(info.options.get("bgg_id"), int):
        play["game"]["bggId"] = info.options["bgg_id"]
    return play


def bgstats_url(play: dict[str, Any], *, app: bool = False) -> str:
    """The push-import link for ``play`` (web form, or the ``bgstats://`` app scheme)."""
    scheme = "bgstats" if app else "https"
    return f"{scheme}://app.bgstatsapp.com/createPlay.html?data=" + urllib.parse.quote(
        json.dumps(play, separators=(",", ":")), safe=""
    )


def write_export(store: SessionStore, session_id: int, fmt: str, stream: TextIO) -> None:
    """Write the session in format ``fmt`` (one of ``FORMATS``) to a text stream."""
    if fmt == "json":
        json.dump(export_json(store, session_id), stream, indent=2, sort_keys=True)
        stream.write("\n")
    elif fmt == "csv":
        write_csv(store, session_id, stream)
    elif fmt == "trace":
        store.write_trace(session_id, stream)
    elif fmt == "bgstats":
        json.dump(bgstats_play(store, session_id), stream, indent=2)
        stream.write("\n")
    else:
        raise SessionError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")


__all__ = [
    "FORMATS",
    "UNDO",
    "bgstats_play",
    "bgstats_url",
    "export_json",
    "resolve_session",
    "write_csv",
    "write_export",
]
