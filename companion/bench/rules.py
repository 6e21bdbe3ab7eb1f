"""``dingo-companion bench rules``: random full Dingo Disc games per second on one core.

The randomness lives here, not in the core: :func:`random_game` plays a whole game with random legal
actions (dice, sizes, penalties, falls with failed attempts, unconfident falls, flagged placements,
corrections, hands) through the pure core. The tests reuse it for their property checks.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass, field
from types import MappingProxyType

from companion.games.dingo_disc import rules as core
from companion.games.dingo_disc.actions import (
    COLOURS,
    SIZES,
    AcceptPlacement,
    Action,
    ConfirmFall,
    CorrectFall,
    CorrectSize,
    DismissFlag,
    EndGame,
    Fall,
    FirstPlayer,
    Give,
    Hand,
    NewGame,
    Place,
    RedoPlacement,
    Removed,
    Roll,
    RollColour,
    TakeDice,
)
from companion.games.dingo_disc.state import State

NAMES = ("Anna", "Bob", "Chloe", "Dev", "Emma", "Farid")


@dataclass(frozen=True)
class Chaos:
    """Probabilities of the disruptions the random player injects (per decision point).

    The defaults are rough: the tests use them to reach every corner; the benchmark uses
    :data:`TABLE_CHAOS`, closer to a real table (a fall every ten or so placements).
    """

    fall: float = 0.12
    unconfident: float = 0.2
    misplace: float = 0.05
    hand: float = 0.02
    correct: float = 0.05
    take_dice: float = 0.3
    budget: int = 400  # after this many actions: no more falls, penalties or disruptions
    any_: float = field(init=False, repr=False, compare=False)
    """Probability that a decision point is a disruption candidate at all (derived; a plain attribute
    because the random player reads it at every action)."""

    def __post_init__(self) -> None:
        """Derive :attr:`any_`."""
        object.__setattr__(self, "any_", min(1.0, 0.3 + self.hand + 2 * self.correct + self.fall))


TABLE_CHAOS = Chaos(fall=0.05, unconfident=0.2, misplace=0.02, hand=0.01, correct=0.02, take_dice=0.3)
"""The benchmark's table: falls, penalties, flags and corrections at a plausible rate."""


def _random_fall(rng: random.Random, s: State, chaos: Chaos) -> Fall:
    disc = s.disc
    pawns = [0, 0, 0]
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        sizes = [i for i in range(3) if disc[i] - pawns[i] > 0]
        if not sizes:
            break
        pawns[rng.choice(sizes)] += 1
    counts = (pawns[0], pawns[1], pawns[2])
    lp = s.last_place
    placed_fell: bool | None = None
    if lp is not None and rng.random() < 0.3:
        if counts[lp.size] == 0:
            placed_fell = False
        elif counts[lp.size] > s.disc[lp.size] - 1:
            placed_fell = True
        else:
            placed_fell = rng.random() < 0.5
    return Fall(pawns=counts, tipped=rng.random() < 0.5, placed_fell=placed_fell,
                confident=rng.random() >= chaos.unconfident)


# The sizes present in a count triple, by which sizes are non-zero: _PRESENT[c0 > 0, c1 > 0, c2 > 0].
_PRESENT = MappingProxyType({(a, b, c): tuple(i for i, held in enumerate((a, b, c)) if held)
                             for a in (False, True) for b in (False, True) for c in (False, True)})


# Actions are immutable values: the common ones are built once and reused (cheaper than building).
_ROLLS_V1 = tuple(tuple(Roll(number=n, colour=c) for c in COLOURS) for n in range(7))
_ROLLS_V2 = tuple(Roll(number=n) for n in range(7))
_PLACES = tuple(Place(size=size) for size in SIZES)
_GIVES = tuple(tuple(Give(giver=g, size=size) for size in SIZES) for g in range(6))
_TAKE_DICE = TakeDice()


