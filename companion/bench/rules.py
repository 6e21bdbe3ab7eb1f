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
from collections.abc import Callable
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
from companion.games.dingo_disc.state import PAWNS_PER_SIZE, State

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


def _random_fall(rng: random.Random, s: State, unconfident: float) -> Fall:
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
                confident=rng.random() >= unconfident)


# Actions are immutable values: the common ones are built once and reused (cheaper than building).
_ROLLS_V1 = tuple(tuple(Roll(number=n, colour=c) for c in COLOURS) for n in range(7))
_ROLLS_V2 = tuple(Roll(number=n) for n in range(7))
_PLACES = tuple(Place(size=size) for size in SIZES)
_GIVES = tuple(tuple(Give(giver=g, size=size) for size in SIZES) for g in range(6))
_TAKE_DICE = TakeDice()
_ACCEPT = AcceptPlacement()
_REDO = RedoPlacement()
_END = EndGame()
_CONFIRM = ConfirmFall()
_REMOVED = tuple(Removed(size=size) for size in SIZES)
_MISPLACE_NUMBERS = (None, 2, 3, 4, 5, 6)

# The most pawns of one size a player can hold: every pawn of that size in the game.
_MOST = max(n * k for n, k in PAWNS_PER_SIZE.items())
# The sizes held, by supply triple (the random player picks one of them uniformly): a table lookup
# instead of building and hashing a tuple of "held" flags at every placement and penalty.
_HELD = MappingProxyType({(a, b, c): tuple(i for i, held in enumerate((a, b, c)) if held)
                          for a in range(_MOST + 1) for b in range(_MOST + 1) for c in range(_MOST + 1)})
# The same as the ready-made placements (one action per size held).
_PLACE_CHOICES = MappingProxyType({counts: tuple(_PLACES[i] for i in sizes)
                                   for counts, sizes in _HELD.items()})

Player = Callable[[State, Callable[[State, Action], State], int, int, "list[Action] | None"], State]
"""A random player's game loop, see :func:`make_player`."""


