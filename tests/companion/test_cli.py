"""The command line imports only the subcommand it runs (replay starts fast)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from companion.cli import COMMAND_MODULES, build_parser, command_named
from companion.sensing.trace import CellSpec, Sample, TraceHeader, write_trace


def test_command_named_finds_the_subcommand() -> None:
    assert command_named(["replay", "x.trace.csv"]) == "replay"
    assert command_named(["bench", "sensing", "--quick"]) == "bench"
    assert command_named(["--help"]) is None
    assert command_named([]) is None
    assert command_named(["nonsense"]) is None


def test_help_still_lists_every_subcommand() -> None:
    text = build_parser().format_help()
    assert all(name in text for name in COMMAND_MODULES)


def test_replay_imports_neither_the_web_app_nor_the_other_subcommands(tmp_path: Path) -> None:
    trace = tmp_path / "t.trace.csv"
    cells = tuple(CellSpec(x, y, 0.0, 400.0) for x, y in ((100, 0), (-50, 87), (-50, -87)))
    header = TraceHeader(80.0, cells, {"small": 2.0, "medium": 4.5, "large": 8.0})
    write_trace(trace, header, [Sample(12 * k, (0, 0, 0)) for k in range(100)])
    code = ("import sys; from companion.cli import main; rc = main(['replay', sys.argv[1]]); "
            "bad = [m for m in sys.modules if m.startswith(('flask', 'companion.commands.run', "
            "'companion.commands.bench', 'companion.games', 'companion.web'))]; "
            "print('IMPORTED', bad, file=sys.stderr); sys.exit(rc)")
    done = subprocess.run([sys.executable, "-c", code, str(trace)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert "IMPORTED []" in done.stderr
