"""The import structure the design fixes (docs/architecture.md): one direction, pure cores.

Read from the source with ``ast`` (every import, also those inside functions), so a change that
breaks a rule fails here with the module and the import named, before anyone notices a slow or
untestable core.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).parents[1]
PACKAGES = ("companion", "web", "hardware", "firmware_bridge")
# The pure cores: rules engines and sensing. Dice and samples come in as inputs: no clock, no
# randomness, no threads, no I/O, no hardware, no web, and nothing of the application around them.
PURE = ("companion.sensing", "companion.games")
IMPURE_MODULES = {
    "asyncio", "datetime", "gpiozero", "hx711", "multiprocessing", "os", "paho", "pathlib", "random",
    "secrets", "select", "serial", "shutil", "socket", "sqlite3", "subprocess", "threading", "time",
    "urllib", "uuid", "flask", "waitress", "web", "hardware", "firmware_bridge",
}
# The trace file format (contract 1) lives beside the pipeline and opens files by path; the
# pipeline itself takes samples.
ALLOWED = {("companion.sensing.trace", "pathlib")}


def _name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_name(p): p for top in PACKAGES for p in sorted((REPO / top).rglob("*.py"))}


def _resolve(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if MODULES[module].name != "__init__.py":
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(module: str, *, runtime_only: bool, source: str | None = None) -> set[str]:
    """Modules ``module`` imports; ``runtime_only``: at import time (not in functions or
    ``if TYPE_CHECKING``), the imports that can make a cycle."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8") if source is None else source)
    found: set[str] = set()

    def visit(nodes: list[ast.stmt]) -> None:
        for node in nodes:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                if not runtime_only:
                    visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                target = _resolve(module, node)
                subs = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in MODULES]
                found.update(subs)
                if len(subs) < len(node.names):
                    found.add(target)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if not runtime_only or isinstance(node, ast.ClassDef):
                    visit(node.body)
            else:
                for field in ("body", "orelse", "finalbody"):
                    visit(getattr(node, field, []) or [])
                for handler in getattr(node, "handlers", []) or []:
                    visit(handler.body)

    visit(tree.body)
    return found


def _project(name: str) -> str | None:
    """The project module an import names (a package's or a module's), if any."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def test_no_import_cycles() -> None:
    graph = {m: {p for i in _imports(m, runtime_only=True) if (p := _project(i)) and p != m} for m in MODULES}
    state: dict[str, int] = {}

    def walk(m: str, path: list[str]) -> None:
        state[m] = 1
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                cycle = path[path.index(n):] + [n] if n in path else [m, n]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if n not in state:
                walk(n, path + [n])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            walk(m, [m])


@pytest.mark.parametrize("core", PURE)
def test_the_cores_are_pure(core: str) -> None:
    bad = []
    for module in (m for m in MODULES if m == core or m.startswith(core + ".")):
        for name in _imports(module, runtime_only=False):
            top = name.split(".")[0]
            outside = name.startswith("companion.") and not name.startswith(core + ".")
            if (top in IMPURE_MODULES or outside) and (module, name) not in ALLOWED:
                bad.append(f"{module} imports {name}")
    assert not bad, "\n".join(bad)


def test_only_the_entry_points_know_the_web_page() -> None:
    """The page depends on the application, never the reverse: only ``companion.commands`` (the
    command line, the composition root) starts the web server."""
    bad = [f"{m} imports {name}" for m in MODULES if m.startswith("companion.") and
           not m.startswith("companion.commands") for name in _imports(m, runtime_only=False)
           if name == "web" or name.startswith("web.")]
    assert not bad, "\n".join(bad)


def test_the_checker_sees_imports() -> None:
    """The rules above are only as good as the import reader: it finds what is there."""
    source = """
from __future__ import annotations
import math
from typing import TYPE_CHECKING
from . import cells
from .falls import Pawn
if TYPE_CHECKING:
    from companion.sensing.trace import TraceHeader
try:
    import time
except ImportError:
    pass
def later():
    import random
class Box:
    import threading
