"""Blocking calls run off the event loop, with a refusal that leaves no garbage behind.

``starlette.concurrency.run_in_threadpool`` (anyio's worker threads) passes an exception raised
in the thread to the loop inside a reference cycle: the worker's frame holds the exception,
whose traceback holds that frame, its ``Future`` and ``CancelScope``.  Reference counting never
frees a cycle, and the gateway's collector policy (``gcpolicy``: everything frozen every 50 ms,
one full collection a ``HOKM_GC_THAW``) finds it only at the next thaw, 15 minutes on: a
hostile-client audit measured 4 to 7 KB kept per refused request (a join of a full match, a
command with a wrong token, an unknown match), about 200 MB per client address within the
request limit between two thaws.

:func:`off_loop` is ``run_in_threadpool`` for the service's calls: a refusal (a
:class:`~engine.errors.HokmError`, an error value with a stable code, raised often and by
design) is caught in the thread and handed back as a value, its traceback dropped (it is never
logged: the answer is its code and message), and raised again on the loop by a frame that
forgets it at once.  Any other exception (a bug, Redis gone) passes as before, traceback and
all, for the log: those are rare.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from starlette.concurrency import run_in_threadpool

from engine.errors import HokmError

T = TypeVar("T")


class _Refused:
    """A refusal carried out of the thread as a value."""

    __slots__ = ("error",)

    def __init__(self, error: HokmError) -> None:
        self.error = error


def _capture(fn: Callable[..., T], args: tuple[Any, ...], kwargs: dict[str, Any]
             ) -> T | _Refused:
    try:
        return fn(*args, **kwargs)
    except HokmError as error:
        error.__traceback__ = None  # the thread's frames: nothing of them is wanted
        return _Refused(error)


async def off_loop(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)`` in a worker thread; its refusal raised here, its traceback the
    loop's frames alone, and no frame of this function left holding it."""
    outcome: T | _Refused = await run_in_threadpool(_capture, fn, args, kwargs)
    if not isinstance(outcome, _Refused):
        return outcome
    error: HokmError | None = outcome.error
    del outcome
    try:
        raise error  # type: ignore[misc]
    finally:
        error = None
