"""The turn limit: a present human who does not decide within the room's ``turn_timeout`` has
one decision made by the seat's stand-in, exactly as for a seat that is away.

Who does what (the away stand-in's way, ``services/gateway/presence.py`` and ``worker/jobs.py``):

* A gateway holding a socket of the seat whose decision the match waits for sees to the turn's
  deadline (``scripts.TURN_DEADLINE`` on ``keys.turn(match)``): set once for the turn, at the
  first such look, and kept by the turn after that, whoever looks and from whichever gateway:
  a socket that closes and opens again, a page reloaded, the player's next socket on another
  gateway all find the deadline the turn was given, never a new one.  The turn is its seat and
  how far the match is (``mark``), not the match's version: a record that only seats or
  unseats someone (another human leaving or joining mid-turn) leaves it the same turn.  The
  gateway then writes the turn's entry into ``keys.TURNS`` (a sorted set of
  "<match>:<seat>:<version>" scored by the deadline, ``ZADD NX``) and tells that seat's
  sockets and the spectators how long is left (the ``turn_limit`` frame); setting the deadline
  publishes ``scripts.TURN_NOTE``, so the spectators on the other gateways following the match
  are told it too (``TurnLimits.changed``).  A view answered over HTTP (``GET
  /view``, a command's answer) carries the same (``TurnLimits.answer``).
* Every worker's watchdog reads the entries whose deadline has passed (``services.bots.
  recover_turns``), checks that the limit still applies (``worker.jobs.turn_due``: the match
  still waits for that seat at that version, the seat is present or a socket of it saw the
  turn past its deadline, another human is seated),
  marks the seat hurried and schedules the seat's stand-in through the bot queue, as for an
  away seat.  The stand-in's record carries ``~<version>`` (``lobby.stand_in_key``); the seat
  stays the player's.  An entry found not due leaves the set; the turn keeps its deadline, so
  a socket of the seat opening again writes the entry again, with that deadline, and a turn
  whose deadline passed meanwhile is played by the stand-in at the next pass, even if that
  socket closed again before it: each look of a gateway for a socket of the seat notes when
  it saw the turn (``keys.turn``'s ``seen``), and one past the deadline counts as the seat
  present then (QA: sockets opened and closed at once, again and again, were rarely open as
  a watchdog looked, and held the stand-in off for 20-28 s).
* The limit applies only while the seat is *present* (a socket of it is open, the presence
  hash, or was open past the deadline as above); an away seat is the away path's (the room's
  ``disconnect_timeout``).

**A newcomer** (another player than the one the turn's deadline was set for takes the seat
mid-turn: the player left it and someone joined) gets the turn's deadline, but never less than
the grace (``limit_s(turn_timeout, True)``) from when a socket of theirs first sees the turn,
so nobody is timed out the moment they sit; ``limit_s`` and ``grace`` as told stay the turn's.
A seat given up and taken again mid-turn so buys at most the grace, never a fresh limit.

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
last write, as does the turn's deadline (``keys.turn``: a turn left waiting that long is given
a new one).

**More time** (WCAG 2.2.1: a slow player, a screen reader's user, may extend a turn): the
seat's player sends ``{"type": "more_time"}`` on a socket of the seat while its turn's limit
runs, once a turn (``gateway.turnlimit.TurnLimits.more_time``).  ``scripts.MORE_TIME`` then, in
one step on the match's slot, moves the turn's deadline to now plus the room's full
``turn_timeout`` (never the grace), marks the turn extended (``keys.turn``'s ``extended``: a
second ask, from any gateway or socket, is refused and changes nothing) and writes the
player's hurried mark as their own command would (``hurry_score(version, own=True)``, ``ZADD
GT``), and publishes ``scripts.TURN_NOTE`` on the match's wake channel.  The gateway then moves
the turn's ``keys.TURNS`` entry to the new deadline (``ZADD GT``) and sends its sockets of the
seat ``turn_limit`` with ``extended`` true; every other gateway following the match hears the
note (``Follower.noted``) and tells its own sockets of the seat (``TurnLimits.changed``).  A
watchdog that read the entry as due just before it moved finds the turn not due
(``worker.jobs.turn_due`` reads the extended deadline) and leaves the moved entry
(``scripts.TURN_SEEN``).  Refused (an error frame, nothing changed): ``wrong_phase`` when it is
not the seat's turn, no limit runs for it or its time is up; ``bad_request`` when the turn was
given more time already.
"""

from __future__ import annotations

from typing import Any

from engine.state import State

from .store import keys

TURN_TIMEOUT_S = 90.0
"""A room's ``turn_timeout`` unless it says otherwise (api.md, ``POST /api/matches``)."""
TURN_TIMEOUT_MIN_S = 1.0
"""The shortest ``turn_timeout`` a room may set, other than 0 (none).  A limit of a
millisecond handed every present human's turn to a stand-in at once: a table played by bots
at full speed that took no bots-only slot (services/quotas.py).  One second keeps the
stand-ins to a human's pace and is what the turn-limit tests use."""
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


def mark(state: State, seat: int) -> str:
    """The turn of ``seat`` in ``state``, the same for every version until a decision is made:
    the seat, the round, the phase and how far it is (tricks, cards in the trick, the talon's
    top), none of which a record that seats or unseats someone changes."""
    return (f"{seat}:{state.deal.round_no}:{state.phase}:{state.tricks_played}:"
            f"{len(state.trick)}:{state.deal.talon}")


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
