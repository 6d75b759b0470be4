"""The gateway's garbage-collection policy (services/gateway/gcpolicy.py): survivors are frozen
out of the collector's passes, garbage is still freed (by reference counting at once, cycles
at the next thaw), and the policy can be switched off."""

from __future__ import annotations

import gc
import threading
import weakref
from collections.abc import Iterator

import pytest

from services.gateway import gcpolicy
from tests.conftest import wait_for


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def frozen_cycle() -> weakref.ref[Node]:
    """Two nodes referring to each other, frozen, then dropped: garbage only a full collection
    of unfrozen objects can find."""
    a, b = Node(), Node()
    a.other, b.other = b, a
    gcpolicy.freeze_survivors()
    return weakref.ref(a)


@pytest.fixture(autouse=True)
def unfrozen() -> Iterator[None]:
    thresholds = gc.get_threshold()
    gc.unfreeze()
    yield
    gc.unfreeze()  # (the rest of the test run gets the collector as it found it)
    gc.set_threshold(*thresholds)
    gc.collect()


def test_frozen_cycles_wait_for_the_thaw() -> None:
    cycle = frozen_cycle()
    assert gc.get_freeze_count() > 0
    gc.collect()
    assert cycle() is not None  # frozen: no collection looks at it
    assert gcpolicy.thaw_and_collect() >= 2
    assert cycle() is None
    assert gc.get_freeze_count() > 0  # the rest is frozen again


def test_acyclic_garbage_among_frozen_objects_is_freed_at_once() -> None:
    node = Node()
    gcpolicy.freeze_survivors()
    gone = weakref.ref(node)
    del node
    assert gone() is None  # reference counting, no collection needed


def test_the_policy_thread_freezes_then_thaws_and_stops() -> None:
    cycle = frozen_cycle()
    ticks = iter(range(1_000_000))
    stop = gcpolicy.start(0.01, 3, clock=lambda: float(next(ticks)))
    assert stop is not None
    try:
        wait_for(lambda: cycle() is None, 10, what="the thaw's full collection")
    finally:
        stop.set()
        # the thread may be inside a thaw when told to stop: wait for it, so that its last
        # freeze cannot land in the middle of the next test
        for thread in threading.enumerate():
            if thread.name == "hokm-gc":
                thread.join(10)
    assert not [t for t in threading.enumerate() if t.name == "hokm-gc"]  # it stopped
    assert gc.get_threshold()[2] == gcpolicy.FULL_OFF  # its own full collections are off
    assert gcpolicy.start(0, 900) is None  # off: CPython's own collections alone


def _freeze_empties_the_young() -> bool:
    gcpolicy.freeze_survivors()
    return gc.get_count()[0] == 0


def test_a_freeze_costs_the_same_whatever_the_number_of_objects() -> None:
    """A freeze moves the young generations as they are, without a collection: a cycle made
    after it is still found by a young collection until the next freeze takes it too."""
    keep = [Node() for _ in range(50_000)]
    # another thread of this process (the session's shared gateway: its watchdog wakes twice a
    # second) may allocate between the freeze and the count: a freeze that leaves the young
    # generation empty is seen within a few tries, and a freeze that did not empty it never
    assert any(_freeze_empties_the_young() for _ in range(50))
    a, b = Node(), Node()
    a.other, b.other = b, a
    gone = weakref.ref(a)
    del a, b
    # young, not frozen: a young collection frees it (the one asked for here, or one another
    # thread's allocations started first; the count is not asserted, a frozen cycle would
    # survive either)
    gc.collect(0)
    assert gone() is None
    assert len(keep) == 50_000
