"""``dingo-companion play``: scripted mode (JSON Lines) and the interactive terminal mode (piped stdin)."""

from __future__ import annotations

import io
import json
import subprocess
import sys

from companion.cli import main
from companion.commands.play import parse_counts

NEW = {"type": "new_game", "version": 1, "players": ["Anna", "Bob"]}


def _script(tmp_path, lines):
    path = tmp_path / "game.jsonl"
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))
    return path


def test_script_prints_the_final_state(tmp_path, capsys):
    path = _script(tmp_path, [NEW, {"type": "first_player", "seat": 1}, "",
                              {"type": "roll", "colour": "blue", "number": 4},
                              {"type": "place", "size": "large"}])
    assert main(["play", "--script", str(path)]) == 0
    state = json.loads(capsys.readouterr().out)
    assert state["players"][1]["supply"] == {"small": 8, "medium": 8, "large": 7}
    assert state["expected"]["kind"] == "roll" and state["expected"]["player"] == 0


def test_script_stops_at_the_first_illegal_line_with_status_2(tmp_path, capsys):
    path = _script(tmp_path, [NEW, {"type": "first_player", "seat": 0},
                              {"type": "place", "size": "large"}, {"type": "nonsense"}])
    assert main(["play", "--script", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("line 3: place: ") and "rule: wrong-phase" in err


def test_script_malformed_lines_name_the_line_and_reason(tmp_path, capsys):
    cases = [
        ([NEW, "{not json"], "line 2: invalid JSON"),
        ([NEW, {"type": "roll", "colour": "blue"}], "line 2: roll: missing field 'number'"),
        ([NEW, {"type": "fly"}], "line 2: unknown action type 'fly'"),
        ([NEW, {"type": "place", "size": "huge"}], "line 2: place.size must be one of small, medium, large"),
        ([NEW, {"type": "give", "giver": 0, "size": "small", "extra": 1}],
         "line 2: give: unknown field 'extra'"),
        ([{"type": "roll", "number": 3}], "line 1: the first action must be new_game"),
        ([], "line 1: the script is empty"),
        ([{"type": "new_game", "version": 1, "players": ["A"]}],
         "line 1: new_game: Dingo Disc is for 2 to 6"),
    ]
    for lines, message in cases:
        assert main(["play", "--script", str(_script(tmp_path, lines))]) == 2, message
        assert capsys.readouterr().err.startswith(message)


def test_script_from_stdin_via_the_console_script(tmp_path):
    lines = "\n".join(json.dumps(x) for x in [NEW, {"type": "first_player", "seat": 0}]) + "\n"
    done = subprocess.run([sys.executable, "-m", "companion", "play", "--script", "-"], input=lines,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["phase"] == "roll"
    bad = subprocess.run([sys.executable, "-m", "companion", "play", "--script", "-"], input="[1]\n",
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.startswith("line 1: an action must be a JSON object")


def test_script_missing_file_is_a_clear_error(tmp_path, capsys):
    assert main(["play", "--script", str(tmp_path / "nope.jsonl")]) == 1
    assert "cannot read" in capsys.readouterr().err


def test_parse_counts():
    assert parse_counts("1 small 2 large") == (1, 0, 2)
    assert parse_counts("s m m") == (1, 2, 0)
    assert parse_counts("2l, 1 med") == (0, 1, 2)
    assert parse_counts("banana") is None and parse_counts("") is None


def _interactive(monkeypatch, capsys, answers, *extra):
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(a + "\n" for a in answers)))
    status = main(["play", "--seed", "7", *extra])
    return status, capsys.readouterr().out


def _whole_game_answers():
    answers = ["1", "Anna, Bob", "", "", "", "", "1"]  # version, names, default options, Anna first
    for turn in range(48):
        answers += ["blue 4", "sml"[(turn // 2) % 3], ""]  # typed dice, a size, nothing fell
    answers.append("")  # the disc is still: game over
    return answers


def test_interactive_plays_a_whole_game_from_piped_stdin(monkeypatch, capsys, tmp_path):
    save = tmp_path / "saved.jsonl"
    status, out = _interactive(monkeypatch, capsys, _whole_game_answers(), "--save", str(save))
    assert status == 0, out[-500:]
    assert "Game over: draw (match nul)" in out  # Bob finishes in the round Anna finished
    assert "Anna: 0 small, 0 medium, 0 large (0 left) - finished" in out
    # the saved actions replay to the same end with --script
    assert main(["play", "--script", str(save)]) == 0
    final = json.loads(capsys.readouterr().out)
    assert final["phase"] == "over" and final["draw"] is True


def test_interactive_penalty_fall_attempts_undo_and_drawn_dice(monkeypatch, capsys):
    answers = ["1", "Anna, Bob, Chloe", "", "", "", "", "",  # Enter: the companion draws the first player
               "", "s", "",  # dice rolled by the companion (seeded), place a small, nothing fell
               "t",          # show the table
               "red 1", "large", "m",  # penalty: the next player's left gives a large, the other a medium
               "green 5", "l", "1 large",  # the large falls: it is the pawn just placed (only large on disc)
               "l", "1 l",    # attempt 2 falls too: keeps it and passes
               "u",           # undo that fall
               "h", "x 1",    # hand flag, dismissed
               "q"]
    status, out = _interactive(monkeypatch, capsys, answers)
    assert status == 1 and out.rstrip().endswith("quit")
    assert "drawn: " in out and "penalty!" in out
    assert "(attempt 2)" in out and "undone: fall" in out


def test_interactive_rejects_bad_answers_and_reports_end_of_input(monkeypatch, capsys):
    answers = ["3", "1", "Solo", "Anna, Anna", "Anna, Bob", "", "", "", "", "Zed", "2", "purple", "blue 9",
               "blue 1"]
    status, out = _interactive(monkeypatch, capsys, answers)
    assert status == 1
    assert "please answer 1 or 2" in out and "2 to 6 distinct names" in out and "no player 'Zed'" in out
    assert "input ended before the game was over" in out
    assert "  type colour and number" in out and "not allowed: the number die shows 1 to 6, got 9" in out
    assert "Penalty: Anna, give Bob one pawn of your choice" in out


def test_interactive_version_2_draws_colours_and_rolls_the_number_die_only(monkeypatch, capsys):
    answers = ["2", "Anna, Bob", "", "", "", "", "2",  # version 2, Bob first
               "", "",           # colours drawn by the companion (re-rolled while taken)
               "blue 4",         # a typed colour is ignored in version 2: Bob rolled 4
               "m", "",          # Bob places a medium in his own zone, nothing fell
               "q"]
    status, out = _interactive(monkeypatch, capsys, answers)
    assert status == 1
    assert "Bob: roll the colour die" in out and "Anna: roll the colour die" in out
    assert "type the number" in out and "Bob rolled 4" in out
    assert "Bob: place a pawn of your choice in " in out
    assert "not allowed" not in out and "Anna: take the dice and roll the number die (your zone: " in out


def test_script_starting_with_a_byte_order_mark_is_accepted(tmp_path, capsys):
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + (json.dumps(NEW) + "\n").encode())
    assert main(["play", "--script", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["phase"] == "first_player"


def test_script_truncated_line_says_it_is_cut_short_not_column_1(tmp_path, capsys):
    path = _script(tmp_path, [NEW, '{"type": "first_player", "se'])
    assert main(["play", "--script", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("line 2: invalid JSON: the line ends before the JSON value is complete")
    assert "column 1" not in err


def test_script_json_state_prints_the_state_before_the_failing_line(tmp_path, capsys):
    path = _script(tmp_path, [NEW, {"type": "first_player", "seat": 1}, {"type": "place", "size": "large"}])
    assert main(["play", "--script", str(path), "--json-state"]) == 2
    out, err = capsys.readouterr()
    assert err.startswith("line 3: place: ")
    assert json.loads(out)["current"] == 1


def test_script_broken_pipe_is_not_reported_as_cannot_read(tmp_path, monkeypatch, capsys):
    class ClosedPipe(io.StringIO):
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

        def fileno(self):
            raise ValueError("no file")

    path = _script(tmp_path, [NEW])
    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    assert main(["play", "--script", str(path)]) == 0
    assert "cannot read" not in capsys.readouterr().err


def test_interactive_says_what_went_back_to_whom_and_acknowledges_a_hand(monkeypatch, capsys):
    answers = ["1", "Anna, Bob", "", "", "", "", "1",  # version, names, default options, Anna first
               "blue 4", "l", "",                      # Anna places a large, nothing fell
               "f 1 large",                            # Bob's turn: Anna's large falls
               "h", "q"]
    status, out = _interactive(monkeypatch, capsys, answers)
    assert "1 large back to Anna" in out
    assert "hand on the disc noted (flag " in out
