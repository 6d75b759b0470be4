"""``hokm worker`` stops on SIGTERM and on Ctrl+C: every process of it, once, cleanly.

Real ``hokm worker`` commands (one and two processes) on a private ``redis-server``, stopped by
real signals: SIGTERM to the command, SIGINT to it alone, and Ctrl+C (SIGINT to its process
group, as a terminal sends it), while idle, while its processes are still starting, and in the
middle of a bot turn.  Each time the command exits with its "stopped" line once and no
traceback, none of its processes is left running, and every RQ worker registered its death; a
turn in progress is finished, not dropped (RQ's warm shutdown).  The exit status is 0 after
SIGTERM (a clean stop) and 130 after SIGINT, as ``hokm serve`` and every ``hokm`` command
(``services/clitools.py``; it was 0 after Ctrl+C as well)."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from rq import Worker
from rq.job import Job, JobStatus
from rq.registry import FailedJobRegistry, StartedJobRegistry
from rq.serializers import JSONSerializer
from rq.worker import BaseWorker

from services.bots import RQScheduler, job_id
from services.matches import MatchService
from services.store.redis_streams import RedisStore
from tests.conftest import PrivateRedis, wait_for
from tests.services.test_serve_signals import ignore_sigint, signals_of

pytestmark = pytest.mark.redis

HOKM = str(Path(sys.executable).parent / "hokm")
QUEUE = "hokm-stop-test"
STOPPED = re.compile(r"hokm worker: stopped after (\d+) bot turns\.")
STEP = 0.05
"""How often these tests look at the processes and the Redis while waiting for something."""
WAIT_S = 60.0
"""Deadline for the worker's start and for its stop (never reached when all is well)."""


class Run:
    """One ``hokm worker`` command in a process group of its own, its output in files."""

    def __init__(self, server: PrivateRedis, folder: Path, processes: int,
                 sigint_ignored: bool = False, **env: str) -> None:
        """``sigint_ignored``: started as a shell starts a background job, SIGINT ignored."""
        base = {k: v for k, v in os.environ.items() if not k.startswith("HOKM_")}
        self.out, self.err = folder / "out.txt", folder / "err.txt"
        self.client = redis.Redis.from_url(server.url)
        with self.out.open("w") as out, self.err.open("w") as err:
            self.proc = subprocess.Popen(
                [HOKM, "worker", "--processes", str(processes)],
                env={**base, "HOKM_REDIS_URL": server.url, "HOKM_QUEUE": QUEUE, **env},
                stdout=out, stderr=err, start_new_session=True,
                preexec_fn=ignore_sigint if sigint_ignored else None)

    def started(self) -> bool:
        """The start line is printed (the worker processes are being started)."""
        return "playing bot turns" in self.out.read_text()

    def workers(self) -> list[BaseWorker]:
        return Worker.all(connection=self.client)

    def idle(self, processes: int) -> bool:
        """Every RQ worker is registered and waits for a job."""
        workers = self.workers()
        return len(workers) == processes and all(w.get_state() == "idle" for w in workers)

    def group(self) -> list[int]:
        """The running processes of the command's process group (it and the worker processes
        it started, which stay in it, even once it has gone)."""
        return group_of(self.proc.pid)

    def stopped(self) -> bool:
        """The command and every process it started have ended."""
        return self.proc.poll() is not None and not self.group()

    def kill(self) -> None:
        """Whatever is left, SIGKILLed."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)

    def assert_stopped_cleanly(self, status: int = 0) -> int:
        """The checks of a clean stop, exiting with ``status`` (``STATUS``); returns the bot
        turns the stopped line counts."""
        wait_for(self.stopped, WAIT_S, STEP, "the end of the worker and of all its processes")
        out, err = self.out.read_text(), self.err.read_text()
        where = f"rc {self.proc.returncode}, stdout {out!r}, stderr {err!r}"
        assert self.proc.returncode == status, where
        assert "Traceback" not in out + err, where
        lines = out.strip().splitlines()
        assert sum("stopped" in line for line in lines) == 1, where
        played = STOPPED.fullmatch(lines[-1])
        assert played, where
        assert self.workers() == [], where  # every RQ worker registered its death
        return int(played.group(1))


def group_of(pgid: int) -> list[int]:
    """The running processes (not zombies) of process group ``pgid``, from ``/proc``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue  # it ended meanwhile
        if int(fields[2]) == pgid and fields[0] != "Z":  # fields: state, ppid, pgrp, ...
            found.append(int(entry.name))
    return found


@pytest.fixture
def server(private_redis: Callable[..., PrivateRedis]) -> PrivateRedis:
    server = private_redis("--appendonly", "no")
    server.start()
    return server


@pytest.fixture
def run(server: PrivateRedis, tmp_path: Path) -> Iterator[Callable[..., Run]]:
    runs: list[Run] = []

    def start(processes: int, sigint_ignored: bool = False, **env: str) -> Run:
        runs.append(Run(server, tmp_path, processes, sigint_ignored, **env))
        return runs[-1]

    yield start
    for r in runs:
        r.kill()


