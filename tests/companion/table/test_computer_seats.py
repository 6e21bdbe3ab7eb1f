"""Issue 18: a seat the computer plays by itself (Pinuid Dobbal), through the controller and the real log.

The dice stay real (the tests enter them, or let the companion roll); the computer decides every other
step of its seat, logged as the companion's actions with the seed that derives its choice again.
"""

from __future__ import annotations

import random

import pytest

from companion.session import SessionStore
from companion.table.computer import rederive
from companion.table.controller import TableController
from companion.table.game import DingoDiscGame, game_json


class Jobs:
    """A computer runner the test drives: decisions wait here until ``run()``."""

    def __init__(self) -> None:
        self.pending: list = []

    def __call__(self, job) -> None:
        self.pending.append(job)

    def run(self) -> int:
        n = 0
        while self.pending:
            self.pending.pop(0)()
            n += 1
        return n


def _table(tmp_path, seed: int = 1):
    store = SessionStore(tmp_path)
    jobs = Jobs()
    c = TableController(DingoDiscGame(), store=store, rng=random.Random(seed), computer_runner=jobs,
                        computer_think_s=0.02)
    return c, jobs, store


def _setup(seat_1: str, seat_2: str, **options) -> dict:
    return {"type": "new_game", "game": "pinuid-dobbal", "players": ["Anna", "Bot"],
            "options": {"seat_1": seat_1, "seat_2": seat_2, **options}}


def _state(c: TableController) -> dict:
    return c.message()["state"]


def _play(c: TableController, jobs: Jobs, person, dice: random.Random, max_steps: int = 3000) -> None:
    """Play to the end: real dice entered by the host (or rolled by the companion), ``person(state)``
    choosing the person's moves, the computer's decisions run as they come."""
    for i in range(max_steps):
        jobs.run()
        state = _state(c)
        if state["phase"] == "over":
            return
        if state["to_move"]["chance"]:
            if i % 2:
                faces = 3 if state["options"]["dice"] == "1-3" else 6
                c.apply({"type": "roll", "dice": [dice.randint(1, faces) for _ in range(3)]})  # real dice
            else:
                c.roll()  # the companion rolls on request
            continue
        seat = state["to_move"]["seats"][0]
        assert c.message()["computer"]["seats"].get(str(seat)) is None, "the computer's step waited"
        c.apply(person(state))
    raise AssertionError("the game did not end")


def test_the_computer_plays_its_seat_by_itself_and_waits_for_the_dice(tmp_path):
    c, jobs, store = _table(tmp_path)
    c.new_game(_setup("person", "computer-greedy"))
    msg = c.message()
    assert msg["computer"]["seats"] == {"1": "greedy"} and msg["computer"]["thinking"] is None
    assert not jobs.pending  # Anna's dice first: nobody decides during a roll
    c.apply({"type": "roll", "dice": [1, 2, 3]})
    assert not jobs.pending and _state(c)["to_move"]["seats"] == [0]  # Anna moves herself
    while _state(c)["to_move"]["seats"] == [0] and not _state(c)["to_move"]["chance"]:
        c.apply(_state(c)["legal"][0]["action"])
    c.apply({"type": "roll", "dice": [2, 2, 1]})  # Bot's dice, entered by the host
    assert c.message()["computer"]["thinking"] == {"seat": 1, "name": "Bot", "strength": "greedy"}
    assert len(jobs.pending) == 1
    jobs.run()  # Bot decides every step of its turn by itself, one after the other
    msg = c.message()
    assert msg["state"]["to_move"]["chance"] or msg["state"]["phase"] == "over"
    assert msg["computer"]["thinking"] is None and msg["computer"]["last"]["seat"] == 1
    assert msg["computer"]["last"]["text"].startswith("Computer (greedy): ")
    rows = store.actions(c.session_id)
    mine = [r for r in rows if r.actor and r.actor.startswith("companion: Bot")]
    assert mine and all(r.sensed and r.sensed[0]["event"] == "computer" for r in mine)
    assert any(f["text"].startswith("Computer (greedy): ") for f in msg["feed"])
    store.close()


@pytest.mark.parametrize("strength", ["random", "greedy", "mcts"])
def test_a_person_against_the_computer_runs_to_the_end_and_the_log_replays_it(tmp_path, strength):
    c, jobs, store = _table(tmp_path, seed=3)
    c.new_game(_setup("person", f"computer-{strength}"))
    person_rng = random.Random(5)
    _play(c, jobs, lambda s: person_rng.choice([la["action"] for la in s["legal"]]), random.Random(7))
    final = c.message()
    assert final["state"]["phase"] == "over" and final["state"]["outcome"]["winners"]
    sid = final["session_id"]
    info = store.session(sid)
    assert info.status == "finished" and info.ranking is not None
    replayed = DingoDiscGame().replay(store.effective_actions(sid))
    assert game_json(DingoDiscGame().state_json(replayed)) == game_json(final["state"])
    _each_computer_move_derives_again(store, sid)
    store.close()


