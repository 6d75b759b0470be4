"""Garbage collection for a long-running gateway process.

A gateway holds thousands of sockets, each with its ASGI stack of coroutines, frames and
closures (at 4,000 sockets and 1,000 matches: about 540,000 tracked objects, 80,000 of them
coroutines), and CPython's full collections traverse every tracked object: in
``bench/load.py``'s capacity phase they came about every five seconds, each a stall of the
event loop of 0.3 to 0.5 s.  Almost all of those objects live as long as their socket, so the
policy keeps them out of the collector's way:

* at start (``serve.py``) everything loaded so far is frozen;
* every ``freeze_every_s`` (a twentieth of a second) everything allocated since is frozen
  (``gc.freeze()``, which moves the young generations into the permanent one without looking at
  them): frozen objects are never traversed again, and acyclic garbage among them is still
  freed at once by reference counting.  Collecting the young generations first (as this policy
  did until 2026-12) was the expensive part: each socket waits for its next message on fresh
  futures and coroutines, each match's state is replaced every move, so the young generations
  held 5,000 to 35,000 live objects whenever a collection came, and young collections stopped
  the loop for up to 90 ms;
* CPython's own full collections are off (its third threshold is raised out of reach): only
  unfrozen objects could be found by one, and with freezes this frequent there are none;
* every ``thaw_every_s`` everything is unfrozen for one full collection (which frees reference
  cycles among frozen objects, such as those a closed socket leaves) and frozen again: the one
  long pause, once per thaw interval.

Measured (``bench/load.py``'s capacity phase, 1,000 tables, 32 s windows, same machine):
garbage collection stopped the event loop for 955 ms in 84 collections (young ones up to 46 ms,
the policy's own up to 81 ms) with a collection of the young generations every 10 s, and for
19 ms (14 young collections, none above 3.3 ms) with a freeze every 50 ms; the capacity p99 to
all four seats went from 131 to 28 ms, the longest stall of the loop from 203 to 18 ms.  The
cycles left among frozen objects: a full collection at the end of that run (4,000 sockets just
closed) found 90,000 unreachable objects in 0.36 s; the process peaked at 213 MB.
Before that, without any policy, full collections came every few seconds at 0.3 to 0.5 s each.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger("hokm.gateway")


FULL_OFF = 1_000_000
"""CPython's third threshold under the policy: its own full collections never come."""


def freeze_survivors() -> None:
    """Freeze everything allocated since the last freeze: no collection, and nothing counted
    (``gc.get_freeze_count`` walks every frozen object: called twenty times a second it cost
    the gateway seconds of latency), so it takes the same few instructions whatever the number
    of objects."""
    gc.freeze()


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
    first, second, _ = gc.get_threshold()
    gc.set_threshold(first, second, FULL_OFF)
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
