"""Scheduling bot turns as RQ jobs, and recovering turns whose worker died.

``RQScheduler.schedule(match, seat, version)`` enqueues ``worker.jobs.bot_turn`` with plain JSON
arguments.  The job id is derived from (match, version, seat) and a set-if-absent guard key makes a
duplicate enqueue a no-op (RQ itself would queue a second job under the same id).  Every scheduled
turn is also written to a sorted set with a deadline; ``recover_stalled`` (run by every worker
process about twice a second) re-enqueues turns still pending after their deadline, which is how a
turn survives a worker killed mid-job within seconds rather than RQ's minutes.  A turn being played
has its deadline moved on by its worker's watchdog meanwhile (``extend``), so only a turn whose
worker died (or that waited in the queue past its deadline) is enqueued again, however long the
bot thinks.  ``claim`` lets a bot job keep the next bot turn of its match for itself when the
queue is idle (worker/jobs.py).

Fair scheduling: turns of bots-only matches (nobody seated waits for them) go to a queue of
their own, ``<queue>-bots-only``, and so do those of a table whose every human is away past the
room's ``disconnect_timeout`` (``worker.jobs._Keeper.schedule``, ``recover_away``).  Workers
listen to the main queue first (RQ takes a job from the first non-empty queue it listens to),
and a bots-only job keeps its match's turns only while both queues are empty, so a flood of
bots-only matches never delays a table with a human by more than the one decision a worker is
in.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

import redis
from rq import Queue, Retry
from rq.serializers import JSONSerializer

from .store import keys
from .store.scripts import TURN_SEEN
from .turns import parse_entry

JOB = "worker.jobs.bot_turn"
GUARD_TTL_S = 600

LEVELS = ("easy", "medium", "hard", "expert")
"""The bot levels of the API (``bot:<level>``), the only ones a seat may take; the worker maps
each to its policy (``worker.policies.LEVELS``, which must hold exactly these)."""


def job_id(match_id: str, version: int, seat: int, attempt: int = 0) -> str:
    base = f"bot-{match_id}-{version}-{seat}"
    return base if attempt == 0 else f"{base}-r{attempt}"


def member(match_id: str, version: int, seat: int) -> str:
    return f"{match_id}:{version}:{seat}"


ABANDONED_RETRY = 1
"""Retries of a bot job (:meth:`RQScheduler._enqueue`)."""


class RQScheduler:
    """Enqueues bot turns on an RQ queue (the queue's Redis need not be the matches' Redis)."""

    def __init__(self, client: redis.Redis, queue: str = "hokm-bots", timeout_s: float = 3.0,
                 clock: Callable[[], float] = time.time) -> None:
        self.client = client
        self.queue = Queue(queue, connection=client, serializer=JSONSerializer)
        """Bot turns of tables with at least one human."""
        self.bots_only_queue = Queue(f"{queue}-bots-only", connection=client,
                                     serializer=JSONSerializer)
        """Bot turns of bots-only matches: served only when ``queue`` is empty, taking turns
        with ``analysis_queue`` (``worker.main.BotWorker.reorder_queues``)."""
        self.analysis_queue = Queue(f"{queue}-analysis", connection=client,
                                    serializer=JSONSerializer)
        """Post-match analyses (``worker/analysis/jobs.py``), one job per round: served after
        ``queue``, taking turns with ``bots_only_queue``, so that neither waits for the
        other to run dry (bots-only matches started one after another starved them)."""
        self.timeout_s = timeout_s
        self.clock = clock

    @property
    def queues(self) -> list[Queue]:
        """The bot turns' queues, in the order a worker must serve them (the embedded server's
        bot thread listens to these; its analyses have a thread of their own)."""
        return [self.queue, self.bots_only_queue]

    @property
    def all_queues(self) -> list[Queue]:
        """Every queue of the workers, in the order ``hokm worker`` serves them (the last two
        taking turns: ``worker.main.BotWorker.reorder_queues``), as the metrics report them."""
        return [*self.queues, self.analysis_queue]

    def schedule(self, match_id: str, seat: int, version: int, *,
                 bots_only: bool = False, humans: tuple[int, ...] = ()) -> None:
        """``MatchService``'s scheduler in the gateways (``humans`` unused: a table whose
        player just moved is attended)."""
        self.claim(match_id, seat, version, bots_only=bots_only)

    def claim(self, match_id: str, seat: int, version: int, *, keep_if_idle: bool = False,
              bots_only: bool = False) -> bool:
        """Take charge of the turn (match, seat, version): mark it pending with its deadline and
        enqueue its job.  Returns whether the caller must play it itself instead.

        A turn already claimed is left alone (duplicates collapse here; False).  With
        ``keep_if_idle`` and no job waiting in the queue, the turn is marked pending but not
        enqueued and the answer is True: a bot job plays the bot turns that follow its own this
        way, saving the queue's round trips, and if it dies first the watchdog re-enqueues the
        turn after its deadline like any other.  Two round trips either way.  A bots-only turn
        (``bots_only``) is kept only if no queue (the analyses' too) has a job waiting, and goes
        to the bots-only queue otherwise.

        The turn is marked pending *before* the guard is taken (``ZADD NX``, in the same
        pipeline, which Redis runs in order): a process that dies after taking the guard has
        always left the pending mark, so the watchdog re-enqueues the turn after its deadline.
        The other way round, a death between the two lost the turn for the guard's lifetime.
        A mark left by a duplicate claim is harmless: the watchdog finds the turn played and
        drops it.
        """
        first = self.client.pipeline(transaction=False)
        first.zadd(keys.PENDING_BOTS,
                   {member(match_id, version, seat): self.clock() + self.timeout_s}, nx=True)
        first.set(keys.bot_guard(match_id, version, seat), 1, nx=True, ex=GUARD_TTL_S)
        if keep_if_idle:
            first.llen(self.queue.key)
            if bots_only:
                first.llen(self.bots_only_queue.key)
                first.llen(self.analysis_queue.key)
        _, fresh, *waiting = first.execute()
        if not fresh:
            return False
        keep = keep_if_idle and not any(waiting)
        if not keep:
            pipe = self.client.pipeline()
            pipe.multi()
            self._enqueue(match_id, seat, version, 0, pipe, bots_only=bots_only)
            pipe.execute()
        return keep

    def _enqueue(self, match_id: str, seat: int, version: int, attempt: int,
                 pipeline: Any = None, *, bots_only: bool = False) -> None:
        """Enqueue the job (in ``pipeline`` if given: the caller executes it).

        One retry (``ABANDONED_RETRY``): a job whose worker died under it (``kill -9``, a worker
        that lost its Redis past its heartbeat) is found by RQ's cleanup of its started jobs a
        minute or two later and enqueued once more instead of being recorded as failed
        (``hokm_queue_failed_jobs`` is for jobs that met a bug).  By then the watchdog has
        enqueued its turn again, so the retry finds it played and ends.  A job that raised is
        retried once too, and recorded as failed the second time."""
        queue = self.bots_only_queue if bots_only else self.queue
        queue.enqueue_call(
            JOB, args=(match_id, seat, version), job_id=job_id(match_id, version, seat, attempt),
            result_ttl=0, failure_ttl=3600, timeout=60, pipeline=pipeline,
            retry=Retry(max=ABANDONED_RETRY),
        )

    def done(self, match_id: str, seat: int, version: int) -> None:
        self.client.zrem(keys.PENDING_BOTS, member(match_id, version, seat))

    def extend(self, turns: Iterable[tuple[str, int, int]]) -> None:
        """Move the deadline of these turns (match, seat, version), which are being played, to
        ``timeout_s`` from now: a worker's heartbeat for the turns in its hands, so that the
        watchdogs enqueue a turn again only once its worker has stopped beating (died).  One
        round trip (none without turns).  ``ZADD XX GT``: a turn done meanwhile is not marked
        pending again, and a deadline is never brought forward."""
        deadline = self.clock() + self.timeout_s
        deadlines = {member(match_id, version, seat): deadline
                     for match_id, seat, version in turns}
        if deadlines:
            self.client.zadd(keys.PENDING_BOTS, deadlines, xx=True, gt=True)

    def recover_stalled(self, still_due: Callable[[str, int, int], bool],
                        is_bots_only: Callable[[str], bool] = lambda match_id: False) -> int:
        """Re-enqueue overdue turns for which ``still_due(match, seat, version)`` holds (on the
        queue ``is_bots_only(match)`` chooses); drop the rest.  Returns how many were
        re-enqueued.  Safe to run in many processes at once: the deadline is moved with a
        compare-and-set, so one process re-enqueues each turn."""
        now = self.clock()
        overdue: list[Any] = self.client.zrangebyscore(keys.PENDING_BOTS, "-inf", now,
                                                       start=0, num=100, withscores=True)
        count = 0
        for raw, _deadline in overdue:
            name = raw.decode() if isinstance(raw, bytes) else str(raw)
            match_id, version_s, seat_s = name.rsplit(":", 2)
            version, seat = int(version_s), int(seat_s)
            if not still_due(match_id, seat, version):
                self.client.zrem(keys.PENDING_BOTS, name)
                continue
            # Claim the recovery by moving the deadline forward (ZADD GT CH): a process that finds
            # it already moved skips it.  A rare double claim only enqueues a job that finds its
            # version stale, since bot moves carry their command id.
            claimed = self.client.zadd(keys.PENDING_BOTS, {name: now + self.timeout_s}, xx=True,
                                       ch=True, gt=True)
            if not claimed:
                continue
            self._enqueue(match_id, seat, version, int(now * 1000),
                          bots_only=is_bots_only(match_id))
            count += 1
        return count


AWAY_PAGE = 200
"""Entries of the away set that one watchdog pass looks at (each costs a read of its match)."""
_away_page: dict[int, int] = {}
"""Where the next pass of this process starts reading the away set, by Redis client: the
passes go round the whole set a page at a time."""


def recover_away(client: redis.Redis, scheduler: RQScheduler,
                 due: Callable[[str, int, float], tuple[int, bool] | None],
                 clock: Callable[[], float] = time.time) -> int:
    """Schedule substitute moves for human seats whose player has been away too long.

    ``keys.AWAY`` holds "<match>:<seat>" (``keys.away_member``) of human seats with nobody
    connected, scored by since when (the gateways keep it).  ``due(match, seat, away_for_s)``
    returns the version at which that seat must move now if it is its turn and the room's
    timeout has passed, and whether nobody waits for that move (the bots-only queue's), else
    None.
    The seat stays the player's: when they come back the gateway removes them from the set.
    A pass reads ``AWAY_PAGE`` entries, the next pass the page after them (then from the start
    again), so a seat is looked at within one round of the set however many are away.
    """
    now = clock()
    count = 0
    # A page of the set a pass, the next page at the next pass: the oldest entries are seats
    # that stay away without being due (a room waiting for players, a seat whose turn is far
    # off), and always reading the first page would starve every seat behind them.
    offset = _away_page.get(id(client), 0)
    raw: list[Any] = client.zrangebyscore(keys.AWAY, "-inf", now, start=offset,
                                          num=AWAY_PAGE, withscores=True)
    _away_page[id(client)] = offset + AWAY_PAGE if len(raw) == AWAY_PAGE else 0
    for name_raw, since in raw:
        match_id, seat = keys.away_seat(name_raw)
        found = due(match_id, seat, now - float(since))
        if found is not None:
            version, nobody_waits = found
            scheduler.schedule(match_id, seat, version, bots_only=nobody_waits)
            count += 1
    return count


def next_turn_deadline(client: redis.Redis) -> float | None:
    """The earliest deadline of ``keys.TURNS`` (epoch seconds; None: no turn runs under a
    limit): when the watchdog next has a stand-in to schedule, as far as it knows."""
    first: list[Any] = client.zrange(keys.TURNS, 0, 0, withscores=True)
    return float(first[0][1]) if first else None


TURN_PAGE = 200
"""Due entries of ``keys.TURNS`` that one watchdog pass looks at (each costs a read of its
match); the rest wait for the next pass (every entry looked at leaves the set)."""


def recover_turns(client: redis.Redis, scheduler: RQScheduler,
                  due: Callable[[str, int, int], int | None],
                  clock: Callable[[], float] = time.time) -> int:
    """Schedule stand-in moves for present humans whose turn outlasted the room's
    ``turn_timeout`` (``services/turns.py``).

    ``keys.TURNS`` holds "<match>:<seat>:<version>" of such turns scored by their deadline (the
    gateways holding the seat's socket write it).  For each entry past its deadline,
    ``due(match, seat, version)`` returns the version at which the seat's stand-in must move
    now (the match still waits for that turn and the limit still applies; it marks the seat
    hurried), else None; the entry is removed once its stand-in is scheduled or it is found not
    due: each turn is looked at once (unless its player was given more time meanwhile: the
    entry, moved to its new deadline, stays; ``scripts.TURN_SEEN``).  A pass that fails (the
    store or the queue not answering) leaves the entries it did not finish for the next one.
    Any number of watchdogs may look at the same entry at once: the turn is scheduled once
    (``schedule``'s guard), and a stand-in's move carries the version it was scheduled for, so
    only one is ever appended.
    """
    now = clock()
    raw: list[Any] = client.zrangebyscore(keys.TURNS, "-inf", now, start=0, num=TURN_PAGE)
    count = 0
    for name_raw in raw:
        name = name_raw.decode() if isinstance(name_raw, bytes) else str(name_raw)
        match_id, seat, version = parse_entry(name)
        at = due(match_id, seat, version)
        if at is not None:
            scheduler.schedule(match_id, seat, at)
            count += 1
        client.eval(TURN_SEEN, 1, keys.TURNS, name, repr(now))  # (not if given more time)
    return count
