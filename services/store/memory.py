"""An in-memory event store for unit tests (same contract as the Redis one, one process):
``MemoryStore`` for threads, ``AsyncMemoryStore`` (with its follower) for an event loop, both
over the same records."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable

from .codec import decode, sealed
from .parking import parked
from .port import Conflict, Entries, Record, move_up


class MemoryStore:
    """Keeps encoded records (so the codec is exercised exactly as with Redis)."""

    def __init__(self) -> None:
        self._logs: dict[str, list[bytes]] = {}
        self._meta: dict[tuple[str, str], dict[str, str]] = {}
        self._cond = threading.Condition()
        self._lapse: dict[str, float] = {}
        """Match id -> when its record lapses (``keep``; not enforced: tests read it)."""
        self._counters: dict[tuple[str, str, int], int] = {}
        self._slots: dict[tuple[str, str | None], dict[str, float]] = {}
        self._analysis: dict[str, dict[int, bytes]] = {}
        self._marks: dict[tuple[str, int], float] = {}
        """(match, round) -> when the analysis mark lapses (``time.monotonic``)."""
        self._requests: dict[tuple[str | None, str], tuple[str, float]] = {}
        """(match or None, request) -> remembered value and when it lapses (monotonic)."""
        self._listeners: list[Callable[[], None]] = []
        """Called (from the appending thread) after every append: followers' wake-ups."""
        self.tails_waiting = 0
        """``tail`` calls parked until a record comes (a test waits for one before it
        appends, instead of a fixed sleep)."""

    def append(self, match_id: str, record: Record) -> Record:
        out, payload = sealed(record)
        self.append_sealed(match_id, record.version, payload)
        return out

    def append_sealed(self, match_id: str, version: int, payload: bytes) -> None:
        with self._cond:
            log = self._logs.setdefault(match_id, [])
            if version != len(log) + 1:
                raise Conflict(len(log))
            log.append(payload)  # opaque bytes, as in Redis
            self._cond.notify_all()
            listeners = list(self._listeners)
        for wake in listeners:
            wake()

    def read(self, match_id: str, after: int = 0, upto: int | None = None) -> list[Record]:
        with self._cond:
            log = list(self._logs.get(match_id, ()))
        end = len(log) if upto is None else min(upto, len(log))
        return [decode(v, log[v - 1]) for v in range(max(after, 0) + 1, end + 1)]

    def read_raw(self, match_id: str, after: int = 0, upto: int | None = None
                 ) -> list[tuple[int, bytes]]:
        with self._cond:
            log = list(self._logs.get(match_id, ()))
        end = len(log) if upto is None else min(upto, len(log))
        return [(v, log[v - 1]) for v in range(max(after, 0) + 1, end + 1)]

    def tail(self, match_id: str, after: int, block_ms: int) -> list[Record]:
        with self._cond:
            # counted under the lock that an append takes: once a test sees the count, its
            # append comes after the tail's first look, and wakes it
            self.tails_waiting += 1
            try:
                self._cond.wait_for(lambda: len(self._logs.get(match_id, ())) > after,
                                    timeout=block_ms / 1000)
            finally:
                self.tails_waiting -= 1
        return self.read(match_id, after)

    def version(self, match_id: str) -> int:
        with self._cond:
            return len(self._logs.get(match_id, ()))

    def command_version(self, match_id: str, command_id: str) -> int | None:
        for record in reversed(self.read(match_id)):
            if record.command_id == command_id:
                return record.version
        return None

    def confirm_stored(self, match_id: str, version: int) -> None:
        pass  # (no replicas)

    def put_meta(self, match_id: str, name: str, values: dict[str, str]) -> None:
        with self._cond:
            self._meta.setdefault((match_id, name), {}).update(values)

    def get_meta(self, match_id: str, name: str) -> dict[str, str]:
        with self._cond:
            return dict(self._meta.get((match_id, name), {}))

    def get_meta_field(self, match_id: str, name: str, key: str) -> str | None:
        with self._cond:
            return self._meta.get((match_id, name), {}).get(key)

    def put_meta_once(self, match_id: str, name: str, key: str, value: str) -> str:
        with self._cond:
            return self._meta.setdefault((match_id, name), {}).setdefault(key, value)

    def delete_meta_field(self, match_id: str, name: str, key: str) -> None:
        with self._cond:
            self._meta.get((match_id, name), {}).pop(key, None)

    def remember(self, match_id: str | None, request: str, value: str, ttl_s: float) -> str:
        now = time.monotonic()
        with self._cond:
            kept = self._requests.get((match_id, request))
            if kept is not None and kept[1] > now:
                return kept[0]
            self._requests[(match_id, request)] = (value, now + ttl_s)
            return value

    def forget(self, match_id: str | None, request: str) -> None:
        with self._cond:
            self._requests.pop((match_id, request), None)

    def keep(self, match_id: str, seconds: float) -> None:
        with self._cond:
            self._lapse[match_id] = float("inf") if seconds <= 0 else seconds

    def hit(self, name: str, subject: str, window_s: float, now: float) -> int:
        with self._cond:
            key = (name, subject, int(now // window_s))
            self._counters[key] = self._counters.get(key, 0) + 1
            return self._counters[key]

    def take_slot(self, pool: str, member: str, owner: str, limits: tuple[int, int],
                  lapse_at: float, now: float) -> bool:
        with self._cond:
            held = []
            for key in ((pool, None), (pool, owner)):
                members = self._slots.setdefault(key, {})
                for name in [m for m, at in members.items() if at <= now]:
                    del members[name]
                members[member] = lapse_at
                held.append(len(members))
        if any(0 < limit < count for limit, count in zip(limits, held, strict=True)):
            self.release_slot(pool, member, owner)
            return False
        return True

    def release_slot(self, pool: str, member: str, owner: str) -> None:
        with self._cond:
            for key in ((pool, None), (pool, owner)):
                self._slots.get(key, {}).pop(member, None)

    # -- post-match analysis (port.AnalysisStore) ---------------------------------------------

    def analysis_results(self, match_id: str) -> dict[int, bytes]:
        with self._cond:
            return dict(self._analysis.get(match_id, {}))

    def put_analysis(self, match_id: str, round_no: int, payload: bytes) -> None:
        with self._cond:
            self._analysis.setdefault(match_id, {})[round_no] = payload
            self._marks.pop((match_id, round_no), None)

    def mark_analysis(self, match_id: str, round_no: int, ttl_s: float, *, new: bool) -> bool:
        now = time.monotonic()
        with self._cond:
            if new and self._marks.get((match_id, round_no), 0.0) > now:
                return False
            self._marks[(match_id, round_no)] = now + ttl_s
            return True


class AsyncMemoryStore:
    """``AsyncEventStore`` over a ``MemoryStore`` (the records are shared with its threads)."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    async def append(self, match_id: str, version: int, payload: bytes) -> bool:
        try:
            self.store.append_sealed(match_id, version, payload)
        except Conflict:
            return False
        return True

    async def read_raw(self, match_id: str, after: int = 0, upto: int | None = None
                       ) -> Entries:
        return self.store.read_raw(match_id, after, upto)

    def follower(self) -> MemoryFollower:
        return MemoryFollower(self.store)

    async def close(self) -> None:
        pass


class MemoryFollower:
    """``Follower`` over a ``MemoryStore``: woken by every append, from any thread."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self.positions: dict[str, int] = {}
        self.commands = 0  # (no store to send commands to)
        self.waiting = False
        self.noted: Callable[[str], None] | None = None  # (never called: one process)
        self.rewound: Callable[[str], None] | None = None  # (never called: nothing is lost)
        self._loop = asyncio.get_running_loop()
        self._event = asyncio.Event()
        store._listeners.append(self._wake)

    def _wake(self) -> None:
        self._loop.call_soon_threadsafe(self._event.set)

    def follow(self, match_id: str, after: int) -> None:
        self.positions[match_id] = after
        self._event.set()

    def drop(self, match_id: str) -> None:
        self.positions.pop(match_id, None)

    def seen(self, match_id: str, version: int) -> None:
        move_up(self.positions, match_id, version)

    async def next_batch(self) -> list[tuple[str, Entries]]:
        while True:
            self._event.clear()
            batch = []
            for match_id, at in list(self.positions.items()):
                entries = self.store.read_raw(match_id, at)
                if entries:
                    self.positions[match_id] = entries[-1][0]
                    batch.append((match_id, entries))
            if batch:
                return batch
            with parked(self):
                await self._event.wait()

    async def close(self) -> None:
        if self._wake in self.store._listeners:
            self.store._listeners.remove(self._wake)
