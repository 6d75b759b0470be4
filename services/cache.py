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

from .pipeline import Loaded

CACHE_SIZE = 10_000


class MatchCache:
    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self._entries: OrderedDict[str, Loaded] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, match_id: str) -> Loaded | None:
        """The newest known state of the match (it may be behind the stream), no I/O."""
        with self._lock:
            loaded = self._entries.get(match_id)
            if loaded is not None:
                self._entries.move_to_end(match_id)
            return loaded

    def put(self, match_id: str, loaded: Loaded) -> Loaded:
        """Keep ``loaded`` unless a newer version is held; return the newest."""
        with self._lock:
            current = self._entries.get(match_id)
            if current is not None and current.version >= loaded.version:
                return current
            self._entries[match_id] = loaded
            self._entries.move_to_end(match_id)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
            return loaded

    def forget(self, match_id: str) -> None:
        with self._lock:
            self._entries.pop(match_id, None)

    def forget_all(self) -> None:
        with self._lock:
            self._entries.clear()
