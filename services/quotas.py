"""What one client may cost the deployment, and how long a match is kept.

The gateway passes the match service an *owner* for every match it creates: an opaque digest of
the client's address (``owner_of``), never the address itself.  With it the service enforces:

* ``creates_per_window`` matches per ``create_window_s`` per owner (``rate_limited``);
* at most ``bot_matches`` bots-only matches playing at once in the whole deployment, and
  ``bot_matches_per_owner`` per owner: such a match runs its bots at full speed with nobody
  waiting for them, so it is the cheapest way to burn the workers' CPU (``rate_limited``; the
  slot is released when the match ends, and lapses after ``BOT_SLOT_S`` if it never does; a
  match its last human leaves to a bot takes one then, ``Lobby._to_bot``);
* at most ``bot_matches_per_owner`` matches per owner played by stand-ins with every human away
  (``UNATTENDED``, ``Lobby.hold_unattended``): nobody waits for those either, and creating
  tables whose human never connects ran them past the bots-only limit (an audit's finding);
  the others wait for a free slot or a player;
* lifetimes: every system step (seating, a deal, the ace draw) gives the match's keys
  ``idle_ttl_s`` more, so an abandoned unfinished match disappears that long after its last
  one; the end of a match gives them ``finished_ttl_s`` (0: for ever), after which even its
  audit is gone.

Bot turns of bots-only matches also go to a queue of their own that workers serve only when no
table with a human waits (``services/bots.py``).  All zeros (the default) means no limits: the
composition root sets them from ``Settings``.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

from .errors import RateLimited
from .settings import Settings

BOTS_ONLY = "bots-only"
"""The pool of slots held by bots-only matches."""
UNATTENDED = "unattended"
"""The pool of slots held by matches whose every human is away while stand-ins play for them
(``Lobby.hold_unattended``): counted per owner only, as the bots-only limit per owner, so
that the tables players walk away from never keep anyone from watching bots play."""
BOT_SLOT_S = 3600.0
"""A bots-only match's slot lapses after this even if the match never ends (workers down)."""
BOT_SLOT_RETRY_S = 60.0
"""The ``Retry-After`` of a refused bots-only match: a slot frees when some match ends, which
nobody can foresee, so a minute (a retry sooner is almost surely refused again)."""


class RetryLater(RateLimited):
    """``rate_limited`` by a limit that knows when a request would be accepted again: in
    ``retry_after_s`` seconds (the gateway's ``Retry-After``, rounded up)."""

    def __init__(self, message: str, retry_after_s: float) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


def retry_after(seconds: float) -> str:
    """``Retry-After`` for a wait of ``seconds``: whole seconds, rounded up, at least 1 (RFC 9110
    10.2.3 counts whole seconds; 0 would invite a retry in the same instant)."""
    return str(max(1, math.ceil(seconds - 1e-9)))


def window_left(window_s: float, now: float) -> float:
    """Seconds until the fixed window of ``window_s`` that holds ``now`` ends (the counters of
    ``EventStore.hit`` count in windows ``int(now // window_s)``)."""
    return window_s - now % window_s


@dataclass(frozen=True, slots=True)
class Quotas:
    creates_per_window: int = 0
    create_window_s: float = 600.0
    bot_matches: int = 0
    bot_matches_per_owner: int = 0
    idle_ttl_s: float = 0.0
    finished_ttl_s: float = 0.0

    @classmethod
    def from_settings(cls, settings: Settings) -> Quotas:
        return cls(
            creates_per_window=settings.creates_per_window,
            create_window_s=settings.create_window_s,
            bot_matches=settings.bot_matches,
            bot_matches_per_owner=settings.bot_matches_per_address,
            idle_ttl_s=settings.idle_ttl_s,
            finished_ttl_s=settings.finished_ttl_s,
        )


def owner_of(address: str) -> str:
    """The owner id of a client address: 16 hex digits of its SHA-256 (limits need to tell
    addresses apart, not to know them)."""
    return hashlib.sha256(address.encode()).hexdigest()[:16]
