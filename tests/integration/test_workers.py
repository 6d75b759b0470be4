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
from rq.job import Job, JobStatus
from rq.serializers import JSONSerializer

from services.audit import check
from services.bots import RQScheduler, job_id
from services.matches import Loaded, MatchService
from services.store import keys
from services.store.redis_streams import RedisStore
from tests.conftest import real_redis_client, redis_db_url, wait_for

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
    return subprocess.Popen([sys.executable, "-m", "hokm", "worker"],
                            env={**env, **extra}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


STEP = 0.05
"""How often these tests poll the real Redis while waiting for something."""


def pending_for(client: redis.Redis, match_id: str) -> list[str]:
    """The bot turns of ``match_id`` marked pending (claimed and not yet done)."""
    raw: list[bytes] = client.zrange(keys.PENDING_BOTS, 0, -1)  # type: ignore[assignment]
    return [m.decode() for m in raw if m.decode().startswith(f"{match_id}:")]


def stop(*procs: subprocess.Popen[bytes]) -> None:
    for p in procs:
        if p.poll() is None:
            p.kill()
        p.wait(timeout=10)


def test_duplicate_enqueues_collapse(env: dict[str, str]) -> None:
    service = service_for(env)
    created = service.create(seats=["bot:easy"] * 4)
    scheduler = service.scheduler
    assert isinstance(scheduler, RQScheduler)
    match_id = created["match_id"]
    loaded = service.load(match_id)
    seat = service.next_actor(loaded.state)
    assert seat is not None
    def queued() -> int:
        return sum(queue.count for queue in scheduler.queues)

    before = queued()
    for bots_only in (True, False, True, False, True):
        scheduler.schedule(match_id, seat, loaded.version, bots_only=bots_only)
    assert queued() == before  # already enqueued once when the match was made
    assert before == 1 and scheduler.bots_only_queue.count == 1  # a bots-only table's queue


def test_four_bots_play_to_the_end_through_two_workers(env: dict[str, str]) -> None:
    service = service_for(env)
    workers = [start_worker(env), start_worker(env)]
    try:
        created = service.create(seats=["bot:easy", "bot:medium", "bot:easy", "bot:easy"])
        match_id = created["match_id"]
        wait_for(lambda: service.load(match_id).state.match.secret is not None, 120, STEP,
                 "the match's end (its secret revealed)")
    finally:
        stop(*workers)
    records = service.store.read(match_id)
    assert check(records) == []
    assert max(service.load(match_id).state.match.score) >= 7


def test_a_killed_workers_turn_is_recovered(env: dict[str, str]) -> None:
    service = service_for(env)
    slow = start_worker(env, HOKM_BOT_THINK_S="30")  # will be mid-job when killed
    try:
        created = service.create(seats=["bot:easy"] * 4)
        match_id = created["match_id"]
        version = service.load(match_id).version
        seat = service.next_actor(service.load(match_id).state)
        assert seat is not None
        client = redis.Redis.from_url(env["HOKM_REDIS_URL"])
        job = Job.fetch(job_id(match_id, version, seat), connection=client,
                        serializer=JSONSerializer)
        # the slow worker takes the job (RQ marks it started) and sleeps in it
        wait_for(lambda: job.get_status(refresh=True) == JobStatus.STARTED, 10, STEP,
                 "the slow worker running the first bot job")
        assert service.load(match_id).version == version
        slow.send_signal(signal.SIGKILL)
        slow.wait(timeout=5)
        killed_at = time.monotonic()
        rescuer = start_worker(env)
        try:
            # the deadline is a liveness bound, not a measurement (a loaded machine starts the
            # rescuer slowly): without the watchdog the turn would wait for its guard's 600 s
            wait_for(lambda: service.load(match_id).version > version, 30, STEP,
                     "the killed worker's turn played by the rescuer",
                     lambda: f"{time.monotonic() - killed_at:.1f} s after the kill, version "
                             f"{service.load(match_id).version}")
        finally:
            stop(rescuer)
    finally:
        stop(slow)


def test_workers_killed_at_random_moments_lose_nothing(env: dict[str, str]) -> None:
    """Four easy bots thinking 20 ms a move, the queue idle: a job plays turn after turn of
    its match (kept turns), so a kill lands in the middle of that chain most of the time.  Each
    time the next worker must carry on, and the match ends with an intact chain."""
    service = service_for(env)
    rng = random.Random(11)
    scheduler = service.scheduler
    assert isinstance(scheduler, RQScheduler)
    created = service.create(seats=["bot:easy"] * 4)
    match_id = created["match_id"]
    client = redis.Redis.from_url(env["HOKM_REDIS_URL"])
    recoveries, orphans = [], 0
    slow = {"HOKM_BOT_THINK_S": "0.02"}
    worker = start_worker(env, **slow)
    try:
        for _ in range(4):
            before = service.load(match_id).version
            wait_for(lambda b=before: service.load(match_id).version > b + 3, 20, STEP,
                     "the worker playing a few turns")
            # not a wait for anything: the random delay *is* the test (a kill at a random
            # moment, mostly in the middle of a chain of kept turns)
            time.sleep(rng.uniform(0.0, 0.3))
            worker.send_signal(signal.SIGKILL)
            worker.wait(timeout=5)
            killed_at, version = time.monotonic(), service.load(match_id).version
            waiting_jobs = sum(client.llen(queue.key) for queue in scheduler.queues)
            if waiting_jobs == 0 and pending_for(client, match_id):
                orphans += 1  # a turn marked pending, no job for it: the watchdog's to recover
            if service.load(match_id).state.phase == "match_over":
                break
            worker = start_worker(env, **slow)
            # a liveness bound, not a measurement (as in the test above)
            wait_for(lambda v=version: service.load(match_id).version > v, 30, STEP,
                     "the next worker carrying on",
                     lambda k=killed_at: f"{time.monotonic() - k:.1f} s after the kill")
            recoveries.append(time.monotonic() - killed_at)
        wait_for(lambda: service.load(match_id).state.phase == "match_over", 120, STEP,
                 "the match's end")
    finally:
        stop(worker)
    assert recoveries, "the match ended at the first kill: nothing was recovered"
    assert orphans >= 1  # at least one kill did leave a kept turn to the watchdog
    records = service.store.read(match_id)
    assert check(records) == []
    assert max(service.load(match_id).state.match.score) >= 7


def test_an_away_human_gets_a_stand_in_and_keeps_the_seat(env: dict[str, str]) -> None:
    service = service_for(env)
    client = redis.Redis.from_url(env["HOKM_REDIS_URL"])
    layout = ["human", "bot:easy", "bot:easy", "bot:easy"]
    worker = start_worker(env)
    try:
        created = service.create(seats=layout, disconnect_timeout=1,
                                 rules={"teams": "as_seated"})
        match_id = created["match_id"]
        # the gateway would write this when the player's last socket closes
        client.zadd(keys.AWAY, {f"{match_id}:0": time.time()})
        wait_for(lambda: any(r.actor == 0 for r in service.store.read(match_id)), 15, STEP,
                 "a stand-in move for the away human")
        seat0 = service.load(match_id).state.match.seats[0]
        assert seat0 is not None and seat0.bot is None  # still the human's seat
        assert seat0.player == created["player"]
        client.zrem(keys.AWAY, f"{match_id}:0")  # the player is back
        # the bots play round to the player, and then the match waits: seat 0 to move and no
        # turn of this match claimed (a job that read the away set just before is done)
        def settled() -> Loaded | None:
            loaded = service.load(match_id)
            if service.next_actor(loaded.state) == 0 and not pending_for(client, match_id):
                return loaded
            return None

        waiting = wait_for(settled, 15, STEP, "the match waiting for the returned player")
        # a witness: another room whose player goes away now.  Once its stand-in has moved, the
        # watchdog has made its passes past the timeout since the player above came back; had
        # it still counted them away it would have claimed their turn too (in the same pass, and
        # first: their away entry was older)
        witness = service.create(seats=layout, disconnect_timeout=1,
                                 rules={"teams": "as_seated"})["match_id"]
        client.zadd(keys.AWAY, {f"{witness}:0": time.time()})
        wait_for(lambda: any(r.actor == 0 for r in service.store.read(witness)), 15, STEP,
                 "the witness room's stand-in move")
        assert service.load(match_id).version == waiting.version  # nobody played for them
        assert pending_for(client, match_id) == []  # and nobody is about to
    finally:
        stop(worker)
