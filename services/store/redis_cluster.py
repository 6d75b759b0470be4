"""The event store for the gateway's event loop on a Redis Cluster.

A match's keys share one hash tag, so they live in one slot, on one primary.  Nothing here reads
or writes two matches in one command (Cluster refuses that with ``CROSSSLOT``, even on one
node), which rules out the single ``XREAD`` over every followed stream that ``redis_async.py``
uses on one Redis.  Instead:

* ``append`` runs one small script per record, on the match's primary: the ``XADD`` with the
  explicit id (the optimistic lock, as everywhere) and, only if it was stored, an ``SPUBLISH``
  of the version on the match's wake channel (``keys.wake_channel``, same slot).  Both or
  neither: a follower can never miss the wake-up of a stored record.  The appends of one turn
  of the event loop share one cluster pipeline (each node's share in one write, the nodes at
  once).
* ``ShardedFollower`` keeps one sharded pub/sub connection per primary that owns followed
  matches (``SSUBSCRIBE`` to their wake channels) and reads the stream itself, from its position,
  whenever a wake-up comes: the stream is the truth, the message only says "look".  A match is
  read once more right after its subscription is confirmed, so a record appended while it was
  being subscribed is not missed either; after a lost connection (a failover) every match of
  that node is subscribed again where the cluster now has it, then read from its position.
  A graceful failover (``CLUSTER FAILOVER``) or a moved slot drops no connection: the demoted
  node keeps (or takes back and is then given again) the subscriptions, and the wake-ups its
  new primary publishes while it does not yet count the old one as its replica reach nobody.
  So every ``CHECK_S`` each feed's node is asked which node serves the slots of its channels
  (``CLUSTER SLOTS``: one small command per node, not per match); a channel its node no longer
  serves as a primary is subscribed again where the cluster has it now and its match read
  from its position, as after a lost connection (and at once when the server says so with a
  ``sunsubscribe``).  A follower without feeds sends nothing at all.  The one wake-up that
  names no version, ``scripts.TURN_NOTE`` (the match's turn was given a deadline or more
  time), reads nothing: it goes to ``noted`` (``Follower``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Container
from typing import Any

import redis
import redis.asyncio as aioredis
from redis.crc import key_slot

from . import keys
from .entries import first_id, payloads_of, version_of
from .parking import parked
from .port import Entries, StoreUnavailable, move_up
from .redis_async import read_log
from .replicas import AsyncAcked
from .scripts import APPEND, TURN_NOTE, append_answer, append_args
from .transient import UNAVAILABLE, translated

log = logging.getLogger("hokm.store")
QUIET_S = 15.0
"""A feed with no message for this long is asked a PING (see ``ShardedFollower._listen``)."""
READ_CHUNK = 500
"""Matches read in one cluster pipeline by the follower."""
READ_COUNT = 1000
"""Records read of one match at a time (more are read on the next pass)."""
CHECK_S = 2.0
"""How often each feed's node is asked whether it still serves its channels' slots (a graceful
failover or a moved slot leaves the feed connected: ``ShardedFollower._check``)."""
FIRST_RETRY_S, MAX_RETRY_S = 0.1, 2.0
"""After reads that failed, the follower waits this long (doubling) before it reads again."""

_NOTES = (TURN_NOTE, TURN_NOTE.encode())
"""A wake-up that names no record (``Follower.noted``)."""


class AsyncClusterStore:
    """``AsyncEventStore`` on a ``redis.asyncio.cluster.RedisCluster``."""

    def __init__(self, cluster: Any, *, replica_acks: int = 0, wait_ms: int = 100) -> None:
        self.cluster = cluster
        self._pending: list[tuple[str, int, bytes, asyncio.Future[bool]]] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self._acked = AsyncAcked(cluster, replica_acks, wait_ms) if replica_acks else None
        """With ``replica_acks``: every append waits for that many replicas (replicas.py)."""

    async def append(self, match_id: str, version: int, payload: bytes) -> bool:
        """Appends issued in the same turn of the event loop go out together: one cluster
        pipeline, which writes each node's share in one go and the nodes at once."""
        if self._acked is not None:
            with translated(UNAVAILABLE):
                return await self._acked.append(match_id, version, payload)
        loop = asyncio.get_running_loop()
        future: asyncio.Future[bool] = loop.create_future()
        if not self._pending:
            loop.call_soon(self._flush)
        self._pending.append((match_id, version, payload, future))
        return await future

    def _flush(self) -> None:
        batch, self._pending = self._pending, []
        task = asyncio.get_running_loop().create_task(self._send(batch))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send(self, batch: list[tuple[str, int, bytes, asyncio.Future[bool]]]) -> None:
        try:
            pipe = self.cluster.pipeline(transaction=False)
            for match_id, version, payload, _ in batch:
                pipe.eval(APPEND, *append_args(match_id, version, payload))
            answers = await pipe.execute(raise_on_error=False)
        except BaseException as exc:
            error = StoreUnavailable(str(exc) or type(exc).__name__)
            for *_, future in batch:
                if not future.done():
                    future.set_exception(error)
            if isinstance(exc, asyncio.CancelledError):
                raise
            return
        for (*_, future), answer in zip(batch, answers, strict=True):
            if future.done():
                continue
            stored = append_answer(answer)
            if isinstance(stored, BaseException):
                future.set_exception(StoreUnavailable(str(stored)))
            else:
                future.set_result(stored)

    async def read_raw(self, match_id: str, after: int = 0, upto: int | None = None
                       ) -> Entries:
        return await read_log(self.cluster, match_id, after, upto)

    def follower(self) -> ShardedFollower:
        return ShardedFollower(self.cluster)

    async def close(self) -> None:
        for task in list(self._tasks):
            with contextlib.suppress(BaseException):
                await task
        if self._acked is not None:
            with contextlib.suppress(Exception):
                await self._acked.close()
        with contextlib.suppress(Exception):
            await self.cluster.aclose()


