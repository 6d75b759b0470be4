"""One contract for the event loop's store port (``AsyncEventStore`` and its ``Follower``), run
against every implementation: memory, fakeredis, the real Redis and a real six-node Redis
Cluster.

Appends keep their own answers under contention (each version is stored once, by one writer),
a stale version is refused, reads return what was stored, and a follower delivers the records of
a changing set of matches, in order, whoever appended them, without ever skipping one — also
across a dropped connection.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import secrets
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import fakeredis
import fakeredis.aioredis
import pytest

from services.store.memory import AsyncMemoryStore, MemoryStore
from services.store.port import (
    AsyncEventStore, Entries, EventStore, Follower, StoreUnavailable,
)
from services.store.redis_streams import RedisStore
from services.store.redis_async import AsyncRedisStore
from services.store.redis_cluster import AsyncClusterStore
from tests.conftest import real_redis_client, redis_db_url

DB = 8


class Make:
    """Ports on one shared backend: ``make()`` another event-loop writer's, ``make.sync()`` a
    thread's (the match service's, a bot worker's)."""

    def __init__(self, make: Callable[[], AsyncEventStore], sync: Callable[[], EventStore]
                 ) -> None:
        self._make = make
        self.sync = sync

    def __call__(self) -> AsyncEventStore:
        return self._make()


def run(coro: Awaitable[Any]) -> Any:
    """Run ``coro`` on a fresh event loop in its own thread: the main thread may already have a
    loop running (Playwright's sync API keeps one for the browser tests' session)."""
    async def main() -> Any:
        return await coro

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, main()).result()


@pytest.fixture(params=["memory", "fakeredis", pytest.param("redis", marks=pytest.mark.redis),
                        "cluster", "cluster-acked"])
def make(request: pytest.FixtureRequest) -> Iterator[Make]:
    """A factory of store ports on one shared backend (each call: another writer's port)."""
    if request.param == "memory":
        backend = MemoryStore()
        yield Make(lambda: AsyncMemoryStore(backend), lambda: backend)
    elif request.param == "fakeredis":
        server = fakeredis.FakeServer()
        yield Make(lambda: AsyncRedisStore(fakeredis.aioredis.FakeRedis(server=server)),
                   lambda: RedisStore(fakeredis.FakeRedis(server=server)))
    elif request.param.startswith("cluster"):
        acks = 1 if request.param == "cluster-acked" else 0  # (every append WAITs a replica)
        # a contract, not a latency: a replica on a loaded CI machine may take more than the
        # default 100 ms for a thousand appends at once (CI: "no replica acknowledged")
        wait = 5000
        cluster = request.getfixturevalue("redis_cluster")
        cluster.flush()
        yield Make(lambda: AsyncClusterStore(cluster.async_client(), replica_acks=acks,
                                             wait_ms=wait),
                   lambda: RedisStore(cluster.client, replica_acks=acks, wait_ms=wait))
        cluster.flush()
    else:
        import redis.asyncio as aioredis

        client = real_redis_client(DB)
        client.flushdb()
        yield Make(lambda: AsyncRedisStore(aioredis.Redis.from_url(redis_db_url(DB))),
                   lambda: RedisStore(client))
        client.flushdb()


def mid() -> str:
    return secrets.token_hex(8)


def test_appends_keep_their_own_answers_under_contention(make: Make) -> None:
    async def main() -> None:
        a, b = make(), make()
        matches = [mid() for _ in range(200)]
        # many matches at once: all stored
        assert await asyncio.gather(*(a.append(m, 1, b"x") for m in matches)) == [True] * 200
        # two writers race for the same versions: each version is stored exactly once
        first = await asyncio.gather(*(a.append(m, 2, b"a") for m in matches),
                                     *(b.append(m, 2, b"b") for m in matches))
        assert [x or y for x, y in zip(first[:200], first[200:], strict=True)] == [True] * 200
        assert not any(x and y for x, y in zip(first[:200], first[200:], strict=True))
        for m, won_a in zip(matches, first[:200], strict=True):
            assert await a.read_raw(m) == [(1, b"x"), (2, b"a" if won_a else b"b")]
        await a.close()
        await b.close()

    run(main())


def test_a_stale_version_is_refused_and_the_next_goes_on(make: Make) -> None:
    async def main() -> None:
        store, m = make(), mid()
        assert await store.append(m, 1, b"1")
        assert await store.append(m, 2, b"2")
        assert await store.append(m, 1, b"again") is False
        assert await store.append(m, 2, b"again") is False
        assert await store.append(m, 3, b"3")
        assert await store.read_raw(m) == [(1, b"1"), (2, b"2"), (3, b"3")]
        assert await store.read_raw(m, 1, 2) == [(2, b"2")]
        assert await store.read_raw(m, 3) == []
        assert await store.read_raw(mid()) == []
        await store.close()

    run(main())