def next_action(rng: random.Random, s: State, chaos: Chaos, calm: bool) -> Action:
    """A random legal action for state ``s`` (``calm``: no falls, penalties or disruptions)."""
    phase = s.phase
    r = rng.random
    flags, last_fall = s.flags, s.last_fall
    if not calm and (flags or last_fall is not None or r() < chaos.any_):
        if flags and r() < 0.3:
            open_ = [f for f in flags if f.kind != "placement"]
            if open_:
                return DismissFlag(id=rng.choice(open_).id)
        if phase in ("roll", "place", "penalty") and r() < chaos.hand:
            return Hand(duration_ms=rng.randrange(200, 3000))
        if last_fall is not None and s.pending_fall is None and r() < chaos.correct:
            base = last_fall.base
            pawns = tuple(rng.randrange(0, min(base.disc[i], 2) + 1) for i in range(3))
            return CorrectFall(pawns=pawns, placed_fell=None)  # type: ignore[arg-type]
        lp = s.last_place
        if lp is not None and phase != "confirm_fall" and r() < chaos.correct:
            other = [i for i in range(3) if i != lp.size and s.supply[lp.seat][i]]
            if other:
                return CorrectSize(size=SIZES[rng.choice(other)])
        if phase in ("roll", "place", "review", "ending", "confirm_fall", "penalty") and sum(s.disc) \
                and r() < chaos.fall:
            return _random_fall(rng, s, chaos)
    # The phases by frequency (the checks exclude each other, so the order changes nothing else).
    if phase == "roll":
        if not s.dice_taken and r() < chaos.take_dice:
            return _TAKE_DICE
        number = 2 + int(r() * 5) if calm else 1 + int(r() * 6)
        return _ROLLS_V1[number][int(r() * 6)] if s.version == 1 else _ROLLS_V2[number]
    if phase == "place":
        c0, c1, c2 = s.supply[s.current]  # type: ignore[index]
        sizes = _PRESENT[c0 > 0, c1 > 0, c2 > 0]
        size = sizes[int(r() * len(sizes))]
        if not calm and r() < chaos.misplace:
            return Place(size=SIZES[size], zone=rng.choice(COLOURS), number=rng.choice((None, 2, 3, 4, 5, 6)),
                         x_mm=10.0, y_mm=-5.0, sensed=True)
        return _PLACES[size]
    if phase == "penalty":
        giver = s.givers[0]
        c0, c1, c2 = s.supply[giver]
        sizes = _PRESENT[c0 > 0, c1 > 0, c2 > 0]
        return _GIVES[giver][sizes[int(r() * len(sizes))]]
    if phase == "review":
        lp = s.last_place
        x = r()
        if lp is not None and x < 0.2:
            return Removed(size=SIZES[lp.size])
        return AcceptPlacement() if x < 0.6 else RedoPlacement()
    if phase == "first_player":
        return FirstPlayer(seat=rng.randrange(s.n), drawn=True)
    if phase == "colours":
        return RollColour(colour=rng.choice(COLOURS))
    if phase == "confirm_fall":
        if r() < 0.7:
            return ConfirmFall()
        base = s.last_fall.base if s.last_fall is not None else s
        pawns = tuple(rng.randrange(0, min(base.disc[i], 2) + 1) for i in range(3))
        return ConfirmFall(pawns=pawns)  # type: ignore[arg-type]
    if phase == "ending":
        return EndGame()
    raise RuntimeError(f"no action possible in phase {phase}")


def random_game(rng: random.Random, players: int, version: int = 1, options: dict | None = None,
                chaos: Chaos | None = None, max_actions: int = 100_000,
                keep: bool = True) -> tuple[State, list[Action]]:
    """Play one full random game; return the final state and (if ``keep``) every action, new_game first."""
    chaos = chaos or Chaos()
    setup = NewGame(version=version, players=NAMES[:players], options=tuple(sorted((options or {}).items())))
    s = core.initial_state(setup)
    actions: list[Action] = [setup]
    apply = core.apply
    budget = chaos.budget
    for count in range(1, max_actions + 1):
        if s.phase == "over":
            break
        action = next_action(rng, s, chaos, count > budget)
        s = apply(s, action)
        if keep:
            actions.append(action)
    else:
        if s.phase != "over":
            raise RuntimeError(f"game did not end within {max_actions} actions")
    return s, actions


