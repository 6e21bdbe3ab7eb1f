"""``dingo-companion bench pinuid``: Pinuid Dobbal move-generator speed, perft and computer players.

- ``--part speed``: random whole games per minute on one core (CPU time of this process), through the
  fast playout engine and through the full protocol (``legal_actions`` + checked ``apply``).
- ``--part perft``: perft counts from the start position with nodes per second, checked against the
  golden file of the tests where it has the depth.
- ``--part ai``: the computer players against each other, ``--games`` games per pairing (seats
  alternate), with the search at ``--budget`` iterations per decision; decision times are printed.

The clock and the random source live here (and in ``companion.players``), never in the core.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

from companion.games.pinuid_dobbal import PinuidDobbalRules, apply, legal_actions
from companion.games.pinuid_dobbal.ai import Search, apply_raw, choose, raw_actions
from companion.games.pinuid_dobbal.perft import perft, perft_turns
from companion.games.pinuid_dobbal.playout import playout_state
from companion.games.pinuid_dobbal.state import State

RULES = PinuidDobbalRules()
PAIRINGS = (("mcts", "random"), ("mcts", "greedy"), ("greedy", "random"))
GOLDEN = Path(__file__).resolve().parents[2] / "tests/companion/games/pinuid_dobbal/golden/perft.json"


def start(options: dict[str, Any] | None = None) -> State:
    return RULES.initial_state({"type": "new_game", "players": ["Anna", "Bob"], "options": options or {}})


def play_game(players: tuple[str, str], rng: random.Random, budget: int, max_turns: int = 500,
              times: dict[str, list[float]] | None = None) -> State:
    """One game between computer players ``players`` (by seat); the dice come from ``rng``."""
    s = start()
    while s.phase != "over" and s.turn <= max_turns:
        if s.phase == "roll":
            s = apply_raw(s, rng.choice(raw_actions(s)))
            continue
        who = players[s.current]
        t0 = time.perf_counter()
        a = choose(s, who, rng, budget)
        if times is not None:
            times.setdefault(who, []).append(time.perf_counter() - t0)
        s = apply_raw(s, a)
    return s


def play_match(a: str, b: str, games: int, seed: int, budget: int, max_turns: int = 500) -> dict[str, Any]:
    """``games`` games of ``a`` against ``b``, seats alternating; wins of a and b, unfinished, turns."""
    rng = random.Random(seed)
    wins = [0, 0]
    unfinished = 0
    turns = 0
    first_seat_wins = 0
    times: dict[str, list[float]] = {}
    for i in range(games):
        players = (a, b) if i % 2 == 0 else (b, a)
        s = play_game(players, rng, budget, max_turns, times)
        turns += s.turn
        if s.winner is None:
            unfinished += 1
            continue
        wins[0 if players[s.winner] == a else 1] += 1
        first_seat_wins += s.winner == 0
    return {"pairing": f"{a} vs {b}", "games": games, "wins": wins, "unfinished": unfinished,
            "turns_per_game": turns / games, "starting_player_wins": first_seat_wins,
            "ms_per_decision": {k: 1000 * sum(v) / len(v) for k, v in times.items() if v},
            "max_ms_per_decision": {k: 1000 * max(v) for k, v in times.items() if v}}


def _speed(seconds: float, seed: int) -> None:
    s0 = start()
    rng = random.Random(seed)
    games = turns = 0
    wins = [0, 0]
    c0, w0 = time.process_time(), time.perf_counter()
    while time.process_time() - c0 < seconds:
        w, n = playout_state(s0, rng, 100_000)
        games += 1
        turns += n
        wins[w if w is not None else 0] += 1
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    print(f"fast playouts: {games} random games in {cpu:.1f} CPU s ({wall:.1f} s wall): "
          f"{games / cpu * 60:,.0f} games/min per CPU ({games / wall * 60:,.0f} wall), "
          f"{turns / games:.0f} turns/game, starting player won {wins[0]}")
    rng = random.Random(seed)
    games = turns = actions = 0
    c0 = time.process_time()
    while time.process_time() - c0 < seconds / 2:
        s = s0
        while s.phase != "over":
            s = apply(s, rng.choice(legal_actions(s)))
            actions += 1
        games += 1
        turns += s.turn
    cpu = time.process_time() - c0
    print(f"full protocol (legal_actions + checked apply): {games} games in {cpu:.1f} CPU s: "
          f"{games / cpu * 60:,.0f} games/min, {actions / cpu:,.0f} actions/s, "
          f"{turns / games:.0f} turns/game")


def _perft(depth: int) -> None:
    golden = json.loads(GOLDEN.read_text())["positions"][0] if GOLDEN.exists() else {"plies": {}, "turns": {}}
    s = start()
    for d in range(1, depth + 1):
        t0 = time.process_time()
        n = perft(s, d)
        dt = time.process_time() - t0
        want = golden["plies"].get(str(d))
        check = "" if want is None else (" = golden" if want == n else f" != golden {want}  MISMATCH")
        print(f"perft plies {d}: {n:,} ({dt:.2f} CPU s, {n / max(dt, 1e-9):,.0f} leaves/s){check}")
    t0 = time.process_time()
    n = perft_turns(s, 1)
    print(f"perft whole turns 1: {n:,} ({time.process_time() - t0:.2f} CPU s)"
          + ("" if golden["turns"].get("1") in (None, n) else "  MISMATCH"))


def _ai(games: int, budget: int, seed: int, pairings: list[tuple[str, str]]) -> None:
    s = apply_raw(start(), ("roll", (1, 2, 3)))
    search = Search(s, random.Random(seed))
    t0 = time.process_time()
    search.run(2000)
    rate = 2000 / (time.process_time() - t0)
    print(f"search speed: {rate:,.0f} iterations per CPU second (first decision of a game, 2000 iterations)")
    for a, b in pairings:
        t0 = time.perf_counter()
        res = play_match(a, b, games, seed, budget)
        res["wall_s"] = round(time.perf_counter() - t0, 1)
        w = res["wins"]
        ms = ", ".join(f"{k} {v:.1f} (max {res['max_ms_per_decision'][k]:.0f})"
                       for k, v in res["ms_per_decision"].items())
        print(f"{res['pairing']}: {w[0]}-{w[1]} of {games} ({100 * w[0] / games:.1f} % for {a}), "
              f"{res['unfinished']} unfinished, {res['turns_per_game']:.1f} turns/game, "
              f"starting player won {res['starting_player_wins']}, ms/decision {ms}, {res['wall_s']} s wall")
        sys.stdout.flush()


def run(args: argparse.Namespace) -> int:
    parts = args.part or ["speed", "perft", "ai"]
    print(f"bench pinuid: parts {', '.join(parts)}; seed {args.seed}")
    if "speed" in parts:
        _speed(args.seconds, args.seed)
    if "perft" in parts:
        _perft(args.perft)
    if "ai" in parts:
        pairings = [tuple(p.split("-")) for p in args.pairing] if args.pairing else list(PAIRINGS)
        _ai(args.games, args.budget, args.seed, pairings)  # type: ignore[arg-type]
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("pinuid", help="Pinuid Dobbal: random games/min, perft, computer players")
    p.add_argument("--part", action="append", choices=("speed", "perft", "ai"),
                   help="what to run (repeatable)")
    p.add_argument("--seconds", type=float, default=20.0, help="CPU seconds of random games (speed)")
    p.add_argument("--perft", type=int, default=5, help="deepest perft in plies")
    p.add_argument("--games", type=int, default=200, help="games per pairing (ai)")
    p.add_argument("--budget", type=int, default=400, help="search iterations per decision (ai)")
    p.add_argument("--pairing", action="append", help="e.g. mcts-random (repeatable; default all three)")
    p.add_argument("--seed", type=int, default=1)
    p.set_defaults(func=run)
