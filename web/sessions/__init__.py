"""History pages of the session log: the list, one session's timeline, statistics, exports.

``create_blueprint(store)`` returns a Flask blueprint mounted at ``/sessions`` (registered by
``web.app``). Read-only GET routes; pictures are server-rendered SVG (``web.sessions.svg``).
No request gives a 5xx: an unknown or out-of-range id is a 404, data found damaged in the log (a
trace chunk that does not decode, a stored JSON field that does not parse) is a 409 whose message
names the session and the problem.
"""

from __future__ import annotations

import io
import itertools
import json
import time
from typing import Any

from flask import Blueprint, Response, abort, jsonify, redirect, render_template, request
from markupsafe import Markup

from companion.session import SessionError, SessionInfo, SessionStore
from companion.session.export import FORMATS, bgstats_play, bgstats_url, export_json, game_facts, write_export
from companion.session.stats import compute_stats
from companion.session.tracecodec import ChunkError
from web.sessions.readable import sentences
from web.sessions.svg import bars_svg, disc_svg, timeline_svg

MIME = {"json": "application/json", "csv": "text/csv", "trace": "text/csv", "bgstats": "application/json"}
DAMAGED = 409  # the request is fine; the stored data it asks for cannot be read
SUFFIX = {"json": "json", "csv": "actions.csv", "trace": "trace.csv", "bgstats": "bgstats.json"}


def when(t: float | None) -> str:
    """Local date and time ``YYYY-MM-DD HH:MM`` (or an em dash)."""
    return "—" if t is None else time.strftime("%Y-%m-%d %H:%M", time.localtime(t))


def duration(seconds: float | None) -> str:
    """``1 h 05 min``, ``12 min 30 s`` or an em dash."""
    if seconds is None:
        return "—"
    s = int(round(seconds))
    if s >= 3600:
        return f"{s // 3600} h {s % 3600 // 60:02d} min"
    return f"{s // 60} min {s % 60:02d} s"


def _scores(info: SessionInfo, names: list[str]) -> str:
    """``"Ann 12 · Bob 9"`` from a logged outcome's scores (empty when the game keeps none)."""
    scores = (info.outcome or {}).get("scores")
    if not isinstance(scores, list) or len(scores) != len(names):
        return ""
    return " · ".join(f"{n} {int(v) if isinstance(v, float) and v.is_integer() else v}"
                      for n, v in zip(names, scores, strict=True))


def _actor_name(actor: Any, names: list[str]) -> str:
    """The logged actor as a name: ``"seat:1"`` -> Ben; the companion, sensors or host as such."""
    text = str(actor or "")
    if text.startswith("seat:") and text[5:].isdigit() and int(text[5:]) < len(names):
        return names[int(text[5:])]
    return text


def _row(info: SessionInfo) -> dict[str, Any]:
    names = [p["name"] for p in sorted(info.players, key=lambda p: p["seat"])]
    winners = [info.player_name(s) for s in info.winners]
    if info.status != "finished":
        result = info.status
    elif len(winners) > 1:
        result = "draw: " + ", ".join(winners)
    else:
        result = winners[0] if winners else "—"
    return {
        "id": info.id,
        "date": when(info.started_at),
        "game": game_facts(info.game)[0],
        "scores": _scores(info, names),
        "players": ", ".join(names),
        "winner": result,
        "duration": duration(info.duration_s),
        "status": info.status,
        "actions": info.n_actions,
    }


def game_achievements(store: SessionStore) -> list[dict[str, Any]]:
    """Per game that tracks achievements (a module with ``achievements(states)``): what each player
    earned across its finished logged games, labelled, and what the log cannot tell."""
    from companion.session.rebuild import game_rules, rebuild_match

    by_game: dict[str, list[int]] = {}
    for info in store.list_sessions(status="finished"):
        by_game.setdefault(info.game, []).append(info.id)
    out = []
    for game, ids in sorted(by_game.items()):
        try:
            rules = game_rules(game)
        except SessionError:
            continue
        earn = getattr(rules, "achievements", None)
        if earn is None:
            continue
        states = []
        for sid in sorted(ids):  # oldest first: "game 1" is the first logged
            try:
                states.append(rebuild_match(store, sid).state.to_json())
            except SessionError:
                continue  # a log that no longer replays is shown as damaged on its own page
        labels = getattr(rules, "achievement_labels", {})
        untracked = getattr(rules, "achievements_not_tracked", {})
        players = [{"name": name, "feats": [{"label": labels.get(k, k), "where": ", ".join(w)}
                                            for k, w in sorted(got.items())]}
                   for name, got in sorted(earn(states).items()) if got]
        out.append({"title": game_facts(game)[0], "players": players, "untracked": list(untracked.values())})
    return out


