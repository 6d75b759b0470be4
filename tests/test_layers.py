"""The layers import downwards only, read from the source with ``ast`` (nothing is imported):

- ``engine`` imports the standard library and ``engine`` alone;
- ``services`` imports nothing from ``worker`` (nor from a top-level ``hokm`` package);
- ``worker`` imports nothing from ``hokm``.

An import is any ``import``/``from ... import`` statement anywhere in a module (inside a
function or an ``if TYPE_CHECKING:`` block too; relative imports resolved to their package), and,
in a module that imports dynamically (``importlib.import_module``, ``__import__``), a string
naming a module (``"worker.main"``) that is the argument of such a call or an item of a tuple,
list or set: a plugin list is an import all the same.  Other strings are names, not imports
(a logger ``"hokm.gateway"``; an RQ job ``"worker.jobs.bot_turn"``, run by the worker itself).
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("engine", "services", "worker")
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
_DYNAMIC = frozenset({"import_module", "__import__"})


@dataclass(frozen=True)
class Import:
    """One module a source file imports: where, what, and how (statement or string)."""

    path: Path
    line: int
    module: str
    how: str

    @property
    def top(self) -> str:
        return self.module.split(".", 1)[0]

    def __str__(self) -> str:
        return f"{self.where}: {self.how} {self.module}"

    @property
    def where(self) -> str:
        try:
            shown = self.path.relative_to(ROOT)
        except ValueError:
            shown = self.path
        return f"{shown}:{self.line}"


def _package_of(path: Path, root: Path) -> list[str]:
    """The dotted package a module's relative imports start from."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    return parts[:-1]  # a module's package; for __init__ the package itself


def _is_dynamic_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    return name in _DYNAMIC


def imports_of(path: Path, root: Path = ROOT) -> Iterator[Import]:
    """Every module ``path`` imports (see the module docstring for what counts)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = _package_of(path, root)
    dynamic = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(path, node.lineno, alias.name, "imports")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            yield Import(path, node.lineno, module, "imports")
        elif _is_dynamic_call(node):
            dynamic = True
    if dynamic:
        for node in ast.walk(tree):
            if _is_dynamic_call(node):
                assert isinstance(node, ast.Call)
                candidates: list[ast.expr] = node.args[:1]
            elif isinstance(node, ast.Tuple | ast.List | ast.Set):
                candidates = node.elts
            else:
                continue
            for item in candidates:
                if (isinstance(item, ast.Constant) and isinstance(item.value, str)
                        and _DOTTED.fullmatch(item.value)):
                    yield Import(path, item.lineno, item.value, "imports dynamically")


def modules(layer: str, root: Path = ROOT) -> list[Path]:
    return sorted((root / layer).rglob("*.py"))


def offenders(layer: str, allowed: Callable[[str], bool], root: Path = ROOT) -> list[str]:
    """``file:line: imports module`` for every import of ``layer`` whose top-level package is
    not ``allowed``."""
    return [str(imp) for path in modules(layer, root) for imp in imports_of(path, root)
            if not allowed(imp.top)]


def engine_allowed(top: str) -> bool:
    return top == "engine" or top in sys.stdlib_module_names


def services_allowed(top: str) -> bool:
    return top not in ("worker", "hokm", "hokmclient", "hokmplay")


def worker_allowed(top: str) -> bool:
    return top not in ("hokm", "hokmclient", "hokmplay")


def _report(found: list[str]) -> str:
    return "imports across the layers:\n  " + "\n  ".join(found)


def test_every_layer_has_modules_to_check() -> None:
    for layer in LAYERS:
        assert len(modules(layer)) >= 5, layer


def test_engine_imports_only_the_standard_library_and_itself() -> None:
    found = offenders("engine", engine_allowed)
    assert not found, _report(found)


def test_services_import_nothing_from_worker() -> None:
    found = offenders("services", services_allowed)
    assert not found, _report(found)


def test_worker_imports_nothing_from_hokm() -> None:
    found = offenders("worker", worker_allowed)
    assert not found, _report(found)


def test_the_checker_finds_every_kind_of_import(tmp_path: Path) -> None:
    """The checker itself, on made-up modules: statements at any depth, relative imports,
    dynamic imports by string; names in modules without dynamic imports pass."""
    (tmp_path / "services" / "gateway").mkdir(parents=True)
    (tmp_path / "engine").mkdir()
    (tmp_path / "services" / "__init__.py").write_text("")
    (tmp_path / "services" / "gateway" / "api.py").write_text(
        "from __future__ import annotations\n"
        "from typing import TYPE_CHECKING\n"
        "from . import params\n"
        "from ..store import keys\n"
        "if TYPE_CHECKING:\n"
        "    import worker.jobs\n"
        "def advise():\n"
        "    from worker.hints import hint\n"
        "    return hint\n"
    )
    (tmp_path / "services" / "cli.py").write_text(
        "import importlib, logging\n"
        "PLUGINS = ('worker.arena', 'services.audit', 'hokm.play')\n"
        "log = logging.getLogger('hokm.cli')\n"
        "for name in PLUGINS:\n"
        "    importlib.import_module(name)\n"
        "__import__('worker')\n"
    )
    (tmp_path / "services" / "bots.py").write_text("JOB = 'worker.jobs.bot_turn'\n")
    (tmp_path / "engine" / "rules.py").write_text(
        "import json, os.path\nfrom . import cards\nfrom .cards import NAMES\nimport msgpack\n")

    found = offenders("services", services_allowed, tmp_path)
    assert sorted(f.split(": ", 1)[1] for f in found) == [
        "imports dynamically hokm.play", "imports dynamically worker",
        "imports dynamically worker.arena", "imports worker.hints", "imports worker.jobs",
    ]
    assert {f.split(": ", 1)[0].rsplit("/", 1)[-1] for f in found} == {
        "api.py:6", "api.py:8", "cli.py:2", "cli.py:6"}
    api = list(imports_of(tmp_path / "services" / "gateway" / "api.py", tmp_path))
    assert {i.module for i in api} >= {"services.gateway", "services.store"}
    assert [f.split(": ", 1)[1] for f in offenders("engine", engine_allowed, tmp_path)] == [
        "imports msgpack"]
