"""The ``waiting`` flag of the followers (``port.Follower.waiting``), set the one way all of
them set it: True exactly while their ``next_batch`` is parked until news comes (a wake-up
awaited, or a blocking read sent and its answer awaited), which is what a test waits for
before it changes the store under a waiting follower."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Protocol


class Waits(Protocol):
    waiting: bool


@contextlib.contextmanager
def parked(follower: Waits) -> Iterator[None]:
    """``follower.waiting`` is True for the block and False after it, however the block ends
    (an answer, an error, a cancellation)."""
    follower.waiting = True
    try:
        yield
    finally:
        follower.waiting = False