class _Feed:
    """One sharded pub/sub connection to one primary (a connection of its own, outside any
    pool), and the channels subscribed on it.  It is never reconnected: a lost feed is replaced
    by a new one, after the subscriptions have been moved to wherever the cluster has them."""

    def __init__(self, client: Any, address: tuple[str, int]) -> None:
        self.client = client
        """A client of its own, whose pool gives the feed its one connection (and the
        topology checks theirs)."""
        self.address = address
        """The node's (host, port), as the cluster names it."""
        self.conn: Any = None
        self.channels: dict[bytes, str] = {}
        """Channel -> match id, confirmed subscriptions only."""
        self.waiting: dict[bytes, asyncio.Future[None]] = {}
        """Channel -> the subscription being confirmed."""
        self.task: asyncio.Task[None] | None = None
        self.dead = False
        self._lock = asyncio.Lock()

    async def send(self, *args: Any) -> None:
        if self.dead:
            raise redis.ConnectionError("the feed was lost")
        async with self._lock:  # one connection, even when many subscribe at once
            if self.conn is None:
                conn = self.client.connection_pool.make_connection()
                await conn.connect()
                self.conn = conn
        await self.conn.send_command(*args)

    async def close(self) -> None:
        self.dead = True
        if self.task is not None and self.task is not asyncio.current_task():
            self.task.cancel()
        if self.conn is not None:
            with contextlib.suppress(Exception):
                await self.conn.disconnect()
        with contextlib.suppress(Exception):
            await self.client.aclose()


class _SlotOwners:
    """Slot -> the (host, port) of its primary, from ``CLUSTER SLOTS`` ranges."""

    def __init__(self, ranges: list[tuple[int, int, tuple[str, int]]]) -> None:
        self.ranges = sorted(ranges)

    def get(self, slot: int) -> tuple[str, int] | None:
        for start, end, owner in self.ranges:
            if start <= slot <= end:
                return (owner[0], int(owner[1]))
        return None


