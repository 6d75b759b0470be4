"""``hokm worker``: RQ worker processes for bot turns, on any host that reaches the Redis.

Worker class: ``BotWorker``, an ``rq.SimpleWorker`` (jobs run in the worker process) that sends
fewer heartbeats.  A bot turn is a short, CPU-bound function of plain data; forking a work horse
per job (RQ's default ``Worker``) costs 21-30 ms per empty job on our 2-core machines against
about 4.5 ms in-process (``bench/bots.py`` measures both), for no isolation we need.  A job also
plays the bot turns that follow its own while the queue is idle (``worker/jobs.py``).
Scale out by running more processes (``--processes``) or more hosts.

Every worker process also runs the watchdog: about twice a second it moves on the deadlines of
the bot turns this process is playing (``RQScheduler.extend``), re-enqueues bot turns that are
overdue (their worker died mid-job), so a turn is recovered within seconds, and schedules a
stand-in move for a human whose turn it is and who has been away past the room's timeout, or who
is present but has let the turn outlast the room's ``turn_timeout`` (``services/turns.py``).  It
also wakes at the earliest turn deadline it knows of (``keys.TURNS``, read after each pass:
``watch_wait``), so a stand-in follows the countdown's end by a job's time, not by up to a
period more.  While the Redis does not answer it says so once, and once more when it answers
again.

A Redis outage does not end a worker: a job that meets it logs one line and ends, its turn
still pending, so the watchdog enqueues it again (``worker/jobs.py``: not a failed job, nor a
traceback), and when RQ itself cannot reach the Redis its worker leaves its loop
(``BotWorker``); the process logs one line, waits until the Redis answers and starts a new RQ
worker (``_work``).  A Redis restarted from a snapshot older than the job in hand (RDB
persistence after a crash) no longer knows that job when it ends: one line, nothing recorded
(``BotWorker.handle_job_success``); the turns the restored matches wait for are enqueued by the
watchdog as after any outage.  With ``--processes`` N a process that ends unexpectedly all the same
(killed, a bug) is replaced, with a log line, at most once a second (``_pool``).

Output: one line at start (processes, queues, Redis), then a line every ``PROGRESS_EVERY_S``
in which bot turns were played (how many, all processes together; never one per move), and a
last line when it stops.  Warnings and errors go to stderr through ``logging``.  With
``HOKM_WORKER_METRICS_PORT`` it also answers ``GET /metrics`` on that port for all its
processes (``worker/metrics.py``).

Stopping: SIGTERM or SIGINT (Ctrl+C) stops every process, as RQ stops a worker: the first is a
warm shutdown (a job in hand is finished; an idle process stops at once), another one a second
or more later a cold one (RQ fails the job in hand; a bot turn is then re-enqueued by the
watchdog).  With ``--processes`` N the command passes each stop signal on to its processes (a
terminal's Ctrl+C reaches them too: RQ takes a second signal within a second as the same
request), waits for all of them and prints its last line, as one process does; it then exits 0
after SIGTERM (how operators and container runtimes stop it: a clean stop) and 130 after SIGINT
(Ctrl+C), as ``hokm serve`` and every ``hokm`` command do (``services/clitools.py``).  Should
the command itself die without passing a signal on (``kill -9``, the OOM killer), each of its
processes is sent SIGTERM by the kernel (Linux's parent-death signal,
``lifetime.end_with_parent``) and stops as above, a bot turn in hand played to its end: none runs
on as an orphan, next to the processes of a command started again.  Python runs signal handlers in
the main thread only, when it next runs Python code: so the helper threads (the watchdog, RQ's
pubsub thread, the progress line) block the stop signals, which the kernel then always hands to the
main thread, and no blocking call of the main thread lasts more
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
from collections.abc import Callable, Iterator
from typing import Any

import redis
from rq import SimpleWorker
from rq.exceptions import InvalidJobOperation, StopRequested
from rq.serializers import JSONSerializer
from rq.timeouts import TimerDeathPenalty

from services.runtime import Runtime
from services.store.connect import EXTERNAL_HELP, UNREACHABLE

from .lifetime import end_with_parent

log = logging.getLogger("hokm.worker")
WATCH_INTERVAL_S = 0.5
"""The watchdog's period: the longest it waits between two passes (the safety pass)."""
WATCH_MIN_S = 0.01
"""The shortest: a pass that left due turns behind (more than a page) goes on almost at once."""
REDIS_DOWN = UNREACHABLE
"""What a Redis that does not answer (restarting, failing over) raises: expected, logged in one
line, never with a traceback."""
RESTART_PAUSE_S = 1.0
"""Least time between the starts of a worker (an RQ worker after it lost its Redis, a process of
``--processes`` after it ended): a worker that fails at once never spins."""


