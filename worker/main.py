"""``hokm worker``: RQ worker processes for bot turns, on any host that reaches the Redis.

Worker class: ``BotWorker``, an ``rq.SimpleWorker`` (jobs run in the worker process) that sends
fewer heartbeats.  A bot turn is a short, CPU-bound function of plain data; forking a work horse
per job (RQ's default ``Worker``) costs 21-30 ms per empty job on our 2-core machines against
about 4.5 ms in-process (``bench/bots.py`` measures both), for no isolation we need.  A job also
plays the bot turns that follow its own while the queue is idle (``worker/jobs.py``).
Scale out by running more processes (``--processes``) or more hosts.

Every worker process also runs the watchdog: about twice a second it re-enqueues bot turns that
are overdue (their worker died mid-job), so a turn is recovered within seconds, and schedules a
stand-in move for a human whose turn it is and who has been away past the room's timeout.
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing
import os
import threading
import time
from typing import Any

from rq import SimpleWorker
from rq.serializers import JSONSerializer
from rq.timeouts import TimerDeathPenalty

from services.runtime import Runtime

log = logging.getLogger("hokm.worker")
WATCH_INTERVAL_S = 0.5


HEARTBEAT_EVERY_S = 5.0
"""Least time between two stand-alone worker heartbeats (see ``BotWorker``)."""


class BotWorker(SimpleWorker):
    """``rq.SimpleWorker`` with fewer round trips per job.

    RQ sends the worker's heartbeat (three Redis commands, each a round trip when not in a
    pipeline) about five times per job; a bot turn takes milliseconds, so this was a large part
    of the time from a commit to the bot's reply.  Stand-alone heartbeats are sent at most every
    ``HEARTBEAT_EVERY_S`` seconds (the worker key lives ``worker_ttl`` + 60 s, minutes); those
    inside RQ's pipelines cost no round trip and are kept.  A dead worker's turns are recovered
    by the watchdog, not by heartbeats.
    """

    _last_beat = 0.0

    def heartbeat(self, timeout: int | None = None, pipeline: Any = None) -> None:
        if pipeline is None:
            now = time.monotonic()
            if now - self._last_beat < HEARTBEAT_EVERY_S:
                return
            self._last_beat = now
        super().heartbeat(timeout, pipeline)


class ThreadWorker(BotWorker):
    """A ``BotWorker`` that can run in a non-main thread (the embedded server's bot worker)."""

    death_penalty_class = TimerDeathPenalty

    def _install_signal_handlers(self) -> None:
        pass


def start_watchdog(rt: Runtime, stop: threading.Event) -> threading.Thread:
    from services.bots import recover_away

    from .jobs import away_due, is_bots_only, still_due

    def loop() -> None:
        while not stop.wait(WATCH_INTERVAL_S):
            try:
                rt.scheduler.recover_stalled(still_due, is_bots_only)
                recover_away(rt.client, rt.scheduler, away_due)
            except Exception:  # keep watching whatever one pass met
                log.exception("watchdog pass failed")

    thread = threading.Thread(target=loop, name="hokm-watchdog", daemon=True)
    thread.start()
    return thread


def start_in_process(rt: Runtime) -> threading.Event:
    """The embedded default: one RQ worker thread and the watchdog in this process."""
    from .jobs import set_runtime

    set_runtime(rt)
    stop = threading.Event()
    # tables with a human first: RQ serves the first non-empty queue of the list
    worker = ThreadWorker(rt.scheduler.queues, connection=rt.client, serializer=JSONSerializer)

    def run() -> None:
        worker.work(burst=False, logging_level="WARNING", with_scheduler=False)

    threading.Thread(target=run, name="hokm-bot-worker", daemon=True).start()
    start_watchdog(rt, stop)
    return stop


def _work(burst: bool) -> None:
    from .jobs import runtime

    rt = runtime()
    stop = threading.Event()
    start_watchdog(rt, stop)
    # tables with a human first: RQ serves the first non-empty queue of the list
    worker = BotWorker(rt.scheduler.queues, connection=rt.client, serializer=JSONSerializer)
    worker.work(burst=burst, logging_level="WARNING", with_scheduler=False)
    stop.set()


def _run(args: argparse.Namespace) -> int:
    if not os.environ.get("HOKM_REDIS_URL"):
        print("hokm worker needs HOKM_REDIS_URL (the embedded server runs its own bot worker)")
        return 2
    if args.processes == 1:
        _work(args.burst)
        return 0
    procs = [multiprocessing.Process(target=_work, args=(args.burst,), daemon=False)
             for _ in range(args.processes)]
    for p in procs:
        p.start()
    try:
        for p in procs:
            p.join()
    except KeyboardInterrupt:
        for p in procs:
            p.terminate()
        time.sleep(0.1)
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("worker", help="run RQ workers that play the bots' turns")
    parser.add_argument("--processes", type=int, default=1, help="worker processes to start")
    parser.add_argument("--burst", action="store_true", help="quit when the queue is empty")
    parser.set_defaults(func=_run)
