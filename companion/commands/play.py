"""``dingo-companion play``: referee any registered game in the terminal, or run a script of actions.

``play --script FILE`` reads JSON Lines actions (``-`` = stdin), applies them and prints the final
state as JSON; the first malformed or illegal line stops it with exit status 2 and ``line N: reason``
on stderr. The game is ``--game NAME``, else the first line's ``game``, else the Dingo Disc.
Without ``--script`` it is an interactive game at a real table: for the Dingo Disc it draws the dice
(with ``random``, here in the command layer, never in the core) or accepts typed dice, asks for
sizes and what fell, shows the supplies, and can save the actions (``--save``) for ``--script`` to
replay; any other game lists its legal actions by number (see ``companion.commands.playgeneric``).
``play --game NAME --random N --seed S`` plays N games choosing uniformly among the legal actions
and prints one JSON object (``companion.commands.playgeneric.random_games``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from companion.games.base import ActionFormatError, IllegalAction
from companion.games.dingo_disc import (
    COLOURS,
    SIZES,
    AcceptPlacement,
    Action,
    ConfirmFall,
    DismissFlag,
    EndGame,
    Fall,
    FirstPlayer,
    Give,
    Hand,
    Match,
    NewGame,
    Place,
    RedoPlacement,
    Roll,
    RollColour,
    State,
)
from companion.games.dingo_disc.state import OPTION_VALUES


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``play`` subcommand."""
    p = subparsers.add_parser("play", help="play a game in the terminal (any registered game), run a "
                              "script of actions, or play random games")
    p.add_argument("--game", metavar="NAME", help="the game (see 'dingo-companion games'); default: the "
                   "script's new_game, else dingo-disc")
    p.add_argument("--random", metavar="N", type=int, help="play N random games (uniform among the legal "
                   "actions) and print {games, finished, actions, illegal_caught, errors} as JSON")
    p.add_argument("--max-actions", metavar="K", type=int, default=10000,
                   help="--random: stop a game after K actions (default 10000)")
    p.add_argument("--script", metavar="FILE", help="JSON Lines actions to apply ('-' = stdin); prints the "
                   "final state as JSON")
    p.add_argument("--save", metavar="FILE", type=Path, help="interactive: write the actions as JSON Lines")
    p.add_argument("--seed", type=int, default=None, help="seed of the dice and draws (also --random)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the script, the random games or the interactive game; returns the exit status."""
    from companion.commands import playgeneric

    game = getattr(args, "game", None)
    if game is not None:
        from companion.games import GAMES

        if game not in GAMES:
            print(f"play: unknown game {game!r}; known games: {', '.join(sorted(GAMES))}", file=sys.stderr)
            return 2
    if getattr(args, "random", None) is not None:
        return playgeneric.random_games(game or "dingo-disc", args.random, args.seed, sys.stdout,
                                        max_actions=args.max_actions)
    if args.script is not None:
        if args.script == "-":
            return run_script(sys.stdin, sys.stdout, sys.stderr, game)
        try:
            with open(args.script, encoding="utf-8") as stream:
                return run_script(stream, sys.stdout, sys.stderr, game)
        except OSError as exc:
            print(f"play: cannot read {args.script}: {exc.strerror or exc}", file=sys.stderr)
            return 1
    if game not in (None, "dingo-disc"):
        return playgeneric.GenericTerminal(game, sys.stdin, sys.stdout, random.Random(args.seed),
                                           args.save).play()
    return Terminal(sys.stdin, sys.stdout, random.Random(args.seed), args.save).play()


# ---------------------------------------------------------------- scripted mode


def run_script(stream: IO[str], out: IO[str], err: IO[str], game: str | None = None) -> int:
    """Apply the JSON Lines actions of ``stream``; print the final state; 2 on the first bad line.

    ``game``: the game's name (else the first line's ``game``, else the Dingo Disc).
    """
    from companion.games import GAMES
    from companion.games.match import GameMatch

    match: GameMatch | None = None
    rules: Any = None
    for number, line in enumerate(stream, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            print(f"line {number}: invalid JSON: {exc.msg} (column {exc.colno})", file=err)
            return 2
        try:
            if match is None:
                named = data.get("game") if isinstance(data, dict) else None
                if game is not None and named is not None and named != game:
                    print(f"line {number}: the script is a {named!r} game, not {game!r}", file=err)
                    return 2
                name = game or (named if isinstance(named, str) else "dingo-disc")
                rules = GAMES.get(name)
                if rules is None:
                    print(f"line {number}: unknown game {name!r}; known games: {', '.join(sorted(GAMES))}",
                          file=err)
                    return 2
                if isinstance(data, dict) and data.get("type") == "new_game" and named is None:
                    data = {**data, "game": name}
                action = rules.action_from_json(data)
                if action.type != "new_game":
                    print(f"line {number}: the first action must be new_game, got {action.type}", file=err)
                    return 2
                match = GameMatch(rules, action)
            else:
                match.apply(rules.action_from_json(data))
        except (ActionFormatError, IllegalAction) as exc:
            print(f"line {number}: {exc}", file=err)
            return 2
    if match is None:
        print("line 1: the script is empty: it must start with a new_game action", file=err)
        return 2
    json.dump(match.state.to_json(), out, indent=2)
    out.write("\n")
    return 0


# ---------------------------------------------------------------- interactive mode


class EndOfInput(Exception):
    """Standard input ended before the game was over."""


class Quit(Exception):
    """The player typed ``q``."""


def parse_counts(text: str) -> tuple[int, int, int] | None:
    """``"1 small 2 l"``, ``"s m"``, ``"2l"`` -> counts; None when it is not a pawn list."""
    counts = [0, 0, 0]
    pending = 1
    tokens = text.lower().replace(",", " ").split()
    if not tokens:
        return None
    for token in tokens:
        digits = "".join(ch for ch in token if ch.isdigit())
        word = token[len(digits):] if token.startswith(digits) else token
        if digits and not word:
            pending = int(digits)
            continue
        if digits:
            pending = int(digits)
        idx = next((i for i, s in enumerate(SIZES) if word and s.startswith(word)), None)
        if idx is None:
            return None
        counts[idx] += pending
        pending = 1
    return (counts[0], counts[1], counts[2])


HELP = ("commands at any prompt: u = undo the last action, f PAWNS = pawns fell (e.g. 'f 1 small 2 l'), "
        "h = a hand held the disc, x ID = dismiss flag ID, t = show the table, q = quit")


class Terminal:
    """The interactive terminal referee (all I/O and randomness live here, not in the core)."""

    def __init__(self, inp: IO[str], out: IO[str], rng: random.Random, save: Path | None = None) -> None:
        """Read answers from ``inp``, write to ``out``; ``rng`` draws dice; ``save`` gets the actions."""
        self.inp, self.out, self.rng, self.save = inp, out, rng, save
        self.match: Match | None = None

    def say(self, text: str = "") -> None:
        """Print one line."""
        print(text, file=self.out, flush=True)

    def ask(self, prompt: str) -> str:
        """Ask and return the trimmed answer; raise EndOfInput at the end of input."""
        self.out.write(prompt + " ")
        self.out.flush()
        line = self.inp.readline()
        if not line:
            raise EndOfInput
        return line.strip()

    # -- setup

    def setup(self) -> NewGame:
        """Ask version, players and options; return the new_game action."""
        while True:
            v = self.ask("Version 1 (both dice) or 2 (own colour)? [1]") or "1"
            if v in ("1", "2"):
                break
            self.say("  please answer 1 or 2")
        while True:
            answer = self.ask("Player names in seat order, separated by commas:")
            names = [n.strip() for n in answer.split(",") if n.strip()]
            if 2 <= len(names) <= 6 and len(set(names)) == len(names):
                break
            self.say("  2 to 6 distinct names, e.g. 'Anna, Bob, Chloe'")
        options: dict[str, str] = {}
        for key, values in OPTION_VALUES.items():
            while True:
                a = self.ask(f"Option {key} ({'/'.join(values)})? [{values[0]}]") or values[0]
                if a in values:
                    break
                self.say(f"  one of {', '.join(values)}")
            if a != values[0]:
                options[key] = a
        return NewGame(version=int(v), players=tuple(names), options=tuple(sorted(options.items())))

    # -- display

    def show(self, s: State) -> None:
        """Print the supplies, the disc and the open flags."""
        for i, name in enumerate(s.names):
            c = s.supply[i]
            colour = f" [{s.colours[i]}]" if s.colours[i] else ""
            done = " - finished" if s.is_finished(i) else ""
            self.say(f"  {name}{colour}: {c[0]} small, {c[1]} medium, {c[2]} large ({sum(c)} left){done}")
        self.say(f"  disc: {s.disc[0]} small, {s.disc[1]} medium, {s.disc[2]} large; round {s.round}")
        for f in s.flags:
            self.say(f"  flag {f.id} ({f.kind}): {f.reason}")

    # -- the loop

    def apply(self, action: Action) -> bool:
        """Apply ``action``; print the rule it breaks and return False if illegal."""
        assert self.match is not None
        try:
            self.match.apply(action)
        except IllegalAction as exc:
            self.say(f"  not allowed: {exc.reason}")
            return False
        if self.save is not None:
            with open(self.save, "a", encoding="utf-8") as stream:
                stream.write(json.dumps(action.to_json()) + "\n")
        return True

    def common(self, answer: str) -> bool:
        """Handle a command valid at any prompt; True if it was one."""
        assert self.match is not None
        word, _, rest = answer.partition(" ")
        if word == "q":
            raise Quit
        if word == "u":
            try:
                undone = self.match.undo()
            except IndexError:
                self.say("  nothing to undo")
                return True
            self.say(f"  undone: {undone.type}")
            if self.save is not None:
                self.save.write_text("".join(json.dumps(a.to_json()) + "\n" for a in self.match.history),
                                     encoding="utf-8")
            return True
        if word == "f" and rest:
            pawns = parse_counts(rest)
            if pawns is None:
                self.say("  say which pawns fell, e.g. 'f 1 small 2 large'")
                return True
            self.fall(pawns)
            return True
        if word == "h":
            self.apply(Hand(duration_ms=0))
            return True
        if word == "x" and rest.isdigit():
            self.apply(DismissFlag(id=int(rest)))
            return True
        if word == "t":
            self.show(self.match.state)
            return True
        if word in ("?", "help"):
            self.say("  " + HELP)
            return True
        return False

    def fall(self, pawns: tuple[int, int, int]) -> None:
        """Record a fall, asking whether the pawn just placed was among them when that is unclear."""
        assert self.match is not None
        s = self.match.state
        placed_fell: bool | None = None
        lp = s.last_place
        if lp is not None and pawns[lp.size] and s.disc[lp.size] > pawns[lp.size]:
            a = self.ask(f"Was the {SIZES[lp.size]} pawn just placed among them? [y/n]").lower()
            placed_fell = a.startswith("y")
        self.apply(Fall(pawns=pawns, tipped=True, placed_fell=placed_fell))

    def step(self, s: State) -> None:
        """Ask for whatever the state expects next and apply it."""
        e = s.to_json()["expected"]
        kind = e["kind"]
        if kind == "first_player":
            a = self.ask(f"First player (the youngest?): name, seat 1-{s.n}, or Enter to draw:")
            if self.common(a):
                return
            if not a:
                seat = self.rng.randrange(s.n)
                self.say(f"  drawn: {s.names[seat]}")
                self.apply(FirstPlayer(seat=seat, drawn=True))
            elif (seat := self.seat_of(s, a)) is not None:
                self.apply(FirstPlayer(seat=seat))
            return
        if kind == "roll_colour":
            a = self.ask(f"{e['prompt']} (Enter = roll for me, or type the colour):").lower()
            if self.common(a):
                return
            colour = a if a else self.rng.choice(COLOURS)
            if colour not in COLOURS:
                self.say(f"  colours: {', '.join(COLOURS)}")
                return
            self.say(f"  {s.names[s.current or 0]} rolled {colour.upper()}")
            self.apply(RollColour(colour=colour))
            return
        if kind == "roll":
            self.roll(s, e)
            return
        if kind == "give":
            self.ask_size(e["prompt"], e["sizes"], lambda size: Give(giver=e["player"], size=size))
            return
        if kind == "place":
            def _place(size: str) -> Place:
                return Place(size=size, zone=s.dice_colour, number=s.dice_number)
            if self.ask_size(e["prompt"], e["sizes"], _place):
                self.after_place()
            return
        if kind == "review_placement":
            a = self.ask(f"{e['prompt']} [a/r]:").lower()
            if not self.common(a) and a in ("a", "r"):
                self.apply(AcceptPlacement() if a == "a" else RedoPlacement())
            return
        if kind == "confirm_fall":
            a = self.ask(f"{e['prompt']}: Enter to confirm or type what fell:")
            if not self.common(a):
                pawns = parse_counts(a) if a else None
                self.apply(ConfirmFall(pawns=pawns))
            return
        if kind == "end_game":
            a = self.ask("Every pawn is placed. Is the disc still? Enter = yes (game over), "
                         "or 'f PAWNS' if pawns fell:")
            if not self.common(a) and not a:
                self.apply(EndGame())
            return
        raise AssertionError(kind)

    def seat_of(self, s: State, answer: str) -> int | None:
        """A seat from a name or a 1-based number; None (with a message) if neither."""
        if answer.isdigit() and 1 <= int(answer) <= s.n:
            return int(answer) - 1
        for i, name in enumerate(s.names):
            if name.lower() == answer.lower():
                return i
        self.say(f"  no player {answer!r}")
        return None

    def roll(self, s: State, e: dict[str, Any]) -> None:
        """Draw or read the dice for the current player."""
        typed = "colour and number, e.g. 'blue 4'" if s.version == 1 else "the number"
        a = self.ask(f"{e['prompt']}: Enter = roll for me, or type {typed}:").lower()
        if self.common(a):
            return
        if not a:
            number = self.rng.randint(1, 6)
            colour = self.rng.choice(COLOURS) if s.version == 1 else None
        else:
            parts = a.split()
            colour = next((p for p in parts if p in COLOURS), None) if s.version == 1 else None
            digits = [p for p in parts if p.isdigit()]
            if len(digits) != 1 or (s.version == 1 and colour is None):
                self.say(f"  type {typed}")
                return
            number = int(digits[0])
        shown = f"{colour.upper()} {number}" if colour else str(number)
        self.say(f"  {s.names[s.current or 0]} rolled {shown}" + (": penalty!" if number == 1 else ""))
        self.apply(Roll(number=number, colour=colour))

    def ask_size(self, prompt: str, sizes: list[str], make: Callable[[str], Action]) -> bool:
        """Ask a pawn size among ``sizes``; apply ``make(size)``; True if applied."""
        a = self.ask(f"{prompt}. Size [{'/'.join(s[0] for s in sizes)}]:").lower()
        if self.common(a):
            return False
        size = next((s for s in sizes if a and s.startswith(a)), None)
        if size is None:
            self.say(f"  one of: {', '.join(sizes)}")
            return False
        return self.apply(make(size))

    def after_place(self) -> None:
        """Ask what happened after a placement (nothing, or which pawns fell)."""
        while True:
            a = self.ask("Did anything fall? Enter = no, or the pawns (e.g. '1 small 1 large'):")
            if not a:
                return
            if a in ("u", "h", "t", "q", "?") or a.startswith("x "):
                self.common(a)
                return
            pawns = parse_counts(a[2:] if a.startswith("f ") else a)
            if pawns is not None:
                self.fall(pawns)
                return
            self.say("  e.g. '1 small 2 large', or Enter if nothing fell")

    def play(self) -> int:
        """Run a whole game; 0 when it is over, 1 if the input ends first or the player quits."""
        self.say("Dingo Disc companion - terminal referee. " + HELP)
        try:
            setup = self.setup()
            try:
                self.match = Match(setup)
            except IllegalAction as exc:
                self.say(f"cannot start: {exc.reason}")
                return 2
            if self.save is not None:
                self.save.write_text(json.dumps(setup.to_json()) + "\n", encoding="utf-8")
            last_turn = -1
            while self.match.state.phase != "over":
                s = self.match.state
                if s.phase == "roll" and s.turn != last_turn:
                    last_turn = s.turn
                    self.show(s)
                self.step(s)
        except EndOfInput:
            self.say("\ninput ended before the game was over")
            return 1
        except (KeyboardInterrupt, Quit):
            self.say("\nquit")
            return 1
        s = self.match.state
        self.show(s)
        self.say(s.to_json()["expected"]["prompt"])
        ranking = ", ".join(f"{i + 1}. {s.names[f.seat]} (round {f.round})"
                            for i, f in enumerate(s.finishing))
        self.say(f"Finishing order: {ranking}")
        return 0