HEARTBEAT_EVERY_S = 5.0
"""Least time between two stand-alone worker heartbeats (see ``BotWorker``)."""
PROGRESS_EVERY_S = 60.0
"""How often ``hokm worker`` prints how many bot turns it played (when it played some)."""
_turns: Any = None
"""The bot turns played by this ``hokm worker`` (a ``multiprocessing.Value`` its processes
share; None elsewhere, e.g. in the embedded server)."""
_analysed: Any = None
"""The analysis jobs (rounds) this ``hokm worker`` ran, shared by its processes (``--burst``
said "stopped after 0 bot turns" after ten analyses: an audit's finding)."""
_KEPT = re.compile(r"\(\+(\d+) kept\)")
DEQUEUE_WAIT_S = 1
"""Longest wait of a worker's blocking dequeue (RQ's default, ``worker_ttl`` - 15, is 405 s): a
stop signal whose handler has not run yet (it came just before the wait began) is acted on
when the wait ends."""
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_stop_noted: list[int] = []
"""The stop signals this ``hokm worker`` process received before its RQ worker handled them
(while it starts: ``_note_stop``)."""
_stopped_by: list[int] = []
"""The first stop signal this ``hokm worker`` process received, however it was handled (its
exit status: 130 for SIGINT, 0 for SIGTERM)."""


_ignored: set[int] = set()
"""The stop signals this ``hokm worker`` was started with ignored (``hokm worker &`` from a
script: the shell ignores SIGINT for it, so that the Ctrl+C of the script's foreground is not
for it): they stay ignored, as in ``hokm serve`` (it stopped on them: an audit's finding)."""


def _handle_stops(handler: Any) -> None:
    """``handler`` for each stop signal not ignored from the start (``_ignored``)."""
    for signum in STOP_SIGNALS:
        signal.signal(signum, signal.SIG_IGN if signum in _ignored else handler)


def _first_stop(signum: int) -> None:
    """Note the stop signal ``signum`` if it is the first."""
    if not _stopped_by:
        _stopped_by.append(signum)


