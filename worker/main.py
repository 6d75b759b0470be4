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

Stopping: SIGTERM or SIGINT (Ctrl+C) stops every process, as RQ stops a worker: the first is a
warm shutdown (a job in hand is finished; an idle process stops at once), another one a second
or more later a cold one (RQ fails the job in hand; a bot turn is then re-enqueued by the
watchdog).  With ``--processes`` N the command passes each stop signal on to its processes (a
terminal's Ctrl+C reaches them too: RQ takes a second signal within a second as the same
request), waits for all of them, prints its last line and exits 0, as one process does.  Python
runs signal handlers in the main thread only, when it next runs Python code: so the helper
threads (the watchdog, RQ's pubsub thread, the progress line) block the stop signals, which the
kernel then always hands to the main thread, and no blocking call of the main thread lasts more
than about a second (the dequeue waits ``DEQUEUE_WAIT_S``).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import multiprocessing
import os
import re
import signal
import threading
import time
from collections.abc import Iterator
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
DEQUEUE_WAIT_S = 1
"""Longest wait of a worker's blocking dequeue (RQ's default, ``worker_ttl`` - 15, is 405 s): a
stop signal whose handler has not run yet (it came just before the wait began) is acted on
when the wait ends."""
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_stop_noted: list[int] = []
"""The stop signals this ``hokm worker`` process received before its RQ worker handled them
(while it starts: ``_note_stop``)."""


def _note_stop(signum: int, frame: object) -> None:
    """The handler of the stop signals until RQ's: keep them for the worker (``BotWorker``)."""
    _stop_noted.append(signum)


@contextlib.contextmanager
def _stop_signals_blocked() -> Iterator[None]:
    """SIGINT and SIGTERM blocked in this thread meanwhile: a thread started here inherits the
    mask and never takes them, so the kernel hands them to the main thread, whose blocking call
    they interrupt (one taken by another thread would only be acted on when the main thread next
    runs Python code).  Signals that arrive meanwhile are delivered at the end."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _start_thread(target: Any, name: str, *args: Any) -> threading.Thread:
    """A daemon thread running ``target(*args)``, deaf to the stop signals."""
    thread = threading.Thread(target=target, args=args, name=name, daemon=True)
    with _stop_signals_blocked():
        thread.start()
    return thread


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

    @property
    def dequeue_timeout(self) -> int:
        return DEQUEUE_WAIT_S

    def heartbeat(self, timeout: int | None = None, pipeline: Any = None) -> None:
        if pipeline is None:
            now = time.monotonic()
            if now - self._last_beat < HEARTBEAT_EVERY_S:
                return
            self._last_beat = now
        super().heartbeat(timeout, pipeline)

    def subscribe(self) -> None:
        with _stop_signals_blocked():  # RQ's pubsub thread, started here
            super().subscribe()  # type: ignore[no-untyped-call]

    def _install_signal_handlers(self) -> None:
        super()._install_signal_handlers()  # type: ignore[no-untyped-call]
        if _stop_noted:  # a stop signal came while the worker started: stop before a job
            self._stop_requested = True

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
    blocking dequeue waits at most a second (``DEQUEUE_WAIT_S``), and the next heartbeat outside
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

    return _start_thread(loop, "hokm-watchdog")


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

    _start_thread(run, name)


def _work(burst: bool) -> None:
    """One worker process (``hokm worker``, or each of its ``--processes``) until it stops."""
    for signum in STOP_SIGNALS:  # a child of `_pool` had its handler: `_note_stop` until RQ's
        signal.signal(signum, _note_stop)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)  # `_pool` forks with them blocked
    if _stop_noted:
        return
    from .jobs import runtime

    rt = runtime()
    stop = threading.Event()
    start_watchdog(rt, stop)
    # tables with a human first, post-match analyses last: RQ serves the first non-empty
    # queue of the list
    from .analysis.jobs import queue as analysis_queue

    worker = BotWorker([*rt.scheduler.queues, analysis_queue(rt)],
                       connection=rt.scheduler.client, serializer=JSONSerializer)
    try:
        worker.work(burst=burst, logging_level="WARNING", with_scheduler=False)
    except SystemExit:
        pass  # RQ's cold shutdown (a second stop signal): stopped all the same
    finally:
        stop.set()


def _pool(processes: int, burst: bool) -> None:
    """``processes`` worker processes (``_work``) until every one has ended; a stop signal to
    this process is passed on to each (see the module's docstring)."""
    from multiprocessing.connection import wait

    context = multiprocessing.get_context("fork")  # the processes share the turn counter
    procs = [context.Process(target=_work, args=(burst,), name=f"hokm-worker-{n}")
             for n in range(1, processes + 1)]
    running: dict[int, Any] = {}  # pid -> process, until it is reaped

    def forward(signum: int, frame: object) -> None:
        for pid in list(running):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signum)

    # The children start with the stop signals blocked (so that none runs `forward` or dies
    # of one before `_work` sets its own handlers); one sent to this process meanwhile is
    # forwarded when they are unblocked here.
    with _stop_signals_blocked():
        if _stop_noted:
            return
        for signum in STOP_SIGNALS:
            signal.signal(signum, forward)
        try:
            for p in procs:
                p.start()
                assert p.pid is not None
                running[p.pid] = p
        except BaseException:
            forward(signal.SIGTERM, None)
            raise
        # a signal also wakes the wait below (its handler runs only once the wait returns)
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_r, False)
        os.set_blocking(wake_w, False)
        previous_fd = signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
    try:
        while running:
            ready = wait([*(p.sentinel for p in running.values()), wake_r])
            if wake_r in ready:
                with contextlib.suppress(BlockingIOError):
                    os.read(wake_r, 512)
            for pid, p in list(running.items()):
                if p.sentinel in ready:  # it has ended: no signal to it once it is reaped
                    del running[pid]
                    p.join()
    finally:
        signal.set_wakeup_fd(previous_fd)
        os.close(wake_r)
        os.close(wake_w)


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
    _turns = multiprocessing.get_context("fork").Value("q", 0)
    processes = "1 process" if args.processes == 1 else f"{args.processes} processes"
    # from the start line on, a stop signal stops the worker (and its last line is printed)
    previous = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
    _stop_noted.clear()
    for signum in STOP_SIGNALS:
        signal.signal(signum, _note_stop)
    try:
        print(f"hokm worker: {processes} playing bot turns from {queues} at {redact_url(url)}"
              f"{' until the queues are empty' if args.burst else ''}. Press Ctrl+C to stop.",
              flush=True)
        stop = threading.Event()
        _start_thread(_report, "hokm-progress", _turns, stop)
        try:
            if args.processes == 1:
                _work(args.burst)
            else:
                _pool(args.processes, args.burst)
        finally:
            stop.set()
        print(f"hokm worker: stopped after {int(_turns.value)} bot turns.", flush=True)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from services.clitools import positive_int

    parser = sub.add_parser("worker", help="run RQ workers that play the bots' turns "
                                           "(needs HOKM_REDIS_URL)")
    parser.add_argument("--processes", type=positive_int, default=1,
                        help="worker processes to start")
    parser.add_argument("--burst", action="store_true", help="quit when the queues are empty")
    parser.set_defaults(func=_run)
