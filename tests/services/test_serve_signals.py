"""``hokm serve`` stops gracefully on SIGTERM and on Ctrl+C: 0 after SIGTERM (how operators and
container runtimes stop it; it was killed by it, status -15, uvicorn raising it again once
stopped) and 130 after SIGINT, as ``hokm worker`` (``services/clitools.py``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

HOKM = str(Path(sys.executable).parent / "hokm")


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 0), (signal.SIGINT, 130)])
def test_serve_exit_status_after_a_stop_signal(tmp_path: Path, signum: int, status: int) -> None:
    proc = subprocess.Popen([HOKM, "serve", "--port", "0", "--data", str(tmp_path / "data")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={k: v for k, v in os.environ.items()
                                 if not k.startswith("HOKM_")})
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert "Hokm is running at" in first, first
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == status, (first + out, err)
        assert "Traceback" not in out + err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
