"""An unreachable store, as the gateway's modules log it: expected and handled (``503
unavailable``, a loop that tries again), so it is logged in one line, never with a traceback:
an outage of seconds must not bury the log."""

from __future__ import annotations

from services.store.port import StoreUnavailable
from services.store.transient import TRANSIENT

UNREACHABLE: tuple[type[Exception], ...] = (StoreUnavailable, *TRANSIENT)
"""What an unreachable Redis raises (one failing over, or a Cluster's slot migrating, too)."""


def one_line(exc: BaseException) -> str:
    """``exc`` as one short line for a log: its type and the first line of its message."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:200]}" if text else type(exc).__name__
