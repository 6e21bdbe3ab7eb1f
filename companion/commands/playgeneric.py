"""``play`` for any registered game: random games (``--random N``) and a numbered-choice terminal.

``random_games(name, n, seed, out)`` plays ``n`` games of ``name``, one after the other from its
``example_setups()`` in turn, choosing uniformly among ``legal_actions`` with ``random.Random(seed)``;
each step it also tries one near miss (an action not listed), which the rules must refuse
(``companion.games.playout``). It prints one JSON object: ``game``, ``games``, ``finished``,
``actions``, ``illegal_caught`` (near misses refused), ``errors`` (a listed action refused, a near
miss accepted, a broken invariant, a crash) and ``problems`` (the first ten, as sentences); the
exit status is 1 if there was any error.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import IO, Any

from companion.games import GAMES
from companion.games.base import ActionFormatError, IllegalAction
from companion.games.match import GameMatch
from companion.games.playout import random_playout


def random_games(name: str, n: int, seed: int | None, out: IO[str], *, max_actions: int = 10000) -> int:
    """Play ``n`` random games of ``name`` and print the summary (see the module docstring)."""
    rules = GAMES[name]
    if n < 0:
        raise SystemExit("play: --random needs a number of games >= 0")
    rng = random.Random(seed)
    setups = rules.example_setups()
    summary: dict[str, Any] = {"game": name, "games": n, "finished": 0, "actions": 0, "illegal_caught": 0,
                               "errors": 0, "seed": seed}
    problems: list[str] = []
    for i in range(n):
        report = random_playout(rules, setups[i % len(setups)], rng.randrange, max_actions=max_actions)
        summary["finished"] += int(report.finished)
        summary["actions"] += report.actions
        summary["illegal_caught"] += report.illegal_caught
        summary["errors"] += len(report.errors)
        problems += [f"game {i + 1}: {p}" for p in report.errors[: 10 - len(problems)]]
    summary["problems"] = problems
    json.dump(summary, out)
    out.write("\n")
    return 1 if summary["errors"] else 0


class GenericTerminal:
    """Any game in the terminal: the legal actions by number; Enter lets the companion draw chance."""

    def __init__(self, name: str, inp: IO[str], out: IO[str], rng: random.Random,
                 save: Path | None = None) -> None:
        """Play ``name``: read answers from ``inp``, write to ``out``; ``rng`` draws chance outcomes."""
        self.rules = GAMES[name]
        self.inp, self.out, self.rng, self.save = inp, out, rng, save

    def say(self, text: str = "") -> None:
        """Print one line."""
        print(text, file=self.out, flush=True)

    def ask(self, prompt: str) -> str | None:
        """Ask; None at the end of input."""
        self.out.write(prompt + " ")
        self.out.flush()
        line = self.inp.readline()
        return None if not line else line.strip()

    def setup(self) -> dict[str, Any] | None:
        """Ask the players and the options of the game's setup spec; the new_game JSON."""
        spec = self.rules.setup_spec()
        while True:
            answer = self.ask(f"Player names in seat order ({spec.min_players} to {spec.max_players}), "
                              "separated by commas:")
            if answer is None:
                return None
            names = [n.strip() for n in answer.split(",") if n.strip()]
            if spec.min_players <= len(names) <= spec.max_players and len(set(names)) == len(names):
                break
            self.say(f"  {spec.min_players} to {spec.max_players} distinct names, e.g. 'Anna, Ben, Cleo'")
        options: dict[str, Any] = {}
        for option in spec.options:
            choices = [str(c) for c in option.choices]
            while True:
                answer = self.ask(f"{option.name} ({'/'.join(choices)}; {option.help})? [{option.default}]")
                if answer is None:
                    return None
                if not answer:
                    break
                if answer in choices:
                    options[option.name] = option.choices[choices.index(answer)]
                    break
                self.say(f"  one of {', '.join(choices)}")
        return {"type": "new_game", "game": self.rules.name, "players": names, "options": options}

    def record(self, match: GameMatch) -> None:
        """Write the actions so far to ``--save`` (JSON Lines for ``--script``)."""
        if self.save is not None:
            self.save.write_text("".join(json.dumps(a.to_json()) + "\n" for a in match.history),
                                 encoding="utf-8")

    def play(self) -> int:
        """Run a whole game; 0 when it is over, 1 if the input ends first or the player quits."""
        self.say(f"{self.rules.title} - terminal referee. Type a number, Enter to let the companion "
                 "draw a chance outcome, u = undo, q = quit")
        setup = self.setup()
        if setup is None:
            self.say("\ninput ended before the game started")
            return 1
        try:
            match = GameMatch(self.rules, setup)
        except (IllegalAction, ActionFormatError) as exc:
            self.say(f"cannot start: {exc}")
            return 2
        self.record(match)
        while self.rules.outcome(match.state) is None:
            state = match.state
            legal = self.rules.legal_actions(state)
            self.say(self.rules.describe_next(state))
            for i, la in enumerate(legal, start=1):
                self.say(f"  {i}. {la.label}" + (" (chance)" if la.chance else ""))
            answer = self.ask(">")
            if answer is None:
                self.say("\ninput ended before the game was over")
                return 1
            if answer == "q":
                self.say("quit")
                return 1
            if answer == "u":
                try:
                    self.say(f"  undone: {match.undo().type}")
                except IndexError:
                    self.say("  nothing to undo")
                self.record(match)
                continue
            chance = [la for la in legal if la.chance]
            if not answer and chance:
                chosen = self.rng.choices(chance, weights=[la.probability or 1.0 for la in chance])[0]
            elif answer.isdigit() and 1 <= int(answer) <= len(legal):
                chosen = legal[int(answer) - 1]
            else:
                self.say(f"  type a number from 1 to {len(legal)}" + (", or Enter" if chance else ""))
                continue
            self.say("  " + self.rules.describe_action(state, chosen.action))
            match.apply(chosen.action)
            self.record(match)
        outcome = self.rules.outcome(match.state)
        self.say(self.rules.describe_next(match.state))
        names = list(setup["players"])
        ranking = "; ".join(", ".join(names[s] for s in group) for group in outcome.ranking)
        self.say(f"Ranking: {ranking}")
        if outcome.scores is not None:
            self.say("Scores: " + ", ".join(f"{names[i]} {v:g}" for i, v in enumerate(outcome.scores)))
        return 0