def _note_stop(signum: int, frame: object) -> None:
    """The handler of the stop signals until RQ's: keep them for the worker (``BotWorker``)."""
    _first_stop(signum)
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
    max_connection_wait_time = float(DEQUEUE_WAIT_S)
    """RQ waits up to a minute between two tries of a dequeue that cannot reach the Redis: a
    second here, so that it goes on soon after the Redis is back, and a stop signal is acted on
    within about a second meanwhile too."""
    lost: BaseException | None = None
    """Why RQ could not go on with its Redis (it went away in the middle of a job), if it could
    not: the worker then leaves its loop and ``_work`` starts another one."""
    drained = False
    """Whether a dequeue found nothing to do (in ``--burst``: the normal end)."""
    asked_to_stop = False
    """Whether a stop signal came (RQ notes it only when a job is in hand)."""

    @property
    def dequeue_timeout(self) -> int:
        return DEQUEUE_WAIT_S

    def dequeue_job_and_maintain_ttl(self, timeout: int | None,
                                     max_idle_time: int | None = None) -> Any:
        found = super().dequeue_job_and_maintain_ttl(timeout, max_idle_time)
        if found is None:
            self.drained = True
        return found

    def reorder_queues(self, reference_queue: Any) -> None:
        """After each job: the first queue (tables with a human) stays first, and the queue the
        job came from, if another, goes last, so that the queues after the first take turns
        (bots-only matches and post-match analyses: with RQ's strict order, bots-only matches
        started one after another kept a worker's analyses waiting for ever)."""
        first, *rest = self._ordered_queues
        if reference_queue.name != first.name and len(rest) > 1:
            self._ordered_queues = [first, *(q for q in rest if q.name != reference_queue.name),
                                    *(q for q in rest if q.name == reference_queue.name)]

    def execute_job(self, job: Any, queue: Any) -> None:
        """RQ's, but a Redis that stops answering meanwhile ends the worker's loop quietly
        instead of with RQ's "unhandled exception" and a traceback.  The job failed on it (the
        turn stays pending: the watchdog enqueues it again), and RQ could not record that."""
        try:
            super().execute_job(job, queue)
        except REDIS_DOWN as exc:
            self.lost = exc
            raise StopRequested() from exc  # RQ's loop ends on it, then ``teardown``

    def teardown(self) -> None:
        """RQ's, tolerating a Redis that does not answer: the worker's death is then registered
        by ``_work`` once it does (``_retire``).  The pool's idle connections are closed first:
        a stop signal to an idle worker raises inside its blocking dequeue (RQ's warm
        shutdown), and redis-py gives that connection back to the pool with the dequeue's
        answer still to come, which the death's MULTI/EXEC would read as their own ("Wrong
        number of response items from pipeline execution", a traceback at the stop)."""
        with contextlib.suppress(Exception):  # (closing a socket: nothing to report)
            self.connection.connection_pool.disconnect(inuse_connections=False)
        try:
            super().teardown()  # type: ignore[no-untyped-call]
        except REDIS_DOWN as exc:
            self.lost = self.lost or exc
            thread = getattr(self, "pubsub_thread", None)
            if thread is not None:
                thread.stop()  # RQ's unsubscribe did not get that far

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
        _handle_stops(self.request_stop)  # (RQ's took the ignored ones over too)
        if _stop_noted:  # a stop signal came while the worker started: stop before a job
            self._stop_requested = True

    def request_stop(self, signum: int, frame: Any) -> None:
        from .jobs import STOPPING

        _first_stop(signum)
        STOPPING.set()  # the turn in hand is finished, and no other kept
        self.asked_to_stop = True
        super().request_stop(signum, frame)  # type: ignore[no-untyped-call]
        for ignored in _ignored:  # (RQ's takes both over for a second, forced stop)
            signal.signal(ignored, signal.SIG_IGN)

    def handle_job_success(self, job: Any, *args: Any, **kwargs: Any) -> None:
        """RQ's, but a job that the Redis no longer knows when it ends (the Redis restarted
        from a snapshot older than the job, or lost its data) is one line in the log instead of
        RQ's traceback (``InvalidJobOperation`` from its cleanup, then the job recorded as a
        failure).  Its work is done: the move is in the match if the match is still there,
        and whatever turn the restored match still waits for is enqueued by the watchdog."""
        try:
            super().handle_job_success(job, *args, **kwargs)
        except InvalidJobOperation:
            if job.connection.hexists(job.key, "status"):
                raise  # the job is there: another failure, for RQ to report as it does
            self._forget(job, kwargs.get("execution"))
        counter = _turns
        if counter is not None:
            played = turns_played(getattr(job, "_result", None))
            if played:
                with counter.get_lock():
                    counter.value += played
        analysed = _analysed
        if analysed is not None and job.func_name.startswith("worker.analysis."):
            with analysed.get_lock():
                analysed.value += 1

    def _forget(self, job: Any, execution: Any) -> None:
        """One line for a job that ended once its Redis had forgotten it, and the traces of
        it written since (RQ's heartbeats recreate a hash of the job with only its last
        heartbeat, and an entry in the started registry)."""
        log.warning("job %s ended, but the Redis no longer knows it (restarted from an older "
                    "snapshot?): nothing to record, going on", job.id)
        with self.connection.pipeline() as pipeline:
            self.cleanup_execution(job, pipeline=pipeline, execution=execution)
            pipeline.delete(job.key)
            pipeline.execute()


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


def watch_wait(now: float, deadline: float | None) -> float:
    """Seconds the watchdog waits before its next pass, ``now`` being the end of a pass: until
    the earliest turn deadline it knows of (``deadline``, epoch seconds: its stand-in is due
    then), but at most ``WATCH_INTERVAL_S`` (away seats, stalled bot turns and deadlines written
    meanwhile are looked at that often) and at least ``WATCH_MIN_S``."""
    if deadline is None:
        return WATCH_INTERVAL_S
    return min(WATCH_INTERVAL_S, max(WATCH_MIN_S, deadline - now))


