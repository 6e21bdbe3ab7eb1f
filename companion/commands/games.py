"""``dingo-companion games``: the games this companion referees (the registered game modules)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``games`` subcommand."""
    p = subparsers.add_parser("games", help="list the games this companion referees")
    p.add_argument("--json", action="store_true", help="print the games and their setup as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print one line per game (name, title, players, scoring, options), or the JSON."""
    from companion.games import GAMES

    if args.json:
        json.dump([{"name": r.name, "title": r.title, "scoring": r.scoring, "setup": r.setup_spec().to_json()}
                   for r in GAMES.values()], sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    for rules in GAMES.values():
        spec = rules.setup_spec()
        players = (f"{spec.min_players} players" if spec.min_players == spec.max_players
                   else f"{spec.min_players}-{spec.max_players} players")
        options = ", ".join(f"{o.name} ({_choices(o)})" for o in spec.options)
        print(f"{rules.name:<20} {rules.title} · {players} · scoring: {rules.scoring}"
              + (f" · options: {options}" if options else ""))
    return 0


def _choices(option: Any) -> str:
    """An option's choices for one line: all of them, or the default and how many when they are many
    (Dodos' Challenger modifiers are 80 values like ``2/2/1``)."""
    if len(option.choices) > 12:
        return f"default {option.default}; {len(option.choices)} values, listed by --json"
    return "/".join(str(c) for c in option.choices)
