"""Statistics across logged sessions of every game: games played by game, wins per player, game
length; for the Dingo Disc, tips per game and where on the disc the tipping placements stood
(zone x number).

A tip is attributed to the placement just before it: the last sensed ``placed`` event before a
``tipped`` event (when the session has sensed events), otherwise the last ``place`` action before a
``fall`` action with ``tipped: true`` (its zone/number, or the rolled ones when it was typed
"as rolled").
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from companion.session.export import game_facts
from companion.session.store import SessionStore

DISC_NAMES = ("dingo-disc", "dingo_disc")


@dataclass
class PlayerStats:
    """Games played, won (alone) and drawn (shared first place) by one player name."""

    name: str
    played: int = 0
    wins: int = 0
    draws: int = 0


@dataclass
class Stats:
    """Everything the statistics page shows; ``tip_spots`` maps ``(zone, number)`` to a tip count."""

    finished: int = 0
    unfinished: int = 0
    abandoned: int = 0
    players: dict[str, PlayerStats] = field(default_factory=dict)
    durations_s: list[float] = field(default_factory=list)
    tips_per_game: list[int] = field(default_factory=list)
    tip_spots: Counter = field(default_factory=Counter)
    unattributed_tips: int = 0
    games: Counter = field(default_factory=Counter)  # finished games by game title

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready view."""
        return {
            "finished": self.finished,
            "unfinished": self.unfinished,
            "abandoned": self.abandoned,
            "players": [vars(p) for p in sorted(self.players.values(), key=lambda p: (-p.wins, p.name))],
            "durations_s": self.durations_s,
            "tips_per_game": self.tips_per_game,
            "tip_spots": [
                {"zone": z, "number": n, "tips": c} for (z, n), c in sorted(self.tip_spots.items())
            ],
            "unattributed_tips": self.unattributed_tips,
            "games": dict(sorted(self.games.items())),
        }


def _tips_from_events(events: list[dict[str, Any]]) -> tuple[list[tuple[str | None, int | None]], int]:
    spots: list[tuple[str | None, int | None]] = []
    last: tuple[str | None, int | None] | None = None
    tips = 0
    for e in events:
        kind = e.get("event")
        if kind == "placed":
            last = (e.get("zone"), e.get("number"))
        elif kind == "tipped":
            tips += 1
            if last is not None:
                spots.append(last)
                last = None  # one placement tips the disc at most once
    return spots, tips


def _tips_from_actions(actions: list[dict[str, Any]]) -> tuple[list[tuple[str | None, int | None]], int]:
    spots: list[tuple[str | None, int | None]] = []
    roll: tuple[str | None, int | None] = (None, None)
    last: tuple[str | None, int | None] | None = None
    tips = 0
    for a in actions:
        kind = a.get("type")
        if kind == "roll":
            roll = (a.get("colour"), a.get("number"))
        elif kind == "place":
            last = (a.get("zone") or roll[0], a.get("number") or roll[1])
        elif kind == "fall" and a.get("tipped"):
            tips += 1
            if last is not None:
                spots.append(last)
                last = None
    return spots, tips


def compute_stats(store: SessionStore) -> Stats:
    """Statistics over every session in the store."""
    st = Stats()
    for info in store.list_sessions():
        if info.status == "abandoned":
            st.abandoned += 1
            continue
        if info.status != "finished":
            st.unfinished += 1
            continue
        st.finished += 1
        winners = info.winners
        for p in info.players:
            ps = st.players.setdefault(p["name"], PlayerStats(p["name"]))
            ps.played += 1
            if p["seat"] in winners:
                if len(winners) == 1:
                    ps.wins += 1
                else:
                    ps.draws += 1
        if info.duration_s is not None:
            st.durations_s.append(info.duration_s)
        st.games[game_facts(info.game)[0]] += 1
        if info.game not in DISC_NAMES:
            continue  # tips and the spots they came from are the Dingo Disc's
        spots, tips = _tips_from_events(store.events(info.id))
        if tips == 0:
            spots, tips = _tips_from_actions(store.effective_actions(info.id))
        st.tips_per_game.append(tips)
        for spot in spots:
            if spot[0] is None or spot[1] is None:
                st.unattributed_tips += 1
            else:
                st.tip_spots[spot] += 1
        st.unattributed_tips += tips - len(spots)
    return st
