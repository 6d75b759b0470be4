"""The one match cache of a process: match id -> the newest ``Loaded`` this process knows.

Shared by every writer of the process (the gateway's event loop, the match service's threads,
bot jobs) and by the hub, which puts every record it folds.  Entries are immutable, so readers
never copy; ``put`` keeps whichever of two versions is newer, so a late writer can never move a
match back.  Bounded (least recently used first out); everything in it can be rebuilt from the
store, and ``forget_all`` drops it when the store may have lost acknowledged writes.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, TypeVar

from .pipeline import Loaded

CACHE_SIZE = 10_000

T = TypeVar("T")


class Lru(Generic[T]):
    """A bounded map (least recently used first out), safe to share between threads."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self._entries: OrderedDict[str, T] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> T | None:
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
            return value

    def put(self, key: str, value: T) -> T:
        with self._lock:
            return self._put(key, value)

    def _put(self, key: str, value: T) -> T:
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)
        return value

    def forget(self, key: str) -> None:
        with self._lock:
            self._entries.pop(key, None)

    def forget_all(self) -> None:
        with self._lock:
            self._entries.clear()


class MatchCache(Lru[Loaded]):
    def put(self, match_id: str, loaded: Loaded) -> Loaded:
        """Keep ``loaded`` unless a newer version is held; return the newest."""
        with self._lock:
            current = self._entries.get(match_id)
            if current is not None and current.version >= loaded.version:
                return current
            return self._put(match_id, loaded)
