"""The ``hokm`` command while it starts: Ctrl+C in the second or so in which the parser imports
the sub-commands' modules exits quietly with status 130 (no traceback, nothing run), and an
empty ``--data`` is refused in one line by every command that takes ``--data`` (it meant the
current folder for ``hokm serve`` and the default folder for the audit commands)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hokm_command import HOKM, ROOT
from tests.services.test_cli import COMMANDS, assert_one_line_error, positionals

INTERRUPT_AT = """
import os, signal, sys

target = sys.argv[1]


def interrupt_at_import(event, args):
    if event == "import" and args[0] == target:
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl+C, just as this module is imported


sys.addaudithook(interrupt_at_import)
sys.argv = ["hokm", *sys.argv[2:]]
if os.environ.get("AS_MODULE"):
    import runpy

    runpy.run_module("hokm", run_name="__main__", alter_sys=True)
else:
    from hokm.cli import main

    sys.exit(main())
"""
"""``hokm ARGS`` (or ``python -m hokm ARGS`` with ``AS_MODULE``) receiving SIGINT when the module
``argv[1]`` is first imported."""


def base_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("HOKM_")}


@pytest.mark.parametrize(("module", "as_module"), [
    # the parser being built: the first plugin (``hokm.compose``, which ``serve`` registers
    # with; the plugins themselves come by importlib, whose imports raise no audit event), ...
    ("hokm.compose", False),
    ("worker.policies", False),
    ("services.audit", False),  # ... and the last
    ("services.clitools", True),  # python -m hokm importing hokm.cli
    ("worker.policies", True),
])
def test_ctrl_c_while_the_command_starts_exits_quietly(module: str, as_module: bool) -> None:
    result = subprocess.run(
        [sys.executable, "-c", INTERRUPT_AT, module, "demo", "--seed", "1"],
        env={**base_env(), **({"AS_MODULE": "1"} if as_module else {})}, cwd=ROOT,
        capture_output=True, text=True, timeout=120)
    where = f"rc {result.returncode}, stdout {result.stdout[:200]!r}, stderr {result.stderr!r}"
    assert result.returncode == 130, where
    assert result.stdout == "", where  # the demo never started
    assert "Traceback" not in result.stderr, where
    assert len(result.stderr.splitlines()) <= 1 and len(result.stderr) < 200, where


def test_the_interrupt_hook_interrupts_where_it_should() -> None:
    """Without a SIGINT (a module that is never imported), the same run plays the demo."""
    result = subprocess.run(
        [sys.executable, "-c", INTERRUPT_AT, "no.such.module", "demo", "--seed", "1"],
        env=base_env(), cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and "wins the match" in result.stdout, result.stderr


def test_an_empty_data_folder_is_refused_by_every_command_that_takes_one(
        tmp_path: Path) -> None:
    jobs = []
    for name, parser in COMMANDS.items():
        if any("--data" in action.option_strings for action in parser._actions):
            port = ["--port", "0"] if name == "serve" else []
            jobs.append([name, *positionals(parser), *port, "--data", ""])
    assert {job[0] for job in jobs} >= {"serve", "replay", "export", "verify"}
    for job in jobs:
        result = subprocess.run([HOKM, *job], env=base_env(), cwd=tmp_path,
                                capture_output=True, text=True, timeout=60)
        line = assert_one_line_error(result, 2)
        assert "--data" in line and "empty" in line, line
        assert result.stdout == ""
    assert list(tmp_path.iterdir()) == []  # no journal, no lock in the current folder


def test_serve_refuses_a_folder_that_is_not_hokms_and_leaves_it_as_it_was(
        tmp_path: Path) -> None:
    """``--data /etc`` wrote ``/etc/journal`` and ``/etc/lock``; a folder whose ``journal`` is
    not hokm's kept the ``lock`` written before the journal was refused."""
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "journal").write_bytes(b"not a hokm journal at all\n")
    for folder, code, said in ((other, 2, f"the data folder {other} is not hokm's: it is not "
                                          "empty and holds no journal"),
                               (foreign, 1, "is not a hokm journal")):
        before = sorted(p.name for p in folder.iterdir())
        result = subprocess.run([HOKM, "serve", "--port", "0", "--data", str(folder)],
                                env=base_env(), cwd=tmp_path, capture_output=True, text=True,
                                timeout=60)
        line = assert_one_line_error(result, code)
        assert said in line, line
        assert "running at" not in result.stdout
        assert sorted(p.name for p in folder.iterdir()) == before  # no journal, no lock


def test_a_new_empty_or_hokm_folder_is_used(tmp_path: Path) -> None:
    import fakeredis

    from services.store.journal import DataFolder

    for folder in (tmp_path / "new" / "data", tmp_path / "empty", tmp_path / "leftover"):
        if folder.name != "data":
            folder.mkdir()
        if folder.name == "leftover":  # a lock a start left before it wrote its journal
            (folder / "lock").write_text("")
        DataFolder.open(folder, fakeredis.FakeServer()).close()
        assert sorted(p.name for p in folder.iterdir()) == ["journal", "lock"]
        DataFolder.open(folder, fakeredis.FakeServer()).close()  # and again: it is hokm's


def test_an_empty_output_file_is_refused(tmp_path: Path) -> None:
    """``hokm export M -o ""`` wrote to stdout as if ``-o`` were left out (an audit's
    finding): refused, as an empty ``--data`` is."""
    result = subprocess.run([HOKM, "export", "abc", "-o", ""], env=base_env(), cwd=tmp_path,
                            capture_output=True, text=True, timeout=60)
    line = assert_one_line_error(result, 2)
    assert line.startswith("hokm export: argument -o/--output: the file is empty"), line
    assert result.stdout == "" and list(tmp_path.iterdir()) == []
