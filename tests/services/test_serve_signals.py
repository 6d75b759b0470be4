"""``hokm serve`` stops gracefully on SIGTERM and on Ctrl+C: 0 after SIGTERM (how operators and
container runtimes stop it; it was killed by it, status -15, uvicorn raising it again once
stopped) and 130 after SIGINT, as ``hokm worker`` (``services/clitools.py``)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import wait_for

HOKM = str(Path(sys.executable).parent / "hokm")


def ignore_sigint() -> None:
    """In the child before it runs: SIGINT ignored, as a shell starts a background job."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextlib.contextmanager
def serving(tmp_path: Path, sigint_ignored: bool = False
            ) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """``hokm serve`` (no HOKM_ setting) and its first line, killed if a test leaves it up."""
    proc = subprocess.Popen([HOKM, "serve", "--port", "0", "--data", str(tmp_path / "data")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={k: v for k, v in os.environ.items()
                                 if not k.startswith("HOKM_")},
                            preexec_fn=ignore_sigint if sigint_ignored else None)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert "Hokm is running at" in first, first
        yield proc, first
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 0), (signal.SIGINT, 130)])
def test_serve_exit_status_after_a_stop_signal(tmp_path: Path, signum: int, status: int) -> None:
    with serving(tmp_path) as (proc, first):
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == status, (first + out, err)
        assert "Traceback" not in out + err


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "healthz", timeout=2) as answer:
            return bool(answer.status == 200)
    except OSError:
        return False


def test_ctrl_c_twice_stops_at_once_without_a_traceback(tmp_path: Path) -> None:
    """An audit's finding: a second Ctrl+C (uvicorn's forced exit, which skips the app's
    lifespan shutdown) logged Starlette's report of the lifespan's cancellation, a traceback
    whole.  Still 130, and no traceback."""
    with serving(tmp_path) as (proc, first):
        url = first.split(" at ", 1)[1].split(" ", 1)[0]
        wait_for(lambda: _answers(url), 30, 0.05, "the server answering")
        proc.send_signal(signal.SIGINT)
        try:  # the second once the first is under way (as a hurried hand presses it)
            proc.wait(timeout=0.05)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 130, (first + out, err)
        assert "Traceback" not in out + err and "CancelledError" not in out + err, err


def signals_of(pid: int, field: str) -> set[int]:
    """The signals of ``/proc/PID/status``'s ``field`` (``SigIgn``, ``SigCgt``)."""
    status = Path(f"/proc/{pid}/status").read_text()
    mask = int(next(line.split()[1] for line in status.splitlines()
                    if line.startswith(field + ":")), 16)
    return {n for n in range(1, 65) if mask >> (n - 1) & 1}


def test_a_server_started_with_sigint_ignored_leaves_it_ignored(tmp_path: Path) -> None:
    """``hokm serve &`` from a script: the shell starts it with SIGINT ignored, so that the
    Ctrl+C of the script's foreground is not for it.  uvicorn took SIGINT over anyway, so it
    stopped, with status 0 (an audit's finding of session 37).  While it serves, SIGINT stays
    ignored (the kernel's own record of the process), a SIGINT sent leaves it answering, and
    SIGTERM stops it as ever."""
    with serving(tmp_path, sigint_ignored=True) as (proc, first):
        url = first.split(" at ", 1)[1].split(" ", 1)[0]
        wait_for(lambda: _answers(url), 30, 0.05, "the server answering")
        assert signal.SIGINT in signals_of(proc.pid, "SigIgn")
        assert signal.SIGTERM in signals_of(proc.pid, "SigCgt")  # (how it stops)
        proc.send_signal(signal.SIGINT)
        assert _answers(url) and proc.poll() is None
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, (first + out, err)
        assert "Traceback" not in out + err
