"""The table controller's stages on their own: each is built with what it is handed (plain objects,
small fakes and callables) and nothing of the controller."""

from __future__ import annotations

import threading

import pytest

from companion.table.answers import TOLD_FALLEN, Answers, UnseenFalls
from companion.table.autoplay import ComputerSeats
from companion.table.buttons import Buttons
from companion.table.current import CurrentMatch
from companion.table.errors import RequestError
from companion.table.feed import Feed
from companion.table.game import TIP_STILL, TIP_TIPPED, DingoDiscGame
from companion.table.health import PanelHealth
from companion.table.newgame import ClearDiscWait, new_match
from companion.table.prompts import NO_FALL_PROMPT, PendingPrompts
from companion.table.resume import Resume
from companion.table.sensingview import SensingView
from companion.table.sessionlog import SessionLog

EMPTY_DISC = {"still": True, "faults": {}, "tilt": 0.0, "pawns": [], "mass_g": 0.0}
PAWN_ON_DISC = {**EMPTY_DISC, "pawns": [{"size": "small"}], "mass_g": 2.0}


class Clock:
    def __init__(self, t: float = 100.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


class StubGame:
    """A game adapter whose match is its state JSON (a dict the test sets)."""

    def new_match(self, setup):
        return {"phase": "setup", "expected": {"kind": "new_game"}} if setup is None else dict(setup)

    def state_json(self, match):
        return match

    def history_json(self, match):
        return match.get("history", [])

    def roll_action(self, state, rng):
        return {"type": "roll", "number": 4} if (state.get("expected") or {}).get("kind") == "roll" else None


def _current(**state) -> CurrentMatch:
    current = CurrentMatch(StubGame())
    if state:
        current.match = state
    return current


class Calls:
    """A callable recording its calls, returning ``result``."""

    def __init__(self, result=None) -> None:
        self.calls: list[tuple] = []
        self.result = result

    def __call__(self, *args, **kwargs):
        self.calls.append((args, kwargs))
        return self.result


# -- the shared parts --------------------------------------------------------------------------

def test_the_feed_keeps_the_newest_lines_first_stamped_by_its_clock():
    clock = Clock()
    feed = Feed(clock, length=2)
    feed.add({"event": "placed", "t_ms": 5}, "one")
    clock.t = 101.23456
    feed.add({}, "two")
    feed.add({"event": "tipped"}, "three")
    assert feed.to_json() == [{"at": 101.235, "kind": "tipped", "text": "three"},
                              {"at": 101.235, "kind": "info", "text": "two"}]
    feed.clear()
    assert feed.to_json() == []


def test_the_current_match_is_replaced_and_its_span_kept():
    current = CurrentMatch(DingoDiscGame())
    assert current.state()["expected"]["kind"] == "new_game"
    match = DingoDiscGame().new_match({"version": 1, "players": ["A", "B"]})
    current.begin(match, 10.0)
    assert current.history()[0]["type"] == "new_game" and current.ended_at is None
    current.over(None, Clock(20.0))
    current.over(None, Clock(30.0))  # it had ended already
    assert (current.started_at, current.ended_at) == (10.0, 20.0)
    current.over((1.23456, 2.5), Clock())
    assert current.summary()["started_at"] == 1.235 and current.summary()["ended_at"] == 2.5


class Store:
    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def start_session(self, *, setup, header=None):
        self.calls.append(("start", setup["type"], header))
        return 3

    def append_events(self, sid, events):
        self.calls.append(("events", sid, [e["event"] for e in events]))

    def end_session(self, sid, *, ranking=None, outcome=None):
        self.calls.append(("end", sid, ranking))

    def abandon(self, sid):
        self.calls.append(("abandon", sid))

    def reopen(self, sid, *, source, actor):
        self.calls.append(("reopen", sid, source))

    def actions(self, sid):
        return []


def test_the_session_log_without_a_store_says_so_and_writes_nothing():
    status: dict[str, str] = {}
    session = SessionLog(None, status)
    assert "not being saved" in status["log"]
    session.start({"type": "new_game"}, None)
    session.events([{"event": "hand", "t_ms": 1}])
    assert not session.recording and session.session_id is None and session.finish({}) is None


def test_the_session_log_starts_ends_and_reopens_a_session():
    store, status = Store(), {}
    session = SessionLog(store, status)
    session.start({"type": "new_game"}, "header")
    assert session.recording and session.shown_id == 3 and ("start", "new_game", "header") in store.calls
    session.events([{"event": "hand", "t_ms": 1}, {"event": "no time"}])
    session.events([{"event": "no time"}])  # nothing to write
    session.events([{"event": "no time"}], even_none=True)
    assert [c for c in store.calls if c[0] == "events"] == [("events", 3, ["hand"]), ("events", 3, [])]
    session.finish({"players": [{"rank": 2}, {"rank": 1}]})
    assert ("end", 3, [2, 1]) in store.calls
    assert session.closed and not session.recording and session.shown_id == 3 and session.reopenable
    assert session.reopen("page") and session.session_id == 3 and not session.closed
    assert status == {}


def test_a_failing_log_write_is_said_in_the_status_lines_and_never_raised():
    status: dict[str, str] = {}
    session = SessionLog(Store(), status)

    def fail():
        raise OSError("disk full")

    assert session.write(fail) is False
    assert "failing" in status["log"]


def test_the_sensing_view_reads_a_failing_pipeline_as_empty():
    def broken():
        raise RuntimeError("boom")

    view = SensingView(None, broken)
    assert view.snapshot() == {} and view.layout() is None and view.layout_json() is None
    view.use(None, lambda: {"still": True})
    assert view.snapshot() == {"still": True}
    assert SensingView(None, None).snapshot() == {}


# -- the stages --------------------------------------------------------------------------------

def test_buttons_confirm_the_obvious_yes_else_answer_the_oldest_prompt():
    apply, resolve = Calls({"applied": True}), Calls({"resolved": True})
    pending = PendingPrompts()
    current = _current(game="dingo-disc", expected={"kind": "end_game"})
    buttons = Buttons(current, rng=None, pending=pending, apply=apply, resolve=resolve)
    buttons.confirm("panel")
    assert apply.calls == [(({"type": "end_game"},), {"source": "panel"})]
    current.match = {"game": "dingo-disc", "expected": {"kind": "place"}}
    with pytest.raises(RequestError) as err:
        buttons.confirm("panel")
    assert err.value.status == 409
    prompt = pending.add({"kind": "ask", "choices": {"Yes": None, "No": None}})
    buttons.confirm("panel")
    assert resolve.calls == [((prompt["id"], "Yes"), {"source": "panel"})]


def test_buttons_roll_only_when_the_game_expects_dice():
    apply = Calls({})
    current = _current(expected={"kind": "roll"})
    buttons = Buttons(current, rng=None, pending=PendingPrompts(), apply=apply, resolve=Calls())
    buttons.roll("page")
    assert apply.calls == [(({"type": "roll", "number": 4},), {"source": "page", "by": "companion"})]
    current.match = {"expected": {"kind": "place"}}
    with pytest.raises(RequestError, match="place"):
        buttons.roll("page")
    with pytest.raises(RequestError, match="place"):
        buttons.enter_roll({"number": 3}, "page")


def test_the_computer_seats_stage_of_a_game_without_them_schedules_nothing():
    status = {"computer": "the computer could not move"}
    seats = ComputerSeats(_current(phase="play"), threading.RLock(), rng=None, status=status,
                          apply=Calls(), changed=Calls(), runner=Calls(), think_s=0.0)
    assert seats.to_json() is None and seats.schedule() is None
    seats.acted("computer")
    assert "computer" in status  # its own move does not clear what it said
    seats.acted("page")
    assert status == {}


def test_a_new_game_waits_for_the_disc_to_be_cleared_then_starts():
    pending, start = PendingPrompts(), Calls()
    wait = ClearDiscWait(pending, Feed(Clock()), start=start)
    setup = {"players": ["A", "B"]}
    lines = wait.wait(setup)
    assert [p["kind"] for p in pending.items()] == ["clear_disc"] and lines[0]["kind"] == "prompt"
    assert wait.check(PAWN_ON_DISC) == [] and wait.check({}) == [] and start.calls == []
    assert wait.check(EMPTY_DISC)[0]["text"] == "The disc is clear: the new game starts"
    assert start.calls == [((setup, "sensor"), {})] and pending.items() == [] and wait.setup is None


def test_the_clear_disc_card_starts_anyway_or_cancels():
    pending, start = PendingPrompts(), Calls()
    wait = ClearDiscWait(pending, Feed(Clock()), start=start)
    wait.wait({"players": ["A"]})
    pending.items()[0]["choices"]["Cancel the new game"]("page")
    assert wait.setup is None and wait.check(EMPTY_DISC) == []
    wait.wait({"players": ["B"]})
    pending.items()[0]["choices"]["Start anyway"]("page")
    assert start.calls == [(({"players": ["B"]}, "page"), {})]


def test_a_bad_set_up_is_refused_before_anything_changes():
    with pytest.raises(RequestError) as err:
        new_match(DingoDiscGame(), {"version": 1, "players": ["Only one"]})
    assert err.value.status in (400, 409)


class Panel:
    def __init__(self, fail: bool = False) -> None:
        self.calls: list[tuple] = []
        self.fail = fail

    def set_status(self, kind):
        self.calls.append(("status", kind))

    def signal_fall(self):
        if self.fail:
            raise OSError("gpio gone")
        self.calls.append(("fall",))


def test_panel_health_keeps_the_fault_lines_and_clears_them_when_quiet():
    now = Clock(0.0)
    status: dict[str, str] = {}
    health = PanelHealth(status, Panel(), clear_s=3.0, monotonic=now)
    assert health.reported("cell2", "sensor fault: cell 2 stuck")
    assert not health.reported("cell2", "sensor fault: cell 2 stuck")  # the same line again
    assert health.over({}, samples_flow=True) == []  # not quiet for long enough
    now.t = 5.0
    assert health.over({"2": "stuck"}, samples_flow=True) == []  # the pipeline still lists it
    assert health.over({}, samples_flow=True) == ["Sensor fault over: cell 2"] and status == {}


def test_panel_health_drives_the_panel_and_survives_its_failures():
    panel = Panel(fail=True)
    health = PanelHealth({}, None)
    health.tipped()
    health.force("off")  # no panel: nothing happens
    health.attach(panel)
    health.tipped()  # the panel fails: logged, not raised
    health.force("fault")
    health.force("fault")  # set once per change of pattern
    assert panel.calls == [("status", "fault")]


def _falls(**state) -> tuple[UnseenFalls, PendingPrompts, Calls, CurrentMatch]:
    pending, log_events = PendingPrompts(), Calls()
    current = _current(history=[{"type": "new_game"}], **state)
    return UnseenFalls(current, pending, Feed(Clock()), log_events=log_events), pending, log_events, current


class Pipeline:
    def __init__(self, refuse: bool = False) -> None:
        self.told: list[dict] = []
        self.refuse = refuse

    def told_fallen(self, counts):
        if self.refuse:
            raise ValueError("those pawns are not tracked")
        self.told.append(counts)
        return []


def test_the_tip_episode_hands_the_hosts_unseen_fall_to_the_pipeline_and_logs_it():
    falls, _, log_events, _ = _falls()
    assert falls.see({"event": "tipped"}) == {"event": "tipped"} and falls.tipping == TIP_TIPPED
    assert falls.see({"event": "settled"})["no_fall_seen"] is True and falls.tipping == TIP_STILL
    assert not falls.owed
    falls.host_said({"small": 2})
    assert falls.owed
    pipeline = Pipeline()
    assert falls.tell(pipeline, 1200) == ([], [])
    assert pipeline.told == [{"small": 2, "medium": 0, "large": 0}] and not falls.owed
    assert log_events.calls == [(([{"event": TOLD_FALLEN, "t_ms": 1200,
                                    "pawns": {"small": 2, "medium": 0, "large": 0}}],), {})]
    falls.host_said({"large": 1})
    events, lines = falls.tell(Pipeline(refuse=True), 1300)
    assert events == [] and "cannot set 1 large aside" in lines[0]["text"]


def test_a_fall_entered_during_the_tip_is_told_once_it_settles_with_no_fall_seen():
    falls, _, _, current = _falls()
    falls.see({"event": "tipped"})
    unseen = falls.unseen_fall({"type": "fall", "pawns": {"medium": 1}})
    assert unseen == "tip"
    current.match["history"] = [{"type": "new_game"}, {"type": "fall", "pawns": {"medium": 1}}]
    falls.host_fell(unseen)
    assert not falls.owed
    falls.see({"event": "settled"})
    assert falls.owed


def test_the_no_fall_question_is_dropped_once_the_game_moved_on():
    falls, pending, _, current = _falls(phase="play", current=0)
    pending.add({"kind": NO_FALL_PROMPT, "seat": 0, "choices": {"Nothing fell": None}})
    assert falls.drop_stale() == []
    current.match["current"] = 1
    assert "closed" in falls.drop_stale()[0]["text"] and pending.items() == []


def test_answers_take_the_hosts_choice_and_refuse_a_bad_one():
    pending, apply, told = PendingPrompts(), Calls({"kind": "action", "text": "applied"}), Calls()
    answers = Answers(_current(disc={"small": 1}), pending, Feed(Clock()), apply=apply, told=told)
    with pytest.raises(RequestError) as err:
        answers.resolve("p99", "Yes", None, "page")
    assert err.value.status == 404
    chosen = Calls({"kind": "info", "text": "done"})
    prompt = pending.add({"kind": "ask", "title": "Sure?", "choices": {"Yes": chosen, "No": None}})
    with pytest.raises(RequestError):
        answers.resolve(prompt["id"], "Maybe", None, "page")
    lines = answers.resolve(prompt["id"], "Yes", None, "panel")
    assert chosen.calls == [(("panel",), {})] and lines[-1]["text"] == "Sure? Yes" and pending.items() == []
    asked = pending.add({"kind": NO_FALL_PROMPT, "title": "Fell?", "choices": {
        "These pawns fell": {"type": "fall"}}, "counts": {"choice": "These pawns fell", "max": {"small": 1}}})
    with pytest.raises(RequestError, match="pawns"):
        answers.resolve(asked["id"], "These pawns fell", None, "page")
    answers.resolve(asked["id"], "These pawns fell", {"small": 1}, "page")
    assert apply.calls == [(({"type": "fall", "pawns": {"small": 1}}, "page", []), {})]
    assert told.calls == [(({"small": 1},), {})]


def test_resume_says_when_the_log_cannot_be_read_and_abandons_only_a_game_in_progress():
    class Damaged:
        def unfinished(self):
            raise OSError("database disk image is malformed")

    status: dict[str, str] = {}
    back = Calls(5)
    current = _current()
    resume = Resume(Damaged(), current, status, PendingPrompts(), Feed(Clock()),
                    adopt=Calls(), back_to_setup=back)
    assert resume.resume() is None and "could not resume" in status["log"]
    with pytest.raises(RequestError, match="no game in progress"):
        resume.abandon()
    current.match = {"phase": "over"}
    with pytest.raises(RequestError, match="over and saved"):
        resume.abandon()
    current.match = {"phase": "play"}
    assert "session 5" in resume.abandon()["text"] and back.calls == [((), {})]