class ShardedFollower:
    """``Follower`` on a Redis Cluster: a wake-up by sharded pub/sub, the stream as the truth."""

    MOVES = True
    """Channels can move between nodes (checked every ``CHECK_S``)."""

    def __init__(self, cluster: Any) -> None:
        self.cluster = cluster
        self.positions: dict[str, int] = {}
        self.commands = 0
        """Commands sent (subscriptions and reads: the follower's cost)."""
        self.waiting = False
        """Parked in ``next_batch`` until a wake-up (``Follower``)."""
        self.noted: Callable[[str], None] | None = None
        """Called with a match whose wake-up was ``scripts.TURN_NOTE`` (``Follower``)."""
        self.rewound: Callable[[str], None] | None = None
        """Called with a match whose log no longer holds the record at its position
        (``Follower``)."""
        self._dirty: set[str] = set()
        self._verify: set[str] = set()
        """Matches whose next read checks that their log still holds the record at their
        position: those whose subscription was lost or moved (``_resubscribe``), where the
        node may have restarted or been replaced without the newest records."""
        self._event = asyncio.Event()
        self._feeds: dict[str, _Feed] = {}
        """Node name -> its feed."""
        self._node_of: dict[str, str] = {}
        """Match id -> the node name of its subscription (confirmed or under way)."""
        self._tasks: set[asyncio.Task[Any]] = set()
        self._options: dict[str, Any] = {}
        self._delay = FIRST_RETRY_S
        self._to_move: set[str] = set()
        """Matches to subscribe again where the cluster serves them now (``_moved``)."""
        self._moving = False
        self._checking = False

    # -- the port ----------------------------------------------------------------------------

    def follow(self, match_id: str, after: int) -> None:
        self.positions[match_id] = after
        self._mark(match_id)
        if match_id not in self._node_of:
            self._node_of[match_id] = ""
            self._spawn(self._subscribe(match_id))

    def seen(self, match_id: str, version: int) -> None:
        move_up(self.positions, match_id, version)

    def drop(self, match_id: str) -> None:
        self.positions.pop(match_id, None)
        self._dirty.discard(match_id)
        self._verify.discard(match_id)
        node = self._node_of.pop(match_id, None)
        feed = self._feeds.get(node or "")
        channel = keys.wake_channel(match_id).encode()
        if feed is not None and channel in feed.channels:
            del feed.channels[channel]
            self._spawn(self._unsubscribe(feed, channel))

    async def next_batch(self) -> list[tuple[str, Entries]]:
        while True:
            dirty = [m for m in self._dirty if m in self.positions]
            self._dirty.clear()
            # the matches this read checks (``_verify``), with their positions
            checked = {m: self.positions[m] for m in dirty
                       if m in self._verify and self.positions[m] > 0}
            if not dirty:
                self._event.clear()
                with parked(self):
                    await self._event.wait()
                continue
            self.commands += len(dirty)
            results = await self._read_all(dirty, checked)
            batch: list[tuple[str, Entries]] = []
            failed = False
            for match_id, result in zip(dirty, results, strict=True):
                if isinstance(result, BaseException):
                    if isinstance(result, asyncio.CancelledError):
                        raise result
                    failed = True
                    self._dirty.add(match_id)  # read it again
                    continue
                if match_id in checked:
                    self._verify.discard(match_id)
                    at = checked[match_id]
                    if (self.rewound is not None and match_id in self.positions
                            and (not result or result[0][0] != at)):
                        # the log lost the record at the position (a Redis restarted from
                        # an older snapshot, a replica promoted without the newest records,
                        # the match deleted): what follows it cannot be folded onto what
                        # the caller holds, nor would a wake-up below the position be read
                        self.positions.pop(match_id, None)
                        self.rewound(match_id)
                        continue
                if result and match_id in self.positions:
                    entries = [e for e in result if e[0] > self.positions[match_id]]
                    if entries:
                        self.positions[match_id] = entries[-1][0]
                        batch.append((match_id, entries))
            if batch:
                if not failed:
                    self._delay = FIRST_RETRY_S
                return batch
            if failed:
                log.warning("a follower's reads failed; reading again from its positions in "
                            "%.1f s", self._delay)
                await asyncio.sleep(self._delay)  # (a failing node is not asked in a loop)
                self._delay = min(self._delay * 2, MAX_RETRY_S)
            else:
                # nothing new (this process's own record, already seen): wait for the next
                # wake-up at once (a pause here held every record woken meanwhile, the bots'
                # replies to a human's move, half a second)
                self._delay = FIRST_RETRY_S

    async def close(self) -> None:
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        for feed in list(self._feeds.values()):
            if feed.task is not None:
                tasks.append(feed.task)
            await feed.close()  # (cancels its listener)
        self._feeds.clear()
        # wait for the cancelled tasks to end: a task left pending when its loop closes is
        # destroyed at garbage collection, closing its coroutine inside a read (the warning
        # "coroutine ignored GeneratorExit" in the test runs)
        pending = {t for t in tasks if t is not asyncio.current_task()}
        if pending:
            await asyncio.wait(pending, timeout=5)

    async def break_connections(self) -> None:
        """For the contract tests: drop every feed's connection under it, as a failover does."""
        for feed in list(self._feeds.values()):
            if feed.conn is not None:
                await feed.conn.disconnect()

    # -- reading -----------------------------------------------------------------------------

    async def _read_all(self, matches: list[str], checked: Container[str]
                        ) -> list[Entries | BaseException]:
        """The new records of ``matches``: one cluster pipeline per ``READ_CHUNK`` (a round
        trip per node, however many matches woke at once) rather than a command each in
        flight at the same time, which ran out of connections at a thousand matches.  The
        ``checked`` ones are read from the record at their position itself, so that a log that
        lost it is told from one with nothing new in the same round trip."""
        out: list[Entries | BaseException] = []
        for start in range(0, len(matches), READ_CHUNK):
            chunk = matches[start:start + READ_CHUNK]
            pipe = self.cluster.pipeline(transaction=False)
            for match_id in chunk:
                at = self.positions[match_id]
                pipe.xrange(keys.log(match_id), first_id(at - 1 if match_id in checked else at),
                            "+", count=READ_COUNT)
            try:
                answers: list[Any] = await pipe.execute(raise_on_error=False)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the whole chunk failed (a node unreachable, say)
                out.extend(exc for _ in chunk)
                continue
            for match_id, answer in zip(chunk, answers, strict=True):
                if isinstance(answer, BaseException):
                    out.append(answer)
                    continue
                entries = payloads_of(answer)
                if len(entries) == READ_COUNT:
                    self._mark(match_id)  # more to come: read again
                out.append(entries)
        return out

    def _known(self, match_id: str, data: Any) -> bool:
        """Whether a wake-up names a version the position has passed (this process appended
        it and said so with ``seen``): then there is nothing to read."""
        at = self.positions.get(match_id)
        try:
            version = version_of(data)
        except (TypeError, ValueError, AttributeError):
            return False  # not a version: read, to be sure
        return at is not None and version <= at

    def _mark(self, match_id: str) -> None:
        self._dirty.add(match_id)
        self._event.set()

    # -- subscriptions -----------------------------------------------------------------------

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _subscribe(self, match_id: str) -> None:
        """Subscribe to the match's wake channel on the primary that owns it now (retrying
        across failovers until it holds or the match is dropped), then read it once."""
        channel = keys.wake_channel(match_id).encode()
        delay = 0.1
        while match_id in self.positions:
            try:
                node = await self._owner(channel)
                feed = await self._feed(node)
                future = asyncio.get_running_loop().create_future()
                feed.waiting[channel] = future
                self.commands += 1
                await feed.send("SSUBSCRIBE", channel)
                if feed.task is None:  # its connection exists now: listen to it
                    feed.task = asyncio.get_running_loop().create_task(
                        self._listen(node.name, feed))
                await asyncio.wait_for(future, 10)
                if match_id not in self.positions:  # dropped meanwhile
                    feed.channels.pop(channel, None)
                    await self._unsubscribe(feed, channel)
                    return
                feed.channels[channel] = match_id
                self._node_of[match_id] = node.name
                self._mark(match_id)  # what was appended before the subscription held
                return
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                for feed in self._feeds.values():  # (nobody waits for that confirmation now)
                    feed.waiting.pop(channel, None)
                log.info("subscribing to %s failed (%s); trying again", match_id, exc)
                await self._refresh()
                await asyncio.sleep(delay)
                delay = min(2.0, delay * 2)

    async def _unsubscribe(self, feed: _Feed, channel: bytes) -> None:
        with contextlib.suppress(Exception):
            self.commands += 1
            await feed.send("SUNSUBSCRIBE", channel)

    async def _owner(self, channel: bytes) -> Any:
        await self.cluster.initialize()  # (once: later calls return at once)
        if not self._options:
            kwargs = self.cluster.nodes_manager.connection_kwargs
            self._options = {k: kwargs[k] for k in ("username", "password", "ssl")
                             if kwargs.get(k)}
        return self.cluster.get_node_from_key(channel)

    async def _refresh(self) -> None:
        """Ask the cluster who owns which slot now (after a failover or a moved slot)."""
        with contextlib.suppress(Exception):
            await self.cluster.nodes_manager.initialize()

    async def _feed(self, node: Any) -> _Feed:
        feed = self._feeds.get(node.name)
        if feed is None or feed.dead:
            address = (node.host, int(node.port)) if self.MOVES else ("", 0)
            feed = _Feed(self._feed_client(node), address)
            self._feeds[node.name] = feed
        if self.MOVES and not self._checking:
            self._checking = True
            self._spawn(self._check_for_good())
        return feed

    def _feed_client(self, node: Any) -> Any:
        """A new client for the feed of ``node`` (a primary of the cluster)."""
        return aioredis.Redis(host=node.host, port=node.port, **self._options)

    async def _listen(self, name: str, feed: _Feed) -> None:
        """Read one feed's messages for good; when its connection is lost, move its matches to
        wherever the cluster now has them.  A feed silent for ``QUIET_S`` is asked a PING; one
        that does not answer the PING either is lost (a partition leaves no reset behind)."""
        try:
            asked = False
            while True:
                message = await feed.conn.read_response(timeout=QUIET_S, push_request=True)
                if message is None:
                    if asked:
                        raise redis.TimeoutError("no answer to a PING")
                    await feed.send("PING")
                    asked = True
                    continue
                asked = False
                self._on(feed, message)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.info("a follower lost its feed from %s (%s); moving its matches", name, exc)
        await self._lost(name, feed)

    def _on(self, feed: _Feed, message: Any) -> None:
        kind = message[0] if isinstance(message, list) else None
        if kind in (b"smessage", "smessage"):
            match_id = feed.channels.get(message[1])
            if match_id is None:
                return
            if message[2] in _NOTES:  # not a record: the match's turn changed beside its log
                if self.noted is not None:
                    self.noted(match_id)
            elif not self._known(match_id, message[2]):
                self._mark(match_id)
        elif kind in (b"ssubscribe", "ssubscribe"):
            future = feed.waiting.pop(message[1], None)
            if future is not None and not future.done():
                future.set_result(None)
        elif kind in (b"sunsubscribe", "sunsubscribe"):
            # the server takes a subscription away when its slot moves: follow it there
            match_id = feed.channels.pop(message[1], None)
            if match_id is not None:
                self._moved([match_id])

    async def _lost(self, name: str, feed: _Feed) -> None:
        if self._feeds.get(name) is feed:
            del self._feeds[name]
        matches = list(feed.channels.values())
        for future in feed.waiting.values():
            if not future.done():
                future.set_exception(redis.ConnectionError("the feed was lost"))
        await feed.close()
        if matches:
            await self._refresh()
            await self._resubscribe(matches)

    def _moved(self, matches: list[str]) -> None:
        """``matches`` are no longer subscribed where their slots are served: subscribe them
        where the cluster has them now (asked once for a burst: a failover moves every channel
        of a node), then read them from their positions (``_subscribe``)."""
        self._to_move.update(m for m in matches if m in self.positions)
        if self._to_move and not self._moving:
            self._moving = True
            self._spawn(self._move())

    async def _move(self) -> None:
        try:
            while self._to_move:
                await asyncio.sleep(0)  # the rest of the burst (a sunsubscribe per channel)
                await self._refresh()
                matches, self._to_move = self._to_move, set()
                await self._resubscribe(sorted(matches))
        finally:
            self._moving = False

    async def _check_for_good(self) -> None:
        while True:
            await asyncio.sleep(CHECK_S)
            await self._check()

    async def _check(self) -> None:
        """Ask each feed's node which node serves the slots of its channels (its own view
        is the one that counts: a demoted node knows it at once); move the channels it no
        longer serves as a primary (``_moved``).  A node that does not answer is left to its
        feed's PING (``_listen``)."""
        for feed in list(self._feeds.values()):
            if feed.dead or not feed.channels:
                continue
            try:
                self.commands += 1
                async with asyncio.timeout(CHECK_S):
                    shards = await feed.client.execute_command("CLUSTER", "SLOTS")
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # (at debug: its feed's PING logs a lost node)
                log.debug("a topology check of %s:%d failed (%s)", *feed.address, exc)
                continue
            primaries = self._primaries(shards, feed.address[0])
            gone = [channel for channel in feed.channels
                    if primaries.get(key_slot(channel)) != feed.address]
            if not gone:
                continue
            log.info("a follower's feed from %s:%d no longer serves %d of its matches' slots "
                     "(a failover or a moved slot); moving them", *feed.address, len(gone))
            moved = []
            for channel in gone:
                moved.append(feed.channels.pop(channel))
                self._spawn(self._unsubscribe(feed, channel))
            self._moved(moved)

    def _primaries(self, shards: Any, host: str) -> _SlotOwners:
        """The primary of each slot in a ``CLUSTER SLOTS`` answer, as (host, port) the way the
        cluster client names nodes (an empty host is the asked node's)."""
        remap = self.cluster.nodes_manager.remap_host_port
        ranges = []
        for shard in shards:
            primary = shard[2]
            where = primary[0].decode() if isinstance(primary[0], bytes) else primary[0]
            ranges.append((int(shard[0]), int(shard[1]),
                           remap(where or host, int(primary[1]))))
        return _SlotOwners(ranges)

    async def _resubscribe(self, matches: list[str]) -> None:
        for match_id in matches:
            if match_id in self.positions:
                self._verify.add(match_id)
                self._node_of[match_id] = ""
                self._spawn(self._subscribe(match_id))
