"""The hub: one per gateway process.  It follows every match that has a socket here and sends
every connected seat its own view of each new version, in version order.

* Commands applied in this process (``commands.py``) hand the hub the match after their record
  (``applied``): the views go out at once, without waiting to read the record back.
* The store's follower (``AsyncEventStore.follower``) delivers the records of every other writer
  (other gateways, bot workers, the match service's threads); the hub folds each new record
  into the match and sends the views.  A record this process is appending is recognised by its
  bytes and not decoded again.
* ``loaded[match]`` is the version whose views were sent last: every record is folded strictly
  after it, so each version goes out exactly once.  Every fold is also put in the process's
  one match cache, which the command paths read.
* If a record leaves the match waiting for a system step or a bot nobody took care of within
  ``SYSTEM_GRACE_S`` (the appending process died in between), the hub sees to it; so it does
  for a match it starts following (a socket opens on a match that waits).
* A bot turn that could not be scheduled (the bot queue's Redis did not answer) does not fail
  the command or creation whose record was stored: the service keeps it
  (``MatchService.retry_schedules``) and the hub schedules it again every ``SYSTEM_GRACE_S``
  until the queue answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any

from engine import pending_system_action
from engine.state import CHOOSING_TRUMP, DISCARDING, DRAWING, PLAYING
from services.errors import NotFound
from services.matches import MatchService
from services.pipeline import CorruptLog, Loaded, fold_raw
from services.runtime import Runtime
from services.store.port import AsyncEventStore, Follower

from .outage import UNREACHABLE, one_line
from .presence import Presence
from .subscriber import CLOSE_NOT_FOUND, CLOSE_RESTART, Subscriber
from .turnlimit import TurnLimits
from .viewtext import dumps, view_texts
from .offload import off_loop

log = logging.getLogger("hokm.gateway")
SYSTEM_GRACE_S = 1.0
PRELUDE_TRIES = 5
"""How often a socket's start reads its prelude again when the match moved on while it was
read (each read is of the records since the client's version: a few milliseconds)."""


def bot_to_move(loaded: Loaded) -> bool:
    """Whether the match waits for a bot's decision (which some process must schedule)."""
    state = loaded.state
    seat = state.turn
    if seat is None or state.phase not in (CHOOSING_TRUMP, DISCARDING, DRAWING, PLAYING):
        return False
    occupant = state.match.seats[seat]
    return occupant is not None and occupant.bot is not None


async def stop_tasks(tasks: Sequence[asyncio.Task[Any]], again_s: float = 0.5) -> None:
    """Cancel ``tasks`` and return once every one has ended, cancelling again every
    ``again_s`` a task that runs on.  Once is not enough: Python 3.11's ``asyncio.wait_for``
    (which fakeredis's reads await) returns its result and drops a cancellation that arrives
    in the step its inner wait completes, so a follower cancelled once could read on for good
    and hold the server's shutdown (seen in CI: a gateway whose lifespan never ended)."""
    pending = {task for task in tasks if not task.done()}
    while pending:
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=again_s)
    for task in tasks:
        if not task.cancelled() and task.exception() is not None:
            log.warning("%s ended with an error as it stopped", task.get_name(),
                        exc_info=task.exception())


