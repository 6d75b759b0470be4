"""Wiring the layers: the gateway app with the worker's pieces handed in."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from starlette.applications import Starlette

from services.gateway.app import create_app
from services.runtime import Runtime


def advise(view: dict[str, Any]) -> dict[str, Any]:
    """The learner's hint (``worker.hints``: the heuristic on the seat's own hand and trick)."""
    from worker.hints import hint

    advice: dict[str, Any] = hint(view, random.Random())
    return advice


def gateway_app(runtime: Runtime | None = None, *, in_process_worker: bool | None = None
                ) -> Starlette:
    """The gateway of ``runtime`` (from the environment if None) with the hint advisor, the
    post-match analysis's job queue and, in the embedded mode by default (or as
    ``in_process_worker`` says), an in-process bot worker (and analysis worker); ``/metrics``
    reports the bot queues and the analysis queue, and the in-process worker's metrics."""
    from services.runtime import build_runtime
    from worker.analysis.jobs import WAITING_CAP, enqueue
    from worker.main import start_in_process
    from worker.metrics import REGISTRY

    rt = runtime or build_runtime()
    worker = rt.embedded if in_process_worker is None else in_process_worker

    def analyst(match_id: str, rounds: Sequence[int]) -> list[int]:
        """The post-match analysis: a worker job per round not queued yet (none while the
        queue is full: ``rate_limited``)."""
        return enqueue(rt, match_id, rounds, cap=WAITING_CAP)

    queues = rt.scheduler.all_queues
    return create_app(rt, advisor=advise, start_worker=start_in_process if worker else None,
                      analyst=analyst, queues=lambda: queues,
                      metrics_beside=[REGISTRY] if worker else [])
