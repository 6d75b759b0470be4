"""``hokm play URL --bot LEVEL`` without a terminal for its output (the trick lines go to a
pipe or a file): while it waits for the server it says so on stderr when that is a terminal
(QA: nothing for ~12 s, then the error), in a line the next output replaces; stdout keeps
only the trick lines, and a captured stderr only the one line of an error."""

from __future__ import annotations

import os
import pty
import select
import socket
import subprocess
import sys
import time
from pathlib import Path

HOKM = str(Path(sys.executable).parent / "hokm")


def test_the_wait_for_a_silent_server_is_said_on_a_terminal_stderr() -> None:
    silent = socket.socket()  # listens, never answers: the client waits for its timeouts
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    url = f"http://127.0.0.1:{silent.getsockname()[1]}"
    master, slave = pty.openpty()
    proc = subprocess.Popen([HOKM, "play", url, "--bot", "easy"], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    seen = b""
    try:
        deadline = time.monotonic() + 60
        while b"connecting to" not in seen and time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    seen += os.read(master, 4096)
                except OSError:  # the process closed the terminal: it has ended
                    break
        assert f"connecting to {url} …".encode() in seen, seen
        assert proc.poll() is None  # said while it still waits for the server
    finally:
        proc.kill()
        proc.wait()
        os.close(master)
        silent.close()
    assert proc.stdout is not None
    assert proc.stdout.read() == b""  # stdout is the trick lines' alone
    proc.stdout.close()

