"""``hokm arena --jobs 2`` stopped ends with its pool.  Ctrl+C: the parent terminates (and
reaps) its worker processes before it exits with 130 (``services/clitools.py``), without a
traceback from each process.  SIGTERM or SIGKILL end the command as the signal does, and the
kernel's parent-death signal ends each pool process at once (they ran on for seconds, to the end
of their deal, after a signal that killed the parent alone)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import wait_for
from tests.worker.test_stop_signals import group_of

HOKM = str(Path(sys.executable).parent / "hokm")
WAIT_S = 60.0
"""Deadline for the pool to start and for the command to end (never reached when all is well)."""


def arena(err: Path, level: str, jobs: int) -> subprocess.Popen[bytes]:
    """``hokm arena LEVEL LEVEL`` with ``jobs`` processes in a session of its own (its group
    the command's pid), long enough to stop; its stderr to ``err``."""
    with err.open("w") as errors:
        return subprocess.Popen([HOKM, "arena", level, level, "--deals", "100000", "--jobs",
                                 str(jobs), "--quiet"], stdout=subprocess.DEVNULL,
                                stderr=errors, start_new_session=True)


def end(proc: subprocess.Popen[bytes]) -> None:
    """Kill whatever of the command's group a failed test left."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(timeout=WAIT_S)


@pytest.mark.parametrize(("how", "status"), [("Ctrl+C", 130)])
def test_a_stopped_arena_leaves_no_pool_process(tmp_path: Path, how: str, status: int) -> None:
    err = tmp_path / "err.txt"
    proc = arena(err, "hard", 2)
    try:
        wait_for(lambda: len(group_of(proc.pid)) == 3, WAIT_S, 0.05,
                 "the command and its two pool processes")
        if how == "SIGTERM":
            os.kill(proc.pid, signal.SIGTERM)
        else:
            os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl+C
        proc.wait(timeout=WAIT_S)
        left = group_of(proc.pid)
        assert left == [], f"pool processes running after the command ended: {left}"
        assert proc.returncode == status, err.read_text()
        assert "Traceback" not in err.read_text(), err.read_text()
    finally:
        end(proc)


REAPER = """
import ctypes, json, os, subprocess, sys
PR_SET_CHILD_SUBREAPER = 36
assert ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                        start_new_session=True)
print(proc.pid, flush=True)
ended = {}
while True:
    try:
        pid, status = os.waitpid(-1, 0)
    except ChildProcessError:
        break
    ended[pid] = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
print(json.dumps(ended), flush=True)
"""
"""Runs a command and, as the subreaper of its orphans, prints its pid, then how each of its
processes ended (pid: exit status, or minus the signal), once all have."""


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
def test_a_killed_arena_leaves_no_pool_process(how: signal.Signals) -> None:
    """SIGKILL (or SIGTERM, which it does not catch) gives the command no chance to terminate
    its pool: the kernel's parent-death signal (``worker/lifetime.py``) ends the pool's
    processes at once, where they ran on as orphans (to the end of their deal, then failing to
    send its result).  The test runs the command under a subreaper, which reaps the orphans and
    sees how they ended."""
    reaper = subprocess.Popen([sys.executable, "-c", REAPER, HOKM, "arena", "hard", "hard",
                               "--deals", "100000", "--jobs", "2", "--quiet"],
                              stdout=subprocess.PIPE, text=True)
    assert reaper.stdout is not None
    pid = int(reaper.stdout.readline())
    try:
        pool = wait_for(lambda: [p for p in group_of(pid) if p != pid]
                        if len(group_of(pid)) == 3 else None, WAIT_S, 0.05,
                        "the command and its two pool processes")
        os.kill(pid, how)
        wait_for(lambda: group_of(pid) == [], WAIT_S, 0.05, "no process of the group left")
        ended = {int(k): v for k, v in json.loads(reaper.stdout.readline()).items()}
        reaper.wait(timeout=WAIT_S)
        assert ended == {pid: -how, **{p: -signal.SIGTERM for p in pool}}
    finally:
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        reaper.kill()
        reaper.wait(timeout=WAIT_S)


def test_ctrl_c_while_the_pool_starts_ends_it_quietly(tmp_path: Path) -> None:
    """An audit's finding: Ctrl+C while the pool's processes were being forked reached those
    not yet ignoring it (a traceback each, exit 0 once), and one dying with a lock held left
    the command waiting for ever.  SIGINT is blocked while they start and handled without
    unwinding the pool: 130, no traceback, no process left."""
    err = tmp_path / "err.txt"
    proc = arena(err, "easy", 48)
    try:
        wait_for(lambda: len(group_of(proc.pid)) >= 2, WAIT_S, 0.005, "the pool starting")
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=WAIT_S)
        assert proc.returncode == 130, err.read_text()
        assert "Traceback" not in err.read_text() and "KeyboardInterrupt" not in err.read_text()
        wait_for(lambda: group_of(proc.pid) == [], WAIT_S, 0.05, "no pool process left")
    finally:
        end(proc)
