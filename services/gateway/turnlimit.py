"""The turn limit on the gateway (``services/turns.py``): the deadlines of the turns of seats
with a socket here, and the hurried marks that the players' own commands clear.

* ``look(match, loaded)``: the hub's match moved to a new version (or presence changed).  If
  it waits for a human seat with a socket on this gateway and the room's limit applies, a task
  sees to the turn's deadline (``scripts.TURN_DEADLINE``: the one the turn has, or set now if
  it has none), writes its entry into ``keys.TURNS`` (``ZADD NX``) and sends that seat's
  sockets and the match's spectators here a ``turn_limit`` frame: how long is left.  Nothing
  else waits for it, and nothing is held once it ends; the workers' watchdog does the rest.
  Where no socket of the seat is here but spectators are, the deadline is only read (as
  ``changed`` does, once a version): another gateway sees to it, and its setting it tells
  this one (``changed``), whichever of the two comes first.
* ``opened(sub, loaded)``: a socket opened.  If its seat is the one to act, the same task runs
  for it (even at a version looked at already: the watchdog drops the entry of a turn whose
  seat had no socket at its deadline, and this writes it again, with the turn's deadline, and
  notes the turn seen now, so that a deadline passed is played by the stand-in at the next
  pass even if this socket is gone by then: ``services/turns.py``) and tells that socket;
  a spectator's socket is told the deadline known here, if any (or, where no socket of the
  seat is, the one read from the store, as ``look`` reads it).  While the turn's task is
  still under way (the presence change of this very socket started it) nothing more is done:
  that task tells every started socket, this one included, once (two frames before: QA).
* ``answer(match, seat, state, version)``: the ``turn_limit`` of a view answered over HTTP
  (``GET /view``, a command's answer): the turn's deadline if it has one (seen to as ``look``
  does where this gateway holds a socket of the seat, else only read), None if no limit runs.
* ``acting(match, player)`` before a command of the player's is applied, ``acted(...)`` after:
  an accepted command means the seat is no longer hurried (``hurry_score(own=True)``), and
  the deadline of a turn that follows it (a trick's winner leads the next) is set only after
  that is written, so it reads it.  The write costs a round trip only when the seat may be
  hurried: the deadline of its turn now is not known here, or was the grace, or is close
  (``MARGIN_S``: the watchdog may be marking it this moment).  A seat whose turn here is
  known to run on its full limit, and a player alone with bots, pay nothing.
* ``more_time(sub)``: the seat's player asks for more time on its turn (the socket's ``{"type":
  "more_time"}``): once a turn, the room's full limit from now, the hurried mark cleared, the
  watchdog's entry moved, the seat's sockets told.
* ``changed(match)``: the store's wake-up on the match's channel said its turn's deadline was
  set (``scripts.TURN_NOTE``, published by ``TURN_DEADLINE`` on the gateway of a socket of the
  seat) or extended (by ``MORE_TIME``, whichever gateway took the ask; the hub's follower hears
  it as it hears of new records): the deadline is read again and told to the seat's sockets
  and the spectators here, unless they were told it already (the gateway that set it or took
  the ask: each socket remembers the last deadline it was told, ``Subscriber.limit_told``, so
  a socket not started when one way told the others is told by the next).  So spectators on
  a gateway without a socket of the seat get the turn's first deadline too, once.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine, Iterable
from typing import Any, NamedTuple

from engine.errors import InvalidCommand, WrongPhase
from engine.state import State
from services.lobby import Room
from services.matches import MatchService
from services.pipeline import Loaded
from services.store import keys
from services.store.scripts import MORE_TIME, TURN_DEADLINE
from services.turns import (HURRY_TTL_S, TURN_TIMEOUT_S, applies, entry, hurry_score, limit_s,
                            mark, mark_hurry)

from .outage import one_line
from .subscriber import Subscriber
from .viewtext import dumps
from .offload import off_loop

log = logging.getLogger("hokm.gateway")
MARGIN_S = 2.0
"""A command this close to its turn's deadline clears the hurried mark all the same (the
watchdogs' clocks may run ahead of this gateway's)."""


class Limit(NamedTuple):
    """The deadline of the turn of ``seat`` at ``version`` (epoch seconds) for ``player``, the
    seconds the turn was given, whether they were the grace of a hurried seat and whether the
    player was given more time (``more_time``)."""

    version: int
    seat: int
    player: str
    deadline: float
    limit_s: float
    grace: bool
    extended: bool

    def told(self) -> dict[str, Any]:
        """What a client is told (api.md, ``turn_limit``): the time left as it is sent, so a
        client's own clock, however wrong, counts it down right."""
        left_ms = max(0, int((self.deadline - time.time()) * 1000))
        return {"version": self.version, "seat": self.seat, "left_ms": left_ms,
                "limit_s": self.limit_s, "grace": self.grace,
                "extended": self.extended}

    def frame(self) -> str:
        """The ``turn_limit`` frame."""
        return dumps({"type": "turn_limit", **self.told()})


