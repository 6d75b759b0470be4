"""The gateway's Prometheus metrics (``GET /metrics``, the text exposition format).

One ``Metrics`` per app, each with a registry of its own (not prometheus-client's global one),
so that several apps in one process (the tests) count apart.  A gateway is one process; an
operator scrapes every gateway, and Prometheus sums them.

What is counted, and why these labels only:

* API requests by handler name (``create``, ``command``, ...: the route, never a path, so no
  match id enters a label), status and error code (the API's stable codes, a closed set), with
  their duration.  The pages, static files, health checks and ``/metrics`` are not counted.
* Commands, over HTTP and WebSocket alike, by transport, type (``play``, ``choose_trump``,
  ``discard``, ``draw_talon``; ``other`` for anything else a client sent) and outcome
  (``applied``, ``duplicate`` for a retried command id, or the refusal's code).
* Sockets open on this gateway and sockets opened since start; matches followed by them.
* The bot queues, read from RQ at each scrape: jobs waiting, failed jobs, workers listening,
  and whether the queue's Redis answered.  Worker processes serve no HTTP, so the queues are
  how an operator sees them (a growing ``hokm_queue_jobs`` wants more workers).
* The process's CPU, memory and open files (prometheus-client's own collectors).
* In the embedded server, its in-process bot worker's metrics (``worker/metrics.py``, handed in
  by the composition root as ``beside``).

No card, hand, token, player name or match id is ever a label or a value: the metrics say how
much, never what.  Nor does a label tell of a hand: the refusals of a card that follow from the
sender's hand (``must_follow_suit``: it holds the led suit; ``must_trump``: it holds a trump
and none of the led suit) are counted with ``illegal_card`` as ``card_refused``, since on a
quiet server anyone scraping could tie such a count to the one player who just moved.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator, Sequence
from importlib import metadata
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, Info, PlatformCollector,
    ProcessCollector, generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

log = logging.getLogger("hokm.gateway")

CONTENT_TYPE = CONTENT_TYPE_LATEST
"""The ``Content-Type`` of ``/metrics``'s answer."""

COMMAND_TYPES = frozenset({"play", "choose_trump", "discard", "draw_talon"})
"""The command types the API knows (``Api.parse_command``); any other is counted as ``other``."""

DURATION_BUCKETS = (0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
"""Seconds: a command takes a few milliseconds, a summary less, a refused request's slow body
up to the request timeout (10 s by default)."""


class QueueCollector(Collector):
    """The RQ queues' state at each scrape: ``queues()`` gives the ``rq.Queue`` objects.  A
    queue's Redis that does not answer gives ``hokm_queue_up 0`` for it and no other figure,
    never an error (the scrape itself must not fail because the queue is down)."""

    def __init__(self, queues: Callable[[], Sequence[Any]]) -> None:
        self.queues = queues

    def collect(self) -> Iterator[GaugeMetricFamily]:
        from rq import Worker  # (rq is heavy to import; only a scrape needs it here)

        up = GaugeMetricFamily("hokm_queue_up", "1 when the queue's Redis answered this scrape",
                               labels=["queue"])
        jobs = GaugeMetricFamily("hokm_queue_jobs", "Jobs waiting in the queue",
                                 labels=["queue"])
        failed = GaugeMetricFamily("hokm_queue_failed_jobs", "Jobs in the queue's failed "
                                   "registry (kept by RQ for inspection)", labels=["queue"])
        workers = GaugeMetricFamily("hokm_queue_workers", "Workers listening to the queue",
                                    labels=["queue"])
        for queue in self.queues():
            try:
                figures = (queue.count, queue.failed_job_registry.count,
                           Worker.count(queue=queue))
            except Exception as exc:  # any Redis error: the queue is down, the scrape is not
                log.warning("metrics: the queue %s did not answer (%s)", queue.name,
                            type(exc).__name__)
                up.add_metric([queue.name], 0)
                continue
            up.add_metric([queue.name], 1)
            for family, value in zip((jobs, failed, workers), figures, strict=True):
                family.add_metric([queue.name], value)
        yield from (up, jobs, failed, workers)

    def describe(self) -> Iterable[GaugeMetricFamily]:
        return ()  # the families are known only by collecting: never collect at registration


class Beside(Collector):
    """Another registry's metrics shown with the gateway's (the embedded server's bot worker,
    a thread of this process: ``worker/metrics.py``), read at each scrape."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.registry = registry

    def collect(self) -> Iterator[Any]:
        yield from self.registry.collect()

    def describe(self) -> Iterable[Any]:
        return ()  # (its metrics are made on first use: nothing to check at registration)


class Metrics:
    """The counters of one gateway process, and its ``/metrics`` text; ``beside``: other
    registries of this process to show with them."""

    def __init__(self, *, queues: Callable[[], Sequence[Any]] = lambda: (),
                 followed: Callable[[], int] = lambda: 0,
                 beside: Sequence[CollectorRegistry] = ()) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.requests = Counter(
            "hokm_http_requests", "API requests answered, by handler, status and error code "
            "(empty when none; error: a 500)", ["handler", "status", "code"], registry=r)
        self.duration = Histogram(
            "hokm_http_request_duration_seconds", "Time to answer an API request, by handler",
            ["handler"], buckets=DURATION_BUCKETS, registry=r)
        self.commands = Counter(
            "hokm_commands", "Commands received, by transport (http, ws), type and outcome "
            "(applied, duplicate, or the refusal's code)", ["transport", "type", "outcome"],
            registry=r)
        self.sockets_open = Gauge("hokm_websockets_open", "WebSockets open on this gateway",
                                  registry=r)
        self.sockets = Counter("hokm_websockets", "WebSockets accepted or refused since start",
                               registry=r)
        followed_gauge = Gauge("hokm_matches_followed",
                               "Matches with a socket open on this gateway", registry=r)
        followed_gauge.set_function(lambda: float(followed()))
        Info("hokm_build", "The running version", registry=r).info({"version": _version()})
        r.register(QueueCollector(queues))
        for other in beside:
            r.register(Beside(other))
        ProcessCollector(registry=r)
        PlatformCollector(registry=r)

    def request(self, handler: str, status: int, code: str, seconds: float) -> None:
        """One API request answered."""
        self.requests.labels(handler, str(status), public_code(code)).inc()
        self.duration.labels(handler).observe(seconds)

    def command(self, transport: str, kind: object, outcome: str) -> None:
        """One command's outcome; ``kind`` is the ``type`` the client sent, whatever it was."""
        label = kind if isinstance(kind, str) and kind in COMMAND_TYPES else "other"
        self.commands.labels(transport, label, public_code(outcome)).inc()

    def text(self) -> bytes:
        """The exposition text (reads the queues: call it off the event loop)."""
        return generate_latest(self.registry)


CARD_REFUSALS = frozenset({"illegal_card", "must_follow_suit", "must_trump"})
"""The refusals of a played card, told apart to its sender and counted as one (``card_refused``):
two of them say what the sender's hand holds."""


def public_code(code: str) -> str:
    """The label of an outcome or error code: ``card_refused`` for ``CARD_REFUSALS``."""
    return "card_refused" if code in CARD_REFUSALS else code


def _version() -> str:
    try:
        return metadata.version("hokm")
    except metadata.PackageNotFoundError:  # run from a checkout without installing
        return "unknown"
