"""The bot workers' Prometheus metrics: bot turns, decision times, analysis jobs.

Recorded by every worker, wherever it runs, into ``REGISTRY`` (a registry of this module's own,
not prometheus-client's global one).  Who shows them:

* ``hokm worker`` with ``HOKM_WORKER_METRICS_PORT``: ``serve`` puts prometheus-client in its
  multi-process mode (each process, ``--processes`` included, writes its figures to files in a
  folder of its own; the exporter adds them up) and answers ``GET /metrics`` on that port.
  The folder (``hokm-worker-metrics-<pid>-*`` in the temporary directory) is removed when the
  worker stops; one left by a worker killed outright (SIGKILL, the OOM killer) is removed by
  the next worker that starts with metrics on the same machine (and temporary directory): each
  folder holds a lock file locked (``flock``) for as long as its worker or any process forked
  from it runs, so a folder whose lock can be taken is dead (``remove_dead_folders``).
* the embedded server: its gateway's ``/metrics`` shows ``REGISTRY`` beside its own (the
  composition root hands it in), since its bot worker is a thread of the same process.

Labels are closed sets (levels, outcomes): no match id, seat, player or card.
"""

from __future__ import annotations

import contextlib
import fcntl
import glob
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from prometheus_client import CollectorRegistry, Counter, Histogram

REGISTRY = CollectorRegistry(auto_describe=True)
"""Where the worker's metrics are registered (the embedded gateway shows it)."""

DECISION_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
"""Seconds: ``heuristic`` decides in microseconds, ``hard`` in tens of milliseconds, ``expert``
up to about a second."""
ANALYSIS_BUCKETS = (0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)
"""Seconds of one round's analysis."""

TURN_OUTCOMES = ("played", "already played", "stale", "empty seat", "not a bot", "refused",
                 "unavailable")
"""``worker.jobs._settle``'s answers (a refusal's code left out of the label)."""


@dataclass(frozen=True)
class WorkerMetrics:
    turns: Counter
    decisions: Histogram
    fallbacks: Counter
    analyses: Counter
    analysis_seconds: Histogram

    def turn(self, outcome: str) -> None:
        """One bot turn settled; ``outcome`` is what ``_settle`` said."""
        label = outcome.split(":", 1)[0]
        self.turns.labels(label.replace(" ", "_") if label in TURN_OUTCOMES else "other").inc()

    def analysed(self, outcome: str, seconds: float) -> None:
        """One analysis job ended with ``outcome`` (``done``, ``cached``, ...)."""
        self.analyses.labels(outcome.replace(" ", "_")).inc()
        if outcome == "done":
            self.analysis_seconds.observe(seconds)


_metrics: WorkerMetrics | None = None

FOLDER_PREFIX = "hokm-worker-metrics-"
"""The multi-process folders' names in the temporary directory: this, the owner's pid, a dash
and mkdtemp's random letters (the pid for the reader: the lock says whether it runs)."""
LOCK = "owner.lock"
"""The file in a folder that its worker holds locked while it runs (not a ``*.db``: the exporter
reads only those)."""


def _make_folder() -> tuple[str, int]:
    """A new multi-process folder and the descriptor of its lock, locked.  The descriptor is
    inherited by the processes forked from this one (``--processes``), so the lock is held
    until the last of them ends; not by a program executed (Python's descriptors are not
    inheritable across ``exec``).  The lock file gets its name only once locked, so a folder
    being made is never taken for a dead one."""
    folder = tempfile.mkdtemp(prefix=f"{FOLDER_PREFIX}{os.getpid()}-")
    making = os.path.join(folder, LOCK + ".new")
    fd = os.open(making, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # a file nobody else has opened
        os.rename(making, os.path.join(folder, LOCK))
    except BaseException:
        os.close(fd)
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return folder, fd


def remove_dead_folders(parent: str | None = None) -> list[str]:
    """Remove the multi-process folders in ``parent`` (the temporary directory) whose worker no
    longer runs: those whose lock this process can take.  A live worker's lock cannot be taken,
    so its folder stays; so does a folder without a lock file (one being made, or one of a
    version before the lock), one that is not this user's, and one that cannot be read.
    Returns the folders removed."""
    removed = []
    pattern = os.path.join(glob.escape(parent or tempfile.gettempdir()), FOLDER_PREFIX + "*")
    for folder in sorted(glob.glob(pattern)):
        try:
            st = os.lstat(folder)
            if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
                continue  # no link followed, no other user's folder touched
            fd = os.open(os.path.join(folder, LOCK), os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            continue  # held: its worker (or a process forked from it) still runs
        else:
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
        finally:
            os.close(fd)
    return removed


def metrics() -> WorkerMetrics:
    """The worker's metrics, made on first use (after ``serve`` chose the multi-process mode,
    when it did)."""
    global _metrics
    if _metrics is None:
        r = REGISTRY
        _metrics = WorkerMetrics(
            turns=Counter("hokm_bot_turns", "Bot turns settled, by outcome (played, "
                          "already_played: a stand-in's move another job made, stale: the match "
                          "had moved on, refused, unavailable: the store did not answer, the turn "
                          "is enqueued again, ...)", ["outcome"], registry=r),
            decisions=Histogram("hokm_bot_decision_seconds", "Time a bot took to choose its "
                                "move, by level", ["level"], buckets=DECISION_BUCKETS,
                                registry=r),
            fallbacks=Counter("hokm_bot_fallbacks", "Decisions where the level's bot failed "
                              "or chose an illegal move and the heuristic played (a bug)",
                              ["level"], registry=r),
            analyses=Counter("hokm_analysis_jobs", "Post-match analysis jobs (one a round), by "
                             "outcome", ["outcome"], registry=r),
            analysis_seconds=Histogram("hokm_analysis_round_seconds", "Time to analyse one "
                                       "round", buckets=ANALYSIS_BUCKETS, registry=r),
        )
    return _metrics


@contextlib.contextmanager
def serve(port: int, quiet: Callable[[], contextlib.AbstractContextManager[object]]
          ) -> Iterator[None]:
    """Meanwhile, answer ``GET /metrics`` on ``port`` (every interface) with the figures of this
    process and of every process forked from it, through prometheus-client's multi-process
    mode; its folder is removed at the end.  Call before the first metric is made and before
    forking.  The server's thread starts inside ``quiet()`` (``worker.main``: deaf to the stop
    signals, which the main thread must take).  ``OSError`` when the port cannot be bound.
    First the folders of workers killed before they could remove theirs are removed
    (``remove_dead_folders``), by the time the port answers."""
    from prometheus_client import multiprocess, start_http_server, values

    remove_dead_folders()
    folder, lock = _make_folder()
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = folder
    values.ValueClass = values.get_value_class()  # type: ignore[no-untyped-call]  # from now on: files
    exported = CollectorRegistry()
    multiprocess.MultiProcessCollector(exported, path=folder)  # type: ignore[no-untyped-call]
    server = None
    try:
        with quiet():
            server, _ = start_http_server(port, registry=exported)
        yield
    finally:
        if server is not None:
            server.shutdown()
            server.server_close()
        os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)
        values.ValueClass = values.get_value_class()  # type: ignore[no-untyped-call]
        shutil.rmtree(folder, ignore_errors=True)
        os.close(lock)  # after the folder is gone: nobody takes it for a dead one meanwhile