class TurnLimits:
    """The turn limits of the matches one hub follows."""

    def __init__(self, client: Callable[[], Any], service: MatchService,
                 current: Callable[[str], Loaded | None],
                 subs: Callable[[str], Iterable[Subscriber]],
                 spawn: Callable[[Coroutine[Any, Any, None]], None]) -> None:
        self._client = client
        self._service = service
        self._current = current
        self._subs = subs
        self._spawn = spawn
        self._asked: dict[str, int] = {}
        """Match -> the version whose deadline was asked for (once a version)."""
        self._peeked: dict[str, int] = {}
        """Match -> the version whose deadline was read for spectators only (no socket of the
        seat here: once a version)."""
        self.known: dict[str, Limit] = {}
        """Match -> the deadline of its turn now, once known."""
        self._acting: dict[str, int] = {}
        """Match -> the commands of its players being applied here (``acting``)."""

    def forget(self, match_id: str) -> None:
        self._asked.pop(match_id, None)
        self._peeked.pop(match_id, None)
        self.known.pop(match_id, None)

    async def room(self, match_id: str) -> Room:
        """The room's settings (kept by the service once read)."""
        room = self._service.rooms.get(match_id)
        if room is None:
            room = await off_loop(self._service.room, match_id)
        return room

    def look(self, match_id: str, loaded: Loaded) -> None:
        """See to the deadline of the turn ``loaded`` (the hub's match now) waits for."""
        if self._asked.get(match_id) == loaded.version or self._acting.get(match_id):
            return  # (a command being applied looks again once it is done: ``acted``)
        state = loaded.state
        seat = self._service.next_actor(state)
        if seat is None:
            return
        if not any(sub.seat == seat for sub in self._subs(match_id)):
            # another gateway's to see to; its setting it tells ``changed`` here, which may
            # come before this gateway has this version: read it now too (told once either way)
            if self._peeked.get(match_id) != loaded.version \
                    and any(_watches(sub, seat) for sub in self._subs(match_id)):
                self._peeked[match_id] = loaded.version
                self._spawn(self.changed(match_id))
            return
        room = self._service.rooms.get(match_id)  # (not read yet: the task reads it)
        if not applies(state, seat, TURN_TIMEOUT_S if room is None else room.turn_timeout):
            return
        self._asked[match_id] = loaded.version
        self._spawn(self._start(match_id, seat, loaded))

    def opened(self, sub: Subscriber, loaded: Loaded) -> None:
        """A socket (``sub``, started) just opened on the match at ``loaded``: see to the
        deadline of its seat's turn and tell it (see the module)."""
        match_id = sub.match_id
        known = self.known.get(match_id)
        if sub.seat is None and self._peeked.get(match_id) == loaded.version:
            if known is not None and known.version == loaded.version:
                self._tell(match_id, known, sub)  # as read for the spectators here (``look``)
            return  # (or being read: it tells every started socket, this one too)
        if self._asked.get(match_id) != loaded.version:
            self.look(match_id, loaded)  # (tells every socket of the seat, this one too)
            return
        if known is None or known.version != loaded.version:
            return  # the turn's task is under way: it tells every started socket, this one
        if sub.seat is not None and sub.seat == self._service.next_actor(loaded.state):
            self._spawn(self._start(match_id, sub.seat, loaded, only=sub))
        elif sub.seat is None:
            self._tell(match_id, known, sub)  # a spectator: the countdown the turn runs on

    async def answer(self, match_id: str, seat: int | None, state: State, version: int
                     ) -> dict[str, Any] | None:
        """The ``turn_limit`` of ``seat``'s view of the match at ``version`` (``state``)
        answered over HTTP: None unless the match waits for that seat, the room's limit
        applies and the turn has a deadline.  Where this gateway holds a socket of the seat
        (it is this gateway's to see to the deadline) and no command of the match is being
        applied here, the deadline is set now if it was not, as ``look`` would a moment later;
        elsewhere it is only read."""
        if seat is None or self._service.next_actor(state) != seat:
            return None
        occupant = state.match.seats[seat]
        room = await self.room(match_id)
        if occupant is None or not applies(state, seat, room.turn_timeout):
            return None
        known = self.known.get(match_id)
        if known is not None and known.version == version and known.seat == seat \
                and known.player == occupant.player:
            return known.told()
        if not self._acting.get(match_id) \
                and any(sub.seat == seat for sub in self._subs(match_id)):
            limit = await self._deadline(match_id, seat, state, version)
        else:
            limit = await self._read(match_id, seat, state, version, occupant.player)
        return None if limit is None else limit.told()

    async def _read(self, match_id: str, seat: int, state: State, version: int, player: str
                    ) -> Limit | None:
        """The deadline the turn of ``seat`` (``player``'s) has in the store, only read."""
        found = keys.turn_deadline(
            await self._client().hmget(keys.turn(match_id), *keys.TURN_FIELDS),
            mark(state, seat), player)
        return None if found is None else Limit(version, seat, player, *found)

    async def changed(self, match_id: str) -> None:
        """The turn of ``match_id`` was given a deadline or more time (the store's note, see
        the module), or spectators here want its deadline (``look``): the seat's sockets and
        the spectators here are told the deadline as stored now, unless it is the one they
        were told last.  A failure to read it is logged: they learn it with their next
        ``turn_limit``, and the watchdog keeps to it all the same."""
        current = self._current(match_id)
        if current is None:
            return
        state, version = current.state, current.version
        seat = self._service.next_actor(state)
        if seat is None or not any(_watches(sub, seat) for sub in self._subs(match_id)):
            return
        occupant = state.match.seats[seat]
        try:
            room = await self.room(match_id)
            if occupant is None or not applies(state, seat, room.turn_timeout):
                return
            limit = await self._read(match_id, seat, state, version, occupant.player)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # (the store failing over)
            log.warning("the new deadline of %s's turn is not told (%s)", match_id,
                        one_line(exc))
            return
        if limit is None or self._current(match_id) is not current:
            return  # another turn by now
        self.known[match_id] = limit
        self._tell(match_id, limit)

    def _tell(self, match_id: str, limit: Limit, only: Subscriber | None = None) -> None:
        """Send ``limit`` to the started sockets here of its seat and of spectators (``only``
        that one) that were not told it yet.  Each socket remembers what it was told: the
        same deadline reaches a gateway by several ways (its own setting, the store's note of
        it, a socket opening, a spectator's read), and a socket that was not started when one
        of them told the others must still be told by the next (QA: a seat's socket on the
        second gateway was never told, its own start taken for "told already")."""
        text = None
        for sub in self._subs(match_id) if only is None else (only,):
            if _watches(sub, limit.seat) and sub.limit_told != limit:
                sub.limit_told = limit
                text = text or limit.frame()
                sub.send(text)

    async def _start(self, match_id: str, seat: int, loaded: Loaded,
                     only: Subscriber | None = None) -> None:
        """See to the deadline of the turn of ``seat`` at ``loaded`` and tell the seat's
        sockets (``only`` that one)."""
        try:
            limit = await self._deadline(match_id, seat, loaded.state, loaded.version)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # (the store failing over) this turn goes without a limit
            if self._asked.get(match_id) == loaded.version:
                del self._asked[match_id]
            log.warning("the turn limit of %s at version %d is not set (%s)", match_id,
                        loaded.version, one_line(exc))
            return
        current = self._current(match_id)
        if limit is None or current is None or current.version != loaded.version:
            return  # no limit, or the match moved on (or nobody here follows it) meanwhile
        self.known[match_id] = limit
        self._tell(match_id, limit, only)

    async def _deadline(self, match_id: str, seat: int, state: State, version: int
                        ) -> Limit | None:
        """The deadline of the turn (the one it has, or set now: ``scripts.TURN_DEADLINE``),
        and its entry in ``keys.TURNS`` for the watchdog; None if no limit runs for it, or the
        store knows the match moved on."""
        room = await self.room(match_id)
        occupant = state.match.seats[seat]
        if occupant is None or not applies(state, seat, room.turn_timeout):
            return None
        client = self._client()
        got = await client.eval(
            TURN_DEADLINE, 2, keys.turn(match_id), keys.hurry(match_id), mark(state, seat),
            version, occupant.player, repr(time.time()), repr(room.turn_timeout),
            repr(limit_s(room.turn_timeout, True)), HURRY_TTL_S, keys.wake_channel(match_id))
        if got is None:
            return None
        limit = Limit(version, seat, occupant.player, *keys.limit_fields(got))
        await client.zadd(keys.TURNS, {entry(match_id, seat, version): limit.deadline}, nx=True)
        return limit

    async def more_time(self, sub: Subscriber) -> None:
        """The player of ``sub``'s seat asks for more time on its turn (``{"type":
        "more_time"}``): once a turn, while its limit runs, the deadline becomes now plus the
        room's full limit and the seat is no longer hurried (``scripts.MORE_TIME``, one step
        in the store whichever gateways and sockets ask at once); the watchdog's entry moves
        to the new deadline and every socket of the seat and every spectator here is told
        (``turn_limit``, with ``extended``); the store's note tells the other gateways'
        (``changed``).  Refused
        (nothing changed): ``wrong_phase`` when it is not the seat's turn or no limit runs for
        it (or its time is up), ``bad_request`` when the turn was given more time already."""
        match_id, seat, current = sub.match_id, sub.seat, self._current(sub.match_id)
        if seat is None or current is None or self._service.next_actor(current.state) != seat:
            raise WrongPhase("more time is given only on your own turn")
        state, version = current.state, current.version
        occupant = state.match.seats[seat]
        room = await self.room(match_id)
        if occupant is None or occupant.player != sub.player \
                or not applies(state, seat, room.turn_timeout):
            raise WrongPhase("no turn limit runs for this turn")
        client = self._client()
        got = await client.eval(
            MORE_TIME, 2, keys.turn(match_id), keys.hurry(match_id), mark(state, seat),
            occupant.player, repr(time.time()), repr(room.turn_timeout),
            hurry_score(version, own=True), HURRY_TTL_S, keys.wake_channel(match_id))
        if got in (b"again", "again"):
            raise InvalidCommand("this turn was given more time already (once a turn)")
        if not isinstance(got, list):
            raise WrongPhase("no turn limit runs for this turn (or its time is up)")
        limit = Limit(version, seat, occupant.player, *keys.limit_fields(got))
        await client.zadd(keys.TURNS, {entry(match_id, seat, version): limit.deadline}, gt=True)
        if self._current(match_id) is not current:
            return  # the match moved on meanwhile (its new turn is seen to as ever)
        self.known[match_id] = limit  # (told once a socket: the store's note may come first)
        self._tell(match_id, limit)

    def acting(self, match_id: str, player: str | None) -> bool:
        """A command of ``player`` (None: not known yet) is about to be applied: the deadlines
        of this match wait until ``acted``.  Returns whether its seat may be hurried (see the
        module)."""
        self._acting[match_id] = self._acting.get(match_id, 0) + 1
        known, current = self.known.get(match_id), self._current(match_id)
        return not (player is not None and known is not None and current is not None
                    and known.version == current.version and not known.grace
                    and time.time() < known.deadline - MARGIN_S
                    and (occupant := current.state.match.seats[known.seat]) is not None
                    and occupant.player == player)

    async def acted(self, match_id: str, accepted: tuple[str, int, State] | None,
                    may_be_hurried: bool) -> None:
        """After ``acting``: if the command was ``accepted`` (its player, and the match after
        it: version and state) and its seat may be hurried, it is not any more; then the
        deadline of the turn the match waits for now is seen to.  A failure is logged: the
        command is stored, and the seat keeps only the grace at its next turn."""
        try:
            if accepted is not None and may_be_hurried:
                await self._clear(match_id, *accepted)
        finally:
            left = self._acting.get(match_id, 1) - 1
            if left > 0:
                self._acting[match_id] = left
            else:
                self._acting.pop(match_id, None)
            current = self._current(match_id)
            if current is not None:
                self.look(match_id, current)

    async def _clear(self, match_id: str, player: str, version: int, state: State) -> None:
        seat = MatchService.seat_of_player(state, player)
        if seat is None:
            return
        try:
            room = await self.room(match_id)
            if not applies(state, seat, room.turn_timeout):
                return
            pipe = self._client().pipeline(transaction=False)
            mark_hurry(pipe, match_id, player, hurry_score(version, own=True))
            await pipe.execute()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("seat %d of %s not marked as acting (%s)", seat, match_id,
                        one_line(exc))


def _watches(sub: Subscriber, seat: int) -> bool:
    """Whether ``sub`` is told the turn limit of ``seat``'s turn: a started socket of that
    seat, or of a spectator (the countdown is public: the one every watcher of the turn sees;
    the other seats are not told, as api.md says)."""
    return sub.started and (sub.seat == seat or sub.seat is None)
