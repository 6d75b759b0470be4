"""Fixtures of the client tests: one real ``hokm serve`` (embedded, limits off, stacked decks
allowed) for the session, started through the library's own :class:`LocalServer`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hokmclient import NO_LIMITS, LocalServer

from .proxy import Proxy
from .tmux import Terminal

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def server() -> Iterator[LocalServer]:
    # (a cheap post-match analysis, for ``hokm replay``'s: tests/gateway/test_analysis.py's)
    fast = {"HOKM_ANALYSIS_NODES": "300", "HOKM_ANALYSIS_BOT": "medium"}
    with LocalServer(env={**NO_LIMITS, **fast, "HOKM_ALLOW_STACKED_DECKS": "1"},
                     cwd=ROOT) as running:
        yield running


@pytest.fixture
def terminal() -> Iterator[list[Terminal]]:
    opened: list[Terminal] = []
    yield opened
    for t in opened:
        t.close()


@pytest.fixture
def proxy(server: LocalServer) -> Iterator[Proxy]:
    """A TCP proxy in front of the session's server, whose connections the test can cut."""
    p = Proxy(int(server.url.rsplit(":", 1)[1]))
    yield p
    p.close()
