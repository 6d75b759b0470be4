"""``hokm arena --jobs 2`` stopped by SIGTERM or Ctrl+C ends with its pool: the parent terminates
(and reaps) its worker processes before it exits, so none is left once the command has ended
(they ran on for seconds after a SIGTERM, which killed the parent alone).  SIGTERM still ends
the command as the signal does; Ctrl+C with 130 (``services/clitools.py``), without a traceback
from each process."""

from __future__ import annotations

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


@pytest.mark.parametrize(("how", "status"), [("SIGTERM", -signal.SIGTERM), ("Ctrl+C", 130)])
def test_a_stopped_arena_leaves_no_pool_process(tmp_path: Path, how: str, status: int) -> None:
    err = tmp_path / "err.txt"
    with err.open("w") as errors:
        proc = subprocess.Popen([HOKM, "arena", "hard", "hard", "--deals", "100000",
                                 "--jobs", "2", "--quiet"], stdout=subprocess.DEVNULL,
                                stderr=errors, start_new_session=True)
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
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=WAIT_S)
