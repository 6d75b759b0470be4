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

Output: one line at start (processes, queues, Redis), then a line every ``PROGRESS_EVERY_S``
in which bot turns were played (how many, all processes together; never one per move), and a
last line when it stops.  Warnings and errors go to stderr through ``logging``.
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing
import os
import re
import threading
import time
from typing import Any

from rq import SimpleWorker
from rq.exceptions import StopRequested
from rq.serializers import JSONSerializer
from rq.timeouts import TimerDeathPenalty

from services.runtime import Runtime

log = logging.getLogger("hokm.worker")
WATCH_INTERVAL_S = 0.5


HEARTBEAT_EVERY_S = 5.0
"""Least time between two stand-alone worker heartbeats (see ``BotWorker``)."""
PROGRESS_EVERY_S = 60.0
"""How often ``hokm worker`` prints how many bot turns it played (when it played some)."""
_turns: Any = None
"""The bot turns played by this ``hokm worker`` (a ``multiprocessing.Value`` its processes
share; None elsewhere, e.g. in the embedded server)."""
_KEPT = re.compile(r"\(\+(\d+) kept\)")


def turns_played(result: object) -> int:
    """The bot turns a ``bot_turn`` job played, from what it returns (``"played"``, or
    ``"played (+N kept)"`` when it went on with the turns that followed)."""
    if not isinstance(result, str):
        return 0
    kept = _KEPT.search(result)
    return (1 if result.startswith("played") else 0) + (int(kept.group(1)) if kept else 0)


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

    def handle_job_success(self, job: Any, *args: Any, **kwargs: Any) -> None:
        super().handle_job_success(job, *args, **kwargs)
        counter = _turns
        if counter is not None:
            played = turns_played(getattr(job, "_result", None))
            if played:
                with counter.get_lock():
                    counter.value += played


class ThreadWorker(BotWorker):
    """A ``BotWorker`` that can run in a non-main thread (the embedded server's bot worker).

    It stops within about a second of ``stop`` being set (the server shutting down): its
    blocking dequeue waits at most a second (``worker_ttl`` 16), and the next heartbeat outside
    a job raises RQ's own ``StopRequested``."""

    death_penalty_class = TimerDeathPenalty
    stop: threading.Event | None = None

    def _install_signal_handlers(self) -> None:
        pass

    def heartbeat(self, timeout: int | None = None, pipeline: Any = None) -> None:
        if pipeline is None and self.stop is not None and self.stop.is_set():
            raise StopRequested()
        super().heartbeat(timeout, pipeline)


def start_watchdog(rt: Runtime, stop: threading.Event) -> threading.Thread:
    from services.bots import recover_away

    from .jobs import away_due, is_bots_only, set_runtime, still_due

    def loop() -> None:
        set_runtime(rt, this_thread=True)
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
    """The embedded default: one RQ worker thread and the watchdog in this process, and a
    thread for post-match analyses (``worker/analysis/jobs.py``): they take seconds a round,
    so the bots' turns never wait behind one."""
    from .analysis.jobs import queue as analysis_queue

    stop = threading.Event()
    # tables with a human first: RQ serves the first non-empty queue of the list
    _thread_worker(rt, rt.scheduler.queues, stop, "hokm-bot-worker")
    _thread_worker(rt, [analysis_queue(rt)], stop, "hokm-analysis-worker")
    start_watchdog(rt, stop)
    return stop


def _thread_worker(rt: Runtime, queues: list[Any], stop: threading.Event, name: str) -> None:
    """A ``ThreadWorker`` on ``queues`` in a daemon thread, until ``stop`` is set."""
    from .jobs import set_runtime

    set_runtime(rt)
    worker = ThreadWorker(queues, connection=rt.scheduler.client, serializer=JSONSerializer,
                          worker_ttl=16)
    worker.stop = stop

    def run() -> None:
        set_runtime(rt, this_thread=True)
        worker.work(burst=False, logging_level="WARNING", with_scheduler=False)

    threading.Thread(target=run, name=name, daemon=True).start()


def _work(burst: bool) -> None:
    from .jobs import runtime

    rt = runtime()
    stop = threading.Event()
    start_watchdog(rt, stop)
    # tables with a human first, post-match analyses last: RQ serves the first non-empty
    # queue of the list
    from .analysis.jobs import queue as analysis_queue

    worker = BotWorker([*rt.scheduler.queues, analysis_queue(rt)],
                       connection=rt.scheduler.client, serializer=JSONSerializer)
    worker.work(burst=burst, logging_level="WARNING", with_scheduler=False)
    stop.set()


def _report(counter: Any, stop: threading.Event) -> None:
    """Print the turns played every ``PROGRESS_EVERY_S`` in which some were."""
    last = 0
    while not stop.wait(PROGRESS_EVERY_S):
        total = int(counter.value)
        if total != last:
            print(f"hokm worker: {total - last} bot turns played in the last "
                  f"{PROGRESS_EVERY_S:.0f} s ({total} since start)", flush=True)
            last = total


def _run(args: argparse.Namespace) -> int:
    import redis

    from services.clitools import CliError, redact_url, unreachable
    from services.runtime import build_runtime

    global _turns
    url = os.environ.get("HOKM_REDIS_URL")
    if not url:
        raise CliError("needs HOKM_REDIS_URL, the Redis of the matches (the embedded server, "
                       "`hokm serve` without it, runs its own bot worker)", 2)
    logging.basicConfig(level=logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s %(message)s")
    try:
        rt = build_runtime()
        rt.client.ping()
    except ValueError as exc:
        raise CliError(f"a HOKM_ setting is not valid ({exc})") from None
    except redis.RedisError as exc:
        raise unreachable(url, exc) from None
    from .analysis.jobs import queue_name

    queues = ", ".join(q.name for q in rt.scheduler.queues)
    queues += f" (post-match analyses from {queue_name(rt)})"
    rt.client.close()
    context = multiprocessing.get_context("fork")  # the processes share the turn counter
    _turns = context.Value("q", 0)
    processes = "1 process" if args.processes == 1 else f"{args.processes} processes"
    print(f"hokm worker: {processes} playing bot turns from {queues} at {redact_url(url)}"
          f"{' until the queues are empty' if args.burst else ''}. Press Ctrl+C to stop.",
          flush=True)
    stop = threading.Event()
    threading.Thread(target=_report, args=(_turns, stop), name="hokm-progress",
                     daemon=True).start()
    try:
        if args.processes == 1:
            _work(args.burst)
        else:
            procs = [context.Process(target=_work, args=(args.burst,), daemon=False)
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
    finally:
        stop.set()
    print(f"hokm worker: stopped after {int(_turns.value)} bot turns.", flush=True)
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from services.clitools import positive_int

    parser = sub.add_parser("worker", help="run RQ workers that play the bots' turns "
                                           "(needs HOKM_REDIS_URL)")
    parser.add_argument("--processes", type=positive_int, default=1,
                        help="worker processes to start")
    parser.add_argument("--burst", action="store_true", help="quit when the queues are empty")
    parser.set_defaults(func=_run)