def _each_computer_move_derives_again(store: SessionStore, sid: int) -> int:
    """Every logged computer move is what its logged seed (and iterations) choose in the state it met."""
    game = DingoDiscGame()
    actions = store.effective_actions(sid)
    records = {}
    effective = []
    for rec in store.actions(sid):  # which effective action each row is (undo rows pop)
        if rec.action.get("type") == "undo":
            if len(effective) > 1:
                effective.pop()
        elif rec.action.get("type") != "reopen":
            effective.append(rec)
    for i, rec in enumerate(effective):
        if rec.sensed and rec.sensed[0].get("event") == "computer":
            records[i] = rec.sensed[0]
    assert records
    match = game.replay(actions[:1])
    for i, action in enumerate(actions[1:], start=1):
        if i in records:
            assert rederive(match.state, records[i]).to_json() == action
        game.apply(match, action)
    return len(records)


def test_the_computer_plays_the_computer_to_the_end_with_real_dice(tmp_path):
    c, jobs, store = _table(tmp_path, seed=11)
    c.new_game(_setup("computer-random", "computer-mcts", dice="1-6"))

    def nobody(state):
        raise AssertionError(f"a person was asked to move: {state['next']}")

    _play(c, jobs, nobody, random.Random(13))
    final = c.message()
    assert final["state"]["phase"] == "over"
    rows = store.actions(final["session_id"])
    by = {r.actor.split(":")[0] for r in rows[1:] if r.actor}
    assert by <= {"companion", "host"}  # the companion's moves and rolls, the host's entered dice
    assert _each_computer_move_derives_again(store, final["session_id"]) > 10
    replayed = DingoDiscGame().replay(store.effective_actions(final["session_id"]))
    assert game_json(DingoDiscGame().state_json(replayed)) == game_json(final["state"])
    store.close()


def test_undo_takes_the_computers_move_back_and_it_waits_until_asked(tmp_path):
    c, jobs, store = _table(tmp_path)
    c.new_game(_setup("computer-greedy", "person"))
    c.apply({"type": "roll", "dice": [1, 2, 3]})
    jobs.run()
    moved = _state(c)
    assert moved["to_move"]["chance"]  # the computer made its whole turn
    before_last = c.message()["version"]
    c.undo()
    msg = c.message()
    assert msg["computer"]["paused"] is True and not jobs.pending  # it does not redo the move at once
    assert msg["version"] == before_last + 1 and not msg["state"]["to_move"]["chance"]
    c.undo()
    assert not jobs.pending
    from companion.table.computer import computer_move

    computer_move(c, "greedy", seconds=0.02)  # "Computer plays this step": it plays on by itself
    assert c.message()["computer"]["paused"] is False
    jobs.run()
    assert _state(c)["to_move"]["chance"]
    store.close()


def test_a_move_made_while_the_computer_thinks_wins_and_the_computer_thinks_again(tmp_path):
    c, jobs, store = _table(tmp_path)
    c.new_game(_setup("computer-random", "person"))
    c.apply({"type": "roll", "dice": [1, 2, 3]})
    assert len(jobs.pending) == 1
    stale = jobs.pending.pop()
    first = _state(c)["legal"][0]["action"]
    c.apply(first)  # the host moves for the computer meanwhile (mirroring the real board)
    stale()  # the late answer is dropped; a new decision starts from where the game is now
    assert [r.action for r in store.actions(c.session_id)][-1] == first
    jobs.run()
    assert _state(c)["to_move"]["chance"]
    store.close()


def test_a_resumed_game_keeps_its_computer_seat(tmp_path):
    c, jobs, store = _table(tmp_path)
    c.new_game(_setup("person", "computer-random"))
    sid = c.session_id
    c.apply({"type": "roll", "dice": [1, 1, 2]})
    store.close()
    store = SessionStore(tmp_path)
    jobs2 = Jobs()
    again = TableController(DingoDiscGame(), store=store, rng=random.Random(2), computer_runner=jobs2,
                            computer_think_s=0.02)
    assert again.resume_unfinished() == sid
    assert again.message()["computer"]["seats"] == {"1": "random"}
    store.close()


def test_a_status_change_while_the_computer_thinks_does_not_throw_its_move_away(tmp_path):
    c, jobs, store = _table(tmp_path)
    c.new_game(_setup("computer-greedy", "person"))
    c.apply({"type": "roll", "dice": [1, 2, 3]})
    job = jobs.pending.pop()
    before = len(store.actions(c.session_id))
    c.add_status("source", "sensor fault: cell 2 noisy")  # a new message version, the same game
    job()
    assert len(store.actions(c.session_id)) == before + 1  # its move was applied, not thought again
    store.close()
