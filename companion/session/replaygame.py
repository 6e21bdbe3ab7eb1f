"""Re-run sensing and rules over a stored session, the way the live table ran them.

``resense(store, sid)`` feeds the stored raw trace through a fresh sensing ``Pipeline``;
``replay_game(store, sid, emitted)`` rebuilds the game from the logged host actions (setup, page,
panel, undo rows) together with the actions the *re-sensed* events give through the live
controller's own mapping (``companion.table.game``: ``track_tip`` + ``sensed_to_actions``), in the
order they happened; ``compare(...)`` says how that game differs from the logged one.

Order: the store stamps every host action with the trace time of the last sample it had received
(``SessionStore.append_action``); the read loop stores a batch of samples, then hands that batch's
events to the controller. So a host action stamped ``T`` came after every event the pipeline
emitted at a sample ``<= T`` and before the later ones. Sensed actions the rules refuse are
ignored, as live. Events of ``Pipeline.finish()`` are not used for the rules: the live loop never
flushes the pipeline, so the live game never saw them.

Host facts: the pawns the host said fell in a tip whose fall the sensors did not see were handed to
the live pipeline between two feeds (``Pipeline.told_fallen``) and logged as ``told_fallen`` records
stamped with the last sample it had been fed; ``resense`` hands each to its pipeline at the same
point of the trace (after that sample), so that the replay reads the pick-ups that follow as live.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from companion.session.base import REOPEN, UNDO, SessionError
from companion.session.records import ActionRecord
from companion.session.store import SessionStore

NOISY_KEYS = frozenset({"x_mm", "y_mm", "mass_g"})  # measured values: not compared (see compare)


@dataclass
class Resensed:
    """The events of a re-sensed trace: ``emitted`` as (sample t_ms that emitted it, event)."""

    emitted: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    tail: list[dict[str, Any]] = field(default_factory=list)  # from Pipeline.finish()

    def events(self) -> Iterator[dict[str, Any]]:
        """Every event in output order (the emitted ones, then the tail)."""
        yield from (e for _, e in self.emitted)
        yield from self.tail


def told_facts(store: SessionStore, session_id: int) -> list[dict[str, Any]]:
    """The logged ``told_fallen`` records (the host's falls handed to the live pipeline), by ``t_ms``."""
    from companion.table.answers import TOLD_FALLEN

    return [e for e in store.events(session_id)
            if e.get("event") == TOLD_FALLEN and isinstance(e.get("pawns"), dict)]


def resense(store: SessionStore, session_id: int) -> Resensed:
    """Feed the stored trace through a fresh ``Pipeline``, handing it the logged host facts where the
    live one got them (``told_facts``; see the module doc); ``ChunkError`` if a chunk is damaged."""
    from companion.sensing.pipeline import Pipeline

    out = Resensed()
    header = store.trace_header(session_id)
    if header is None:
        return out
    pipe = Pipeline(header)
    told = told_facts(store, session_id)
    for sample in store.samples(session_id):
        while told and told[0]["t_ms"] < sample.t_ms:  # told after an earlier sample was fed
            fact = told.pop(0)
            # logged only when the live pipeline took it: a fresh one that does not track those
            # pawns (live, it had run since start-up) goes on without it
            with contextlib.suppress(ValueError):
                out.emitted.extend((fact["t_ms"], e) for e in pipe.told_fallen(fact["pawns"]))
        out.emitted.extend((sample.t_ms, e) for e in pipe.feed(sample))
    out.tail = pipe.finish()
    return out


@dataclass
class Replayed:
    """The game rebuilt by ``replay_game``: its state and history JSON, and how it went."""

    state: dict[str, Any]
    history: list[dict[str, Any]]
    sensed_applied: int = 0
    sensed_refused: int = 0
    refused_host: str | None = None  # a logged host action the replayed game refused (why)


def _host_rows(store: SessionStore, session_id: int, use_sensor_rows: bool) -> list[ActionRecord]:
    rows = [r for r in store.actions(session_id) if use_sensor_rows or r.source != "sensor"]
    return [r for r in rows if r.action.get("type") != REOPEN]


def replay_game(store: SessionStore, session_id: int, resensed: Resensed) -> Replayed:
    """Rebuild the game from the logged host actions and the re-sensed events (see the module doc).

    A session without a stored trace is rebuilt from all its logged actions. ``SessionError`` if
    the log does not start with ``new_game``.
    """
    from companion.table.game import TIP_STILL, IllegalMove, ModuleGame, track_tip

    game = ModuleGame()
    has_trace = store.trace_header(session_id) is not None
    rows = _host_rows(store, session_id, use_sensor_rows=not has_trace)
    if not rows or rows[0].action.get("type") != "new_game":
        raise SessionError(f"session {session_id}: the log does not start with new_game")
    try:
        match = game.new_match(rows[0].action)
    except (IllegalMove, ValueError) as exc:
        raise SessionError(f"session {session_id}: its new_game is refused: {exc}") from exc
    out = Replayed({}, [])

    def host(rec: ActionRecord) -> None:
        if out.refused_host is not None:
            return
        if rec.action.get("type") == UNDO:
            if game.can_undo(match):
                game.undo(match)
            return
        try:
            game.apply(match, rec.action)
        except (IllegalMove, ValueError, TypeError, KeyError) as exc:
            out.refused_host = f"logged action {rec.seq} ({rec.action.get('type')}) is refused there: {exc}"

    pending = iter(rows[1:])
    nxt = next(pending, None)
    tipping = TIP_STILL
    for t, event in resensed.emitted:
        while nxt is not None and (nxt.t_ms if nxt.t_ms is not None else -1) < t:
            host(nxt)
            nxt = next(pending, None)
        event, tipping = track_tip(event, tipping)
        for proposal in game.actions_for_sensed(event, game.state_json(match)):
            if "action" not in proposal or out.refused_host is not None:
                continue
            try:
                game.apply(match, proposal["action"])
                out.sensed_applied += 1
            except (IllegalMove, ValueError, TypeError, KeyError):
                out.sensed_refused += 1  # live, the controller shows why and goes on
    while nxt is not None:
        host(nxt)
        nxt = next(pending, None)
    out.state = match.state.to_json()  # the game's own JSON, as the logged game gives it
    out.history = game.history_json(match)
    return out


def essence(value: Any) -> Any:
    """``value`` without measured positions and masses (``x_mm``, ``y_mm``, ``mass_g``)."""
    if isinstance(value, dict):
        return {k: essence(v) for k, v in value.items() if k not in NOISY_KEYS}
    if isinstance(value, list):
        return [essence(v) for v in value]
    return value


def compare(logged_history: list[dict], logged_state: dict, replayed: Replayed) -> str | None:
    """None if the replayed game is the logged one, else a sentence naming the first difference.

    Measured positions and masses are left out: a fresh pipeline starts its baseline at the first
    stored sample, while the live one had run since start-up, so they may differ by a few hundredths
    of a gram or tenths of a millimetre without changing any rule.
    """
    if replayed.refused_host is not None:
        return replayed.refused_host
    a, b = essence(logged_history), essence(replayed.history)
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return f"action {i + 1} of the game: logged {_short(x)}, replayed {_short(y)}"
    if len(a) != len(b):
        return f"the logged game has {len(a)} actions, the replayed one {len(b)}"
    if essence(logged_state) != essence(replayed.state):
        return "the same actions give a different state"
    return None


def _short(action: dict) -> str:
    return json.dumps(action, sort_keys=True)[:160]
