"""Fixtures of the gateway tests (helpers live in ``helpers.py``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .helpers import Gateway, gateway


@pytest.fixture(scope="session")
def gw() -> Iterator[Gateway]:
    """The shared embedded gateway (with its in-process bot worker); no rate limits."""
    with gateway() as client:
        yield client
