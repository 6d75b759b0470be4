"""Bots through real RQ worker processes on the real Redis: duplicate jobs collapse, a match of
four bots runs to its end, a SIGKILLed worker's turn is played by another worker within 5 s (also
when it is killed at random moments, mostly in the middle of turns a job kept for itself), and a
human away past the room's timeout gets a stand-in move."""

from __future__ import annotations

import os
import random
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
import redis

from services.audit import check
from services.bots import RQScheduler
from services.matches import MatchService
from services.store import keys
from services.store.redis_streams import RedisStore
from tests.conftest import real_redis_client, redis_db_url

DB = 3
pytestmark = pytest.mark.redis


@pytest.fixture
def env() -> Iterator[dict[str, str]]:
    client = real_redis_client(DB)
    client.flushdb()
    queue = f"test-bots-{secrets.token_hex(4)}"
    yield {**os.environ, "HOKM_REDIS_URL": redis_db_url(DB), "HOKM_QUEUE": queue,
           "HOKM_BOT_TIMEOUT": "2"}
    client.flushdb()


def service_for(env: dict[str, str]) -> MatchService:
    client = redis.Redis.from_url(env["HOKM_REDIS_URL"])
    scheduler = RQScheduler(client, env["HOKM_QUEUE"], float(env["HOKM_BOT_TIMEOUT"]))
    return MatchService(RedisStore(client), scheduler=scheduler)


def start_worker(env: dict[str, str], **extra: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "services.cli", "worker"],
                            env={**env, **extra}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def wait_for(predicate, timeout: float, step: float = 0.05) -> bool:  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(step)
    return False


def stop(*procs: subprocess.Popen[bytes]) -> None:
    for p in procs:
        if p.poll() is None:
            p.kill()
        p.wait(timeout=10)


def test_duplicate_enqueues_collapse(env: dict[str, str]) -> None:
    service = service_for(env)
    created = service.create(seats=["bot:random"] * 4)
    scheduler = service.scheduler
    assert isinstance(scheduler, RQScheduler)
    match_id = created["match_id"]
    loaded = service.load(match_id)
    seat = service.next_actor(loaded.state)
    assert seat is not None
    before = scheduler.queue.count
    for _ in range(5):
        scheduler.schedule(match_id, seat, loaded.version)
    assert scheduler.queue.count == before  # already enqueued once when the match was made
    assert before == 1


def test_four_bots_play_to_the_end_through_two_workers(env: dict[str, str]) -> None:
    service = service_for(env)
    workers = [start_worker(env), start_worker(env)]
    try:
        created = service.create(seats=["bot:easy", "bot:medium", "bot:random", "bot:easy"])
        match_id = created["match_id"]
        assert wait_for(lambda: service.load(match_id).state.match.secret is not None, 120)
    finally:
        stop(*workers)
    records = service.store.read(match_id)
    assert check(records) == []
    assert max(service.load(match_id).state.match.score) >= 7


def test_a_killed_workers_turn_is_recovered(env: dict[str, str]) -> None:
    service = service_for(env)
    slow = start_worker(env, HOKM_BOT_THINK_S="30")  # will be mid-job when killed
    try:
        created = service.create(seats=["bot:random"] * 4)
        match_id = created["match_id"]
        version = service.load(match_id).version
        client = redis.Redis.from_url(env["HOKM_REDIS_URL"])
        # the slow worker takes the job (the queue empties) and sleeps in it
        assert wait_for(lambda: client.llen(f"rq:queue:{env['HOKM_QUEUE']}") == 0, 10)
        time.sleep(0.3)
        assert service.load(match_id).version == version
        slow.send_signal(signal.SIGKILL)
        slow.wait(timeout=5)
        killed_at = time.monotonic()
        rescuer = start_worker(env)
        try:
            assert wait_for(lambda: service.load(match_id).version > version, 10)
            recovered_in = time.monotonic() - killed_at
        finally:
            stop(rescuer)
    finally:
        stop(slow)
    assert recovered_in < 5.0, f"the turn took {recovered_in:.1f} s to recover"


def test_workers_killed_at_random_moments_lose_nothing(env: dict[str, str]) -> None:
    """Four random bots thinking 20 ms a move, the queue idle: a job plays turn after turn of
    its match (kept turns), so a kill lands in the middle of that chain most of the time.  Each
    time the next worker must carry on within 5 s, and the match ends with an intact chain."""
    service = service_for(env)
    rng = random.Random(11)
    created = service.create(seats=["bot:random"] * 4)
    match_id = created["match_id"]
    client = redis.Redis.from_url(env["HOKM_REDIS_URL"])
    recoveries, orphans = [], 0
    slow = {"HOKM_BOT_THINK_S": "0.02"}
    worker = start_worker(env, **slow)
    try:
        for _ in range(4):
            before = service.load(match_id).version
            assert wait_for(lambda b=before: service.load(match_id).version > b + 3, 20)
            time.sleep(rng.uniform(0.0, 0.3))
            worker.send_signal(signal.SIGKILL)
            worker.wait(timeout=5)
            killed_at, version = time.monotonic(), service.load(match_id).version
            pending = client.zrange(keys.PENDING_BOTS, 0, -1)
            if client.llen(f"rq:queue:{env['HOKM_QUEUE']}") == 0 and any(
                    m.decode().startswith(f"{match_id}:") for m in pending):
                orphans += 1  # a turn marked pending, no job for it: the watchdog's to recover
            if service.load(match_id).state.phase == "match_over":
                break
            worker = start_worker(env, **slow)
            assert wait_for(lambda v=version: service.load(match_id).version > v, 10)
            recoveries.append(time.monotonic() - killed_at)
        assert wait_for(lambda: service.load(match_id).state.phase == "match_over", 120)
    finally:
        stop(worker)
    assert recoveries and max(recoveries) < 5.0, recoveries
    assert orphans >= 1  # at least one kill did leave a kept turn to the watchdog
    records = service.store.read(match_id)
    assert check(records) == []
    assert max(service.load(match_id).state.match.score) >= 7


def test_an_away_human_gets_a_stand_in_and_keeps_the_seat(env: dict[str, str]) -> None:
    service = service_for(env)
    worker = start_worker(env)
    try:
        created = service.create(seats=["human", "bot:random", "bot:random", "bot:random"],
                                 disconnect_timeout=1, rules={"teams": "as_seated"})
        match_id = created["match_id"]
        client = redis.Redis.from_url(env["HOKM_REDIS_URL"])
        # the gateway would write this when the player's last socket closes
        client.zadd(keys.AWAY, {f"{match_id}:0": time.time()})
        assert wait_for(lambda: any(r.actor == 0 for r in service.store.read(match_id)), 15)
        state = service.load(match_id).state
        seat0 = state.match.seats[0]
        assert seat0 is not None and seat0.bot is None  # still the human's seat
        client.zrem(keys.AWAY, f"{match_id}:0")  # the player is back
        time.sleep(1.5)
        loaded = service.load(match_id)
        if service.next_actor(loaded.state) == 0:
            time.sleep(2)
            assert service.load(match_id).version == loaded.version  # nobody plays for them
    finally:
        stop(worker)
