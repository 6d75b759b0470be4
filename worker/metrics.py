"""The bot workers' Prometheus metrics: bot turns, decision times, analysis jobs.

Recorded by every worker, wherever it runs, into ``REGISTRY`` (a registry of this module's own,
not prometheus-client's global one).  Who shows them:

* ``hokm worker`` with ``HOKM_WORKER_METRICS_PORT``: ``serve`` puts prometheus-client in its
  multi-process mode (each process, ``--processes`` included, writes its figures to files in a
  folder of its own; the exporter adds them up) and answers ``GET /metrics`` on that port.
* the embedded server: its gateway's ``/metrics`` shows ``REGISTRY`` beside its own (the
  composition root hands it in), since its bot worker is a thread of the same process.

Labels are closed sets (levels, outcomes): no match id, seat, player or card.
"""

from __future__ import annotations

import contextlib
import os
import shutil
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

TURN_OUTCOMES = ("played", "already played", "stale", "empty seat", "not a bot", "refused")
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


def metrics() -> WorkerMetrics:
    """The worker's metrics, made on first use (after ``serve`` chose the multi-process mode,
    when it did)."""
    global _metrics
    if _metrics is None:
        r = REGISTRY
        _metrics = WorkerMetrics(
            turns=Counter("hokm_bot_turns", "Bot turns settled, by outcome (played, "
                          "already_played: a stand-in's move another job made, stale: the match "
                          "had moved on, refused, ...)", ["outcome"], registry=r),
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
    signals, which the main thread must take).  ``OSError`` when the port cannot be bound."""
    from prometheus_client import multiprocess, start_http_server, values

    folder = tempfile.mkdtemp(prefix="hokm-worker-metrics-")
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
