"""A game server on this machine for bots, tests and benchmarks: ``hokm serve`` in a
subprocess (:class:`LocalServer`), and :func:`free_port`.

Contract: :class:`LocalServer` starts ``hokm serve --port 0`` (or the port given), reads the
address from the line it prints (``Hokm is running at http://HOST:PORT/ ...``), and returns
from :meth:`~LocalServer.start` once ``/readyz`` answers 200; it fails with ``RuntimeError``
(with the tail of the server's output) if the server exits or is not ready within
``timeout``.  The server's environment is this process's without any ``HOKM_*`` variable, plus
``env``: a server sees exactly the settings it is given.  Its output is drained all along (a
full pipe would block it) and kept in ``output`` (the last 400 lines), or written to ``log``.
It speaks to the server only through its command line and HTTP: nothing of the server is
imported.
"""

from __future__ import annotations

import collections
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

import httpx

_RUNNING = re.compile(r"running at (https?://\S+?)/? ")


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port free on ``host`` at the time of the call (another process may take it
    before it is used: prefer ``--port 0`` where the program can report its port)."""
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def hokm_command() -> list[str]:
    """The ``hokm`` command of this Python environment."""
    script = Path(sys.executable).parent / "hokm"
    if script.exists():
        return [str(script)]
    found = shutil.which("hokm")
    return [found] if found else [sys.executable, "-m", "hokm"]


class LocalServer:
    """``hokm serve`` in a subprocess (see the module docstring).

    ``data``: the data folder (None: a fresh temporary folder, removed at :meth:`stop`;
    ignored with ``HOKM_REDIS_URL`` in ``env``); ``env``: its ``HOKM_*`` settings;
    ``command``: another command line to run instead (it must print the same line, or give
    ``url``: the address it will serve); ``cwd``: its working folder."""

    def __init__(self, *, env: dict[str, str] | None = None, data: str | Path | None = None,
                 host: str = "127.0.0.1", port: int = 0, command: Sequence[str] | None = None,
                 log: IO[str] | None = None, cwd: str | Path | None = None,
                 timeout: float = 60.0, url: str | None = None) -> None:
        self.env = dict(env or {})
        self.host, self.port = host, port
        self._temp = None
        if data is None and "HOKM_REDIS_URL" not in self.env and command is None:
            self._temp = tempfile.mkdtemp(prefix="hokm-local-")
            data = self._temp
        self.data = None if data is None else str(data)
        self.command = list(command) if command is not None else None
        self.log = log
        self.cwd = cwd
        self.timeout = timeout
        self.output: collections.deque[str] = collections.deque(maxlen=400)
        self.url = url or ""
        self.proc: subprocess.Popen[str] | None = None
        self._found = threading.Event()
        if url:  # the address is known: no need to read it from the output
            self._found.set()

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def start(self) -> LocalServer:
        """Start the server and wait until it is ready; returns self."""
        cmd = self.command or [*hokm_command(), "serve", "--host", self.host, "--port",
                               str(self.port)] + (["--data", self.data] if self.data else [])
        env = {k: v for k, v in os.environ.items() if not k.startswith("HOKM_")}
        env.update(self.env)
        self.proc = subprocess.Popen(  # noqa: S603 (the hokm command, or the caller's)
            cmd, env=env, cwd=self.cwd, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, bufsize=1,
                                     start_new_session=True)
        threading.Thread(target=self._drain, name="hokm-serve-output", daemon=True).start()
        deadline = time.monotonic() + self.timeout
        while not self._found.wait(0.05):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self._fail("did not say where it runs")
        with httpx.Client(timeout=2) as http:
            while True:
                try:
                    if http.get(self.url + "/readyz").status_code == 200:
                        return self
                except httpx.HTTPError:
                    pass
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self._fail("did not become ready")
                time.sleep(0.05)  # poll interval of a deadline-bound wait

    def _drain(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        for line in self.proc.stdout:
            self.output.append(line)
            if self.log is not None:
                self.log.write(line)
                self.log.flush()
            if not self._found.is_set():
                found = _RUNNING.search(line)
                if found:
                    self.url = found.group(1).rstrip("/")
                    self._found.set()

    def _fail(self, what: str) -> None:
        self.kill()
        self._cleanup()
        tail = "".join(list(self.output)[-30:])
        raise RuntimeError(f"hokm serve {what}; its output:\n{tail}")

    def stop(self, timeout: float = 15.0) -> int | None:
        """Stop the server as Ctrl+C does (SIGINT), killing it after ``timeout`` seconds;
        returns its exit status.  Removes the temporary data folder."""
        status = None
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                status = self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                status = self.proc.wait(10)
        elif self.proc is not None:
            status = self.proc.returncode
        self._cleanup()
        return status

    def kill(self) -> None:
        """SIGKILL: the server stops at once, with no chance to finish anything."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def _cleanup(self) -> None:
        if self._temp is not None:
            shutil.rmtree(self._temp, ignore_errors=True)
            self._temp = None

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


NO_LIMITS = {"HOKM_RATE_PER_ADDRESS": "0", "HOKM_RATE_PER_TOKEN": "0",
             "HOKM_CREATES_PER_WINDOW": "0", "HOKM_BOT_MATCHES": "0",
             "HOKM_BOT_MATCHES_PER_ADDRESS": "0", "HOKM_CONNECTIONS_PER_ADDRESS": "0"}
"""Settings that switch off every per-address and per-token limit (all local clients come
from one address: tests and benchmarks)."""