def create_blueprint(store: SessionStore) -> Blueprint:
    """The ``/sessions`` pages over ``store``."""
    bp = Blueprint(
        "sessions", __name__, url_prefix="/sessions", template_folder="templates", static_folder="static"
    )

    @bp.errorhandler(ChunkError)
    @bp.errorhandler(json.JSONDecodeError)
    def damaged(exc: ValueError) -> tuple[Response, int]:
        """Damaged stored data: a 409 naming the session and the problem (never a 500)."""
        sid = (request.view_args or {}).get("sid")
        what = f"session {sid}" if sid is not None else "the session log"
        return jsonify({"error": f"the stored data of {what} is damaged: {exc}"}), DAMAGED

    def info_or_404(sid: int) -> SessionInfo:
        """The session record, or a 404 naming the session."""
        try:
            return store.session(sid)
        except SessionError:
            abort(404, description=f"no session {sid}")

    @bp.get("/")
    def index() -> str:
        """The list of past sessions."""
        rows = [_row(i) for i in store.list_sessions()]
        return render_template("sessions/list.html", rows=rows, report=store.report)

    @bp.get("/stats")
    def stats() -> str:
        """Statistics across sessions."""
        st = compute_stats(store)
        feats = game_achievements(store)
        players = sorted(st.players.values(), key=lambda p: (-p.wins, p.name))
        d = st.durations_s
        t = st.tips_per_game
        summary = {
            "games": st.finished,
            "unfinished": st.unfinished,
            "abandoned": st.abandoned,
            "mean_length": duration(sum(d) / len(d)) if d else "—",
            "shortest": duration(min(d)) if d else "—",
            "longest": duration(max(d)) if d else "—",
            "mean_tips": f"{sum(t) / len(t):.1f}" if t else "—",
            "max_tips": max(t) if t else "—",
            "unattributed": st.unattributed_tips,
        }
        top = sorted(st.tip_spots.items(), key=lambda kv: -kv[1])[:5]
        return render_template(
            "sessions/stats.html",
            s=summary,
            achievements=feats,
            players=players,
            wins_svg=Markup(bars_svg([(p.name, p.wins) for p in players])),
            length_svg=Markup(
                bars_svg([(f"#{i + 1}", round(v / 60, 1)) for i, v in enumerate(d[-20:])], unit=" min")
            ),
            disc=Markup(disc_svg(dict(st.tip_spots))),
            top=[{"zone": z, "number": n, "tips": c} for (z, n), c in top],
            games=sorted(st.games.items()),
        )

    @bp.get("/<int:sid>")
    def session(sid: int) -> str:
        """One session: facts, plot, timeline, export links."""
        info = info_or_404(sid)
        header = store.trace_header(sid)
        events = store.events(sid)
        radius = header.layout.radius_mm if header is not None else 150.0
        logged = store.actions(sid)
        told, counted = sentences([a.action for a in logged])
        names = [p["name"] for p in sorted(info.players, key=lambda p: p["seat"])]
        per_player = [{"name": n, "tips": (counted or {}).get("tips", [None] * len(names))[i],
                       "penalties": (counted or {}).get("penalties", [None] * len(names))[i]}
                      for i, n in enumerate(names)] if counted and counted.get("tips") else []
        turns = [(a.t_ms if isinstance(a.t_ms, int) else (a.at - info.started_at) * 1000,
                  text.split(" placed ")[0]) for a, text in zip(logged, told, strict=True)
                 if a.action.get("type") == "place" and text and " placed " in text]
        svg = timeline_svg(store.plot_series(sid), events, disc_radius_mm=radius, turns=turns)
        actions = [
            {
                "seq": a.seq,
                "text": text or a.action.get("type"),
                "actor": _actor_name(a.actor, names),
                "when": time.strftime("%H:%M:%S", time.localtime(a.at)),
                "type": a.action.get("type"),
                "source": a.source or "",
                "detail": json.dumps({k: v for k, v in a.action.items() if k != "type"}, sort_keys=True),
                "sensed": ", ".join(str(e.get("event")) for e in a.sensed),
            }
            for a, text in zip(logged, told, strict=True)
        ]
        return render_template(
            "sessions/session.html",
            row=_row(info),
            info=info,
            plot=Markup(svg),
            actions=actions,
            per_player=per_player,
            events=events,
            formats=FORMATS,
            bgstats=bgstats_url(bgstats_play(store, sid)),
        )

    @bp.get("/<int:sid>/bgstats")
    def bgstats(sid: int) -> Response:
        """One tap to BG Stats: a redirect to the app's import link of this game."""
        info_or_404(sid)
        return redirect(bgstats_url(bgstats_play(store, sid)))

    @bp.get("/<int:sid>/export.<fmt>")
    def export(sid: int, fmt: str) -> Response:
        """Download one session in ``fmt``."""
        info_or_404(sid)
        if fmt not in FORMATS:
            abort(404, description=f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")
        try:
            if fmt == "trace":  # up to ~40 MB of text for 4 hours: streamed, chunk by chunk
                pieces = store.iter_trace_text(sid)
                # read the header and the first rows now: a damaged first chunk is still a 409
                first = [next(pieces, ""), next(pieces, "")]
                body: Any = itertools.chain(first, pieces)
            else:
                buf = io.StringIO()
                write_export(store, sid, fmt, buf)
                body = buf.getvalue()
        except SessionError as exc:
            abort(404, description=str(exc))
        except ChunkError as exc:
            abort(DAMAGED, description=f"the stored trace of session {sid} is damaged: {exc}")
        resp = Response(body, mimetype=MIME[fmt])
        resp.headers["Content-Disposition"] = f'attachment; filename="dingo-session-{sid}.{SUFFIX[fmt]}"'
        return resp

    @bp.get("/api")
    def api_list() -> dict[str, Any]:
        """JSON: the log's open report and every session."""
        return {"log": store.report.to_json(), "sessions": [i.to_json() for i in store.list_sessions()]}

    @bp.get("/api/<int:sid>")
    def api_session(sid: int) -> dict[str, Any]:
        """JSON: one session (as ``export --format json``)."""
        info_or_404(sid)
        return export_json(store, sid)

    return bp
