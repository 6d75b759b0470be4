"""The watchdog wakes at the earliest turn deadline it knows of (``keys.TURNS``), so a stand-in
follows the end of a countdown closely, and at least once a period whatever it knows
(``worker.main.watch_wait``, ``start_watchdog``).  The mechanism is asserted here, with a
clock of the test's; how closely it follows is a benchmark's business."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from services.runtime import build_runtime
from services.store import keys
from tests.conftest import wait_for
from tests.gateway.helpers import make_settings
from worker import main as worker_main
from worker.main import WATCH_INTERVAL_S, WATCH_MIN_S, watch_wait

NOW = 2_000_000_000.0
"""The watchdog's clock in these tests: the turn entries are never due by it."""


def test_the_wait_runs_to_the_earliest_deadline_within_the_period() -> None:
    assert watch_wait(NOW, None) == WATCH_INTERVAL_S  # no turn runs under a limit
    assert watch_wait(NOW, NOW + 0.2) == pytest.approx(0.2)
    assert watch_wait(NOW, NOW + 30) == WATCH_INTERVAL_S  # the safety pass comes first
    assert watch_wait(NOW, NOW - 1) == WATCH_MIN_S  # due already (a page left): at once


class Waits(threading.Event):
    """A stop event that keeps every wait the watchdog asks of it."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[float] = []

    def wait(self, timeout: float | None = None) -> bool:
        assert timeout is not None
        self.asked.append(timeout)
        return super().wait(timeout)


def test_the_watchdog_waits_for_the_earliest_turn_deadline_in_the_store() -> None:
    rt = build_runtime(make_settings())
    stop = Waits()
    thread = worker_main.start_watchdog(rt, stop, clock=lambda: NOW)
    try:
        rt.client.zadd(keys.TURNS, {"m1:0:5": NOW + 0.3, "m2:1:7": NOW + 0.2})

        def asked(wait: float) -> Any:
            return lambda: any(w == pytest.approx(wait) for w in list(stop.asked))

        wait_for(asked(0.2), 10, what="a wait to the earliest deadline")
        assert all(w == WATCH_INTERVAL_S or w == pytest.approx(0.2) for w in stop.asked)
        rt.client.delete(keys.TURNS)  # nothing to wait for: the period again
        seen = len(stop.asked)
        wait_for(lambda: WATCH_INTERVAL_S in stop.asked[seen + 1:], 10, what="the period")
    finally:
        stop.set()
        thread.join(timeout=10)
        rt.close()
    assert not thread.is_alive()