"""
    now = _imports("companion.sensing.pipeline", runtime_only=True, source=source)
    assert {"math", "companion.sensing.cells", "companion.sensing.falls", "time", "threading"} <= now
    assert not {"companion.sensing.trace", "random"} & now
    every = _imports("companion.sensing.pipeline", runtime_only=False, source=source)
    assert {"companion.sensing.trace", "random"} <= every
    assert "web.app" in _imports("companion.commands.run", runtime_only=False)


# Sensing is built of composed stages (issue 14): a class does not inherit another sensing class
# (a mixin reading its host's fields through ``self``); exceptions derive from the built-in ones.
MIXINS_LEFT: set[tuple[str, str, str]] = set()


def test_sensing_classes_are_composed_not_mixed_in() -> None:
    trees = {mod: ast.parse(path.read_text(encoding="utf-8")) for mod, path in MODULES.items()
             if mod.startswith("companion.sensing")}
    own = {node.name for tree in trees.values() for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
    bad = []
    for mod, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                for base in node.bases:
                    name = ast.unparse(base).split(".")[-1]
                    if name in own and (mod, node.name, name) not in MIXINS_LEFT:
                        bad.append(f"{mod}: class {node.name}({name})")
    assert not bad, "\n".join(bad)


def test_sensing_modules_stay_small() -> None:
    """No sensing module over ~450 lines (issue 14: a stage with one job fits on a few screens)."""
    big = [f"{mod}: {n} lines" for mod, path in MODULES.items() if mod.startswith("companion.sensing")
           and (n := len(path.read_text(encoding="utf-8").splitlines())) > 480]
    assert not big, "\n".join(big)


def test_sensing_stages_declare_no_host() -> None:
    """A stage is told what it needs as arguments and returns what it decides (``FallWatch``:
    ``SegmentFacts`` in, ``StairsRead`` out): no sensing class declares a ``Protocol`` of the
    object it would read (a host's fields), and none keeps a ``host``."""
    bad = []
    for mod, path in MODULES.items():
        if not mod.startswith("companion.sensing"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(ast.unparse(b).split(".")[-1] == "Protocol"
                                                      for b in node.bases):
                bad.append(f"{mod}: class {node.name}(Protocol)")
            elif isinstance(node, ast.Attribute) and node.attr == "host" and \
                    isinstance(node.value, ast.Name) and node.value.id == "self":
                bad.append(f"{mod}:{node.lineno}: self.host")
    assert not bad, "\n".join(bad)


# The table controller is composed of stages too (docs/architecture.md): it once inherited
# ResumeMixin, ButtonsMixin, ComputerSeatsMixin, DiscSyncMixin and AnswersMixin, which declared the
# controller's private fields they read (``_lock: Any``, ``_match: Any``, ...). A stage is a plain
# class, built by the controller and handed what it needs.
TABLE = "companion.table"
# The table modules that may import the controller: the package's re-export and the composition root.
CONTROLLER_IMPORTERS = {"companion.table", "companion.table.build"}


def _base_name(base: ast.expr) -> str:
    """The class name a base gives: ``X`` for ``X``, ``mod.X`` and ``X[T]``."""
    if isinstance(base, ast.Subscript):
        return _base_name(base.value)
    return base.attr if isinstance(base, ast.Attribute) else ast.unparse(base)


def _mixin_bases(tree: ast.AST) -> list[tuple[str, str]]:
    """``(class, base)`` for every class in ``tree`` with a base whose name ends in ``Mixin``."""
    return [(node.name, name) for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
            for name in map(_base_name, node.bases) if name.endswith("Mixin")]


def _table_modules() -> dict[str, Path]:
    return {mod: path for mod, path in MODULES.items() if mod == TABLE or mod.startswith(TABLE + ".")}


def test_table_classes_inherit_no_mixin() -> None:
    """No class in the table package inherits a ``...Mixin`` (the controller's parts are stages)."""
    bad = [f"{mod}: class {cls}({base})" for mod, path in _table_modules().items()
           for cls, base in _mixin_bases(ast.parse(path.read_text(encoding="utf-8")))]
    assert not bad, "\n".join(bad)


def test_the_mixin_checker_sees_mixins() -> None:
    source = """
class A(ResumeMixin, Base): pass
class B(mixins.ButtonsMixin): pass
class C(Generic[T], DiscSyncMixin): pass
class D(Mixing, MixinTools, Box[AnyMixin]): pass
class E(StoreMixin[T]): pass
"""
    assert _mixin_bases(ast.parse(source)) == [
        ("A", "ResumeMixin"), ("B", "ButtonsMixin"), ("C", "DiscSyncMixin"), ("E", "StoreMixin")]


def test_table_classes_declare_no_host_fields() -> None:
    """A mixin by another name: a class body annotating private fields it never sets (``_lock: Any``)
    reads them off the object it is mixed into."""
    bad = [f"{mod}:{st.lineno}: class {node.name} declares {st.target.id}"
           for mod, path in _table_modules().items()
           for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(node, ast.ClassDef)
           for st in node.body if isinstance(st, ast.AnnAssign) and st.value is None
           and isinstance(st.target, ast.Name) and st.target.id.startswith("_")]
    assert not bad, "\n".join(bad)


def test_no_table_stage_imports_the_controller() -> None:
    """The stages are handed what they need; none imports ``companion.table.controller`` (which
    imports them all: that would be a cycle, or a stage reaching back into its host)."""
    bad = [f"{mod} imports {name}" for mod in _table_modules() if mod not in CONTROLLER_IMPORTERS
           and mod != f"{TABLE}.controller" for name in _imports(mod, runtime_only=False)
           if _project(name) == f"{TABLE}.controller"]
    assert not bad, "\n".join(bad)


def test_table_modules_stay_small() -> None:
    """No table module over ~500 lines (a module past that is asking to be split)."""
    big = [f"{mod}: {n} lines" for mod, path in _table_modules().items()
           if (n := len(path.read_text(encoding="utf-8").splitlines())) > 500]
    assert not big, "\n".join(big)


def test_no_sensing_stage_knows_the_pipeline() -> None:
    """The pipeline composes the stages and the data flows one way through them: no sensing
    module imports ``pipeline.py`` back, not even for its type hints (a stage is handed what it
    reads, a segment's ``Readings``, and returns what it decides, a ``Verdict``). Only the
    package's entry point (``companion.sensing`` itself) and code outside the package may."""
    pipeline = "companion.sensing.pipeline"
    bad = [f"{m} imports {pipeline}" for m in MODULES if m.startswith("companion.sensing.") and m != pipeline
           and pipeline in _imports(m, runtime_only=False)]
    assert not bad, "\n".join(bad)
