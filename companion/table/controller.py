"""The live table controller: one game, its sensing, its log and its watchers, behind one lock.

Everything that changes the table goes through :class:`TableController`: actions from the page,
panel buttons, dice rolls, undo, prompts, simulator commands, and the sensed events coming from
the sample source's read loop (:mod:`companion.table.loop`). Every change makes a new state
*version*, published to the event-stream subscribers as a full message
``{"version", "state", "events", "sensing", "feed", "pending", ...}``; the live centre of
pressure is published separately and throttled (``"live"`` messages, ~10 per second).

The controller composes stages with one job each, built here and handed what they need, a few of its
operations as callables (none reads its fields): the match, feed, session log, sensed events, disc sync,
tip episode, answers, dice and buttons, computer seats, resume, panel health, a clear-disc wait. Its public
methods take the lock (an ``RLock``: a stage may call back into them) and publish; the stages run with
it held, except a computer seat's job, which thinks on its own thread, then takes the lock it was handed.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from typing import Any

__all__ = ["PANEL_BUTTONS", "RECONCILE_AFTER_S", "RECONCILE_SNOOZE_S", "RequestError", "TableController"]

from companion.table.actors import actor_by, actor_for
from companion.table.answers import Answers, UnseenFalls
from companion.table.autoplay import ComputerSeats, thread_runner
from companion.table.buttons import PANEL_BUTTONS, Buttons
from companion.table.computer import THINK_S
from companion.table.corrections import alternatives
from companion.table.current import CurrentMatch
from companion.table.discsync import RECONCILE_AFTER_S, RECONCILE_SNOOZE_S, DiscSync
from companion.table.errors import RequestError
from companion.table.feed import Feed
from companion.table.game import IllegalMove
from companion.table.health import FAULT_CLEAR_S, PanelHealth
from companion.table.hub import Hub, Subscription
from companion.table.newgame import ClearDiscWait, new_match
from companion.table.prompts import UNDO_AFTER_END, PendingPrompts
from companion.table.reconcile import disc_empty
from companion.table.resume import Resume
from companion.table.sensed import SensedEvents
from companion.table.sensingview import SensingView
from companion.table.sessionlog import SessionLog
from companion.table.simcontrol import SimControl


class TableController:
    """Owns one match, the prompts, the event feed and the subscribers (thread-safe, one lock)."""

    def __init__(
        self,
        game: Any,
        *,
        store: Any = None,
        header: Any = None,
        panel: Any = None,
        simulator: Any = None,
        sensing: Callable[[], dict] | None = None,
        rng: random.Random | None = None,
        clock: Callable[[], float] = time.time,
        live_interval_s: float = 0.1,
        mode: str = "sim",
        fault_clear_s: float = FAULT_CLEAR_S,
        computer_runner: Callable[[Callable[[], None]], None] | None = None,
        computer_think_s: float = THINK_S,
    ) -> None:
        """Wire a controller around a game adapter; every other part is optional.

        ``computer_runner`` runs a computer seat's decision (default: on its own thread);
        ``computer_think_s``: its search's thinking time."""
        self._game = game
        self._current = CurrentMatch(game)
        self._store = store
        self.sim = SimControl(simulator) if simulator is not None else None
        self._view = SensingView(header, sensing)
        self._rng = rng or random.SystemRandom()
        self._clock = clock
        self._live_interval_s = live_interval_s
        self._last_live = 0.0
        self.mode = mode
        self._lock = threading.RLock()
        self._hub = Hub()
        self._version = 0
        self._feed = Feed(clock)
        self._pending = PendingPrompts()
        self._status: dict[str, str] = {}
        self._session = SessionLog(store, self._status)
        self._health = PanelHealth(self._status, panel, fault_clear_s)
        self._seats = ComputerSeats(self._current, self._lock, self._rng, self._status,
                                    apply=self._apply_locked, changed=self._changed,
                                    runner=computer_runner or thread_runner, think_s=computer_think_s)
        self._buttons = Buttons(self._current, self._rng, self._pending,
                                apply=self.apply, resolve=self.resolve_prompt)
        self._disc = DiscSync(self._current, self._pending, self._feed, clock,
                              apply=self._apply_locked, log_events=self._session.events)
        self._clear_disc = ClearDiscWait(self._pending, self._feed, start=self._start_game)
        self._falls = UnseenFalls(self._current, self._pending, self._feed, log_events=self._session.events)
        self._sensed = SensedEvents(self._current, self._feed, self._health, self._falls, self._disc,
                                    self._session)
        self._answers = Answers(self._current, self._pending, self._feed,
                                apply=self._apply_locked, told=self._falls.host_said)
        self._resume = Resume(store, self._current, self._status, self._pending, self._feed,
                              adopt=self._adopt, back_to_setup=self._back_to_setup)

    @property
    def _match(self) -> Any:
        """The match now (tests read it)."""
        return self._current.match

    # -- reading -------------------------------------------------------------------------------

    @property
    def version(self) -> int:
        """The current state version (grows by one per change)."""
        with self._lock:
            return self._version

    @property
    def session_id(self) -> int | None:
        """The session-log id of the current game (None without a log or a game)."""
        with self._lock:
            return self._session.session_id

    def message(self, events: list[dict] | None = None) -> dict:
        """The full message for the page: version, state, new events, feed, prompts, sensing."""
        with self._lock:
            return {
                "version": self._version,
                "mode": self.mode,
                "state": self._current.state(),
                "events": list(events or []),
                "feed": self._feed.to_json(),
                "pending": self._pending.to_json(),
                "status": dict(self._status),
                "sensing": self._view.snapshot(),
                "can_undo": self._game.can_undo(self._current.match) and self._session.reopenable,
                "layout": self._view.layout_json(),
                "session_id": self._session.shown_id,
                "summary": self._current.summary(),
                "computer": self._seats.to_json(),
            }

    def current(self) -> tuple[str, Any, int]:
        """(game name, the rules core's current state, state version) for a search outside the lock;
        RequestError 409 when no game has started."""
        with self._lock:
            if self._current.match is None:
                raise RequestError("no game yet: start a new game first", 409)
            return str(self._current.state().get("game")), self._current.match.state, self._version

    def games(self) -> list[dict]:
        """The games this table can start (name, title, scoring, setup spec), for the start screen."""
        catalogue = getattr(self._game, "catalogue", None)
        return catalogue() if catalogue is not None else []

    def subscribe(self, kinds: tuple[str, ...] | None = None) -> tuple[Subscription, dict]:
        """A new subscription (to ``kinds`` only, if given) and the snapshot it starts from (atomically)."""
        with self._lock:
            return self._hub.subscribe(kinds), self.message()

    def unsubscribe(self, sub: Subscription) -> None:
        """Stop sending to ``sub``."""
        self._hub.unsubscribe(sub)

    @property
    def subscriber_count(self) -> int:
        """How many event-stream clients are connected."""
        return len(self._hub)

    def close(self) -> None:
        """End every subscriber's stream and flush the log (shutdown)."""
        self._hub.close_all()
        self._session.flush()

    # -- changing ------------------------------------------------------------------------------

    def new_game(self, setup: Any, *, source: str = "page") -> dict:
        """Start a new game from a ``new_game`` action (players, version, options).

        A Dingo Disc game starts on an empty disc: with pawns still sensed on it, a "clear the disc"
        card waits (the game starts by itself once the disc is empty and still; ``start_anyway: true``
        in the setup, or the card's "Start anyway", starts it at once).
        """
        with self._lock:
            if isinstance(setup, dict):
                setup = dict(setup)
                anyway = setup.pop("start_anyway", False) is True
                if not anyway and setup.get("game", "dingo-disc") == "dingo-disc" \
                        and disc_empty(self._view.snapshot()) is False:
                    new_match(self._game, setup)  # refuse a bad setup now, not when the disc is clear
                    return self._changed(self._clear_disc.wait(setup))
            return self._start_game(setup, source)

    def _start_game(self, setup: Any, source: str) -> dict:
        with self._lock:
            match = new_match(self._game, setup)
            self._session.end(abandon=True)
            self._current.begin(match, round(self._clock(), 3))
            self._pending.clear()
            self._disc.reset()
            self._clear_disc.forget()
            self._feed.clear()
            self._falls.reset()
            self._seats.reset()
            first = self._current.history()[0]
            self._session.start(first, self._view.header)
            entry = self._feed.add({"event": "action"}, self._current.describe(first))
            return self._changed([entry])

    def apply(self, action: Any, *, source: str = "page", sensed: list[dict] | None = None,
              by: str | None = None) -> dict:
        """Apply one action (its JSON form); RequestError (400 bad, 409 illegal) changes nothing.

        ``by``: the logged actor when not the source's own (``"companion"`` for its dice).
        """
        if isinstance(action, dict) and action.get("type") == "new_game":
            return self.new_game(action, source=source)
        with self._lock:
            unseen = self._falls.unseen_fall(action) if source != "sensor" else None
            try:
                entry = self._apply_locked(action, source, sensed or [], by)
            except RequestError as exc:
                if exc.status == 409 and source != "sensor":  # a wrong answer: offer the legal ones
                    exc.extra["alternatives"] = alternatives(
                        self._current.match, action, self._current.state())
                raise
            self._falls.host_fell(unseen)  # a fall no sensor saw: its pawns lie on the base plate
            return self._changed([entry])

    def undo(self, *, source: str = "page") -> dict:
        """Take back the last action (not the new_game)."""
        with self._lock:
            if not self._game.can_undo(self._current.match):
                raise RequestError("nothing to undo", 409)
            if self._session.closed and not self._session.reopen(source):  # undo after the end
                raise RequestError(UNDO_AFTER_END, 409)
            undone = self._game.undo(self._current.match)
            self._current.ended_at = None
            self._seats.undone()
            if self._session.recording:
                actor = actor_for(actor_by(source), undone, self._current.state())
                self._session.action({"type": "undo"}, source=source, actor=actor)
            text = "Undone: " + self._current.describe(undone, applied=False)
            entry = self._feed.add({"event": "undo"}, text)
            return self._changed([entry])

    def resume_unfinished(self) -> int | None:
        """Continue the newest unfinished logged game (after a crash or restart); its id or None.

        The host is asked on the page whether to continue it or abandon it (a ``resume`` prompt).
        """
        if self._store is None:
            return None
        with self._lock:
            sid = self._resume.resume()
            if sid is not None:
                self._changed([])
            return sid

    def abandon(self, *, source: str = "page") -> dict:
        """Give up the game in progress (logged as abandoned, kept in history); back to the set-up."""
        with self._lock:
            return self._changed([self._resume.abandon()])

    def roll(self, *, source: str = "page") -> dict:
        """Roll what the game expects now (SystemRandom) and apply it as an action (logged)."""
        with self._lock:
            return self._buttons.roll(source)

    def enter_roll(self, body: dict, *, source: str = "page") -> dict:
        """Apply dice read from physical dice: ``{"number": n, "colour": c}`` (or colour only)."""
        with self._lock:
            return self._buttons.enter_roll(body, source)

    def press_button(self, button: str, *, source: str = "panel") -> dict:
        """A panel button (physical or on the page): roll, confirm (the obvious yes), undo."""
        if button not in PANEL_BUTTONS:
            raise RequestError(f"unknown button {button!r}; expected one of {list(PANEL_BUTTONS)}", 404)
        if button != "confirm":
            return self.roll(source=source) if button == "roll" else self.undo(source=source)
        with self._lock:
            return self._buttons.confirm(source)

    def sim_command(self, command: str, body: dict) -> dict:
        """Drive the simulated table (place, press, bump, knock, remove, fault)."""
        if self.sim is None:
            raise RequestError("no simulated table: the companion runs on real hardware", 404)
        with self._lock:
            layout = self._view.layout()
        result = self.sim.request(command, body, layout)
        with self._lock:
            entry = self._feed.add({"event": "sim"}, f"Simulator: {result['text']}")
            message = self._changed([entry])
        return {**message, "sim": result}

    def sensed(self, events: list[dict]) -> None:
        """Take sensed events from the pipeline: log them, map them to actions or prompts, publish."""
        if not events:
            return
        with self._lock:
            self._changed(self._sensed.take(events))

    def samples(self, samples: list) -> None:
        """Raw samples from the source, for the session log's trace."""
        if self._store is None or not samples:
            return
        with self._lock:
            sid = self._session.session_id
        if sid is not None and self._view.header is not None:
            self._session.write(lambda: self._store.append_samples(sid, samples))

    def source_fault(self, kind: str, message: str, cell: int | None = None) -> None:
        """Show a sample-source fault (disconnected, late, ...) on the page and the panel."""
        with self._lock:
            if not self._health.reported("source" if cell is None else f"cell{cell}", message):
                return
            entry = self._feed.add({"event": "source_fault"}, message)
            self._changed([entry])  # the status LED turns to "fault" there

    def attach_panel(self, panel: Any) -> None:
        """Use ``panel`` (show_turn, signal_fall, set_status) from now on."""
        with self._lock:
            self._health.attach(panel)

    def add_status(self, key: str, message: str) -> None:
        """Show a lasting status line (e.g. a part that failed to start)."""
        with self._lock:
            self._status[key] = message
            self._changed([])

    def clear_status(self, key: str) -> None:
        """Forget a status line once its cause is gone."""
        with self._lock:
            if self._status.pop(key, None) is not None:
                self._changed([])  # the status LED follows there

    def panel_status(self, kind: str) -> None:
        """Force ``running``, ``fault``, ``waiting`` or ``off`` on the panel's status LED (if any)."""
        with self._lock:
            self._health.force(kind)

    def health_tick(self, samples_flow: bool) -> None:
        """Clear the faults that are over (see :class:`FaultClock`) and set the status LED."""
        with self._lock:
            gone = self._health.over(self._view.snapshot().get("faults") or {}, samples_flow)
            for text in gone:
                self._feed.add({"event": "fault_cleared"}, text)
            sensing = self._view.snapshot()
            checked = self._clear_disc.check(sensing) or self._disc.check(sensing)
            if gone or checked:
                self._changed(checked)
            else:
                self._health.led(self._current.state(), self._pending.to_json())

    def resolve_prompt(self, prompt_id: str, choice: str, *, pawns: Any = None, source: str = "page") -> dict:
        """Answer a pending prompt (e.g. 'which size was placed?'); ``pawns``: the counts by size of a
        choice answered with counts (``These pawns fell``). A bad answer changes nothing."""
        with self._lock:
            return self._changed(self._answers.resolve(prompt_id, choice, pawns, source))

    def tell_pipeline(self, pipeline: Any, t_ms: int | None) -> list[dict]:
        """On the read-loop thread, between two feeds: hand ``pipeline`` the host's falls the sensors
        did not see, logged at ``t_ms`` (see :meth:`UnseenFalls.tell`); the events it gave (none)."""
        if not self._falls.owed:  # (read without the lock: the loop asks ten times a second)
            return []
        with self._lock:
            events, entries = self._falls.tell(pipeline, t_ms)
            if entries:
                self._changed(entries)
            return events

    def use_sensing(self, header: Any, sensing: Callable[[], dict]) -> None:
        """A new trace header and live view (a new pipeline, e.g. after a calibration)."""
        with self._lock:
            self._view.use(header, sensing)
            self._changed([])

    def live_tick(self, force: bool = False) -> bool:
        """Publish the live sensing view if someone listens and the throttle allows; True if sent."""
        now = time.monotonic()
        if not force and (now - self._last_live < self._live_interval_s or not self._hub.wants("live")):
            return False
        self._last_live = now
        with self._lock:
            payload = {"version": self._version, "sensing": self._view.snapshot()}
        self._hub.publish("live", payload)
        return True

    # -- internals (call with the lock held) ---------------------------------------------------

    def _adopt(self, match: Any, session_id: int, started_at: float | None) -> None:
        """Play a logged game from where its log is (a resume)."""
        self._current.begin(match, started_at)
        self._session.resumed(session_id)
        self._seats.reset()

    def _back_to_setup(self) -> int | None:
        """Abandon the game in progress in the log and go back to the set-up; its session id."""
        sid = self._session.session_id
        self._session.end(abandon=True)
        self._current.match = self._game.new_match(None)
        self._seats.reset()
        self._pending.clear()
        self._falls.reset(keep_mark=True)
        self._session.closed = False
        return sid

    def _apply_locked(self, action: Any, source: str, sensed: list[dict], by: str | None = None) -> dict:
        if isinstance(action, dict) and action.get("type") == "new_game":
            raise RequestError("a new game cannot be started from here", 400)
        before = self._current.state()
        try:
            applied = self._game.apply(self._current.match, action)
        except IllegalMove as exc:
            raise RequestError(str(exc), 409, rule=exc.rule, reason=exc.reason) from exc
        except (ValueError, TypeError, KeyError) as exc:
            raise RequestError(f"bad action: {exc}") from exc
        text = self._current.describe(applied)
        self._seats.acted(source)
        if self._session.recording:
            t_ms = next((e["t_ms"] for e in sensed if isinstance(e.get("t_ms"), int)), None)
            actor = actor_for(actor_by(source, by), applied, before)
            self._session.action(applied, source=source, actor=actor, sensed=sensed, t_ms=t_ms)
        self._pending.resolve_for(applied)
        self._maybe_finish()
        return self._feed.add({"event": "action"}, text)

    def _changed(self, entries: list[dict]) -> dict:
        entries = entries + self._disc.retry() + self._falls.drop_stale()
        job = self._seats.schedule()
        self._version += 1
        message = self.message(entries)
        self._hub.publish("change", message)
        if job is not None:
            self._seats.run(job)
        self._health.published(message)
        return message

    def _maybe_finish(self) -> None:
        state = self._current.state()
        if state.get("phase") != "over":
            self._current.ended_at = None
        else:  # the log's session ends, with the game's ranking and outcome
            self._current.over(self._session.finish(state), self._clock)

