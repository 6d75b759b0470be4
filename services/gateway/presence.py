"""Who is connected to which seat, shared by every gateway through the match store.

Presence is a hash per match (``keys.presence``), one field per (seat, gateway) whose value is
an expiry time; each gateway refreshes its own fields every ``PRESENCE_EVERY_S`` and reads
everyone else's, so every replica shows the same ``connected`` flags, and a crashed gateway's
entries simply expire.  A human seat with nobody connected is added to the away set
(``keys.AWAY``, scored by since when), from which the workers' watchdog plays a stand-in move once
the room's ``disconnect_timeout`` has passed; the seat stays the player's.

A seat is away from the moment it is seated (``seated``: its token is given, and no socket can
be open on it yet) until a socket opens on it, and again from the moment its last socket closes
(``left``).  A player who follows the match over HTTP instead (``GET /view`` and ``POST
/commands`` with the seat's token: a bot that cannot keep a socket) pushes its "away since" to
now with every such request (``polled``): it is taken over only once it has sent nothing for
the room's timeout.  Presence itself (the ``connected`` flags) stays the socket.

A close the store could not be told of (it was unreachable: a restart, a failover) is not lost:
``left`` keeps it, with the moment the socket closed, and every presence period (``run``, also
while this gateway follows no match) applies the kept ones again until the store answers, so
the seat is away from when its last socket closed, as if the store had answered then (a
stand-in plays at once if the room's timeout has passed meanwhile).  A socket opening on the
seat here meanwhile drops the kept close.  Without it, nothing would ever count such a seat
away: its socket's entry lapses by itself, but once the last socket of a match closes no hub
follows the match to notice (the finding: a Redis restarted while both humans' sockets closed,
and the match waited for good).  The outage is logged in one line per seat, never a traceback.
A gateway that dies while it keeps such closes loses them as it loses its sockets: a hub of
another gateway following the match notes the seat away once its entry has lapsed
(``_note_away``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from services.pipeline import Loaded
from services.store import keys

from .outage import UNREACHABLE, one_line

log = logging.getLogger("hokm.gateway")
PRESENCE_TTL_MS = 15_000
"""An entry's lease: three refresh periods (``PRESENCE_EVERY_S``), so two missed refreshes (a
stalled loop, a Redis failover) do not flicker the seat away.  It is also how long a gateway
killed with SIGKILL (no close, no ``left``) leaves its seats shown connected and out of the
away set: up to the lease and one pass of another hub following the match, then they are
away.  A restart of that gateway does not shorten it: it is a new gateway (a new id) that
does not know which entries its predecessor held, and the player's socket, reconnecting to it
or another, shows the seat connected at once whatever the old entry says.  It was 30 s (six
periods); shorter means more refreshes (one pipelined write per followed match a period)."""
PRESENCE_EVERY_S = 5.0
PRESENCE_BATCH = 50


class Presence:
    """The presence of one gateway (``gateway_id``) for the matches its hub follows.

    ``connected[match]`` is the last presence read; ``changed(match)`` is called (by the hub,
    to resend the views) whenever it differs from the one before.  Each pass also asks whether
    each match's log still exists: ``gone(match)`` is called for one that does not (its keys
    expired or were deleted while sockets followed it), and its presence is not written."""

    def __init__(self, client: Callable[[], Any], gateway_id: str,
                 loaded: Callable[[str], Loaded | None],
                 changed: Callable[[str], None],
                 gone: Callable[[str], None] = lambda match_id: None) -> None:
        self._client = client
        self.gateway_id = gateway_id
        self._loaded = loaded
        self._changed = changed
        self._gone = gone
        self.connected: dict[str, tuple[bool, ...]] = {}
        self.unsaid: dict[tuple[str, int], tuple[str | None, float]] = {}
        """(match, seat) -> (player, since when): closes of a seat's last socket here that the
        store did not take (it was unreachable), applied again each period until it does."""

    def forget(self, match_id: str) -> None:
        self.connected.pop(match_id, None)

    async def mark(self, match_id: str, seat: int, here: bool) -> None:
        """This gateway has (``here``) or no longer has a socket on ``seat``."""
        await self.moved(match_id, {seat} if here else set(), set() if here else {seat})

    async def moved(self, match_id: str, arrived: set[int], left: set[int]) -> None:
        """This gateway has sockets on the ``arrived`` seats now and none on the ``left``
        ones (``mark``; or players with sockets here moved to other seats: the ace draw's
        swap), then reads the presence once."""
        client = self._client()
        key = keys.presence(match_id)
        if arrived:
            for seat in arrived:
                self.unsaid.pop((match_id, seat), None)  # a socket is here again
            expiry = int(time.time() * 1000) + PRESENCE_TTL_MS
            await client.hset(key, mapping={f"{seat}:{self.gateway_id}": expiry
                                            for seat in sorted(arrived)})
            await client.pexpire(key, PRESENCE_TTL_MS * 2)
        if left:
            await client.hdel(key, *(f"{seat}:{self.gateway_id}" for seat in sorted(left)))
        await self.refresh(match_id)

    async def read(self, match_id: str, players: int = 4) -> tuple[bool, ...]:
        client = self._client()
        return keys.present(await client.hgetall(keys.presence(match_id)), players)

    async def refresh(self, match_id: str) -> None:
        loaded = self._loaded(match_id)
        if loaded is None:
            return
        await self._is(match_id, await self.read(match_id, loaded.state.rules.players))

    async def left(self, match_id: str, seat: int, player: str | None) -> None:
        """The last socket of ``seat`` on this gateway closed: clear this gateway's entry and,
        if nobody is connected to the seat anywhere, count the player as away from now on (the
        hub may no longer follow this match to notice).  If the store does not take it, the
        close is kept (``unsaid``) and applied once the store answers (``settle``)."""
        since = time.time()
        try:
            await self._left(match_id, seat, player, since)
        except Exception as exc:
            self.unsaid[(match_id, seat)] = (player, since)
            if isinstance(exc, UNREACHABLE):
                log.warning("presence of %s seat %d not cleared: the store is unreachable "
                            "(%s); it will be once the store answers", match_id, seat,
                            one_line(exc))
            else:
                log.exception("presence of %s seat %d not cleared; trying again", match_id,
                              seat)

    async def _left(self, match_id: str, seat: int, player: str | None, since: float) -> None:
        await self.mark(match_id, seat, False)
        if player is not None and not (await self.read(match_id))[seat]:
            await self._client().zadd(keys.AWAY, {keys.away_member(match_id, seat): since},
                                      nx=True)

    async def settle(self, followed: Iterable[tuple[str, set[int]]]) -> None:
        """Apply the closes the store did not take (``unsaid``: a seat's newest), each with
        the moment its socket closed, in the order they came; a seat with a socket here again
        (``followed``: the seats this gateway has sockets on, per match) is dropped.  Stops at
        the first the store still does not take (the next period tries again); one that fails
        otherwise (a bug) is logged and dropped, so it does not fail every period.  Nothing to
        do: no round trip."""
        if not self.unsaid:
            return
        here = {(match_id, seat) for match_id, seats in followed for seat in seats}
        done = 0
        for key in list(self.unsaid):
            kept = self.unsaid.get(key)
            if kept is None or key in here:
                self.unsaid.pop(key, None)  # a socket opened here meanwhile
                continue
            player, since = kept
            try:
                await self._left(*key, player, since)
            except UNREACHABLE:
                return
            except Exception:
                log.exception("presence of %s seat %d not cleared; given up", *key)
            if self.unsaid.get(key) == kept:  # (not a newer close, kept meanwhile)
                del self.unsaid[key]
            done += 1
        if done:
            log.warning("presence: the store answers again; %d seat(s) whose last socket "
                        "closed meanwhile cleared", done)

    async def seated(self, match_id: str, seat: int, loaded: Loaded | None) -> None:
        """A human was just given ``seat`` (its token is in the answer being sent): count the
        seat as away from now until a socket opens on it, so that a player who never connects
        is played by a stand-in after the room's timeout like one who left.  Overwrites the
        since-when of an earlier occupant of the seat (its absence is not the new player's).
        The seat that filled the table may have started the ace draw, which can move players
        to other seats (and so away from their entries): then every other human seat of
        ``loaded`` (the match now) with no socket is counted away too, unless it already is
        (one whose socket the draw moved is taken out again as the hub of that socket moves
        its entry to the new seat: ``Hub._reseat``, ``moved``)."""
        client = self._client()
        now = time.time()
        others: dict[str, float] = {}
        if loaded is not None and all(s is not None for s in loaded.state.match.seats):
            seats = loaded.state.match.seats
            here = await self.read(match_id, loaded.state.rules.players)
            others = {keys.away_member(match_id, s): now for s, occupant in enumerate(seats)
                      if s != seat and occupant is not None and occupant.bot is None
                      and not here[s]}
        if others:
            await client.zadd(keys.AWAY, others, nx=True)
        await client.zadd(keys.AWAY, {keys.away_member(match_id, seat): now})

    async def polled(self, match_id: str, seat: int) -> None:
        """The player of ``seat`` just asked for its view or sent a command over HTTP: if the
        seat is counted away (no socket on it), it is away from now on, not from before (a
        seat with a socket is not in the set, and ``xx`` keeps it out)."""
        await self._client().zadd(keys.AWAY, {keys.away_member(match_id, seat): time.time()},
                                  xx=True)

    async def _is(self, match_id: str, seats: tuple[bool, ...]) -> None:
        """Presence as just read: if it changed, note who is away and resend the views."""
        loaded = self._loaded(match_id)
        if loaded is None or self.connected.get(match_id) == seats:
            return
        before = self.connected.get(match_id)
        self.connected[match_id] = seats
        await self._note_away(match_id, loaded, before, seats)
        if self._loaded(match_id) is not None:
            self._changed(match_id)

    async def _note_away(self, match_id: str, loaded: Loaded, before: tuple[bool, ...] | None,
                         seats: tuple[bool, ...]) -> None:
        """Keep the away set (human seats with nobody connected, since when) for substitutes."""
        client = self._client()
        now = time.time()
        for seat, here in enumerate(seats):
            occupant = loaded.state.match.seats[seat]
            if occupant is None or occupant.bot is not None:
                continue
            name = keys.away_member(match_id, seat)
            if here:
                await client.zrem(keys.AWAY, name)
            elif before is None or before[seat]:
                await client.zadd(keys.AWAY, {name: now}, nx=True)

    async def run(self, followed: Callable[[], Iterable[tuple[str, set[int]]]],
                  sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        """For good: every ``PRESENCE_EVERY_S``, refresh this gateway's entries (the seats it
        has sockets on, per followed match) and read everyone else's, pipelined by
        ``PRESENCE_BATCH`` matches, the batches spread over the period: a pass over a thousand
        matches in one go held the event loop long enough to show in every seat's p99."""
        while True:
            batches = max(1, -(-len(list(followed())) // PRESENCE_BATCH))
            for start in range(0, batches * PRESENCE_BATCH, PRESENCE_BATCH):
                await sleep(PRESENCE_EVERY_S / batches)
                await self.settle(followed())
                # the seats as they are after the wait: a socket that closed meanwhile has had
                # its entry cleared (``left``), and a list taken before the wait would write it
                # back, showing the seat connected for another PRESENCE_TTL_MS
                matches = list(followed())[start:start + PRESENCE_BATCH]
                if matches:
                    await self.pass_once(matches)

    async def pass_once(self, matches: list[tuple[str, set[int]]]) -> None:
        client = self._client()
        expiry = int(time.time() * 1000) + PRESENCE_TTL_MS
        for start in range(0, len(matches), PRESENCE_BATCH):
            chunk = matches[start:start + PRESENCE_BATCH]
            try:
                pipe = client.pipeline(transaction=False)
                asked = []
                for match_id, seats in chunk:
                    pipe.exists(keys.log(match_id))
                    if seats:
                        pipe.hset(keys.presence(match_id), mapping={
                            f"{seat}:{self.gateway_id}": expiry for seat in seats})
                        pipe.pexpire(keys.presence(match_id), PRESENCE_TTL_MS * 2)
                    pipe.hgetall(keys.presence(match_id))
                    asked.append((match_id, bool(seats)))
                answers = iter(await pipe.execute())
                gone = []
                for match_id, wrote in asked:
                    exists = next(answers)
                    if wrote:
                        next(answers)  # the HSET
                        next(answers)  # the PEXPIRE
                    raw = next(answers)
                    if not exists:  # (the entries just written go with it, below)
                        gone.append(match_id)
                        self._gone(match_id)
                        continue
                    loaded = self._loaded(match_id)
                    if loaded is not None:
                        await self._is(match_id, keys.present(raw, loaded.state.rules.players))
                if gone:  # (one key a command: no command spans two matches)
                    pipe = client.pipeline(transaction=False)
                    for match_id in gone:
                        pipe.delete(keys.presence(match_id))
                    await pipe.execute()
            except asyncio.CancelledError:
                raise
            except UNREACHABLE as exc:  # while a Redis restarts or fails over
                log.warning("presence refresh failed: the store is unreachable (%s)",
                            one_line(exc))
            except Exception:
                log.exception("presence refresh failed")