SIGNALS: dict[str, Callable[[int], None]] = {
    "SIGTERM": lambda pid: os.kill(pid, signal.SIGTERM),
    "SIGINT": lambda pid: os.kill(pid, signal.SIGINT),
    "Ctrl+C": lambda pid: os.killpg(pid, signal.SIGINT),
}
STATUS = {"SIGTERM": 0, "SIGINT": 130, "Ctrl+C": 130}
"""The exit status after each way of stopping: SIGINT is an interrupt (130, as every ``hokm``
command), SIGTERM the operator's clean stop (0)."""


@pytest.mark.parametrize("processes", [1, 2])
@pytest.mark.parametrize("how", list(SIGNALS))
def test_an_idle_worker_stops_with_every_process(run: Callable[..., Run], processes: int,
                                                 how: str) -> None:
    worker = run(processes)
    wait_for(lambda: worker.idle(processes), WAIT_S, STEP, "the RQ workers waiting for jobs")
    SIGNALS[how](worker.proc.pid)
    assert worker.assert_stopped_cleanly(STATUS[how]) == 0


def test_a_worker_started_with_sigint_ignored_leaves_it_ignored(run: Callable[..., Run]) -> None:
    """``hokm worker &`` from a script: the shell starts it with SIGINT ignored, so that the
    Ctrl+C of the script's foreground is not for it.  It stopped on it (RQ took SIGINT over),
    as ``hokm serve`` did (an audit's finding of session 37).  Every process of it keeps SIGINT
    ignored (the kernel's own record), a Ctrl+C leaves them waiting for jobs, and SIGTERM stops
    them as ever."""
    worker = run(2, sigint_ignored=True)
    wait_for(lambda: worker.idle(2), WAIT_S, STEP, "the RQ workers waiting for jobs")
    group = sorted(worker.group())
    assert len(group) == 3, group  # the command and its two processes
    for pid in group:
        assert signal.SIGINT in signals_of(pid, "SigIgn"), pid
        assert signal.SIGTERM in signals_of(pid, "SigCgt"), pid
    SIGNALS["Ctrl+C"](worker.proc.pid)  # (an ignored signal is dropped as it is sent)
    assert worker.proc.poll() is None and worker.idle(2) and sorted(worker.group()) == group
    SIGNALS["SIGTERM"](worker.proc.pid)
    assert worker.assert_stopped_cleanly(0) == 0


@pytest.mark.parametrize("how", ["SIGTERM", "Ctrl+C"])
def test_a_worker_stopped_while_its_processes_start_stops_with_every_process(
        run: Callable[..., Run], how: str) -> None:
    worker = run(2)
    wait_for(worker.started, WAIT_S, STEP, "the start line")
    SIGNALS[how](worker.proc.pid)
    worker.assert_stopped_cleanly(STATUS[how])


def a_bot_turn_started(service: MatchService, client: redis.Redis) -> tuple[str, Any, Job]:
    """A bots-only match created, once a worker is in the middle of its first bot turn (a
    think pause makes the middle last): its id, its state before the turn, the turn's job."""
    match_id = service.create(seats=["bot:easy"] * 4)["match_id"]
    loaded = service.load(match_id)
    seat = service.next_actor(loaded.state)
    assert seat is not None
    job = Job.fetch(job_id(match_id, loaded.version, seat), connection=client,
                    serializer=JSONSerializer)
    wait_for(lambda: job.get_status(refresh=True) == JobStatus.STARTED, WAIT_S, STEP,
             "a worker process in the middle of the first bot turn")
    return match_id, loaded, job


def test_a_turn_in_progress_is_played_to_its_end(run: Callable[..., Run],
                                                 server: PrivateRedis) -> None:
    client = redis.Redis.from_url(server.url)
    service = MatchService(RedisStore(client), scheduler=RQScheduler(client, QUEUE, 3.0))
    worker = run(2, HOKM_BOT_THINK_S="2")  # each bot turn takes two seconds
    wait_for(lambda: worker.idle(2), WAIT_S, STEP, "the RQ workers waiting for jobs")
    match_id, loaded, job = a_bot_turn_started(service, client)
    os.kill(worker.proc.pid, signal.SIGTERM)
    assert worker.assert_stopped_cleanly() >= 1
    assert not client.exists(job.key)  # succeeded (kept 0 s), not failed (kept an hour)
    assert service.load(match_id).version > loaded.version  # the turn's move is in the match


