"""Running the installed ``hokm`` command as a user would, for the tests of the command line
and of ``hokm play``: its own process, the repository as the working folder, no ``HOKM_``
setting of the test run's environment (only the ones a test passes), no standard input."""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HOKM = str(Path(sys.executable).parent / "hokm")
ROOT = Path(__file__).resolve().parents[1]


def run(*args: str, env: dict[str, str] | None = None, timeout: float = 240
        ) -> subprocess.CompletedProcess[str]:
    """``hokm ARGS`` to its end (``timeout`` seconds at most), its output captured as text."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("HOKM_")}
    return subprocess.run([HOKM, *args], env={**base, **(env or {})}, cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def parallel(jobs: list[tuple[str, ...]], env: dict[str, str] | None = None,
             timeout: float = 240) -> list[subprocess.CompletedProcess[str]]:
    """:func:`run` of every job, four at a time (the ones that wait out the client's retries
    to an unreachable server then wait together), in the jobs' order."""
    with ThreadPoolExecutor(4) as pool:
        return list(pool.map(lambda args: run(*args, env=env, timeout=timeout), jobs))