@dataclass(frozen=True)
class BenchRow:
    """One measured line: ``repeat`` batches of the same ``games`` full random games of ``players``."""

    players: int
    games: int
    cpu_s: tuple[float, ...]  # CPU seconds of each batch of full games (random player + core)
    wall_s: tuple[float, ...]  # wall-clock seconds of each batch
    core_cpu_s: tuple[float, ...]  # CPU seconds of each replay of the same games through the core alone
    actions: int
    falls: int
    penalties: int


def _batch(players: int, games: int, seed: int, keep: bool = True) -> list[list[Action]]:
    rng = random.Random(seed)
    return [random_game(rng, players, version=1 + i % 2, chaos=TABLE_CHAOS, keep=keep)[1]
            for i in range(games)]


def replay(histories: list[list[Action]]) -> State | None:
    """Apply recorded games (``new_game`` first) through the core alone; return the last final state."""
    apply = core.apply
    s = None
    for history in histories:
        s = core.initial_state(history[0])  # type: ignore[arg-type]
        for action in history[1:]:
            s = apply(s, action)
    return s


def run(games: int, seed: int = 1, repeat: int = 3) -> list[BenchRow]:
    """Play ``games`` random full games (half v1, half v2) for 2 and for 6 players, ``repeat`` times; after
    each timed batch, replay the same games' recorded actions through the core alone (timed too)."""
    rows = []
    for players in (2, 6):
        cpu, wall, core_cpu = [], [], []
        histories: list[list[Action]] = []
        for _ in range(repeat):  # full games and core alone alternate, so both see the same machine load
            histories.clear()  # no recorded games alive while games are timed (a bigger heap slows the GC)
            cpu0, wall0 = time.process_time(), time.perf_counter()
            _batch(players, games, seed, keep=False)  # the history is not part of playing a game
            cpu.append(time.process_time() - cpu0)
            wall.append(time.perf_counter() - wall0)
            histories = _batch(players, games, seed)  # the same games again, untimed, to replay them
            cpu0 = time.process_time()
            replay(histories)
            core_cpu.append(time.process_time() - cpu0)
        actions = sum(len(h) for h in histories)
        falls = sum(1 for h in histories for a in h if isinstance(a, Fall))
        penalties = sum(1 for h in histories for a in h if isinstance(a, Roll) and a.number == 1)
        rows.append(BenchRow(players, games, tuple(cpu), tuple(wall), tuple(core_cpu), actions, falls,
                             penalties))
    return rows


def _main(args: argparse.Namespace) -> int:
    if args.games < 1 or args.repeat < 1:
        print("bench rules: --games and --repeat must be at least 1", file=sys.stderr)
        return 2
    for row in run(args.games, args.seed, args.repeat):
        n = row.games
        best, median = min(row.cpu_s), sorted(row.cpu_s)[len(row.cpu_s) // 2]
        core_best = min(row.core_cpu_s)
        player_share = max(0.0, 1 - core_best / best)
        print(f"rules: {row.players} players: {n} random full games (v1+v2) x {len(row.cpu_s)}: "
              f"{n / best:,.0f} games/s per CPU-second best, {n / median:,.0f} median "
              f"({n / min(row.wall_s):,.0f} wall-clock best); core alone (same games replayed) "
              f"{n / core_best:,.0f} games/s, so the random player takes {player_share:.0%}; "
              f"{row.actions / n:.0f} actions/game ({row.actions / best:,.0f} actions/s best); "
              f"{row.falls / n:.1f} falls and {row.penalties / n:.1f} penalties per game; one core")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``bench rules``."""
    p = subparsers.add_parser("rules", help="random full Dingo Disc games per second (2 and 6 players)")
    p.add_argument("--games", type=int, default=1000, help="games per batch and player count (default 1000)")
    p.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    p.add_argument("--repeat", type=int, default=3, help="timed batches; best and median shown (default 3)")
    p.set_defaults(func=_main)