def start_watchdog(rt: Runtime, stop: threading.Event,
                   clock: Callable[[], float] = time.time) -> threading.Thread:
    """The watchdog's thread (see the module's docstring), until ``stop`` is set.  A Redis that
    does not answer is logged once when passes start failing on it and once when one succeeds
    again; any other failure (a bug) with its traceback, each time; after a failed pass the
    next comes a period later.  ``clock``: the time the deadlines are compared with."""
    from services.bots import next_turn_deadline, recover_away, recover_turns

    from .jobs import away_due, is_bots_only, set_runtime, still_due, turn_due, turns_in_hand

    def loop() -> None:
        set_runtime(rt, this_thread=True)
        failing = False
        wait = WATCH_INTERVAL_S
        while not stop.wait(wait):
            wait = WATCH_INTERVAL_S
            try:
                rt.scheduler.extend(turns_in_hand(rt.scheduler))
                rt.scheduler.recover_stalled(still_due, is_bots_only)
                recover_away(rt.client, rt.scheduler, away_due, clock)
                recover_turns(rt.client, rt.scheduler, turn_due, clock)
                wait = watch_wait(clock(), next_turn_deadline(rt.client))
            except REDIS_DOWN as exc:
                if not failing:
                    log.warning("watchdog: the Redis does not answer (%s); trying again every "
                                "%.1f s", _reason(exc), WATCH_INTERVAL_S)
                failing = True
                continue
            except Exception:  # keep watching whatever one pass met
                log.exception("watchdog pass failed")
            if failing:
                log.warning("watchdog: the Redis answers again")
                failing = False

    return _start_thread(loop, "hokm-watchdog")


def _reason(exc: BaseException) -> str:
    """An exception in a few words, for a log line."""
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def start_in_process(rt: Runtime) -> threading.Event:
    """The embedded default: one RQ worker thread and the watchdog in this process, and a
    thread for post-match analyses (``worker/analysis/jobs.py``): they take seconds a round,
    so the bots' turns never wait behind one."""
    stop = threading.Event()
    # tables with a human first: RQ serves the first non-empty queue of the list
    _thread_worker(rt, rt.scheduler.queues, stop, "hokm-bot-worker")
    _thread_worker(rt, [rt.scheduler.analysis_queue], stop, "hokm-analysis-worker")
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


class _Seldom(logging.Filter):
    """Lets RQ's "could not connect to Redis instance" through at most once a minute: RQ logs
    it at every try while its Redis is away (every second with ``BotWorker``, and every two
    seconds from its pubsub thread)."""

    EVERY_S = 60.0

    def __init__(self) -> None:
        super().__init__()
        self.last = -self.EVERY_S

    def filter(self, record: logging.LogRecord) -> bool:
        if "could not connect to Redis instance" not in str(record.msg):
            return True
        now = time.monotonic()
        if now - self.last < self.EVERY_S:
            return False
        self.last = now
        return True


def _work(burst: bool) -> None:
    """One worker process (``hokm worker``, or each of its ``--processes``) until it stops."""
    _handle_stops(_note_stop)  # a child of `_pool` had its handler: `_note_stop` until RQ's
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)  # `_pool` forks with them blocked
    if _stop_noted:
        return
    from .jobs import runtime

    logging.getLogger("rq.worker").addFilter(_Seldom())
    rt = runtime()
    stop = threading.Event()
    start_watchdog(rt, stop)
    # tables with a human first; then bots-only matches and post-match analyses take turns
    # (BotWorker.reorder_queues): RQ serves the first non-empty queue of the list
    try:
        while _serve(rt, rt.scheduler.all_queues, burst):
            pass
    finally:
        stop.set()


def _serve(rt: Runtime, queues: list[Any], burst: bool) -> bool:
    """One RQ worker until it stops; whether to start another: it stopped without being asked
    to (it lost its Redis, or RQ quit on an error it logged), and the Redis answers again.  A
    stop signal meanwhile ends it all (False)."""
    worker = BotWorker(queues, connection=rt.scheduler.client, serializer=JSONSerializer)
    try:
        try:
            worker.work(burst=burst, logging_level="WARNING", with_scheduler=False)
        finally:  # RQ's handlers are for its loop: from here on a stop signal is only noted
            _handle_stops(_note_stop)
    except (SystemExit, StopRequested):
        return False  # RQ's cold shutdown (a second stop signal), or a stop as the loop ended
    except REDIS_DOWN as exc:  # it could not even start (or, for RQ, end)
        worker.lost = worker.lost or exc
    if worker.asked_to_stop or _stop_noted or (burst and worker.drained):
        return False
    if worker.lost is not None:
        log.warning("the RQ worker lost its Redis (%s): the worker goes on once it answers",
                    _reason(worker.lost))
    else:
        log.warning("the RQ worker quit on the error above: another one starts")
    if not _await_redis(rt.scheduler.client):
        return False
    _retire(worker)
    if worker.lost is not None:
        log.warning("the Redis answers again: the worker goes on")
    return True


