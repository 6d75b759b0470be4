"""The analysis's RQ jobs: one per round of a finished match, results stored beside the match.

``enqueue(rt, match_id, rounds)`` puts ``analyse_round_job(match_id, round)`` on the queue
``<HOKM_QUEUE>-analysis`` for each round not marked queued or running yet (the mark is taken
first with ``AnalysisStore.mark_analysis(new=True)``, so a round is never enqueued twice; the
composition root hands it to the gateway, ``hokm analyze`` calls it).  The job returns at once
when the round's result is stored already (asking twice never computes twice), else refreshes
the round's mark to ``RUNNING_TTL_S`` and keeps refreshing it after every decision while it
computes, then stores the result (clearing the mark).  A worker that dies mid-job stops
refreshing: the mark lapses within ``RUNNING_TTL_S`` and the next request enqueues the round
again.  A job still waiting in the queue keeps the mark the request gave it (``QUEUED_TTL_S``);
should it wait longer than that, a request enqueues the round a second time and the later job
finds the result stored (or, if both run at once, both compute the same result).

Workers serve this queue after the bot queues (``worker/main.py``): a bot's turn never waits
behind an analysis that has not started.  Settings (read when a job runs):
``HOKM_ANALYSIS_NODES`` (solver nodes per question, ``AnalysisConfig.nodes``),
``HOKM_ANALYSIS_BOT`` (the search whose choice is reported: ``hard``, the default, ``medium``
or ``expert``; tests use ``medium``) and ``HOKM_ANALYSIS_TTL`` (``RUNNING_TTL_S``).  They are
read and checked by ``services/settings.py`` (``Settings.from_env`` checks them too, so a
server or a worker with a bad value refuses to start): a bad value is a ``SettingError``
naming the variable.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Protocol

from rq import Queue

from engine.events import CardPlayed, MatchEnded, RoundStarted
from services.matches import MatchService
from services.pipeline import CorruptLog, chained
from services.quotas import RetryLater
from services.runtime import Runtime
from services.settings import env_analysis_bot, env_analysis_nodes, env_analysis_ttl_s
from services.store.port import AnalysisStore, Record
from worker.jobs import runtime
from worker.metrics import metrics
from worker.policies import EXPERT, HARD, MEDIUM

from .core import AnalysisConfig, analyse_round

JOB = "worker.analysis.jobs.analyse_round_job"
QUEUED_TTL_S = 900.0
"""How long a request's mark holds a round that waits in the queue."""
RUNNING_TTL_S = env_analysis_ttl_s()
"""How long a running job's mark lasts unless refreshed (it is, after every decision):
``HOKM_ANALYSIS_TTL`` seconds, 60 by default (a test makes it short)."""
WAITING_CAP = 100
"""The most analysis jobs waiting in the queue for a request of the gateway to add more: about
ten minutes of one worker's work (a round takes seconds), under ``QUEUED_TTL_S``, so a waiting
round's mark does not lapse and get the round enqueued twice.  Finished bots-only matches, which
anyone may ask to analyse, no longer grow the queue without end (an audit: one address queued
about 360 rounds every ten minutes)."""
BUSY_RETRY_S = 60.0
"""The ``Retry-After`` of a request refused for ``WAITING_CAP``."""
BOTS = {"hard": HARD, "medium": MEDIUM, "expert": EXPERT}
"""The searches by HOKM_ANALYSIS_BOT's values (``services.settings.ANALYSIS_BOTS``)."""


def queue_name(rt: Runtime) -> str:
    return queue(rt).name


def queue(rt: Runtime) -> Queue:
    """The analysis queue, on the bot queue's Redis (the scheduler's: its kept bots-only turns
    give way to waiting analyses)."""
    return rt.scheduler.analysis_queue


