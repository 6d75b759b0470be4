"""Appends from the event loop, batched: every ``XADD`` requested while one batch is on its way to
Redis goes out in the next batch, as one pipeline on one connection.

Under load this turns hundreds of concurrent appends (one per table with a move in flight) into a
few round trips, instead of one pooled connection and one round trip each; with no load a lone
append leaves at once, so nothing waits for company.  Each append keeps its own answer: the
optimistic lock is still the ``XADD`` with an explicit id that Redis refuses when the stream has
moved on (see ``services/store/redis_streams.py``).
"""

from __future__ import annotations

import asyncio
from typing import Any

import redis

from services.store import keys

MAX_BATCH = 256


class Appends:
    """Batched ``XADD``s of encoded records on one asyncio Redis client."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self._queue: list[tuple[str, int, bytes, asyncio.Future[bool]]] = []
        self._busy = False
        """An append (or a batch) is on its way: later ones queue for the next batch."""

    async def append(self, match_id: str, version: int, payload: bytes) -> bool:
        """Append ``payload`` as record ``version`` of the match: True if it is stored, False
        if the stream already holds that version (another writer was first).  Connection
        errors are raised."""
        key = keys.log(match_id)
        if self._busy:
            future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
            self._queue.append((key, version, payload, future))
            return await future
        self._busy = True  # alone: straight to Redis, no batch, no task
        try:
            await self.client.execute_command("XADD", key, f"{version}-0", "d", payload)
        except redis.ResponseError as exc:
            if "equal or smaller" in str(exc):
                return False
            raise
        finally:
            if self._queue:
                asyncio.get_running_loop().create_task(self._flush())
            else:
                self._busy = False
        return True

    async def _flush(self) -> None:
        try:
            while self._queue:
                batch, self._queue = self._queue[:MAX_BATCH], self._queue[MAX_BATCH:]
                try:
                    pipe = self.client.pipeline(transaction=False)
                    for key, version, payload, _ in batch:
                        pipe.execute_command("XADD", key, f"{version}-0", "d", payload)
                    answers = await pipe.execute(raise_on_error=False)
                except BaseException as exc:
                    for *_, future in batch:
                        if not future.done():
                            future.set_exception(
                                exc if isinstance(exc, Exception)
                                else redis.ConnectionError("cancelled"))
                    if not isinstance(exc, Exception):
                        raise
                    continue
                for (*_, future), answer in zip(batch, answers, strict=True):
                    if future.done():
                        continue
                    if isinstance(answer, redis.ResponseError):
                        if "equal or smaller" in str(answer):
                            future.set_result(False)
                        else:
                            future.set_exception(answer)
                    elif isinstance(answer, Exception):
                        future.set_exception(answer)
                    else:
                        future.set_result(True)
        finally:
            for *_, future in self._queue:  # only left when cancelled (shutting down)
                if not future.done():
                    future.set_exception(redis.ConnectionError("shutting down"))
            self._queue = []
            self._busy = False