def _await_redis(client: Any) -> bool:
    """Wait until ``client``'s Redis answers (at least ``RESTART_PAUSE_S``); False if a stop
    signal came first.  Sleeps a fraction of a second at a time, so a stop is acted on soon."""
    started = time.monotonic()
    while not _stop_noted:
        if time.monotonic() - started >= RESTART_PAUSE_S:
            try:
                client.ping()
                return True
            except redis.RedisError:
                pass
        time.sleep(WATCH_INTERVAL_S)
    return False


def _retire(worker: BotWorker) -> None:
    """Register the death of an RQ worker that ended without reaching its Redis (monitoring
    would list it for minutes), now that the Redis answers; best effort."""
    with contextlib.suppress(redis.RedisError):
        worker.register_death()  # type: ignore[no-untyped-call]


def _pool(processes: int, burst: bool) -> None:
    """``processes`` worker processes (``_work``) until every one has ended; a stop signal to
    this process is passed on to each (see the module's docstring).  A process that ends before
    any stop signal (killed, a bug; in ``--burst`` also a failure) is replaced, with a log line,
    at most once every ``RESTART_PAUSE_S``."""
    from multiprocessing.connection import wait

    context = multiprocessing.get_context("fork")  # the processes share the turn counter
    running: dict[int, Any] = {}  # pid -> process, until it is reaped
    started: dict[str, float] = {}  # process name -> when its latest process started
    due: dict[str, float] = {}  # process name -> when its replacement is to start
    stopping = False

    def forward(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True
        _first_stop(signum)
        for pid in list(running):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signum)

    def start(name: str) -> None:
        """Start process ``name``; call with the stop signals blocked (see below)."""
        p = context.Process(target=_child, args=(burst, os.getpid(), wake_r, wake_w),
                            name=name)
        p.start()
        assert p.pid is not None
        running[p.pid] = p
        started[name] = time.monotonic()
        if stopping:  # `forward` ran while it started (a pending handler can run here)
            with contextlib.suppress(ProcessLookupError):
                os.kill(p.pid, signal.SIGTERM)

    # The children start with the stop signals blocked (so that none runs `forward` or dies
    # of one before `_work` sets its own handlers); one sent to this process meanwhile is
    # forwarded when they are unblocked here.
    with _stop_signals_blocked():
        if _stop_noted:
            return
        # a signal also wakes the wait below (its handler runs only once the wait returns)
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_r, False)
        os.set_blocking(wake_w, False)
        _handle_stops(forward)
        previous_fd = signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
        try:
            for n in range(1, processes + 1):
                start(f"hokm-worker-{n}")
        except BaseException:
            forward(signal.SIGTERM, None)
            raise
    try:
        while running or (due and not stopping):
            timeout = max(0.0, min(due.values()) - time.monotonic()) if due else None
            ready = wait([*(p.sentinel for p in running.values()), wake_r], timeout)
            if wake_r in ready:
                with contextlib.suppress(BlockingIOError):
                    os.read(wake_r, 512)
            for pid, p in list(running.items()):
                if p.sentinel in ready:  # it has ended: no signal to it once it is reaped
                    del running[pid]
                    p.join()
                    if not stopping and not (burst and p.exitcode == 0):
                        log.warning("worker process %s (pid %d) ended unexpectedly (%s): "
                                    "another one takes its place", p.name, pid,
                                    _ending(p.exitcode))
                        due[p.name] = started[p.name] + RESTART_PAUSE_S
            with _stop_signals_blocked():
                if stopping:
                    due.clear()
                now = time.monotonic()
                for name, at in list(due.items()):
                    if at <= now:
                        del due[name]
                        start(name)
    finally:
        signal.set_wakeup_fd(previous_fd)
        os.close(wake_r)
        os.close(wake_w)


def _child(burst: bool, parent: int, *fds: int) -> None:
    """A process of ``_pool`` (``parent``'s pid): tied to its parent's life
    (``lifetime.end_with_parent``; the blocked SIGTERM is noted once ``_work`` installs its
    handler, or taken by RQ), without the pool's wake-up pipe (``fds``), then ``_work``."""
    end_with_parent(parent)
    signal.set_wakeup_fd(-1)
    for fd in fds:
        os.close(fd)
    _work(burst)


