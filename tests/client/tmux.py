"""A real terminal for the terminal client's tests: a tmux server of our own running one
command in a pane, with its screen read by ``capture-pane`` and keys sent by ``send-keys``
(the ``terminal`` fixture of ``conftest.py`` closes every one a test opened)."""

from __future__ import annotations

import itertools
import os
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

_SERVERS = itertools.count()
"""Numbers the tmux servers of this process (each terminal's socket its own)."""


class Terminal:
    """One tmux server of our own (its own socket, one a terminal) running one command in a
    110x36 pane."""

    def __init__(self, command: list[str], env: dict[str, str] | None = None,
                 stdin: str | None = None) -> None:
        """``stdin``: a file the command reads instead of the terminal (its output still goes
        to the terminal)."""
        tmux = shutil.which("tmux")
        if tmux is None:
            pytest.fail("tmux is not installed (.ci/run installs it)")
        # a server of its own, never one a test before closed: ``kill-server`` returns before
        # that server is gone, and a new session on its socket then met it dying ("server
        # exited unexpectedly", a CI failure)
        name = f"hokm-test-{os.getpid()}-{next(_SERVERS)}"
        self.tmux = [tmux, "-L", name, "-f", "/dev/null"]
        self.socket = Path(os.environ.get("TMUX_TMPDIR") or "/tmp") / f"tmux-{os.getuid()}" / name
        base = {k: v for k, v in os.environ.items() if not k.startswith(("HOKM_", "TMUX"))}
        self.status_file = Path(tempfile.mkdtemp(prefix="hokm-tmux-")) / "status"
        # the exit status goes to a file (tmux's pane_dead_status is not always filled in);
        # the shell traps SIGINT (a Ctrl+C the command gets as a signal, reading no terminal,
        # reaches the shell too, which died of it before writing the status); the command
        # gets the default disposition back (a handler, unlike an ignored signal, is reset)
        redirect = f" < {shlex.quote(stdin)}" if stdin is not None else ""
        line = (f"trap : INT; {shlex.join(command)}{redirect}; "
                f"echo $? > {shlex.quote(str(self.status_file))}")
        self._run("new-session", "-d", "-s", "play", "-x", "110", "-y", "36", "sh", "-c", line,
                  ";", "set-option", "-t", "play", "remain-on-exit", "on",
                  env={**base, **(env or {})})

    def _run(self, *args: str, env: dict[str, str] | None = None) -> str:
        done = subprocess.run([*self.tmux, *args], capture_output=True, text=True, env=env,
                              timeout=30)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def screen(self, colours: bool = False) -> str:
        """The pane's text (with ``colours``: its escape sequences too)."""
        return self._run("capture-pane", "-p", *(["-e"] if colours else []), "-t", "play")

    def history(self) -> str:
        """The pane's text with the lines scrolled off its top (a command's last words: tmux's
        "Pane is dead" line, once the command ended, may scroll the first of them away)."""
        return self._run("capture-pane", "-p", "-S", "-", "-t", "play")

    def keys(self, *keys: str) -> None:
        self._run("send-keys", "-t", "play", *keys)

    def type(self, text: str) -> None:
        self._run("send-keys", "-t", "play", "-l", text)

    def exit_status(self) -> int | None:
        """The command's exit status once it has ended, else None."""
        try:
            text = self.status_file.read_text()
        except FileNotFoundError:
            return None
        return int(text) if text.endswith("\n") else None

    def close(self) -> None:
        subprocess.run([*self.tmux, "kill-server"], capture_output=True, timeout=30)
        self.socket.unlink(missing_ok=True)  # (the server does not always remove it)
        shutil.rmtree(self.status_file.parent, ignore_errors=True)


def command_pid(term: Terminal) -> int:
    """The process id of the command ``term`` runs (the child of the pane's shell)."""
    shell = term._run("display-message", "-p", "-t", "play", "#{pane_pid}").strip()
    found = subprocess.run(["pgrep", "-P", shell], capture_output=True, text=True, timeout=30)
    pids = found.stdout.split()
    assert len(pids) == 1, (shell, found.stdout, found.stderr)
    return int(pids[0])


def modes(term: Terminal) -> tuple[int, int]:
    """The pane's (alternate screen on, cursor shown) flags: a full-screen program shows (1, 0)."""
    on, cursor = term._run("display-message", "-p", "-t", "play",
                           "#{alternate_on} #{cursor_flag}").split()
    return int(on), int(cursor)
