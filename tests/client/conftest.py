"""Fixtures of the client tests: one real ``hokm serve`` (embedded, limits off, stacked decks
allowed) for the session, started through the library's own :class:`LocalServer`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hokmclient import NO_LIMITS, LocalServer

from .tmux import Terminal

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def server() -> Iterator[LocalServer]:
    with LocalServer(env={**NO_LIMITS, "HOKM_ALLOW_STACKED_DECKS": "1"}, cwd=ROOT) as running:
        yield running


@pytest.fixture
def terminal() -> Iterator[list[Terminal]]:
    opened: list[Terminal] = []
    yield opened
    for t in opened:
        t.close()
