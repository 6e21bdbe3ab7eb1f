"""``dingo-companion bench rules`` runs and prints its figures (the figures are in BENCHMARKS.md)."""

from __future__ import annotations

import random
import re

from companion.bench.rules import TABLE_CHAOS, random_game, run
from companion.cli import main


def test_bench_rules_prints_games_per_second_for_2_and_6_players(capsys):
    assert main(["bench", "rules", "--games", "4", "--repeat", "2"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    found = [re.match(r"rules: (\d) players: 4 random full games \(v1\+v2\) x 2: ", line) for line in lines]
    assert [m.group(1) for m in found if m] == ["2", "6"] and len(lines) == 2
    assert all("games/s per CPU-second best" in line for line in lines)


def test_bench_rules_rejects_zero_games(capsys):
    assert main(["bench", "rules", "--games", "0"]) == 2
    assert "--games and --repeat must be at least 1" in capsys.readouterr().err


def test_bench_games_are_full_games_with_falls_and_penalties():
    rows = run(6, seed=3, repeat=1)
    assert [r.players for r in rows] == [2, 6]
    assert all(r.falls > 0 and r.penalties > 0 and r.actions > r.games * 50 for r in rows)
    state, _ = random_game(random.Random(5), 6, 2, chaos=TABLE_CHAOS)
    assert state.phase == "over" and len(state.finishing) == 6


def test_bench_replays_the_same_games_through_the_core_alone(capsys):
    from companion.bench.rules import _batch, replay

    histories = _batch(3, 3, seed=4)
    last, _ = random_game(random.Random(4), 3, 1, chaos=TABLE_CHAOS)  # the first game of that batch
    assert replay(histories[:1]) == last and last.phase == "over"
    rows = run(3, seed=2, repeat=2)
    assert all(len(r.core_cpu_s) == 2 and min(r.core_cpu_s) > 0 for r in rows)
    assert main(["bench", "rules", "--games", "2", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    assert out.count("core alone (same games replayed)") == 2 and "the random player takes" in out
