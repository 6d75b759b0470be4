"""What a Redis, one or a Cluster, raises when it cannot serve a command now but may in a
moment: unreachable, restarting (``BusyLoadingError`` is a ``ConnectionError``), failing over
(``ClusterDownError``, ``MasterDownError``, ``ReadOnlyError`` from a node just demoted), a slot
migrating (``TryAgainError``, a redirection left unfollowed) or redis-py's cluster client
giving up after its retries (``ClusterError: TTL exhausted``, ``RedisClusterException`` when
no node answers).  The stores turn these into ``StoreUnavailable``, and whatever still meets
one raw (a command outside the stores' own mapping) treats it the same way: ``503
unavailable``, a loop that tries again, one log line (QA F2: a migrating slot gave a bare 500
with a traceback).  A refusal that no retry changes (``CROSSSLOT``, a script error) is not
among them."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import redis
from redis import exceptions

from .port import StoreUnavailable

TRANSIENT: tuple[type[Exception], ...] = (
    redis.ConnectionError, redis.TimeoutError, exceptions.ClusterError,
    exceptions.TryAgainError, exceptions.ReadOnlyError, exceptions.AskError,
    exceptions.RedisClusterException)

UNAVAILABLE: tuple[type[Exception], ...] = (*TRANSIENT, OSError)
"""The same with the socket errors that the asyncio stores meet on connections of their own."""


@contextlib.contextmanager
def translated(kinds: tuple[type[Exception], ...] = TRANSIENT) -> Iterator[None]:
    """Run the block; an error of ``kinds`` (``TRANSIENT``, or ``UNAVAILABLE`` on the asyncio
    stores' own connections) leaves it as ``StoreUnavailable`` with the error's text, the
    error chained as its cause.  Any other error, ``ResponseError`` refusals included, leaves
    it as it is.  The one error translation of every Redis store, threaded or async (a
    ``with`` inside a coroutine translates what its awaits raise)."""
    try:
        yield
    except kinds as exc:
        raise StoreUnavailable(str(exc)) from exc
