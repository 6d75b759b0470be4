"""What a seat has witnessed: its redacted copy of every event of the match, kept per process.

A bot policy receives exactly this and the seat's current view, so it knows what a human with a
perfect memory in that seat would know and nothing more.  The cache extends each match's
histories incrementally from the records after the version it already holds.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from engine import State, evolve, redact_event
from engine.events import MatchCreated
from services.store.port import EventStore

CACHE_SIZE = 2000


class _Entry:
    __slots__ = ("state", "version", "seats")

    def __init__(self, players: int = 4) -> None:
        self.state = State()
        self.version = 0
        self.seats: list[list[dict[str, Any]]] = [[] for _ in range(players)]


class Histories:
    def __init__(self) -> None:
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._lock = threading.Lock()

    def for_seat(self, store: EventStore, match_id: str, seat: int, version: int
                 ) -> list[dict[str, Any]]:
        """The redacted events seat ``seat`` has seen up to ``version`` (a copy)."""
        with self._lock:
            entry = self._entries.pop(match_id, None)
            if entry is None or entry.version > version:
                entry = _Entry()
            self._entries[match_id] = entry
            while len(self._entries) > CACHE_SIZE:
                self._entries.popitem(last=False)
        # Entries are extended by one thread at a time per match in practice (one job per turn);
        # the lock above only guards the dictionary.
        if entry.version < version:
            for record in store.read(match_id, entry.version, version):
                for event in record.events:
                    if isinstance(event, MatchCreated):  # one history per seat of the variant
                        entry.seats = [[] for _ in range(event.rules.players)]
                    for s, seen in enumerate(entry.seats):
                        seen.append(redact_event(entry.state, event, s))
                    entry.state = evolve(entry.state, event)
                entry.version = record.version
        return list(entry.seats[seat])