def enqueue(rt: Runtime, match_id: str, rounds: Sequence[int], cap: int | None = None
            ) -> list[int]:
    """Enqueue a job for each of ``rounds`` (rounds without a stored result) that no request
    has marked queued or running yet, the longest first (:func:`longest_first`); returns those
    enqueued, in round order.  The mark is taken first, so
    two requests at once enqueue a round once; a mark whose enqueue failed is removed.

    With ``cap`` (the gateway's: anyone may ask for any finished match), rounds not queued yet
    are enqueued only while fewer than ``cap`` jobs wait in the queue; else none is, and
    ``RetryLater`` says to ask again in ``BUSY_RETRY_S`` (a request for rounds already queued
    is never refused)."""
    q = queue(rt)
    stamp = int(time.time() * 1000)
    fresh: list[int] = []
    for round_no in longest_first(rt.store.read(match_id), rounds):
        if not rt.store.mark_analysis(match_id, round_no, QUEUED_TTL_S, new=True):
            continue
        if cap is not None and not fresh and q.count >= cap:
            rt.store.mark_analysis(match_id, round_no, 0.001, new=False)  # (given back)
            raise RetryLater("the analyses are busy; ask again in a minute", BUSY_RETRY_S)
        try:
            q.enqueue_call(JOB, args=(match_id, round_no),
                           job_id=f"analysis-{match_id}-{round_no}-{stamp}", result_ttl=0,
                           failure_ttl=3600, timeout=3600)
        except Exception:
            rt.store.mark_analysis(match_id, round_no, 0.001, new=False)
            raise
        fresh.append(round_no)
    return sorted(fresh)


def longest_first(records: Sequence[Record], rounds: Sequence[int]) -> list[int]:
    """``rounds`` in the order to enqueue them: the most cards played first (more decisions to
    judge, and longer positions), so workers that take jobs in queue order end together
    (longest processing time first) instead of one finishing the longest round alone."""
    played: dict[int, int] = {}
    round_no = -1
    for record in records:
        for event in record.events:
            if isinstance(event, RoundStarted):
                round_no += 1
            elif isinstance(event, CardPlayed):
                played[round_no] = played.get(round_no, 0) + 1
    return sorted(rounds, key=lambda r: (-played.get(r, 0), r))


def config() -> AnalysisConfig:
    """The analysis settings of this process's environment (see the module docstring); a
    value that is not valid raises ``services.settings.SettingError``, naming the variable."""
    nodes = env_analysis_nodes()
    bot = BOTS[env_analysis_bot()]
    return AnalysisConfig(bot=bot) if nodes is None else AnalysisConfig(nodes=nodes, bot=bot)


def analyse_round_job(match_id: str, round_no: int) -> str:
    """Compute and store one round's analysis unless it is stored already; returns what
    happened (``cached``, ``done``, ``not over``)."""
    store = runtime().store
    start = time.perf_counter()
    outcome = analyse_and_store(store, match_id, round_no, config())
    metrics().analysed(outcome, time.perf_counter() - start)
    return outcome


class Store(AnalysisStore, Protocol):
    """What the job needs of a store: the records and the analysis beside them."""

    def read(self, match_id: str, after: int = 0, upto: int | None = None) -> list[Record]: ...


def analyse_and_store(store: Store, match_id: str, round_no: int, cfg: AnalysisConfig) -> str:
    """The job's work on a store (also ``hokm analyze --local``)."""
    if round_no in store.analysis_results(match_id):
        return "cached"

    def refresh() -> None:
        store.mark_analysis(match_id, round_no, RUNNING_TTL_S, new=False)

    refresh()
    records = store.read(match_id)
    try:
        chained(records)
    except CorruptLog as damage:  # nothing to analyse: the gateway answers match_damaged
        MatchService.damaged(match_id, damage)
        return "damaged"
    if not any(isinstance(e, MatchEnded) for r in records for e in r.events):
        return "not over"
    result = analyse_round(records, round_no, cfg, refresh)
    store.put_analysis(match_id, round_no, json.dumps(result, separators=(",", ":")).encode())
    return "done"
