"""The match service: the threaded path of the command pipeline, system steps and bot turns.

``handle`` runs a command through ``services.pipeline.prepare`` on the cached match and appends
the sealed record at the next version.  If the append meets a conflict (another gateway or a bot
worker appended first) the service reloads and prepares again, a bounded number of times; a
command that is no longer legal after the reload is refused with ``stale_version``.  After every
append the service performs the system steps the match needs to go on by itself (the ace draw,
the next deal, the final reveal of the deck secret) and schedules the bot whose turn it is.

The gateway runs the same ``prepare`` on its event loop for the common case (``services/gateway/
commands.py``) and hands anything unusual to ``handle``: the checks are the same, only where they
run differs.

Idempotency: a command may carry a client id.  Ids are stored in the records; the cached
``Loaded`` indexes them, so a retried command is answered with its original version and state
instead of being applied twice (also across gateways: a retry that loses the race reloads and
finds its id).

Version policy (api.md leaves the choice): a command that names a version other than the current
one is refused with ``stale_version``; a command without a version is applied if legal.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import redis

from engine import Command, CreateMatch, State, decide, evolve, pending_system_action
from engine.errors import HokmError, InvalidCommand
from engine.state import CHOOSING_TRUMP, DISCARDING, DRAWING, MATCH_OVER, PLAYING

from .cache import Lru, MatchCache
from .errors import BadToken, NotFound, StaleVersion
from .lobby import BOT_LEVELS, BOT_NAMES, Lobby, Room, command_key, token_hash
from .pipeline import (EMPTY, CorruptLog, Duplicate, Loaded, Prepared, chained, fold_raw,
                       prepare)
from .quotas import BOTS_ONLY, UNATTENDED, Quotas
from .store.codec import decode
from .store.port import Conflict, EventStore, Record, StoreUnavailable
from .system import SideData, command_of, read_side

__all__ = ["BOT_LEVELS", "BOT_NAMES", "BotScheduler", "CorruptLog", "Loaded", "MatchService",
           "Outcome", "bots_only", "command_key", "fold_raw", "human_seats", "token_hash"]

MAX_ATTEMPTS = 8
log = logging.getLogger("hokm.service")


@dataclass(frozen=True, slots=True)
class Outcome:
    version: int
    """The version the command produced (or, for a retried command id, produced originally)."""
    state: State
    duplicate: bool = False
    latest: Loaded | None = None
    """The match after the system steps that followed (None for a duplicate)."""


class BotScheduler(Protocol):
    def schedule(self, match_id: str, seat: int, version: int, *,
                 bots_only: bool = False, humans: tuple[int, ...] = ()) -> None:
        """Make sure the bot at ``seat`` plays the move due at ``version`` (idempotent);
        ``bots_only``: nobody but bots sits at the table (its turns wait behind tables with
        humans); else ``humans``, the seats of the humans at the table, for a scheduler that
        knows whether any of them is there (``worker.jobs``: a table every human has walked
        away from is played on the bots-only queue)."""
        ...


def bots_only(state: State) -> bool:
    """Whether every seat is taken by a bot (nobody is waiting for this match's moves)."""
    return all(s is not None and s.bot is not None for s in state.match.seats)


def human_seats(state: State) -> tuple[int, ...]:
    """The seats taken by humans."""
    return tuple(i for i, s in enumerate(state.match.seats) if s is not None and s.bot is None)


class MatchService(Lobby):
    """Command handling, lobby and reading for matches kept in an ``EventStore``."""

    def __init__(
        self,
        store: EventStore,
        *,
        scheduler: BotScheduler | None = None,
        allow_stacked: bool = False,
        clock: Callable[[], float] = time.time,
        quotas: Quotas | None = None,
        cache: MatchCache | None = None,
    ) -> None:
        self.store = store
        self.scheduler = scheduler
        self.allow_stacked = allow_stacked
        self.clock = clock
        self.quotas = quotas or Quotas()
        self.cache = cache or MatchCache()
        """The process's match cache (the composition root shares one with the gateway)."""
        self.sides: Lru[SideData] = Lru()
        """The side data of the matches this process made system steps for (written once, at
        creation: kept, so a system step needs no round trip to read it)."""
        self.rooms: Lru[Room] = Lru()
        """The room settings of matches (written once, at creation: kept)."""
        self._unscheduled: dict[str, int] | None = None
        """Match -> version of bot turns this process could not schedule (the queue's Redis
        did not answer), once ``retry_schedules`` is on; None: such a failure is raised."""
        self._unscheduled_lock = threading.Lock()

    # -- the cache ---------------------------------------------------------------------------

    def cached(self, match_id: str) -> Loaded | None:
        """The cached match, if any, without any I/O (it may be behind the stream)."""
        return self.cache.get(match_id)

    def remember(self, match_id: str, loaded: Loaded) -> Loaded:
        """Keep ``loaded`` unless the cache already holds a newer version; return the newest."""
        return self.cache.put(match_id, loaded)

    def forget(self, match_id: str) -> None:
        self.cache.forget(match_id)

    def forget_all(self) -> None:
        self.cache.forget_all()

    def _refresh(self, match_id: str, loaded: Loaded | None) -> Loaded:
        after = loaded.version if loaded is not None else 0
        try:
            # from the cached version itself, which must still be there: a log that expired,
            # was deleted or lost its newest records since (a Redis restarted without its
            # data) is told from one with nothing new in the same round trip
            records = self.store.read_raw(match_id, max(after - 1, 0))
        except StoreUnavailable:
            self.forget_all()
            raise
        if after > 0:
            if not records or records[0][0] != after:
                self.forget(match_id)
                return self._refresh(match_id, None)
            records = records[1:]
        if not records:
            if loaded is None or loaded.version == 0:
                if loaded is not None:
                    return loaded
                raise NotFound("no such match")
            return loaded
        try:
            try:
                new = fold_raw(records, loaded or EMPTY)
            except CorruptLog:
                if loaded is None:
                    raise
                new = fold_raw(self.store.read_raw(match_id))  # our cache went wrong: start over
        except CorruptLog as damage:  # refused as match_damaged; the operator is told where
            self.forget(match_id)
            self.damaged(match_id, damage)
            raise
        return self.cache.put(match_id, new)

    def records(self, match_id: str, upto: int | None = None) -> list[Record]:
        """The match's records from the first up to ``upto`` (all by default), checked to be a
        chain (``CorruptLog`` otherwise, logged as ``load`` does)."""
        records = self.store.read(match_id, 0, upto)
        try:
            chained(records)
        except CorruptLog as damage:
            self.damaged(match_id, damage)
            raise
        return records

    @staticmethod
    def damaged(match_id: str, damage: CorruptLog) -> None:
        """One line for the operator: which match, where its chain breaks (no traceback: the
        request is answered ``match_damaged``, which is the whole story for the player)."""
        log.error("match %s cannot be loaded: its log is damaged (%s); `hokm verify %s` "
                  "tells more", match_id, damage.detail, match_id)

    def load(self, match_id: str, *, fresh: bool = True) -> Loaded:
        """The match now (``fresh``: checked against the stream, one round trip)."""
        loaded = self.cache.get(match_id)
        if loaded is None or fresh:
            loaded = self._refresh(match_id, loaded)
        return loaded

    # -- commands ----------------------------------------------------------------------------

    def handle(
        self,
        match_id: str,
        actor: int | None,
        command: Command,
        *,
        version: int | None = None,
        command_id: str | None = None,
        player: str | None = None,
    ) -> Outcome:
        """Prepare and append ``command`` by ``actor`` (a seat, or None for the system).  With
        ``player``, the actor is that player's seat in the match each attempt is prepared on
        (``actor`` is not used): a seat can move between a token's check and the command (the
        ace draw's swap), and a command must never act for the seat's new player
        (``bad_token`` when the player holds no seat)."""
        loaded = self.cache.get(match_id)
        if loaded is None:
            if isinstance(command, CreateMatch):
                loaded = EMPTY  # a new match: Conflict if the id is taken
            else:
                loaded = self._refresh(match_id, None)
        refreshed = conflicted = False
        for _ in range(MAX_ATTEMPTS):
            try:
                if player is not None:
                    actor = self.seat_of_player(loaded.state, player)
                    if actor is None and (command_id is None
                                          or command_id not in loaded.commands):
                        # (a retry of a command applied before its player left is answered
                        # by ``prepare``'s ``Duplicate``, before the actor counts)
                        raise BadToken("this token's seat was given up")
                prepared = prepare(loaded, actor, command, time_ms=self._now_ms(),
                                   version=version, command_id=command_id)
            except Duplicate as done:
                state = self._same_command(match_id, done.version, command, version)
                self._confirm(match_id, done.version)
                self._move_on(match_id, loaded)
                return Outcome(done.version, state, True, None)
            except HokmError as refusal:
                if not refreshed:  # perhaps only our cache is behind: look once more
                    loaded, refreshed = self._refresh(match_id, loaded), True
                    continue
                if conflicted and not isinstance(refusal, (StaleVersion, BadToken)):
                    raise StaleVersion(
                        f"the match moved on before this command could apply ({refusal.code})"
                    ) from refusal
                raise
            try:
                loaded = self.commit(match_id, prepared)
            except Conflict:
                loaded, refreshed, conflicted = self._refresh(match_id, loaded), True, True
                continue
            produced = loaded
            latest = self.advance(match_id, loaded)
            return Outcome(produced.version, produced.state, False, latest)
        raise StaleVersion("the match is too busy; try again")

    def _move_on(self, match_id: str, loaded: Loaded) -> None:
        """``advance`` for a retried command: its first writer may have died after appending it
        and before what follows (the next deal, the bot's scheduling), and the retry is then
        the only request that comes (a QA finding: a player polling over HTTP waited for
        ever).  A failure is only logged: the retry's answer stands, its record is stored."""
        try:
            self.advance(match_id, self._refresh(match_id, loaded))
        except (HokmError, StoreUnavailable, redis.RedisError, OSError) as exc:
            log.warning("moving %s on after a retried command failed (%s)", match_id, exc)

    def _same_command(self, match_id: str, applied: int, command: Command,
                      version: int | None) -> State:
        """The state after record ``applied``, which holds a command with the same id as
        ``command`` (sent for ``version``): ``bad_request`` unless ``command`` is that command
        again.  Records keep the events, not the command, so the retry is decided again on the
        state the original met: the same command by the same seat makes the same events (the
        engine is pure).  A ``version`` other than the one the original met cannot be the
        original's (it was applied at that version + 1); a retry without one is compared by its
        move alone.  This costs nothing more than answering a retry did already: one read of
        the records up to ``applied``, folded."""
        entries = self.store.read_raw(match_id, 0, applied)
        state = fold_raw(entries[:-1]).state if entries else State()
        original = decode(*entries[-1]) if entries else None
        same = original is not None and original.version == applied and (
            version is None or version == applied - 1)
        if same:
            assert original is not None
            try:
                same = tuple(decide(state, original.actor, command)) == tuple(original.events)
            except HokmError:
                same = False
        if not same:
            raise InvalidCommand("this command id was used for another command; send a new "
                                 "command with a new id")
        assert original is not None
        for event in original.events:
            state = evolve(state, event)
        return state

    def _confirm(self, match_id: str, version: int) -> None:
        """A command found applied (its id at ``version``) is answered as done only once its
        record is as safe as an acknowledged append (``EventStore.confirm_stored``): its
        own append may have been refused as unavailable, with ``HOKM_REPLICA_ACKS`` because
        no replica had it (QA F6: the retry, or the thread path after the event loop's
        refusal, answered it 200 while no replica held it).  Otherwise ``unavailable``, and
        the match is read again next time (the record may not even be on the primary)."""
        try:
            self.store.confirm_stored(match_id, version)
        except StoreUnavailable:
            self.forget(match_id)
            raise

    def _now_ms(self) -> int:
        return int(self.clock() * 1000)

    def commit(self, match_id: str, prepared: Prepared) -> Loaded:
        """Append a prepared record (``Conflict`` if another writer was first) and keep the match
        after it; a system step also renews the match's lifetime (``Quotas``)."""
        try:
            self.store.append_sealed(match_id, prepared.record.version, prepared.payload)
        except StoreUnavailable:
            # Redis may have restarted and lost writes we cached: trust only what we read next.
            self.forget_all()
            raise
        if prepared.record.actor is None:
            self.renew(match_id, prepared.after.state)
        return self.cache.put(match_id, prepared.after)

    def side_data(self, match_id: str) -> SideData:
        """The match's side data (read from the store once, then kept)."""
        side = self.sides.get(match_id)
        if side is None:
            side = self.sides.put(match_id, read_side(self.store, match_id))
        return side

    def renews(self, state: State) -> bool:
        """Whether ``renew`` has anything to do after a system step into ``state``."""
        return state.phase == MATCH_OVER or self.quotas.idle_ttl_s > 0

    def renew(self, match_id: str, state: State) -> None:
        """Give the match's keys their lifetime after a system step (``Quotas``): the idle
        lifetime while it is played, the archive's once it is over (and its bots-only slot,
        if it held one, is released)."""
        quotas = self.quotas
        if state.phase == MATCH_OVER:
            if quotas.finished_ttl_s > 0 or quotas.idle_ttl_s > 0:
                self.store.keep(match_id, quotas.finished_ttl_s)
            owner = self.store.get_meta_field(match_id, "meta", "owner")
            if owner:
                self.store.release_slot(BOTS_ONLY, match_id, owner)
                self.store.release_slot(UNATTENDED, match_id, owner)
        elif quotas.idle_ttl_s > 0:
            self.store.keep(match_id, quotas.idle_ttl_s)

    def advance(self, match_id: str, loaded: Loaded) -> Loaded:
        """Perform the system steps the match is waiting for, then schedule a bot's turn."""
        for _ in range(MAX_ATTEMPTS * 2):
            action = pending_system_action(loaded.state)
            if action is None:
                break
            try:
                loaded = self.commit(match_id,
                                     self.system_step(loaded, action, self.side_data(match_id)))
            except Conflict:
                loaded = self._refresh(match_id, loaded)
        self.schedule_bot(match_id, loaded)
        return loaded

    def system_step(self, loaded: Loaded, action: str, side: SideData) -> Prepared:
        """The record of the system step ``action`` that ``loaded`` waits for, prepared by the
        pipeline as every writer's command is (the gateway's loop and ``advance`` share it)."""
        return prepare(loaded, None, command_of(side, loaded.state, action),
                       time_ms=self._now_ms())

    def next_actor(self, state: State) -> int | None:
        """The seat whose decision the match waits for, if any."""
        if state.phase in (CHOOSING_TRUMP, DISCARDING, DRAWING, PLAYING):
            return state.turn
        return None

    def schedule_bot(self, match_id: str, loaded: Loaded) -> None:
        """Schedule the bot whose turn ``loaded`` waits for, if any.  Once ``retry_schedules``
        is on, a queue that does not answer is not the caller's failure (the record before it
        is stored, and its writer must hear so): the turn is kept for
        ``schedule_unscheduled``; otherwise the queue's error is raised."""
        seat = self.next_actor(loaded.state)
        if seat is None or self.scheduler is None:
            return
        occupant = loaded.state.match.seats[seat]
        if occupant is None or occupant.bot is None:
            return
        try:
            self.scheduler.schedule(match_id, seat, loaded.version,
                                    bots_only=bots_only(loaded.state),
                                    humans=human_seats(loaded.state))
        except (redis.RedisError, OSError) as exc:
            if self._unscheduled is None:
                raise
            with self._unscheduled_lock:
                known = self._unscheduled.get(match_id) == loaded.version
                self._unscheduled[match_id] = max(loaded.version,
                                                  self._unscheduled.get(match_id, 0))
            if not known:  # one line per turn, not one per retry
                log.warning("the bot turn of %s at version %d is not scheduled yet (the bot "
                            "queue is unreachable: %s); retrying", match_id, loaded.version,
                            type(exc).__name__)
            return
        if self._unscheduled:
            self._drop_unscheduled(match_id, loaded.version)

    def retry_schedules(self) -> None:
        """From now on keep the bot turns whose scheduling fails, for ``schedule_unscheduled``
        (the gateway, which answers its clients once their records are stored, and retries
        every second).  Bot workers leave it off: a job whose next turn could not be scheduled
        fails, and the watchdog's overdue mark moves the match on (``worker.jobs.still_due``)."""
        with self._unscheduled_lock:
            if self._unscheduled is None:
                self._unscheduled = {}

    @property
    def unscheduled(self) -> dict[str, int]:
        """A copy of the kept bot turns (match -> version)."""
        with self._unscheduled_lock:
            return dict(self._unscheduled or {})

    def _drop_unscheduled(self, match_id: str, upto: int) -> None:
        with self._unscheduled_lock:
            if self._unscheduled is not None and self._unscheduled.get(match_id, upto + 1) <= upto:
                del self._unscheduled[match_id]

    def schedule_unscheduled(self) -> int:
        """Try again to schedule every kept bot turn that is still due; a turn the match moved
        past, or of a match deleted meanwhile, is dropped (whoever moved it scheduled what
        follows).  The first turn whose scheduling fails again ends the pass: while the queue
        is down a pass costs one match read and one try, however many turns are kept.  Each
        match is read afresh (not from the cache, which would not see it deleted).  Returns
        how many are still kept."""
        for match_id, version in self.unscheduled.items():
            self.forget(match_id)
            try:
                loaded = self.load(match_id)
            except NotFound:
                self._drop_unscheduled(match_id, version)
                continue
            except (StoreUnavailable, redis.RedisError, OSError):
                break  # the store is down too: next time
            if loaded.version != version:
                self._drop_unscheduled(match_id, version)
                continue
            self.schedule_bot(match_id, loaded)  # kept again if the queue still fails
            if self.unscheduled.get(match_id) == version:
                break  # the queue still does not answer: the others wait for the next pass
        return len(self.unscheduled)

    # -- reading -----------------------------------------------------------------------------

    def state_at(self, match_id: str, step: int) -> State:
        """The state after record ``step`` (0: before anything)."""
        return fold_raw(self.store.read_raw(match_id, 0, step)).state if step > 0 else State()

    def meta(self, match_id: str) -> dict[str, str]:
        return self.store.get_meta(match_id, "meta")

