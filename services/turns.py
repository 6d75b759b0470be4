"""The turn limit: a present human who does not decide within the room's ``turn_timeout`` has
one decision made by the seat's stand-in, exactly as for a seat that is away.

Who does what (the away stand-in's way, ``services/gateway/presence.py`` and ``worker/jobs.py``):

* A gateway holding a socket of the seat whose decision the match waits for writes the turn's
  deadline into ``keys.TURNS`` (a sorted set of "<match>:<seat>:<version>" scored by the
  deadline, ``ZADD NX``: the first gateway's deadline stands for every other) and tells that
  seat's sockets how long is left (the ``turn_limit`` frame).
* Every worker's watchdog reads the entries whose deadline has passed (``services.bots.
  recover_turns``), checks that the limit still applies (``worker.jobs.turn_due``: the match
  still waits for that seat at that version, the seat is present, another human is seated),
  marks the seat hurried and schedules the seat's stand-in through the bot queue, as for an
  away seat.  The stand-in's record carries ``~<version>`` (``lobby.stand_in_key``); the seat
  stays the player's.
* The limit applies only while the seat is *present* (a socket of it is open, the presence
  hash); an away seat is the away path's (the room's ``disconnect_timeout``).

**Hurried seats.**  After a stand-in played for a timed-out turn, the seat's following turns
get ``TURN_GRACE_S`` (or the room's limit, if shorter) until its player acts again.  That is
presence-like state beside the match, never in its log: ``keys.hurry(match)``, a sorted set of
player id -> ``2 * version + own`` (``hurry_score``).  The watchdog writes ``2 * v`` for the
stand-in's record ``v`` before it schedules it, and every command the player's seat has
accepted writes ``2 * w + 1`` for the match's version ``w`` after it; both with ``ZADD GT``, so
the newest event wins whichever write arrives last, and a stand-in that lost its turn to the
player's own command (the same version) never leaves the seat hurried.  The seat is hurried
while the score is even.  It lives in the match store's Redis like presence and the away set,
so a gateway or a worker that dies loses nothing of it; it lapses ``HURRY_TTL_S`` after its
last write.
"""

from __future__ import annotations

from typing import Any

from engine.state import State

from .store import keys

TURN_TIMEOUT_S = 90.0
"""A room's ``turn_timeout`` unless it says otherwise (api.md, ``POST /api/matches``)."""
TURN_GRACE_S = 15.0
"""The limit of a hurried seat's turns (a stand-in played its last timed-out turn, and its
player has not acted since).  Read at each use: tests may change it."""
HURRY_TTL_S = 24 * 3600
"""A hurried mark lapses this long after its last write (a table left as it is)."""


def applies(state: State, seat: int, turn_timeout: float) -> bool:
    """Whether the room's limit (``turn_timeout``, 0: none) holds for ``seat``'s turn in
    ``state``: the seat is a human's and another human is seated (a player alone with bots is
    never hurried).  Whether the seat is present is for the caller to know."""
    if turn_timeout <= 0:
        return False
    seats = state.match.seats
    occupant = seats[seat]
    if occupant is None or occupant.bot is not None:
        return False
    return any(other is not None and other.bot is None
               for i, other in enumerate(seats) if i != seat)


def limit_s(turn_timeout: float, hurried: bool) -> float:
    """The seconds a turn is given: the room's limit, or for a hurried seat the grace."""
    return min(TURN_GRACE_S, turn_timeout) if hurried else turn_timeout


def entry(match_id: str, seat: int, version: int) -> str:
    """The member of ``keys.TURNS`` for the turn of ``seat`` at ``version``."""
    return f"{match_id}:{seat}:{version}"


def parse_entry(name: str) -> tuple[str, int, int]:
    """(match, seat, version) of a ``keys.TURNS`` member."""
    match_id, seat, version = name.rsplit(":", 2)
    return match_id, int(seat), int(version)


def hurry_score(version: int, *, own: bool) -> int:
    """The score of a hurried mark: a stand-in's record at ``version`` (``own`` False) or the
    player's own command, the match being at ``version`` after it (``own`` True)."""
    return 2 * version + (1 if own else 0)


def mark_hurry(pipe: Any, match_id: str, player: str, score: int) -> None:
    """Queue on ``pipe`` (a blocking or an asyncio pipeline) the write of ``player``'s hurried
    mark: ``score`` (``hurry_score``) replaces an older one only (``GT``: the newest event
    wins, whichever write arrives last), and the mark lapses ``HURRY_TTL_S`` after it."""
    pipe.zadd(keys.hurry(match_id), {player: score}, gt=True)
    pipe.expire(keys.hurry(match_id), HURRY_TTL_S)


def is_hurried(score: float | None) -> bool:
    return score is not None and int(score) % 2 == 0
