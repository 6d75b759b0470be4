"""Tie a forked process to its parent's life: the pools of ``hokm worker --processes`` and of
``hokm arena --jobs`` (``end_with_parent``), so that none of their processes runs on as an
orphan when the command dies without stopping them (``kill -9``, the OOM killer)."""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import sys

log = logging.getLogger("hokm.worker")

PR_SET_PDEATHSIG = 1
"""``prctl``'s option (linux/prctl.h): the signal this process gets when its parent dies."""


def end_with_parent(parent: int) -> None:
    """Have the kernel send this process SIGTERM when ``parent`` (the pid of the process that
    forked it, taken before the fork) dies, however it dies, SIGKILL included.  Linux's
    ``PR_SET_PDEATHSIG``, through ``ctypes``: no thread and no pipe to watch, and nothing to get
    wrong while the process is blocked.  The kernel sends the signal when the *thread* that
    forked the process ends, so the fork should come from the parent's main thread (or from a
    thread that lives as long as the pool).  A parent that died before the tie was made is seen
    by the process's parent pid having changed: the signal is then sent at once.  On other
    systems the processes are not tied (the servers run Linux).  What SIGTERM does is the
    caller's: its handler, or the default (the process ends)."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0) != 0:
            log.warning("process %d is not tied to its parent's life (prctl: %s)",
                        os.getpid(), os.strerror(ctypes.get_errno()))
    if os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGTERM)
