"""``dingo-companion games`` and ``play --game NAME`` (--script, --random, the numbered terminal)."""

from __future__ import annotations

import importlib.util
import io
import json
import sys
from pathlib import Path

from companion.cli import main
from companion.commands import playgeneric
from companion.commands.play import run_script
from companion.games import GAMES


def _tiny():
    if "tiny_game" in sys.modules:
        return sys.modules["tiny_game"]
    path = Path(__file__).parents[1] / "games" / "tiny_game.py"
    spec = importlib.util.spec_from_file_location("tiny_game", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["tiny_game"] = module
    spec.loader.exec_module(module)
    return module


def test_games_lists_every_registered_game(capsys):
    assert main(["games"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == list(GAMES)
    assert "Dingo Disc · 2-6 players · scoring: rank" in lines[0]
    assert main(["games", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data[0]["name"] == "dingo-disc" and data[0]["setup"]["min_players"] == 2


def test_random_games_print_one_summary(capsys):
    assert main(["play", "--game", "dingo-disc", "--random", "3", "--seed", "7"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {k: out[k] for k in ("game", "games", "errors", "problems")} == {
        "game": "dingo-disc", "games": 3, "errors": 0, "problems": []}
    assert out["finished"] == 3 and out["actions"] > 100 and out["illegal_caught"] > 0
    # the same seed plays the same games
    assert main(["play", "--game", "dingo-disc", "--random", "3", "--seed", "7"]) == 0
    assert json.loads(capsys.readouterr().out) == out


def test_random_games_report_a_broken_game(monkeypatch):
    class Broken(_tiny().TinyRace):
        def invariants(self, state):
            return ["always wrong"]

    monkeypatch.setitem(playgeneric.__dict__, "GAMES", {"tiny-race": Broken()})
    out = io.StringIO()
    assert playgeneric.random_games("tiny-race", 2, 0, out) == 1
    summary = json.loads(out.getvalue())
    assert summary["errors"] > 0 and "invariant: always wrong" in summary["problems"][0]


def test_unknown_game_is_named(capsys):
    assert main(["play", "--game", "chess", "--random", "1"]) == 2
    assert f"unknown game 'chess'; known games: {', '.join(sorted(GAMES))}" in capsys.readouterr().err


def test_script_names_its_game_or_takes_the_option():
    lines = '{"type": "new_game", "players": ["A", "B"]}\n{"type": "first_player", "seat": 1}\n'
    out, err = io.StringIO(), io.StringIO()
    assert run_script(io.StringIO(lines), out, err, "dingo-disc") == 0
    assert json.loads(out.getvalue())["current"] == 1
    other = '{"type": "new_game", "game": "chess", "players": ["A", "B"]}\n'
    err = io.StringIO()
    assert run_script(io.StringIO(other), io.StringIO(), err, "dingo-disc") == 2
    assert err.getvalue().startswith("line 1: the script is a 'chess' game, not 'dingo-disc'")
    err = io.StringIO()
    assert run_script(io.StringIO(other), io.StringIO(), err) == 2
    assert "line 1: unknown game 'chess'" in err.getvalue()


def test_the_numbered_terminal_plays_any_game(monkeypatch, tmp_path):
    monkeypatch.setitem(playgeneric.__dict__, "GAMES", {"tiny-race": _tiny().TinyRace()})
    answers = "Ann, Bob\n\n" + "2\n\n" * 12  # players, default target; step 2, companion tosses
    out = io.StringIO()
    save = tmp_path / "game.jsonl"
    import random

    term = playgeneric.GenericTerminal("tiny-race", io.StringIO(answers), out, random.Random(1), save)
    assert term.play() == 0
    text = out.getvalue()
    assert "1. Ann: step 1" in text and "Ann steps 2" in text and "Ranking:" in text and "Scores:" in text
    lines = save.read_text().splitlines()
    assert json.loads(lines[0])["game"] == "tiny-race" and len(lines) > 2


def test_an_option_with_many_values_is_listed_by_its_default_and_count(capsys):
    assert main(["games"]) == 0
    dodos = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("dodos"))
    assert "challenger_modifiers (default 2/2/1; " in dodos and " values, listed by --json)" in dodos
    assert "0/0/0/0/0/1" not in dodos  # a hundred values of three counts each, joined, read as one
    assert "mode (race/cup)" in dodos
