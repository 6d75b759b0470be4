"""One contract, three stores: in-memory, fakeredis and the real Redis."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator

import fakeredis
import pytest
import redis
import redis.cluster

from engine.events import CardPlayed, SeatLeft, TrickWon
from services.store.codec import digest_of, encode
from services.store.memory import MemoryStore
from services.store.port import Conflict, EventStore, Record
from services.store.redis_streams import RedisStore
from tests.conftest import real_redis_client, wait_for

DB = 7


@pytest.fixture(params=["memory", "fakeredis", pytest.param("redis", marks=pytest.mark.redis),
                        "cluster", "cluster-acked"])
def store(request: pytest.FixtureRequest) -> Iterator[EventStore]:
    if request.param == "memory":
        yield MemoryStore()
    elif request.param.startswith("cluster"):
        cluster = request.getfixturevalue("redis_cluster")
        cluster.flush()
        yield RedisStore(cluster.client, replica_acks=1 if request.param == "cluster-acked"
                         else 0)
        cluster.flush()
    elif request.param == "fakeredis":
        yield RedisStore(fakeredis.FakeRedis(server=fakeredis.FakeServer()))
    else:
        client = real_redis_client(DB)
        client.flushdb()
        yield RedisStore(client)
        client.flushdb()


def rec(version: int, prev: bytes = b"", *events: object, cid: str | None = None) -> Record:
    return Record(version, tuple(events) or (SeatLeft(version % 4),), None, cid, 1_000_000, prev)  # type: ignore[arg-type]


def test_append_read_in_order(store: EventStore) -> None:
    head = b""
    for v in range(1, 6):
        head = store.append("m", rec(v, head)).digest
    records = store.read("m")
    assert [r.version for r in records] == [1, 2, 3, 4, 5]
    assert [r.version for r in store.read("m", 2)] == [3, 4, 5]
    assert [r.version for r in store.read("m", 1, 3)] == [2, 3]
    assert store.read("m", 3, 3) == []
    assert store.version("m") == 5
    assert store.version("other") == 0
    assert store.read("other") == []


def test_stale_versions_are_refused(store: EventStore) -> None:
    first = store.append("m", rec(1))
    store.append("m", rec(2, first.digest))
    for bad in (1, 2):  # (other records than the stored ones: an identical record offered
        # again may count as the same append on a cluster, where retries make that matter)
        with pytest.raises(Conflict) as info:
            store.append("m", rec(bad, b"", CardPlayed(0, "2C")))
        assert info.value.current == 2
    assert store.version("m") == 2  # nothing was written by the refused appends


def test_records_round_trip_with_their_chain(store: EventStore) -> None:
    a = store.append("m", rec(1, b"", CardPlayed(0, "QH"), TrickWon(2, 3), cid="c-1"))
    b = store.append("m", Record(2, (SeatLeft(1),), 3, None, 5_000, a.digest))
    got = store.read("m")
    assert got[0].events == (CardPlayed(0, "QH"), TrickWon(2, 3))
    assert got[0].command_id == "c-1" and got[0].actor is None
    assert got[1].actor == 3 and got[1].time_ms == 5_000
    assert got[1].prev == got[0].digest == a.digest == digest_of(encode(got[0]))
    assert got[1].digest == b.digest
    assert store.command_version("m", "c-1") == 1
    assert store.command_version("m", "nope") is None


def parked_tails(store: EventStore) -> int:
    """How many ``tail`` reads are parked on ``store``'s backend now, blocked until a record
    comes: what a test waits for before it appends (a head start by a fixed sleep may run out
    on a loaded machine before the read is even sent, and then nothing waits to be woken)."""
    if isinstance(store, MemoryStore):
        return store.tails_waiting
    assert isinstance(store, RedisStore)
    client = store.client
    if isinstance(client, fakeredis.FakeRedis):
        # fakeredis tells nothing of another client (no INFO; CLIENT LIST without the flag of
        # a blocked client): its sockets mark a parked blocking command (fakeredis is pinned)
        server = client.connection_pool.connection_kwargs["server"]
        return sum(1 for sock in server.sockets if sock._blocked)
    nodes = ([client.get_redis_connection(n) for n in client.get_nodes()]
             if isinstance(client, redis.cluster.RedisCluster) else [client])
    # CLIENT LIST: the blocked client's flags hold "b", its command is the XREAD
    return sum(1 for node in nodes for c in node.client_list()
               if c["cmd"] == "xread" and "b" in c["flags"])


def test_tail_waits_for_the_next_record(store: EventStore) -> None:
    store.append("m", rec(1))
    assert store.tail("m", 1, 50) == []
    assert parked_tails(store) == 0  # (the probe tells a parked tail from none)
    got: list[list[Record]] = []
    reader = threading.Thread(target=lambda: got.append(store.tail("m", 1, 60_000)),
                              daemon=True)
    reader.start()
    wait_for(lambda: parked_tails(store) >= 1, 20, what="the tail blocked in its read",
             seen=lambda: (parked_tails(store), got))
    store.append("m", rec(2, store.read("m")[-1].digest))
    # the deadline, well short of the 60 s block, tells a tail woken by the append from one
    # that answers when its block runs out (the wake-up latency: bench/store.py, tail_wake_ms)
    reader.join(30)
    assert not reader.is_alive(), "the tail was not woken by the append"
    assert [[r.version for r in records] for records in got] == [[2]]


def test_meta_maps(store: EventStore) -> None:
    store.put_meta("m", "meta", {"a": "1", "b": "2"})
    store.put_meta("m", "meta", {"b": "3"})
    assert store.get_meta("m", "meta") == {"a": "1", "b": "3"}
    assert store.get_meta_field("m", "meta", "a") == "1"
    assert store.get_meta_field("m", "tokens", "a") is None
    store.delete_meta_field("m", "meta", "a")
    assert store.get_meta("m", "meta") == {"b": "3"}


def test_a_meta_field_set_once_keeps_the_first_value_of_writers_at_once(store: EventStore
                                                                         ) -> None:
    store.put_meta("m", "meta", {"a": "1"})
    assert store.put_meta_once("m", "meta", "b", "x") == "x"
    assert store.put_meta_once("m", "meta", "b", "y") == "x"
    assert store.get_meta("m", "meta") == {"a": "1", "b": "x"}
    got: list[str] = []
    barrier = threading.Barrier(8)

    def writer(me: int) -> None:
        barrier.wait()
        got.append(store.put_meta_once("m2", "meta", "won", str(me)))

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 8 and len(set(got)) == 1  # every writer was told the one that stands
    assert store.get_meta_field("m2", "meta", "won") == got[0]


def test_a_remembered_request_keeps_its_first_value_until_it_lapses(store: EventStore
                                                                    ) -> None:
    """``remember``: a join's answer beside its match, a create's alone; the first value
    stands for writers at once, until it lapses or is forgotten."""
    assert store.remember("m", "r1", "first", 60) == "first"
    assert store.remember("m", "r1", "second", 60) == "first"
    assert store.remember("n", "r1", "other", 60) == "other"  # another match's
    assert store.remember(None, "r1", "create", 60) == "create"  # a create's
    got: list[str] = []
    barrier = threading.Barrier(8)

    def writer(me: int) -> None:
        barrier.wait()
        got.append(store.remember(None, "r2", str(me), 60))

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 8 and len(set(got)) == 1
    store.forget("m", "r1")
    assert store.remember("m", "r1", "again", 60) == "again"
    assert store.remember(None, "r1", "x", 60) == "create"  # a create's is not a join's
    assert store.remember("m", "short", "one", 0.05) == "one"
    wait_for(lambda: store.remember("m", "short", "two", 60) == "two", 5,
             what="the remembered value lapsed")


def test_concurrent_appends_one_wins_per_version(store: EventStore) -> None:
    store.append("m", rec(1))
    wins: list[int] = []
    lock = threading.Lock()

    def writer(me: int) -> None:
        for _ in range(20):
            current = store.read("m")[-1]
            try:  # (each writer's records are its own: SeatLeft of its seat)
                store.append("m", rec(current.version + 1, current.digest, SeatLeft(me)))
            except Conflict:
                continue
            with lock:
                wins.append(current.version + 1)

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    records = store.read("m")
    assert sorted(wins) == list(range(2, len(records) + 1))  # every version won exactly once
    assert all(b.prev == a.digest for a, b in itertools.pairwise(records))


def test_cluster_cold_loads_read_raw_on_the_keys_node_and_follow_a_moved_slot(
        redis_cluster: object) -> None:
    """On a cluster ``read_raw`` reads the stream on the pool of the node that holds it, with
    the answer left raw; when that node answers with an error (the slot moved, a failover) it
    reads through the cluster client instead, which finds the slot's node, and gives the same
    entries."""
    import redis

    store = RedisStore(redis_cluster.client)  # type: ignore[attr-defined]
    head = b""
    for v in range(1, 8):
        head = store.append("m", rec(v, head)).digest
    expected = [(r.version, encode(r)) for r in store.read("m")]
    assert store.read_raw("m") == expected
    assert store.read_raw("m", 2, 5) == expected[2:5]
    assert len(store._raw_nodes) == 1  # the raw path was taken
    (raw,) = store._raw_nodes.values()

    def moved(*_: object, **__: object) -> object:
        raise redis.ResponseError("MOVED 1234 127.0.0.1:1")

    raw.xrange = moved
    assert store.read_raw("m") == expected
    assert store._raw_nodes == {} or next(iter(store._raw_nodes.values())) is not raw
    (raw,) = store._raw_nodes.values() or [None]

    def down(*_: object, **__: object) -> object:  # the node died: the cluster client goes on
        raise redis.ConnectionError("Error 111 connecting")

    if raw is not None:
        raw.xrange = down
    else:  # the next read makes one again
        assert store.read_raw("m") == expected
        (raw,) = store._raw_nodes.values()
        raw.xrange = down
    assert store.read_raw("m") == expected


def test_an_append_never_starts_a_log_in_the_middle_of_a_match(store: EventStore) -> None:
    # a writer that held the match in its cache while its log expired, was deleted or lost its
    # newest records (a Redis restarted without its data) offers the next version: refused
    with pytest.raises(Conflict):
        store.append("m", rec(3))
    assert store.version("m") == 0 and store.read("m") == []  # the finding: a log of [3]
    first = store.append("m", rec(1))
    with pytest.raises(Conflict):
        store.append("m", rec(3, first.digest))  # version 2 is not there
    assert [r.version for r in store.read("m")] == [1]
