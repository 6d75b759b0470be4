"""An unreachable store, as the gateway's modules log it: expected and handled (``503
unavailable``, a loop that tries again), so it is logged in one line, never with a traceback:
an outage of seconds must not bury the log.  The errors and the line are the store's
(``services/store/connect.py``), shared with the bot workers."""

from __future__ import annotations

from services.store.connect import UNREACHABLE, one_line

__all__ = ["UNREACHABLE", "one_line"]
