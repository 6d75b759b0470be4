"""Appends from the event loop, pipelined on one connection kept for them.

Every ``XADD`` is written at once (those issued in the same turn of the event loop go out in one
write) without waiting for the answers of earlier ones; one reader task takes the answers in
order.  Under load this turns hundreds of concurrent appends (one per table with a move in
flight) into a few writes and no connection-pool traffic, and no append waits for another's
round trip.  Each append keeps its own answer: the optimistic lock is still the ``XADD`` with an
explicit id that Redis refuses when the stream has moved on (``services/store/redis_streams.py``).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from typing import Any

import redis

from services.store import keys


class Appends:
    """Pipelined ``XADD``s of encoded records on a connection of an asyncio Redis client."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self._conn: Any = None
        self._opening: asyncio.Future[Any] | None = None
        self._answers: collections.deque[asyncio.Future[bool]] = collections.deque()
        """One future per command written (or about to be), in order."""
        self._unsent: list[bytes] = []
        self._sending = False
        self._reader: asyncio.Task[None] | None = None

    async def append(self, match_id: str, version: int, payload: bytes) -> bool:
        """Append ``payload`` as record ``version`` of the match: True if it is stored, False
        if the stream already holds that version (another writer was first).  Connection
        errors are raised."""
        conn = self._conn or await self._open()
        loop = asyncio.get_running_loop()
        future: asyncio.Future[bool] = loop.create_future()
        self._unsent.extend(conn.pack_command(
            "XADD", keys.log(match_id), b"%d-0" % version, "d", payload))
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
                conn = await self.client.connection_pool.get_connection()
                await conn.connect()
            except BaseException as exc:
                self._opening.set_exception(exc if isinstance(exc, Exception)
                                            else redis.ConnectionError("cancelled"))
                self._opening.exception()  # retrieved: no "never retrieved" warning
                self._opening = None
                raise
            self._conn = conn
            self._opening.set_result(conn)
            self._opening = None
            return conn
        return await asyncio.shield(self._opening)

    def _send(self, conn: Any) -> None:
        """Write everything packed during this turn of the loop in one go (answers come back
        in the same order, for the reader).  The connection's stream writer takes it at once
        (the transport buffers what the socket cannot); without one, a task sends it."""
        self._sending = False
        if conn is not self._conn:
            return  # that connection failed meanwhile: its appends have failed with it
        data, self._unsent = self._unsent, []
        writer = getattr(conn, "_writer", None)
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
                try:
                    await conn.read_response()
                    answer: bool | Exception = True
                except redis.ResponseError as exc:  # a refusal: the next answers still come
                    answer = False if "equal or smaller" in str(exc) else exc
                future = self._answers.popleft()
                if future.done():
                    continue
                if isinstance(answer, Exception):
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
        if self._conn is conn:
            self._conn = None
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

    async def _discard(self, conn: Any) -> None:
        with contextlib.suppress(Exception):
            await conn.disconnect()
        with contextlib.suppress(Exception):
            await self.client.connection_pool.release(conn)
