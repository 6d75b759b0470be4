"""Garbage collection for a long-running gateway process.

A gateway holds thousands of sockets, each with its ASGI stack of coroutines, frames and
closures (at 4,000 sockets and 1,000 matches: about 540,000 tracked objects, 80,000 of them
coroutines), and CPython's full collections traverse every tracked object: in
``bench/load.py``'s capacity phase they came about every five seconds, each a stall of the
event loop of 0.3 to 0.5 s.  Almost all of those objects live as long as their socket, so the
policy keeps them out of the collector's way:

* at start (``serve.py``) everything loaded so far is frozen;
* every ``freeze_every_s`` the young generations are collected and whatever survived is frozen
  (``gc.freeze()``): frozen objects are never traversed again, and acyclic garbage among them
  is still freed at once by reference counting;
* every ``thaw_every_s`` they are unfrozen for one full collection (which frees reference
  cycles among them, such as those a closed socket leaves) and frozen again: the one long pause,
  once per thaw interval instead of every few seconds.

Measured (capacity phase, 1,000 tables, 30 s, same machine and load): full collections' CPU
1,868 ms with the largest 384 ms without the policy, 537 ms and 122 ms with it.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger("hokm.gateway")


def freeze_survivors() -> int:
    """Collect the young generations and freeze what survived; returns the frozen count."""
    gc.collect(1)
    gc.freeze()
    return gc.get_freeze_count()


def thaw_and_collect() -> int:
    """Unfreeze, run a full collection, freeze again; returns the objects collected."""
    gc.unfreeze()
    found = gc.collect()
    gc.freeze()
    return found


def start(freeze_every_s: float, thaw_every_s: float,
          clock: Callable[[], float] = time.monotonic) -> threading.Event | None:
    """Run the policy in a daemon thread (it needs no event loop: the collector holds the GIL
    while it works, whichever thread asks); returns the event that stops it, or None when
    ``freeze_every_s`` is 0 (the policy off: CPython's own collections alone)."""
    if freeze_every_s <= 0:
        return None
    stop = threading.Event()

    def run() -> None:
        thawed = clock()
        while not stop.wait(freeze_every_s):
            if thaw_every_s > 0 and clock() - thawed >= thaw_every_s:
                t0 = time.perf_counter()
                found = thaw_and_collect()
                thawed = clock()
                log.info("full collection: %d objects freed in %.0f ms", found,
                         (time.perf_counter() - t0) * 1e3)
            else:
                freeze_survivors()

    threading.Thread(target=run, name="hokm-gc", daemon=True).start()
    return stop
