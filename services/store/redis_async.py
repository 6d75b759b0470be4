"""The event store for the gateway's event loop, on one Redis (real or fakeredis).

* ``append``: every ``XADD`` is written at once (those issued in the same turn of the event loop
  go out in one write) on one connection kept for appends, without waiting for the answers of
  earlier ones; one reader task takes the answers in order.  Under load this turns hundreds of
  concurrent appends (one per table with a move in flight) into a few writes, and no append waits
  for another's round trip.  Each append keeps its own answer: the optimistic lock is the
  ``XADD`` with an explicit id that Redis refuses when the stream has moved on (see
  ``redis_streams.py``).
* ``follower()``: on a real Redis the wake-up follower (``redis_wake.py``: appends publish, the
  follower reads only what woke); on fakeredis (the embedded server) ``StreamsFollower``.
* ``StreamsFollower``: one blocking ``XREAD`` over the streams of every followed match plus a
  private wake stream, so that a newly followed match joins the read at once.  The command is
  packed from cached pieces (with a thousand streams, letting the client library encode two
  thousand arguments took about a millisecond per read).  An idle follower costs one command per
  ``BLOCK_S`` whatever the number of matches.  This needs every stream in one command: valid on
  a single Redis, a ``CROSSSLOT`` error on Redis Cluster (``redis_cluster.py`` follows there).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import secrets
import time
from collections.abc import Callable
from typing import Any

import redis

from . import keys
from .entries import entry_id, id_range, payload_of, payloads_of, reaches, version_of
from .parking import parked
from .port import Entries, Follower, move_up
from .scripts import APPEND, append_answer, append_args, publishes, xadd_args
from .transient import UNAVAILABLE, translated

log = logging.getLogger("hokm.store")
BLOCK_S = 5
COUNT = 500


class AsyncRedisStore:
    """``AsyncEventStore`` on a ``redis.asyncio.Redis`` client (or fakeredis's)."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.wakes = publishes(client)
        """On a real Redis appends publish wake-ups and ``follower`` waits for them
        (``redis_wake.py``); on fakeredis the follower reads the streams (``StreamsFollower``)."""
        self._appends = _Appends(client, self.wakes)
        self._checks = asyncio.Semaphore(8)

    async def append(self, match_id: str, version: int, payload: bytes) -> bool:
        with translated(UNAVAILABLE):
            if not self.wakes and version > 1:
                # fakeredis: the gap APPEND refuses on a real Redis (a few checks at a time:
                # its pool raises, rather than waits, beyond its connections)
                async with self._checks:
                    top = await self.client.xrevrange(keys.log(match_id), count=1)
                if not reaches(top, version):
                    return False
            return await self._appends.append(match_id, version, payload)

    async def read_raw(self, match_id: str, after: int = 0, upto: int | None = None
                       ) -> Entries:
        return await read_log(self.client, match_id, after, upto)

    def follower(self) -> Follower:
        if self.wakes:
            from .redis_wake import WakeFollower

            return WakeFollower(self.client)
        return StreamsFollower(self.client)

    async def close(self) -> None:
        await self._appends.close()

    async def break_connections(self) -> None:
        """For the contract tests: drop the appends' connection under them."""
        conn = self._appends.conn
        if conn is not None:
            await conn.disconnect()


async def read_log(client: Any, match_id: str, after: int = 0, upto: int | None = None
                   ) -> Entries:
    """``AsyncEventStore.read_raw`` on an asyncio client, one Redis or a cluster: the match's
    encoded records with ``after < version <= upto`` (one ``XRANGE``, none for an empty
    range); ``StoreUnavailable`` when the store cannot be reached."""
    bounds = id_range(after, upto)
    if bounds is None:
        return []
    with translated(UNAVAILABLE):
        return payloads_of(await client.xrange(keys.log(match_id), *bounds))


class _Appends:
    """Pipelined appends (``XADD``, or ``scripts.APPEND`` where followers wait for wake-ups) of
    encoded records on a connection of an asyncio Redis client."""

    def __init__(self, client: Any, wakes: bool = False) -> None:
        self.client = client
        self.wakes = wakes
        """Each append is ``scripts.APPEND`` (the ``XADD`` and its wake-up), not a bare
        ``XADD``."""
        self.conn: Any = None
        self._opening: asyncio.Future[Any] | None = None
        self._answers: collections.deque[asyncio.Future[bool]] = collections.deque()
        """One future per command written (or about to be), in order."""
        self._unsent: list[bytes] = []
        self._sending = False
        self._reader: asyncio.Task[None] | None = None

    async def append(self, match_id: str, version: int, payload: bytes) -> bool:
        conn = self.conn or await self._open()
        loop = asyncio.get_running_loop()
        future: asyncio.Future[bool] = loop.create_future()
        if self.wakes:
            self._unsent.extend(conn.pack_command(
                "EVAL", APPEND, *append_args(match_id, version, payload)))
        else:  # fakeredis: one process, no script
            self._unsent.extend(conn.pack_command(
                "XADD", *xadd_args(match_id, version, payload)))
        self._answers.append(future)
        if not self._sending:
            self._sending = True
            loop.call_soon(self._send, conn)
        if self._reader is None:
            self._reader = loop.create_task(self._read(conn))
        return await future

    async def _open(self) -> Any:
        if self._opening is None:
            self._opening = asyncio.get_running_loop().create_future()
            try:
                # a connection of its own, outside the client's pool: nothing else may ever
                # read from it, even after it failed (a send may still be in flight on it)
                conn = self.client.connection_pool.make_connection()
                await conn.connect()
            except BaseException as exc:
                self._opening.set_exception(exc if isinstance(exc, Exception)
                                            else redis.ConnectionError("cancelled"))
                self._opening.exception()  # retrieved: no "never retrieved" warning
                self._opening = None
                raise
            self.conn = conn
            self._opening.set_result(conn)
            self._opening = None
            return conn
        return await asyncio.shield(self._opening)

    def _send(self, conn: Any) -> None:
        """Write everything packed during this turn of the loop in one go (answers come back
        in the same order, for the reader).  The connection's stream writer takes it at once
        (the transport buffers what the socket cannot); without one, a task sends it."""
        self._sending = False
        if conn is not self.conn:
            return  # that connection failed meanwhile: its appends have failed with it
        data, self._unsent = self._unsent, []
        writer = getattr(conn, "_writer", None)
        if writer is None and not conn.is_connected:  # closed under us: never reconnect here
            self._fail(conn, redis.ConnectionError("the appends' connection closed"))
            return
        try:
            if writer is None:
                task = asyncio.get_running_loop().create_task(
                    conn.send_packed_command(data, check_health=False))
                task.add_done_callback(lambda done: self._sent(conn, done))
            else:
                writer.writelines(data)
        except Exception as exc:
            self._fail(conn, exc)

    def _sent(self, conn: Any, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            self._fail(conn, task.exception())  # type: ignore[arg-type]

    async def _read(self, conn: Any) -> None:
        try:
            while self._answers:
                reply: Any
                try:
                    reply = await conn.read_response()
                except redis.ResponseError as exc:  # a refusal: the next answers still come
                    reply = exc
                answer = append_answer(reply)
                future = self._answers.popleft()
                if future.done():
                    continue
                if isinstance(answer, BaseException):
                    future.set_exception(answer)
                else:
                    future.set_result(answer)
        except BaseException as exc:
            self._fail(conn, exc)
        finally:
            if self._reader is asyncio.current_task():
                self._reader = None

    def _fail(self, conn: Any, exc: BaseException) -> None:
        """The connection broke (or we were cancelled): every append waiting on it fails and
        the next one opens a fresh connection."""
        error = exc if isinstance(exc, Exception) else redis.ConnectionError("cancelled")
        if not isinstance(error, redis.RedisError):
            error = redis.ConnectionError(str(error) or type(error).__name__)
        if self.conn is conn:
            self.conn = None
            self._unsent = []
            self._sending = False
            waiting, self._answers = self._answers, collections.deque()
            for future in waiting:
                if not future.done():
                    future.set_exception(error)
            if self._reader is not None and self._reader is not asyncio.current_task():
                self._reader.cancel()
            self._reader = None
            asyncio.get_running_loop().create_task(self._discard(conn))

    @staticmethod
    async def _discard(conn: Any) -> None:
        with contextlib.suppress(Exception):
            await conn.disconnect()

    async def close(self) -> None:
        conn, self.conn = self.conn, None
        if self._reader is not None:
            self._reader.cancel()
        if conn is not None:
            await self._discard(conn)


def _bulk(word: bytes) -> bytes:
    """``word`` as a RESP bulk string (one argument of a packed command)."""
    return b"$%d\r\n%s\r\n" % (len(word), word)


_XREAD_HEAD = b"".join(_bulk(w) for w in (
    b"XREAD", b"COUNT", b"%d" % COUNT, b"BLOCK", b"%d" % (BLOCK_S * 1000), b"STREAMS"))


class StreamsFollower:
    """``Follower`` with one blocking ``XREAD`` over every followed stream (single Redis)."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.positions: dict[str, int] = {}
        self._gen = 0
        """Bumped whenever the set of followed matches changes (the read changes)."""
        self._packed_gen = -1
        self._keys_block = b""
        self._match_of: dict[bytes, str] = {}
        self._ids: dict[str, tuple[int, bytes]] = {}
        self._wake_key = keys.wake(secrets.token_hex(4))
        self._wake_bytes = self._wake_key.encode()
        self._wake_id = b"0-0"
        self._changed = asyncio.Event()
        self._conn: Any = None
        self._wakes: set[asyncio.Task[None]] = set()
        self.commands = 0
        """Commands sent (the follower's cost, measured by bench/store.py)."""
        self.waiting = False
        """Parked in ``next_batch``: its read sent and its answer awaited, or nothing to
        follow (``Follower``)."""
        self.noted: Callable[[str], None] | None = None
        """(Never called: fakeredis has no wake-ups, and one process makes every change.)"""
        self.rewound: Callable[[str], None] | None = None
        """(Never called: fakeredis loses nothing while the process runs.)"""

    def follow(self, match_id: str, after: int) -> None:
        joined = match_id not in self.positions
        self.positions[match_id] = after
        self._ids.pop(match_id, None)
        if joined:
            self._gen += 1
            self._changed.set()
            task = asyncio.get_running_loop().create_task(self._wake())
            self._wakes.add(task)
            task.add_done_callback(self._wakes.discard)

    def drop(self, match_id: str) -> None:
        if self.positions.pop(match_id, None) is not None:
            self._ids.pop(match_id, None)
            self._gen += 1

    def seen(self, match_id: str, version: int) -> None:
        move_up(self.positions, match_id, version)

    async def _wake(self) -> None:
        """Make a blocked read return, so that its next one includes the new match."""
        with contextlib.suppress(Exception):
            self.commands += 1
            await self.client.xadd(self._wake_key, {"w": 1}, maxlen=16, approximate=False)

    async def next_batch(self) -> list[tuple[str, Entries]]:
        while True:
            if not self.positions:
                self._changed.clear()
                with parked(self):
                    await self._changed.wait()
                continue
            try:
                found = await self._read()
            except asyncio.CancelledError:
                await self._disconnect()  # cancelled mid-read: the connection is out of step
                raise
            except Exception:
                log.warning("a follower's read failed; reading again from its positions",
                            exc_info=True)
                await self._disconnect()
                await asyncio.sleep(0.5)
                continue
            batch = self._parse(found) if found else []
            if batch:
                return batch

    async def _read(self) -> Any:
        if self._conn is None:  # its own connection, outside the pool (it blocks for seconds)
            self._conn = self.client.connection_pool.make_connection()
            await self._conn.connect()
        self.commands += 1
        await self._conn.send_packed_command(self._command(), check_health=False)
        # longer than the BLOCK: the client's default socket timeout (5 s in redis-py 8)
        # would otherwise cut an idle read off just as Redis answers "nothing new"
        asked = time.monotonic()
        with parked(self):
            found: Any = await self._conn.read_response(timeout=BLOCK_S + 10)
        if found is None and time.monotonic() - asked > BLOCK_S + 5:
            raise redis.TimeoutError("no answer to the follower's read")
        return found

    def _parse(self, found: Any) -> list[tuple[str, Entries]]:
        batch: list[tuple[str, Entries]] = []
        for raw_key, entries in (found.items() if isinstance(found, dict) else found):
            if raw_key == self._wake_bytes:
                self._wake_id = entries[-1][0]
                continue
            match_id = self._match_of.get(raw_key)
            if match_id is None or match_id not in self.positions:
                continue  # dropped while the read was out
            position = self.positions[match_id]
            fresh = []
            for raw_id, fields in entries:
                number = version_of(raw_id)
                if number > position:
                    fresh.append((number, payload_of(fields)))
            if fresh:
                self.positions[match_id] = fresh[-1][0]
                batch.append((match_id, fresh))
        return batch

    def _command(self) -> bytes:
        """``XREAD COUNT 500 BLOCK 5000 STREAMS <every followed match> <wake> <ids>``."""
        positions = self.positions
        if self._packed_gen != self._gen:
            parts = []
            self._match_of = {}
            for match_id in positions:
                key = keys.log(match_id).encode()
                self._match_of[key] = match_id
                parts.append(_bulk(key))
            parts.append(_bulk(self._wake_bytes))
            self._keys_block = b"".join(parts)
            self._packed_gen = self._gen
        ids = self._ids
        parts = [b"*%d\r\n" % (6 + 2 * (len(positions) + 1)), _XREAD_HEAD, self._keys_block]
        for match_id, at in positions.items():
            cached = ids.get(match_id)
            if cached is None or cached[0] != at:
                cached = ids[match_id] = (at, _bulk(entry_id(at)))
            parts.append(cached[1])
        parts.append(_bulk(self._wake_id))
        return b"".join(parts)

    async def _disconnect(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(BaseException):
                await conn.disconnect()

    async def close(self) -> None:
        for task in list(self._wakes):
            task.cancel()
        await self._disconnect()
        with contextlib.suppress(Exception):
            await self.client.delete(self._wake_key)

    async def break_connections(self) -> None:
        """For the contract tests: drop the read's connection under it."""
        conn = self._conn
        if conn is not None:
            await conn.disconnect()
