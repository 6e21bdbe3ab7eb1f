"""The read loop: source -> pipeline -> controller, with fakes and with the real simulator chain."""

from __future__ import annotations

import random
import time

from companion.sensing.pipeline import Pipeline
from companion.table.controller import TableController
from companion.table.game import DingoDiscGame
from companion.table.loop import SourceLoop
from hardware.sim.table import TableSimulator
from hardware.sources.base import SourceFault


class Sample:
    def __init__(self, t_ms):
        self.t_ms = t_ms
        self.raw = (1, 2, 3, 4)


class ListSource:
    def __init__(self, batches):
        self.batches = list(batches)
        self.opened = self.closed = 0

    def open(self):
        self.opened += 1

    def close(self):
        self.closed += 1

    def read(self, timeout_s):
        if not self.batches:
            time.sleep(timeout_s)
            return []
        batch = self.batches.pop(0)
        if isinstance(batch, Exception):
            raise batch
        return batch


class EchoPipeline:
    """Emits a hand event for every sample whose t_ms is a multiple of 100."""

    def feed(self, sample):
        return [{"event": "hand", "t_ms": sample.t_ms, "duration_ms": 500}] if sample.t_ms % 100 == 0 else []

    def snapshot(self):
        return {"tilt": 0.0}


def game_controller(**kw) -> TableController:
    c = TableController(DingoDiscGame(), rng=random.Random(1), **kw)
    c.new_game({"version": 1, "players": ["Anna", "Ben"]})
    c.apply({"type": "first_player", "seat": 0})
    return c


def test_step_feeds_samples_and_reports_faults():
    c = game_controller()
    fault = SourceFault(t_ms=5, cell=2, kind="disconnected", message="cell 2 disconnected")
    loop = SourceLoop(ListSource([[Sample(0), Sample(50), fault, Sample(100)]]), EchoPipeline(), c)
    assert loop.step() == 3
    msg = c.message()
    assert len(msg["state"]["flags"]) == 2  # two hand events became two hand actions
    assert msg["status"]["cell2"] == "cell 2 disconnected"


def test_thread_survives_a_failing_source_and_reopens_it():
    c = game_controller()
    source = ListSource([OSError("unplugged"), [Sample(100)]])
    pings = []
    loop = SourceLoop(source, EchoPipeline(), c, read_timeout_s=0.01, heartbeat=lambda: pings.append(1))
    loop.start()
    deadline = time.monotonic() + 5
    while loop.samples_seen < 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    loop.stop()
    assert loop.samples_seen == 1
    assert "unplugged" in c.message()["status"]["source"] or "unplugged" in (loop.error or "")
    assert source.opened >= 2 and source.closed >= 1
    assert pings  # the watchdog is pinged while the loop is healthy


class StepSource:
    """The simulator stepped as fast as asked (no real time): ``per_read`` samples per read."""

    def __init__(self, simulator, per_read=8):
        self.simulator = simulator
        self.header = simulator.header
        self.per_read = per_read

    def open(self):
        pass

    def close(self):
        pass

    def read(self, timeout_s):
        return [self.simulator.step() for _ in range(self.per_read)]


def run_until(loop, controller, predicate, max_steps=2000):
    for _ in range(max_steps):
        loop.step()
        if predicate(controller.message()):
            return True
    return False


def test_simulator_through_the_real_pipeline_into_the_rules():
    sim = TableSimulator(seed=3)
    source = StepSource(sim)
    pipeline = Pipeline(source.header)
    c = TableController(DingoDiscGame(), simulator=sim, header=source.header, sensing=pipeline.snapshot,
                        rng=random.Random(0))
    loop = SourceLoop(source, pipeline, c)
    for _ in range(100):  # the pipeline's warm-up on the empty disc
        loop.step()
    c.new_game({"version": 1, "players": ["Anna", "Ben", "Cleo"]})
    c.apply({"type": "first_player", "seat": 0})
    c.enter_roll({"colour": "blue", "number": 3})
    c.sim_command("place", {"size": "large", "zone": "blue", "number": 3})
    assert run_until(loop, c, lambda m: m["state"]["current"] == 1)
    state = c.message()["state"]
    assert state["players"][0]["supply"]["large"] == 5
    assert state["disc_pawns"][0]["zone"] == "blue" and state["disc_pawns"][0]["number"] == 3
    assert c.message()["sensing"]["pawns"], "the live view shows the sensed pawn"
    for _ in range(4):  # physical: a pawn may ride out a tip; knock again then
        c.sim_command("knock", {})
        if run_until(loop, c, lambda m: m["state"]["disc"]["large"] == 0, max_steps=120):
            break
    state = c.message()["state"]
    assert state["disc"]["large"] == 0 and state["players"][0]["supply"]["large"] == 6
    assert any("fell" in e["text"] for e in c.message()["feed"])