def test_the_processes_of_a_killed_worker_end_with_it(run: Callable[..., Run],
                                                       server: PrivateRedis) -> None:
    """``kill -9`` of the command with ``--processes 2`` while one process is in the middle of a
    bot turn: no process outlives it (they used to run on as orphans).  Each is told to stop as
    by SIGTERM, so the turn in hand is played to its end and every RQ worker registers its
    death; a worker started afterwards plays the match on."""
    client = redis.Redis.from_url(server.url)
    service = MatchService(RedisStore(client), scheduler=RQScheduler(client, QUEUE, 3.0))
    worker = run(2, HOKM_BOT_THINK_S="1")
    wait_for(lambda: worker.idle(2), WAIT_S, STEP, "the RQ workers waiting for jobs")
    children = [pid for pid in worker.group() if pid != worker.proc.pid]
    assert len(children) == 2
    match_id, loaded, _ = a_bot_turn_started(service, client)
    os.kill(worker.proc.pid, signal.SIGKILL)
    worker.proc.wait(timeout=WAIT_S)
    wait_for(lambda: not any(pid in children for pid in group_of(worker.proc.pid)), WAIT_S,
             STEP, "the end of the worker's processes", seen=worker.group)
    assert "Traceback" not in worker.err.read_text(), worker.err.read_text()
    assert service.load(match_id).version > loaded.version  # the turn in hand was played
    assert worker.workers() == []  # each process stopped as RQ does: its death registered
    version = service.load(match_id).version
    again = run(1)  # and nothing of the match was left behind: a new worker plays it on
    wait_for(lambda: service.load(match_id).version > version, WAIT_S, STEP,
             "the match played on by a new worker")
    again.proc.send_signal(signal.SIGTERM)
    wait_for(again.stopped, WAIT_S, STEP, "the new worker's end")


def test_a_worker_stopped_in_its_blocking_dequeue_registers_its_death(
        server: PrivateRedis) -> None:
    """A stop signal to an idle RQ worker raises inside its blocking dequeue, and redis-py gives
    that connection back to its pool with the dequeue's answer still to come; the death's
    MULTI/EXEC then read it as their own: "Wrong number of response items from pipeline
    execution" and a traceback at the stop (a clean-clone-run failure of
    ``test_an_idle_worker_stops_with_every_process``).  Here the pool holds such a connection,
    made by hand: the worker's teardown closes the pool's idle connections first."""
    from rq import Queue

    from worker.main import BotWorker

    client = redis.Redis.from_url(server.url)
    worker = BotWorker([Queue(QUEUE, connection=client, serializer=JSONSerializer)],
                       connection=client, serializer=JSONSerializer)
    worker.register_birth()  # type: ignore[no-untyped-call]
    conn = client.connection_pool.get_connection()
    conn.send_command("BLPOP", f"{QUEUE}-nothing", 1)  # its answer comes in a second
    client.connection_pool.release(conn)
    worker.teardown()
    assert client.hget(worker.key, "death") is not None
    assert worker.name not in {w.name for w in Worker.all(connection=client)}


def test_a_bot_job_whose_worker_was_killed_is_retried_not_failed(
        run: Callable[..., Run], server: PrivateRedis) -> None:
    """``kill -9`` of every process of a worker in the middle of a bot turn: the match plays on
    (a new worker's watchdog enqueues the turn again), and RQ's cleanup of the dead worker's
    started job, which runs once its entry lapses (here: now, with a later clock), enqueues it
    once more instead of recording it as failed (a deployment audit: each such job counted in
    ``hokm_queue_failed_jobs`` for an hour, a bug to look at for the operator, although
    nothing failed).  The retry finds its turn played and ends as a success."""
    client = redis.Redis.from_url(server.url)
    service = MatchService(RedisStore(client), scheduler=RQScheduler(client, QUEUE, 3.0))
    worker = run(1, HOKM_BOT_THINK_S="2")
    wait_for(lambda: worker.idle(1), WAIT_S, STEP, "the RQ worker waiting for jobs")
    match_id, loaded, job = a_bot_turn_started(service, client)
    worker.kill()
    assert job.get_status(refresh=True) == JobStatus.STARTED  # abandoned
    again = run(1)
    wait_for(lambda: service.load(match_id).version > loaded.version, WAIT_S, STEP,
             "the turn enqueued again by the watchdog and played")
    again.proc.send_signal(signal.SIGTERM)
    wait_for(again.stopped, WAIT_S, STEP, "the new worker's end")
    started = StartedJobRegistry(job.origin, connection=client, serializer=JSONSerializer)
    assert job.id in {key.split(":")[0] for key in started.get_job_ids(cleanup=False)}
    started.cleanup(timestamp=time.time() + 3600)  # RQ's, once the dead worker's entry lapses
    failed = FailedJobRegistry(job.origin, connection=client, serializer=JSONSerializer)
    assert failed.get_job_ids() == []
    assert job.get_status(refresh=True) == JobStatus.QUEUED  # once more
    last = run(1)
    wait_for(lambda: not client.exists(job.key), WAIT_S, STEP,
             "the retried job played (its turn found played) and gone as a success")
    assert failed.get_job_ids() == []
    last.proc.send_signal(signal.SIGTERM)
    wait_for(last.stopped, WAIT_S, STEP, "the last worker's end")