class Hub:
    def __init__(self, runtime: Runtime) -> None:
        self.rt = runtime
        self.service: MatchService = runtime.service
        self.gateway_id = secrets.token_hex(4)
        self.subs: dict[str, set[Subscriber]] = {}
        self.loaded: dict[str, Loaded] = {}
        self.presence = Presence(runtime.async_client, self.gateway_id, self.loaded.get,
                                 self._presence_changed, self.gone)
        self.turns = TurnLimits(runtime.async_client, self.service, self.loaded.get,
                                lambda match_id: self.subs.get(match_id, ()), self._spawn)
        self.service.retry_schedules()  # a stored record is acknowledged; its bot turn waits
        self._store: AsyncEventStore | None = None
        self._follower: Follower | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._background: set[asyncio.Task[None]] = set()
        self._fragments: dict[str, dict[str, tuple[Any, str]]] = {}
        """Match id -> the JSON of each shared key of its last view (see ``view_texts``)."""
        self._mine: dict[str, tuple[int, bytes, Loaded]] = {}
        """Match id -> the record this process is appending (version, payload, the match after
        it)."""
        self._looking: set[str] = set()
        """Matches no socket here follows that a request found waiting (``look_later``)."""

    @property
    def connected(self) -> dict[str, tuple[bool, ...]]:
        return self.presence.connected

    @property
    def store(self) -> AsyncEventStore:
        """The store port of this event loop."""
        if self._store is None:
            self._store = self.rt.async_store()
        return self._store

    @property
    def follower(self) -> Follower:
        if self._follower is None:
            self._follower = self.store.follower()
            self._follower.noted = self._noted
            self._follower.rewound = self._rewound
        return self._follower

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        self._tasks = [asyncio.create_task(self._follow()),
                       asyncio.create_task(self.presence.run(self._seats_here)),
                       asyncio.create_task(self._schedule_unscheduled())]

    async def stop(self) -> None:
        for task in self._background:
            task.cancel()
        await stop_tasks(self._tasks)
        if self._follower is not None:
            with contextlib.suppress(Exception):
                await self._follower.close()

    async def _schedule_unscheduled(self) -> None:
        """For good: every ``SYSTEM_GRACE_S``, schedule again the bot turns the bot queue did
        not take (``MatchService.schedule_unscheduled``; nothing to do, no round trip)."""
        while True:
            await asyncio.sleep(SYSTEM_GRACE_S)
            if not self.service.unscheduled:
                continue
            try:
                await off_loop(self.service.schedule_unscheduled)
            except asyncio.CancelledError:
                raise
            except Exception:  # a bug: the loop must go on (the turns stay kept)
                log.exception("scheduling kept bot turns failed")

    def _noted(self, match_id: str) -> None:
        """The follower's wake-up: the turn of ``match_id`` was given a deadline or more time."""
        if match_id in self.loaded:
            self._spawn(self.turns.changed(match_id))

    def _rewound(self, match_id: str) -> None:
        """The follower's finding: the log of ``match_id`` no longer holds the record the hub
        folded last (its Redis restarted from an older snapshot, or without its data; a
        replica was promoted without the newest records)."""
        self._spawn(self._went_back(match_id))

    async def _went_back(self, match_id: str) -> None:
        """Read the match afresh after its log went back: gone, its sockets are told so
        (``gone``); shorter, its sockets are closed with ``CLOSE_RESTART`` so that they
        reconnect and take the view of the log as it is, and the hub follows it again from
        there if they do.  Sending that older view on the open sockets would not do: clients
        keep the newest version they were sent and drop an older one (the finding: after a
        Redis restarted from its snapshot the hub held its newer copy, sent nothing until the
        log passed it again, and the seat to play, its client holding the newer view too,
        was refused ``stale_version``: the match waited for good)."""
        if match_id not in self.subs:
            return
        held = self.loaded.get(match_id)
        self.service.forget(match_id)
        try:
            loaded = await off_loop(self.service.load, match_id)
        except NotFound:
            self.gone(match_id)
            return
        except Exception as exc:  # the store is still coming back: look again in a moment
            log.warning("reading %s again after its log went back failed (%s); trying again",
                        match_id, one_line(exc))
            await asyncio.sleep(SYSTEM_GRACE_S)
            self._spawn(self._went_back(match_id))
            return
        subs = self.subs.pop(match_id, set())
        log.warning("match %s went back from version %s to %d (its store lost records): "
                    "%d socket(s) closed to reconnect", match_id,
                    "?" if held is None else held.version, loaded.version, len(subs))
        for sub in subs:
            sub.close(CLOSE_RESTART)
        self._unfollow(match_id)

    def _seats_here(self) -> list[tuple[str, set[int]]]:
        return [(match_id, {s.seat for s in subs if s.seat is not None})
                for match_id, subs in self.subs.items()]

    # -- subscriptions -----------------------------------------------------------------------

    async def subscribe(self, sub: Subscriber,
                        prelude: Callable[[int], Awaitable[str | None]] | None = None,
                        since: int = -1) -> Loaded:
        """Register ``sub`` and send it the current view, then ``prelude(version)`` (a frame
        about that view's version: what a reconnecting client missed) right after it.  Its own
        seat counts as connected in that first view (presence is marked first), and the first
        view (with the prelude) is queued in the step that lets broadcasts reach ``sub``, so the
        socket gets every later version after them, in order.  A client that holds a version
        past the hub's copy (``since``: another gateway's record, which the follower has not
        brought yet) gets the store's records up to now first: a first view older than
        ``since`` would tell it the match's log went back (api.md)."""
        match_id = sub.match_id
        loaded = self.loaded.get(match_id)
        if loaded is None:
            fresh = await off_loop(self.service.load, match_id)
            loaded = self.loaded.get(match_id)  # another subscriber may have raced us here
            if loaded is None or loaded.version < fresh.version:
                loaded = self.loaded[match_id] = fresh
                self.follower.follow(match_id, fresh.version)
                # a match that waits for a bot or a system step nobody saw to (its writer
                # died, or could not schedule the bot) moves on once someone watches it
                self._watch_progress(match_id, fresh)
        if since > loaded.version:
            try:
                await self._read_ahead(match_id)
            except Exception as exc:  # (the follower brings them all the same, or reloads)
                log.warning("reading %s ahead of the follower failed (%s)", match_id,
                            one_line(exc), exc_info=not isinstance(exc, UNREACHABLE))
            loaded = self.loaded.get(match_id) or loaded
        # registered (the match stays followed) but not started: broadcasts skip it while
        # its presence is marked and its prelude read
        self.subs.setdefault(match_id, set()).add(sub)
        self._seat_in(sub, loaded)
        if sub.seat is not None:
            try:
                await self.presence.mark(match_id, sub.seat, True)
            except Exception:  # (a store that is busy or failing over) the socket lives on:
                # the next presence pass writes this seat's entry, as it refreshes every one
                log.warning("presence of %s not marked; the next pass will", match_id,
                            exc_info=True)
        loaded = self.loaded.get(match_id) or loaded
        # the first view and its prelude are of one version, and nothing is awaited between
        # reading the prelude and starting the socket: a record the follower brought while the
        # prelude was read (which the broadcast skipped, the socket not started) is read again
        # with it, where a later view alone would leave the record between out of `missed`
        for attempt in range(PRELUDE_TRIES):
            extra = await prelude(loaded.version) if prelude is not None else None
            newest = self.loaded.get(match_id) or loaded
            if newest.version <= loaded.version or attempt == PRELUDE_TRIES - 1:
                break
            loaded = newest
            self._seat_in(sub, loaded)
        self._send_view(sub, loaded, self.connected.get(match_id))
        if extra is not None:
            sub.send(extra)
        if newest.version > loaded.version:  # (it moved on during every read: its newest view)
            log.warning("match %s moved on while a socket's prelude was read %d times",
                        match_id, PRELUDE_TRIES)
            self._send_view(sub, newest, self.connected.get(match_id))
        sub.started = True
        self.turns.opened(sub, newest)
        return newest

    def gone(self, match_id: str) -> None:
        """The match no longer exists (its keys expired or were deleted, or a Redis restarted
        without its data): its sockets are told ``not_found`` and closed (``CLOSE_NOT_FOUND``),
        as a socket opened now would be, and the hub stops following it."""
        subs = self.subs.pop(match_id, set())
        if subs:
            log.info("match %s is gone: %d socket(s) closed", match_id, len(subs))
        frame = dumps({"type": "error", **NotFound("no such match (it expired)").to_dict(),
                       "id": None})
        for sub in subs:
            sub.send(frame)
            sub.close(CLOSE_NOT_FOUND)
        self._unfollow(match_id)
        self.service.forget(match_id)

    def _unfollow(self, match_id: str) -> None:
        """Nobody here follows ``match_id`` any more: drop what the hub kept of it."""
        self.loaded.pop(match_id, None)
        self.presence.forget(match_id)
        self.turns.forget(match_id)
        self._fragments.pop(match_id, None)
        self.follower.drop(match_id)

    async def unsubscribe(self, sub: Subscriber) -> None:
        match_id = sub.match_id
        subs = self.subs.get(match_id)
        if subs is None or sub not in subs:  # never registered, or its match is gone
            if sub.writer is not None and not sub.closed:
                sub.writer.cancel()
            return
        subs.discard(sub)
        if not subs:
            del self.subs[match_id]
            self._unfollow(match_id)
        if sub.writer is not None and not sub.closed:
            sub.writer.cancel()  # (a closing writer finishes its queue, then closes)
        if sub.seat is not None:
            still_here = any(s.seat == sub.seat for s in self.subs.get(match_id, ()))
            if not still_here:
                await self.presence.left(match_id, sub.seat, sub.player)

    def resend(self, sub: Subscriber) -> None:
        """Send ``sub`` the newest view again (the answer to a retried command)."""
        loaded = self.loaded.get(sub.match_id)
        if loaded is not None:
            self._send_view(sub, loaded, self.connected.get(sub.match_id))

    async def read_presence(self, match_id: str, players: int = 4) -> tuple[bool, ...]:
        return await self.presence.read(match_id, players)

    def _presence_changed(self, match_id: str) -> None:
        loaded = self.loaded.get(match_id)
        if loaded is not None:
            self.broadcast(match_id, loaded)

    # -- this process's own commands ---------------------------------------------------------

    def applied(self, match_id: str, before: Loaded, after: Loaded) -> None:
        """A command handled in this process turned ``before`` into ``after`` (the next
        version): send the views now instead of waiting to read the record back.  If the hub's
        copy is not ``before`` (it is behind, or the follower already delivered the record) the
        follower does the work, so every version goes out exactly once and in order."""
        current = self.loaded.get(match_id)
        if current is not None and current.version == before.version \
                and after.version == before.version + 1:
            self.loaded[match_id] = after
            # the hub has every record up to this one now: the follower need not read it back
            self.follower.seen(match_id, after.version)
            self.broadcast(match_id, after)
            self._watch_progress(match_id, after)

    def appending(self, match_id: str, payload: bytes, after: Loaded) -> None:
        """This process is appending ``payload`` as the record that turns the match into
        ``after``: if the follower reads that very record back first, the hub takes ``after``
        as it is instead of decoding and folding the record again."""
        self._mine[match_id] = (after.version, payload, after)

    def appended(self, match_id: str, after: Loaded) -> None:
        mine = self._mine.get(match_id)
        if mine is not None and mine[2] is after:
            del self._mine[match_id]

    # -- the follower ------------------------------------------------------------------------

    async def _follow(self) -> None:
        """For good: deliver what the follower brings."""
        follower = self.follower
        while True:
            try:
                batch = await follower.next_batch()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if isinstance(exc, UNREACHABLE):
                    log.warning("following failed: the store is unreachable (%s); trying "
                                "again", one_line(exc))
                else:
                    log.exception("following failed; trying again")
                await asyncio.sleep(0.5)
                continue
            for match_id, entries in batch:
                try:
                    await self._deliver(match_id, entries)
                except Exception:
                    log.exception("delivering %s failed", match_id)
                    await self._reload(match_id)

    async def _deliver(self, match_id: str, entries: Sequence[tuple[int, bytes]]) -> None:
        """Fold new records into the hub's copy of the match, one version at a time, sending
        the views of each."""
        for number, payload in entries:
            while True:
                loaded = self.loaded.get(match_id)
                if loaded is None:
                    return  # nobody here follows this match any more
                if number <= loaded.version:
                    break  # this process appended it and sent its views already
                if number == loaded.version + 1:
                    mine = self._mine.get(match_id)
                    if mine is not None and mine[0] == number and mine[1] == payload:
                        self._advance(match_id, mine[2])  # our own append, read back first
                    else:
                        self._advance(match_id, fold_raw([(number, payload)], loaded))
                    break
                # a gap (rare: a position moved while reading): read what is missing
                missing = await self.store.read_raw(match_id, loaded.version, number - 1)
                if self.loaded.get(match_id) is not loaded:
                    continue  # it moved on meanwhile: look again
                if not missing:
                    raise CorruptLog(f"record {loaded.version + 1} of {match_id} is missing")
                for entry in missing:
                    loaded = fold_raw([entry], loaded)
                    self._advance(match_id, loaded)
        latest = self.loaded.get(match_id)
        if latest is not None and bot_to_move(latest):
            # Redundant on purpose: if the process that appended died before scheduling the
            # bot, whoever sees the record schedules it (the guard makes this idempotent).
            await off_loop(self.service.schedule_bot, match_id, latest)

    async def _read_ahead(self, match_id: str) -> None:
        """Fold the records the store holds past the hub's copy of ``match_id`` now, sending
        their views in order, rather than wait for the follower to bring them (it skips them
        when it does, as it skips this process's own)."""
        while True:
            loaded = self.loaded.get(match_id)
            if loaded is None:
                return
            entries = await self.store.read_raw(match_id, loaded.version)
            if self.loaded.get(match_id) is not loaded:
                continue  # it moved on meanwhile: look again
            for entry in entries:
                loaded = fold_raw([entry], loaded)
                self._advance(match_id, loaded)
            return

    def _advance(self, match_id: str, loaded: Loaded) -> None:
        self.loaded[match_id] = loaded
        self.service.remember(match_id, loaded)
        self.broadcast(match_id, loaded)
        self._watch_progress(match_id, loaded)

    async def _reload(self, match_id: str) -> None:
        """Start the hub's copy of a match again from the stream (after a record it could not
        fold), and send everyone the current view."""
        self.service.forget(match_id)
        try:
            loaded = await off_loop(self.service.load, match_id)
        except Exception:
            log.exception("reloading %s failed", match_id)
            await asyncio.sleep(0.5)  # do not spin on a match that cannot be read
            return
        if match_id in self.loaded:
            self.follower.follow(match_id, loaded.version)
            self._advance(match_id, loaded)

    # -- progress ----------------------------------------------------------------------------

    def _watch_progress(self, match_id: str, loaded: Loaded) -> None:
        """If the match now waits for a system step (the next deal, the final reveal) or for a
        bot, check a moment later that it moved on, and see to it otherwise.  The process that
        appended the record does it at once; this covers that process dying (or failing) in
        between, which would leave the match waiting for ever.  Doing it twice is harmless: the
        append's optimistic lock lets one system step win, and a bot turn is scheduled once
        (``services/bots.py``)."""
        if pending_system_action(loaded.state) is None and not bot_to_move(loaded):
            return
        loop = asyncio.get_running_loop()
        loop.call_later(SYSTEM_GRACE_S, lambda: self._spawn(self._ensure_progress(
            match_id, loaded.version)))

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def look_later(self, match_id: str, loaded: Loaded) -> None:
        """A request read ``loaded`` (``GET /view``): a match that no socket here follows and
        that waits for a system step or a bot is looked at a moment later as a followed one is
        (``_watch_progress``).  Players who only poll over HTTP have no socket whose hub would
        see to it, so a match whose writer died before its next deal, or before scheduling its
        bot (a gateway killed while the queue was down), waited for ever (a QA finding)."""
        if match_id in self.loaded or match_id in self._looking:
            return
        if pending_system_action(loaded.state) is None and not bot_to_move(loaded):
            return
        self._looking.add(match_id)
        asyncio.get_running_loop().call_later(SYSTEM_GRACE_S, lambda: self._spawn(
            self._ensure_progress(match_id, loaded.version, followed=False)))

    async def _ensure_progress(self, match_id: str, version: int, followed: bool = True
                               ) -> None:
        """Move the match on from ``version`` if it still waits there (see
        ``_watch_progress``; not ``followed``: a match only requests read, ``look_later``)."""
        if not followed:
            self._looking.discard(match_id)
            loaded = self.loaded.get(match_id)
            if loaded is not None:
                return  # a socket here follows it now: its own watch sees to it
        else:
            loaded = self.loaded.get(match_id)
            if loaded is None or loaded.version != version:
                return  # it moved on (or nobody here follows it any more)
        service = self.service
        def look() -> tuple[int, int]:
            found = service.load(match_id)
            return found.version, service.advance(match_id, found).version

        try:
            found, latest = await off_loop(look)
        except NotFound:  # deleted or expired while followed: its sockets are told
            self.gone(match_id)
            return
        except Exception as exc:  # the store is failing over, say: look again in a moment
            log.warning("moving %s on from version %d failed (%s); trying again", match_id,
                        version, exc)
            if loaded is not None:
                self._watch_progress(match_id, loaded)
            return  # (a match only requests read: the next request looks again)
        # stuck only if this look moved it: a match found further on moved by itself (this
        # hub's follower was behind, on a busy machine), which is no news for an operator
        if latest != found:
            log.warning("match %s was stuck at version %d (a system step): moved on",
                        match_id, found)

    # -- views -------------------------------------------------------------------------------

    @staticmethod
    def _seat_in(sub: Subscriber, loaded: Loaded) -> None:
        """Make ``sub.seat`` its player's seat in ``loaded`` (a seat can move: the ace draw's
        swap; a player who left has none and watches)."""
        if sub.player is None:
            return
        seats = loaded.state.match.seats
        seat = sub.seat
        if seat is None or seat >= len(seats) or seats[seat] is None \
                or seats[seat].player != sub.player:  # type: ignore[union-attr]
            sub.seat = MatchService.seat_of_player(loaded.state, sub.player)

    def broadcast(self, match_id: str, loaded: Loaded) -> None:
        subs = self.subs.get(match_id)
        if not subs:
            return
        left: set[int] = set()
        for sub in subs:
            before = sub.seat
            self._seat_in(sub, loaded)
            if before is not None and sub.seat != before:
                left.add(before)
        if left:
            self._spawn(self._reseat(match_id, left))
        texts = view_texts(loaded, {sub.seat for sub in subs}, self.connected.get(match_id),
                           self._fragments.setdefault(match_id, {}))
        for sub in list(subs):
            if sub.started:
                sub.send(texts[sub.seat])
        self.turns.look(match_id, loaded)

    async def _reseat(self, match_id: str, left: set[int]) -> None:
        """Players with sockets here were moved from the ``left`` seats (the ace draw's swap):
        the seats of the sockets here count connected, and a seat left that no socket here
        holds now no longer does.  Without it the old seat, another player's now, showed
        connected (and that player, maybe without a socket, not away) until its entry lapsed
        (``PRESENCE_TTL_MS``), and the moved player's own seat "not connected" until the next
        presence pass.  A store that fails here is logged: the pass writes the seats held
        then, and the entries left lapse."""
        held = {s.seat for s in self.subs.get(match_id, ()) if s.seat is not None}
        try:
            await self.presence.moved(match_id, held, left - held)
        except Exception as exc:
            log.warning("presence of %s not moved with its seats (%s); the next pass will",
                        match_id, one_line(exc), exc_info=not isinstance(exc, UNREACHABLE))

    def _send_view(self, sub: Subscriber, loaded: Loaded,
                   connected: tuple[bool, ...] | None) -> None:
        sub.send(view_texts(loaded, (sub.seat,), connected)[sub.seat])
