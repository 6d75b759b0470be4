"""The analysis's RQ jobs with real ``hokm worker`` processes on the real Redis: each round is
enqueued once however often it is asked for, computed by a worker and stored beside the match
(lapsing with it); a worker killed in the middle of a round leaves a mark that lapses, after which
the next request enqueues the round again and another worker finishes it."""

from __future__ import annotations

import json
import os
import random
import secrets
import signal
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from services.runtime import Runtime, build_runtime
from services.store import keys
from tests.conftest import real_redis_client, redis_db_url, wait_for
from tests.gateway.helpers import make_settings
from tests.services.test_variant_rooms import open_room, random_to_end
from worker.analysis.jobs import enqueue, queue

DB = 10
pytestmark = pytest.mark.redis
FAST = {"HOKM_ANALYSIS_BOT": "medium", "HOKM_ANALYSIS_NODES": "3000"}


@pytest.fixture
def rt() -> Iterator[Runtime]:
    client = real_redis_client(DB)
    client.flushdb()
    runtime = build_runtime(make_settings(redis_url=redis_db_url(DB),
                                          queue=f"test-analysis-{secrets.token_hex(4)}",
                                          finished_ttl_s=3600.0))
    yield runtime
    client.flushdb()


def worker(rt: Runtime, *extra: str, said: bool = False, **env: str
           ) -> subprocess.Popen[bytes]:
    """``hokm worker EXTRA`` on the test's queue (``said``: its stdout kept to read)."""
    return subprocess.Popen([sys.executable, "-m", "hokm", "worker", *extra],
                            env={**os.environ, "HOKM_REDIS_URL": redis_db_url(DB),
                                 "HOKM_QUEUE": rt.settings.queue, **FAST, **env},
                            stdout=subprocess.PIPE if said else subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def finished_match(rt: Runtime, seed: int, rules: dict[str, Any] | None = None
                   ) -> tuple[str, int]:
    """A match of humans (four, or the game of ``rules``) played to its end at random; its id
    and number of rounds."""
    service = rt.service
    if rules is None:
        match_id = service.create(seats=["human"] * 4, first_hakem=0)["match_id"]
        for i in range(3):
            service.join(match_id, f"P{i}")
    else:
        match_id, _ = open_room(service, rules)
    state = random_to_end(service, match_id, random.Random(seed))
    return match_id, state.deal.round_no


def keep_only(rt: Runtime, match_id: str, rounds: int, missing: set[int]) -> None:
    """Store placeholder results for every round but ``missing`` (those are left to compute)."""
    for r in range(rounds):
        if r not in missing:
            rt.store.put_analysis(match_id, r, b'{"round": %d, "moves": []}' % r)


def test_a_worker_computes_each_asked_round_once_and_stores_it_beside_the_match(
        rt: Runtime) -> None:
    match_id, rounds = finished_match(rt, 1)
    keep_only(rt, match_id, rounds, {0, 1})
    assert enqueue(rt, match_id, [0, 1]) == [0, 1]
    assert enqueue(rt, match_id, [0, 1]) == []  # queued: asking again enqueues nothing
    assert queue(rt).count == 2
    proc = worker(rt, "--burst", said=True)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0
    # the rounds analysed are counted (it said "stopped after 0 bot turns": an audit's finding)
    assert out.decode().splitlines()[-1] == (
        "hokm worker: stopped after 0 bot turns and 2 analysed rounds.")
    results = rt.store.analysis_results(match_id)
    assert sorted(results) == list(range(rounds))
    for r in (0, 1):
        one = json.loads(results[r])
        assert one["round"] == r and one["moves"][0]["kind"] == "trump"
        assert len({m["version"] for m in one["moves"]}) == len(one["moves"])
        assert not rt.client.exists(keys.analysis_mark(match_id, r))
    log_left = rt.client.pttl(keys.log(match_id))  # read first: both only count down after
    assert 0 < rt.client.pttl(keys.analysis(match_id)) <= log_left
    assert keys.analysis(match_id).encode() not in [  # beside the log, never in it
        f for _, fields in rt.client.xrange(keys.log(match_id)) for f in fields.values()]


def test_a_round_whose_worker_died_is_enqueued_again_by_the_next_request(rt: Runtime) -> None:
    match_id, rounds = finished_match(rt, 2)
    keep_only(rt, match_id, rounds, {0})
    assert enqueue(rt, match_id, [0]) == [0]
    proc = worker(rt, HOKM_ANALYSIS_TTL="0.5", HOKM_ANALYSIS_NODES="200000")
    mark = keys.analysis_mark(match_id, 0)
    # the job runs: its mark is the running one (half a second, refreshed), not the queued one
    wait_for(lambda: 0 < rt.client.pttl(mark) <= 500, timeout=30, every=0.02,
             what="the job to start")
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    assert 0 not in rt.store.analysis_results(match_id)
    wait_for(lambda: enqueue(rt, match_id, [0]) == [0], timeout=10, every=0.1,
             what="the dead job's mark to lapse")
    again = worker(rt, "--burst")
    assert again.wait(timeout=120) == 0
    assert json.loads(rt.store.analysis_results(match_id)[0])["round"] == 0


@pytest.mark.parametrize("kind", ["memory", "fakeredis", "redis", "cluster"])
def test_the_analysis_store_contract(kind: str, request: pytest.FixtureRequest) -> None:
    """A mark is taken once until it lapses or the result is stored; refreshing always works;
    results are read back by round (memory, fakeredis, one Redis, Redis Cluster)."""
    import fakeredis

    from services.store.memory import MemoryStore
    from services.store.redis_streams import RedisStore

    store: MemoryStore | RedisStore
    if kind == "memory":
        store = MemoryStore()
    elif kind == "fakeredis":
        store = RedisStore(fakeredis.FakeRedis())
    elif kind == "redis":
        client = real_redis_client(DB)
        client.flushdb()
        store = RedisStore(client)
    else:
        cluster = request.getfixturevalue("redis_cluster")
        cluster.flush()
        store = RedisStore(cluster.client)
    assert store.analysis_results("m1") == {}
    assert store.mark_analysis("m1", 0, 60, new=True)
    assert not store.mark_analysis("m1", 0, 60, new=True)  # queued: not twice
    assert store.mark_analysis("m1", 1, 60, new=True)  # another round, its own mark
    assert store.mark_analysis("m1", 0, 0.05, new=False)  # a running job refreshes it
    wait_for(lambda: store.mark_analysis("m1", 0, 60, new=True), timeout=5,
             what="the short mark to lapse")
    store.put_analysis("m1", 1, b"one")
    assert store.analysis_results("m1") == {1: b"one"}
    assert store.mark_analysis("m1", 1, 60, new=True)  # storing cleared the mark
    assert store.analysis_results("m2") == {}


def test_rounds_are_enqueued_longest_first(rt: Runtime) -> None:
    """Workers take jobs in queue order, so the rounds with the most cards played go first
    (two workers then end together instead of one finishing the longest round alone)."""
    from engine.events import CardPlayed, RoundStarted
    from worker.analysis.jobs import longest_first

    match_id, rounds = finished_match(rt, 3)
    records = rt.store.read(match_id)
    played = [0] * rounds
    events = [e for record in records for e in record.events]
    starts = [i for i, e in enumerate(events) if isinstance(e, RoundStarted)]
    for r, (start, end) in enumerate(zip(starts, [*starts[1:], len(events)], strict=True)):
        played[r] = sum(isinstance(e, CardPlayed) for e in events[start:end])
    assert len(set(played)) > 1, played  # rounds of different lengths (7 to 13 tricks)
    order = longest_first(records, list(range(rounds)))
    assert sorted(order) == list(range(rounds))
    assert [played[r] for r in order] == sorted(played, reverse=True)
    enqueue(rt, match_id, list(range(rounds)))
    assert [job.args[1] for job in queue(rt).jobs] == order