def make_player(rng: random.Random, chaos: Chaos) -> Player:
    """A random player drawing from ``rng`` with ``chaos``'s probabilities, as its game loop
    ``play(s, apply, calm_after, max_actions, out) -> state``: from state ``s``, choose a random legal
    action, ``s = apply(s, action)``, append the action to ``out`` (unless None), and again, until the
    game is over or ``max_actions`` actions were played; the actions after the first ``calm_after`` are
    calm (no falls, penalties or disruptions). The random functions and probabilities are resolved
    once here and the choice is inlined in the loop: the benchmark counts every step."""
    r, choice, randrange = rng.random, rng.choice, rng.randrange
    any_, hand, correct, fall = chaos.any_, chaos.hand, chaos.correct, chaos.fall
    misplace, take_dice, unconfident = chaos.misplace, chaos.take_dice, chaos.unconfident

    def disruption(s: State, phase: str) -> Action | None:
        """A disruption candidate (about a third of the actions): maybe a disruption."""
        flags, last_fall = s.flags, s.last_fall
        if flags and r() < 0.3:
            open_ = [f for f in flags if f.kind != "placement"]
            if open_:
                return DismissFlag(id=choice(open_).id)
        if phase in ("roll", "place", "penalty") and r() < hand:
            return Hand(duration_ms=randrange(200, 3000))
        if last_fall is not None and s.pending_fall is None and r() < correct:
            base = last_fall.base
            pawns = tuple(randrange(0, min(base.disc[i], 2) + 1) for i in range(3))
            return CorrectFall(pawns=pawns, placed_fell=None)  # type: ignore[arg-type]
        lp = s.last_place
        if lp is not None and phase != "confirm_fall" and r() < correct:
            other = [i for i in range(3) if i != lp.size and s.supply[lp.seat][i]]
            if other:
                return CorrectSize(size=SIZES[choice(other)])
        if phase in ("roll", "place", "review", "ending", "confirm_fall", "penalty") and sum(s.disc) \
                and r() < fall:
            return _random_fall(rng, s, unconfident)
        return None

    def play(s: State, apply: Callable[[State, Action], State], calm_after: int, max_actions: int,
             out: list[Action] | None) -> State:
        keep = out is not None
        append = out.append if out is not None else None
        v1 = s.version == 1  # no action changes the version
        action: Action | None
        for count in range(1, max_actions + 1):
            phase = s.phase
            if phase == "over":
                break
            calm = count > calm_after
            # The phases by frequency (the checks exclude each other, so the order changes nothing else).
            if not calm and (s.flags or s.last_fall is not None or r() < any_) \
                    and (action := disruption(s, phase)) is not None:
                pass
            elif phase == "roll":
                if not s.dice_taken and r() < take_dice:
                    action = _TAKE_DICE
                else:
                    number = 2 + int(r() * 5) if calm else 1 + int(r() * 6)
                    action = _ROLLS_V1[number][int(r() * 6)] if v1 else _ROLLS_V2[number]
            elif phase == "place":
                places = _PLACE_CHOICES[s.supply[s.current]]  # type: ignore[index]
                action = places[int(r() * len(places))]
                if not calm and r() < misplace:
                    action = Place(size=action.size, zone=choice(COLOURS),  # type: ignore[union-attr]
                                   number=choice(_MISPLACE_NUMBERS), x_mm=10.0, y_mm=-5.0, sensed=True)
            elif phase == "penalty":
                giver = s.givers[0]
                sizes = _HELD[s.supply[giver]]
                action = _GIVES[giver][sizes[int(r() * len(sizes))]]
            elif phase == "review":
                lp = s.last_place
                x = r()
                if lp is not None and x < 0.2:
                    action = _REMOVED[lp.size]
                else:
                    action = _ACCEPT if x < 0.6 else _REDO
            elif phase == "first_player":
                action = FirstPlayer(seat=randrange(s.n), drawn=True)
            elif phase == "colours":
                action = RollColour(colour=choice(COLOURS))
            elif phase == "confirm_fall":
                if r() < 0.7:
                    action = _CONFIRM
                else:
                    base = s.last_fall.base if s.last_fall is not None else s
                    pawns = tuple(randrange(0, min(base.disc[i], 2) + 1) for i in range(3))
                    action = ConfirmFall(pawns=pawns)  # type: ignore[arg-type]
            elif phase == "ending":
                action = _END
            else:
                raise RuntimeError(f"no action possible in phase {phase}")
            s = apply(s, action)  # type: ignore[arg-type]
            if keep:
                append(action)  # type: ignore[misc]
        return s

    return play


def _unchanged(s: State, _action: Action) -> State:
    return s


def next_action(rng: random.Random, s: State, chaos: Chaos, calm: bool) -> Action:
    """A random legal action for state ``s`` (``calm``: no falls, penalties or disruptions): one step of
    :func:`make_player`'s loop, so the same draws as in :func:`random_game`."""
    out: list[Action] = []
    make_player(rng, chaos)(s, _unchanged, 0 if calm else 1, 1, out)
    if not out:
        raise RuntimeError(f"no action possible in phase {s.phase}")
    return out[0]


def random_game(rng: random.Random, players: int, version: int = 1, options: dict | None = None,
                chaos: Chaos | None = None, max_actions: int = 100_000,
                keep: bool = True) -> tuple[State, list[Action]]:
    """Play one full random game; return the final state and (if ``keep``) every action, new_game first."""
    chaos = chaos or Chaos()
    setup = NewGame(version=version, players=NAMES[:players], options=tuple(sorted((options or {}).items())))
    actions: list[Action] = [setup]
    s = make_player(rng, chaos)(core.initial_state(setup), core.apply, chaos.budget, max_actions,
                                actions if keep else None)
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
