"""The gateway's pipelined appends: each keeps its own answer (stored, or another writer was
first), concurrent appends share writes, and a broken connection fails only the appends in flight
on it."""

from __future__ import annotations

import asyncio
import concurrent.futures
from typing import Any

import fakeredis
import fakeredis.aioredis
import pytest
import redis

from services.gateway.appends import Appends
from services.store import keys

from tests.conftest import real_redis_client

from .helpers import REDIS_DB, redis_url


def run(coro: Any) -> Any:
    """Run ``coro`` on a fresh event loop in its own thread: the main thread may already have a
    loop running (Playwright's sync API keeps one for the browser tests' session)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def fake() -> Any:
    return fakeredis.aioredis.FakeRedis(server=fakeredis.FakeServer())


def test_answers_in_order_and_optimistic_lock() -> None:
    async def main() -> None:
        client = fake()
        appends = Appends(client)
        # many matches at once: all stored
        results = await asyncio.gather(*(appends.append(f"m{i}", 1, b"x%d" % i)
                                         for i in range(300)))
        assert results == [True] * 300
        # the same version twice: the second writer loses, the next version goes on
        first, second = await asyncio.gather(appends.append("m0", 2, b"a"),
                                             appends.append("m0", 2, b"b"))
        assert (first, second) == (True, False)
        assert await appends.append("m0", 1, b"stale") is False
        assert await appends.append("m0", 3, b"c") is True
        entries = await client.xrange(keys.log("m0"))
        assert [(e[0], e[1][b"d"]) for e in entries] == [
            (b"1-0", b"x0"), (b"2-0", b"a"), (b"3-0", b"c")]

    run(main())


def test_a_broken_connection_fails_its_appends_then_recovers() -> None:
    async def main() -> None:
        client = fake()
        appends = Appends(client)
        assert await appends.append("m", 1, b"a")
        await appends._conn.disconnect()  # the connection drops under it
        try:  # this one fails, or goes through a reconnection: never a wrong answer
            stored = await appends.append("m", 2, b"b")
        except redis.RedisError:
            stored = False
        assert await appends.append("m", 3 if stored else 2, b"c")  # and then it works
        assert len(await client.xrange(keys.log("m"))) == 3 if stored else 2

    run(main())


def test_without_a_stream_writer_it_sends_through_the_client() -> None:
    async def main() -> None:
        client = fake()
        appends = Appends(client)
        assert await appends.append("m", 1, b"a")
        conn = appends._conn
        writer = conn._writer

        class Hidden:
            """A connection whose writer the appends cannot see."""

            def __getattr__(self, name: str) -> Any:
                if name == "_writer":
                    raise AttributeError(name)
                return getattr(conn, name)

        appends._conn = Hidden()
        assert await asyncio.gather(appends.append("m", 2, b"b"),
                                    appends.append("n", 1, b"c")) == [True, True]
        assert writer is conn._writer

    run(main())


@pytest.mark.redis
def test_on_the_real_redis() -> None:
    async def main() -> None:
        import redis.asyncio as aioredis

        real_redis_client(REDIS_DB)  # fails (not skips) without Redis, as the others do
        client = aioredis.Redis.from_url(redis_url())
        await client.delete(keys.log("appends-test"))
        appends = Appends(client)
        answers = await asyncio.gather(*(appends.append("appends-test", v, b"%d" % v)
                                         for v in range(1, 201)))
        assert answers == [True] * 200
        assert await appends.append("appends-test", 200, b"again") is False
        assert await client.xlen(keys.log("appends-test")) == 200
        await client.delete(keys.log("appends-test"))
        await client.aclose()

    run(main())