def test_an_append_never_starts_a_log_in_the_middle_of_a_match(make: Make) -> None:
    # the gateway's loop appends on its cached match: a log gone meanwhile (expired, deleted,
    # lost in a restart) must not be started again at the next version
    async def main() -> None:
        store, m = make(), mid()
        assert await store.append(m, 3, b"3") is False  # the finding: stored, a log of [3]
        assert await store.read_raw(m) == []
        assert await store.append(m, 1, b"1")
        assert await store.append(m, 3, b"3") is False
        assert await store.append(m, 2, b"2")  # the refusals left the connection usable
        assert await store.read_raw(m) == [(1, b"1"), (2, b"2")]
        await store.close()

    run(main())


@pytest.mark.parametrize("backend", [pytest.param("redis", marks=pytest.mark.redis), "cluster"])
def test_a_read_that_finds_nothing_new_does_not_pause_the_follower(
        backend: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The wake-up of this process's own append often comes after the hub told the follower
    the record was seen: the read finds nothing new.  The records woken next (the bots'
    replies to a human's move) must be read at once: the follower paused half a second after
    every such read (found by an operator: a solo match's views came 0.5 s late, most moves)."""
    from services.store import redis_cluster

    slept: list[float] = []

    class Clock:  # the follower's module's asyncio, its sleeps recorded
        def __getattr__(self, name: str) -> Any:
            return getattr(asyncio, name)

        async def sleep(self, delay: float, *args: Any) -> Any:
            slept.append(delay)
            return await asyncio.sleep(delay, *args)

    monkeypatch.setattr(redis_cluster, "asyncio", Clock())
    if backend == "cluster":
        cluster = request.getfixturevalue("redis_cluster")
        cluster.flush()
        make = lambda: AsyncClusterStore(cluster.async_client())
    else:
        import redis.asyncio as aioredis

        real_redis_client(DB).flushdb()
        make = lambda: AsyncRedisStore(aioredis.Redis.from_url(redis_db_url(DB)))

    async def main() -> None:
        store, m = make(), mid()
        follower: Any = store.follower()
        follower.follow(m, 0)
        assert await store.append(m, 1, b"1")
        seen: dict[str, Entries] = {}
        await _collect(follower, {m: 1}, seen)
        reads = asyncio.Event()
        read_all = follower._read_all

        async def counted(matches: list[str], *rest: Any) -> Any:
            try:
                return await read_all(matches, *rest)
            finally:
                reads.set()

        follower._read_all = counted
        assert await store.append(m, 2, b"2")
        deadline = asyncio.get_running_loop().time() + 20
        while m not in follower._dirty:  # its wake-up has come
            assert asyncio.get_running_loop().time() < deadline, "no wake-up"
            await asyncio.sleep(0.01)
        follower.seen(m, 2)  # the hub had record 2 from its own append
        waiting = asyncio.ensure_future(follower.next_batch())
        await asyncio.wait_for(reads.wait(), 20)  # the read that finds nothing new
        assert await store.append(m, 3, b"3")  # a bot's reply, woken next
        assert await asyncio.wait_for(waiting, 20) == [(m, [(3, b"3")])]
        # the finding: [0.5] (the cluster's topology check sleeps CHECK_S between its looks)
        assert [s for s in slept if s != redis_cluster.CHECK_S] == []
        await follower.close()
        await store.close()

    run(main())


async def _collect(follower: Follower, want: dict[str, int], seen: dict[str, Entries],
                   timeout: float = 20.0) -> None:
    """Take batches until every match of ``want`` has reached its version; every batch must
    continue exactly where the match's entries stopped."""
    async def loop() -> None:
        while any(seen.get(m, [(0, b"")])[-1][0] < v for m, v in want.items()):
            for match_id, entries in await follower.next_batch():
                have = seen.setdefault(match_id, [])
                start = have[-1][0] if have else entries[0][0] - 1
                assert [v for v, _ in entries] == list(range(start + 1, start + 1 + len(entries)))
                have.extend(entries)

    await asyncio.wait_for(loop(), timeout)


async def parked(follower: Follower, reading: asyncio.Future[Any]) -> None:
    """Wait until ``follower`` is parked in the ``next_batch`` of ``reading`` (its wake-up
    awaited, its blocking read sent): what happens next happens to a waiting follower (a fixed
    sleep may end before the read is even sent on a loaded machine)."""
    deadline = asyncio.get_running_loop().time() + 20
    while not follower.waiting:
        assert not reading.done(), reading  # (it had nothing to deliver yet)
        assert asyncio.get_running_loop().time() < deadline, "the follower never waited"
        await asyncio.sleep(0.01)


def test_a_follower_delivers_every_record_in_order_whoever_appends(make: Make) -> None:
    async def main() -> None:
        reader, writers = make(), [make(), make()]
        follower = reader.follower()
        matches = [mid() for _ in range(30)]
        for m in matches:
            follower.follow(m, 0)

        async def write(store: AsyncEventStore, m: str) -> None:
            for v in range(1, 21):
                await store.append(m, v, b"%s:%d" % (m.encode(), v))

        seen: dict[str, Entries] = {}
        writing = asyncio.gather(*(write(writers[i % 2], m) for i, m in enumerate(matches)))
        await asyncio.gather(writing, _collect(follower, dict.fromkeys(matches, 20), seen))
        for m in matches:
            assert seen[m] == [(v, b"%s:%d" % (m.encode(), v)) for v in range(1, 21)]
        await follower.close()
        for s in (reader, *writers):
            await s.close()

    run(main())


def test_a_thousand_matches_woken_at_once_are_all_delivered_and_then_cost_nothing(
        make: Make, caplog: pytest.LogCaptureFixture) -> None:
    """A gateway starts following many matches at once (a restart, a rush): every one's records
    arrive, and once delivered an idle follower sends no more commands (on the cluster, a read
    of each match in flight at once ran out of connections and retried in a loop)."""
    async def main() -> None:
        store = make()
        matches = [mid() for _ in range(1000)]
        await asyncio.gather(*(store.append(m, 1, b"one") for m in matches))
        follower = store.follower()
        for m in matches:
            follower.follow(m, 0)
        seen: dict[str, Entries] = {}
        await _collect(follower, dict.fromkeys(matches, 1), seen, timeout=60)
        assert all(seen[m] == [(1, b"one")] for m in matches)
        # then idle: once its subscriptions have settled (each is read once more when it
        # holds), a waiting follower sends at most a blocking read or a PING a second
        waiting = asyncio.ensure_future(follower.next_batch())
        deadline = asyncio.get_running_loop().time() + 20
        while True:
            before = follower.commands
            await asyncio.sleep(1.0)
            if follower.commands - before <= 2:
                break
            assert asyncio.get_running_loop().time() < deadline, follower.commands - before
        assert not waiting.done()  # nothing new was delivered
        waiting.cancel()
        assert not [r.message for r in caplog.records if "failed" in r.message]
        await follower.close()
        await store.close()

    run(main())


def test_matches_join_and_leave_a_follower_while_it_follows(make: Make) -> None:
    async def main() -> None:
        store = make()
        follower = store.follower()
        first, second, third = mid(), mid(), mid()
        for m in (first, second, third):
            await store.append(m, 1, b"1")
        follower.follow(first, 0)
        seen: dict[str, Entries] = {}
        await _collect(follower, {first: 1}, seen)
        # a match joins from its version 1 while the follower is waiting
        pending = asyncio.ensure_future(_collect(follower, {first: 2, second: 2}, seen))
        await parked(follower, pending)
        follower.follow(second, 1)
        await store.append(second, 2, b"2")
        await store.append(first, 2, b"2")
        await pending
        assert seen[second] == [(2, b"2")]  # from where it was told, nothing before
        # a dropped match is no longer delivered; the others go on
        follower.drop(first)
        await store.append(first, 3, b"3")
        await store.append(third, 2, b"2")
        follower.follow(third, 1)
        await _collect(follower, {third: 2}, seen)
        assert seen[first][-1][0] == 2
        await follower.close()
        await store.close()

    run(main())


def test_records_the_follower_was_told_it_has_are_not_read_back(make: Make) -> None:
    """``seen``: the gateway appended versions itself and sent their views; the follower moves
    past them and goes on with the next writer's record, exactly where it follows."""
    async def main() -> None:
        store, writer = make(), make()
        follower = store.follower()
        m, other = mid(), mid()
        follower.follow(m, 0)
        follower.follow(other, 0)
        seen: dict[str, Entries] = {}
        await writer.append(m, 1, b"1")
        await _collect(follower, {m: 1}, seen)
        assert await store.append(m, 2, b"2") and await store.append(m, 3, b"3")
        follower.seen(m, 3)
        follower.seen(other, 0)  # (behind its position or equal: nothing changes)
        await writer.append(m, 4, b"4")
        await writer.append(other, 1, b"o")
        batches: list[tuple[str, Entries]] = []
        while {k for k, _ in batches} != {m, other}:
            batches.extend(await asyncio.wait_for(follower.next_batch(), 20))
        got = {k: [v for v, _ in e] for k, e in batches}
        assert got[m] == [4] and got[other] == [1]  # 2 and 3 not delivered again
        await follower.close()
        await store.close()
        await writer.close()

    run(main())


def test_a_follower_loses_nothing_across_a_dropped_connection(make: Make) -> None:
    async def main() -> None:
        store, writer = make(), make()
        follower = store.follower()
        m = mid()
        follower.follow(m, 0)
        seen: dict[str, Entries] = {}
        await writer.append(m, 1, b"1")
        await _collect(follower, {m: 1}, seen)
        pending = asyncio.ensure_future(_collect(follower, {m: 6}, seen))
        await parked(follower, pending)
        breaker = getattr(follower, "break_connections", None)
        if breaker is not None:  # (the memory store has no connection to lose)
            await breaker()
        for v in range(2, 7):
            await writer.append(m, v, b"%d" % v)
        await pending
        assert [v for v, _ in seen[m]] == [1, 2, 3, 4, 5, 6]
        # appends whose connection dropped: stored (True), or StoreUnavailable, when the
        # record may or may not be stored (even later: it may be in flight); a writer that
        # reads again and goes on from what it reads gets a contiguous log, never a hole
        breaker = getattr(writer, "break_connections", None)
        if breaker is not None:
            await breaker()
        answers: list[bool | None] = []
        for _ in range(10):
            now = len(await writer.read_raw(m))
            try:
                answers.append(await writer.append(m, now + 1, b"%d" % (now + 1)))
            except StoreUnavailable:
                answers.append(None)
            if answers[-1]:
                break
        assert answers[-1] is True, answers
        versions = [v for v, _ in await writer.read_raw(m)]
        assert versions == list(range(1, len(versions) + 1)) and len(versions) >= 7
        await follower.close()
        await store.close()
        await writer.close()

    run(main())


def test_records_appended_by_threads_reach_a_follower(make: Make) -> None:
    """The match service's threads and the bot workers append through the synchronous port:
    a follower on the event loop must see those records as well (on a cluster, the synchronous
    append publishes the same wake-up)."""
    async def main() -> None:
        reader, writer = make(), make.sync()
        follower = reader.follower()
        m = mid()
        follower.follow(m, 0)
        seen: dict[str, Entries] = {}
        loop = asyncio.get_running_loop()

        def write() -> None:
            for v in range(1, 11):
                writer.append_sealed(m, v, b"%d" % v)

        await asyncio.gather(loop.run_in_executor(None, write),
                             _collect(follower, {m: 10}, seen))
        assert seen[m] == [(v, b"%d" % v) for v in range(1, 11)]
        await follower.close()
        await reader.close()

    run(main())


@pytest.mark.parametrize("make", [pytest.param("redis", marks=pytest.mark.redis), "cluster",
                                  "cluster-acked"], indirect=True)
def test_a_turn_note_on_the_wake_channel_is_noted_and_reads_nothing(make: Make) -> None:
    """``scripts.TURN_NOTE`` on a followed match's wake channel (``MORE_TIME`` publishes it)
    calls the follower's ``noted`` with the match, and is no record: the next batch is the
    next record.  (The stores woken by channels only, real Redis and Cluster: in memory and
    fakeredis one process makes every change, and there is no channel to note.)"""
    from services.store import keys
    from services.store.scripts import TURN_NOTE

    async def main() -> None:
        store, m = make(), mid()
        client = make.sync().client
        follower = store.follower()
        noted: list[str] = []
        follower.noted = noted.append
        follower.follow(m, 0)
        # the subscription is made in the background: say it until it is heard
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 20
        while not noted:
            assert loop.time() < deadline, "the note was never heard"
            await asyncio.to_thread(client.spublish, keys.wake_channel(m), TURN_NOTE)
            await asyncio.sleep(0.05)
        assert set(noted) == {m}
        await store.append(m, 1, b"1")
        assert await asyncio.wait_for(follower.next_batch(), 20) == [(m, [(1, b"1")])]
        await follower.close()
        await store.close()

    run(main())
