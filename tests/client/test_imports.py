"""The client library speaks the public API only: no module of ``hokmclient`` imports the
server (``engine``, ``services``, ``worker``), and the terminal client imports the server's
code only where it must: its local bot (``worker.policies``) and the CLI plumbing
(``services.clitools``)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVER = ("engine", "services", "worker")


def imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def test_the_library_imports_nothing_of_the_server() -> None:
    files = sorted((ROOT / "hokmclient").glob("*.py"))
    assert len(files) >= 7
    for path in files:
        server = {n for n in imports(path) if n.split(".")[0] in SERVER}
        assert not server, (path.name, server)


def test_the_terminal_client_uses_the_server_only_for_its_bot_and_the_cli() -> None:
    allowed = {"bot.py": {"worker.policies"}, "cli.py": {"services.clitools"}}
    for path in sorted((ROOT / "hokmplay").glob("*.py")):
        server = {n for n in imports(path) if n.split(".")[0] in SERVER}
        assert server <= allowed.get(path.name, set()), (path.name, server)


def test_the_terminal_client_offers_the_server_bots_levels() -> None:
    import hokmplay
    from worker.policies import LEVELS

    assert hokmplay.LEVELS == tuple(LEVELS)