def _ending(exitcode: int | None) -> str:
    """How a process ended, in words."""
    if exitcode is not None and exitcode < 0:
        try:
            return f"killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    return f"exit status {exitcode}"


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
    from services.clitools import CliError, redact_url, unreachable
    from services.runtime import build_runtime
    from services.store import connect

    url = os.environ.get("HOKM_REDIS_URL")
    if not url:
        raise CliError("needs HOKM_REDIS_URL, the Redis of the matches (the embedded server, "
                       "`hokm serve` without it, runs its own bot worker)", 2)
    logging.basicConfig(level=logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s %(message)s")
    where = url
    try:
        rt = build_runtime()
        rt.client.ping()
        connect.check_single(rt.client, url)
        where = rt.settings.queue_url or url  # RQ's Redis (HOKM_QUEUE_URL), checked as well
        rt.scheduler.client.ping()
        if rt.settings.queue_url:
            connect.check_single(rt.scheduler.client, rt.settings.queue_url, "HOKM_QUEUE_URL")
    except ValueError as exc:
        raise CliError(f"a HOKM_ setting is not valid ({exc})", 2) from None
    except redis.RedisError as exc:
        raise unreachable(where, exc) from None
    from .analysis.jobs import queue_name

    queues = ", ".join(q.name for q in rt.scheduler.queues)
    queues += f" (post-match analyses from {queue_name(rt)})"
    if rt.settings.queue_url:  # the queues live in a Redis of their own: name both
        queues += f" at {redact_url(rt.settings.queue_url)}, for the matches"
    rt.client.close()  # no connection the processes would share
    rt.scheduler.client.close()
    exporting = contextlib.ExitStack()
    port = rt.settings.worker_metrics_port
    if port:  # before the first metric is made and before the processes fork
        from .metrics import serve

        try:
            exporting.enter_context(serve(port, _stop_signals_blocked))
        except OSError as exc:
            # could not be carried out (1), as ``hokm serve`` on a port in use
            raise CliError(f"HOKM_WORKER_METRICS_PORT: cannot listen on port {port} "
                           f"({exc.strerror or exc})", 1) from None
        queues += f"; metrics on port {port}"
    with exporting:
        return _start(args, url, queues)


def _start(args: argparse.Namespace, url: str, queues: str) -> int:
    """``_run`` once the Redis answered: the processes, until they stop."""
    from services.clitools import redact_url

    global _turns, _analysed
    _turns = multiprocessing.get_context("fork").Value("q", 0)
    _analysed = multiprocessing.get_context("fork").Value("q", 0)
    processes = "1 process" if args.processes == 1 else f"{args.processes} processes"
    # from the start line on, a stop signal stops the worker (and its last line is printed)
    previous = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
    _ignored.clear()
    _ignored.update(signum for signum, handler in previous.items() if handler == signal.SIG_IGN)
    _stop_noted.clear()
    _stopped_by.clear()
    _handle_stops(_note_stop)
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
        rounds = int(_analysed.value)
        print(f"hokm worker: stopped after {int(_turns.value)} bot turns"
              + (f" and {rounds} analysed rounds." if rounds else "."), flush=True)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)
    return 130 if _stopped_by[:1] == [signal.SIGINT] else 0  # Ctrl+C: as every command


MAX_PROCESSES = 256
"""The most ``--processes``: a bot turn is CPU-bound, so more processes than a few per core
only share the cores; a mistyped 100000 would fork the machine to a halt."""


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from services.clitools import positive_at_most

    parser = sub.add_parser("worker", help="run RQ workers that play the bots' turns "
                                           "(needs HOKM_REDIS_URL)",
                            description="RQ workers that play the bots' turns, then post-match "
                                        "analyses, for the gateways (`hokm serve`) that use "
                                        "the same Redis (HOKM_REDIS_URL, needed).",
                            epilog=EXTERNAL_HELP)
    parser.add_argument("--processes", type=positive_at_most(MAX_PROCESSES, "processes",
                                                             "run more hosts for more"),
                        default=1, help=f"worker processes to start (1 to {MAX_PROCESSES})")
    parser.add_argument("--burst", action="store_true", help="quit when the queues are empty")
    parser.set_defaults(func=_run)
