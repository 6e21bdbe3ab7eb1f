"""Plain records returned by the session store (no database handles inside)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

STATUSES = ("active", "finished", "abandoned")


@dataclass(frozen=True)
class SessionInfo:
    """One logged session: who played what, when, and how it ended.

    ``players`` is a list of ``{"name": str, "seat": int}`` in seat order; ``ranking`` is the
    rank of each player by seat (1 = first, equal ranks for a draw); ``outcome`` is the
    free-form JSON the controller gave at the end (e.g. the final state's ``outcome``).
    Times are Unix seconds (UTC).
    """

    id: int
    game: str
    version: str
    options: dict[str, Any]
    players: list[dict[str, Any]]
    start_player: int | None
    started_at: float
    ended_at: float | None
    status: str
    outcome: dict[str, Any] | None
    ranking: list[int] | None
    n_actions: int = 0
    last_action_at: float | None = None
    has_trace: bool = False

    @property
    def duration_s(self) -> float | None:
        """Seconds from start to end (or to the last action for a session never ended)."""
        end = self.ended_at if self.ended_at is not None else self.last_action_at
        return None if end is None else max(0.0, end - self.started_at)

    @property
    def winners(self) -> list[int]:
        """Seats ranked first (several for a draw; empty if no ranking)."""
        if not self.ranking:
            return []
        best = min(self.ranking)
        return [seat for seat, rank in enumerate(self.ranking) if rank == best]

    def player_name(self, seat: int) -> str:
        """The name at ``seat`` (``"seat N"`` if unnamed)."""
        for p in self.players:
            if p.get("seat") == seat:
                return str(p.get("name") or f"seat {seat}")
        return f"seat {seat}"

    def to_json(self) -> dict[str, Any]:
        """Everything as a JSON-ready dict (with the derived ``duration_s`` and ``winners``)."""
        return {
            "id": self.id,
            "game": self.game,
            "version": self.version,
            "options": self.options,
            "players": self.players,
            "start_player": self.start_player,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "status": self.status,
            "outcome": self.outcome,
            "ranking": self.ranking,
            "winners": self.winners,
            "duration_s": self.duration_s,
            "n_actions": self.n_actions,
            "last_action_at": self.last_action_at,
            "has_trace": self.has_trace,
        }


@dataclass(frozen=True)
class ActionRecord:
    """One row of the append-only action log.

    ``action`` is the action's JSON (``{"type": ..., ...}`` as ``to_json()`` gave it), ``sensed``
    the sensed events (spec dicts) that led to it, ``at`` the wall-clock time (Unix seconds) and
    ``t_ms`` the trace time when known.
    """

    session_id: int
    seq: int
    at: float
    t_ms: int | None
    actor: str | None
    action: dict[str, Any]
    sensed: list[dict[str, Any]] = field(default_factory=list)
    source: str | None = None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of the row."""
        return {
            "seq": self.seq,
            "at": self.at,
            "t_ms": self.t_ms,
            "actor": self.actor,
            "source": self.source,
            "action": self.action,
            "sensed": self.sensed,
        }
