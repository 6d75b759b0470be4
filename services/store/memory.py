"""An in-memory event store for unit tests (same contract as the Redis one, one process)."""

from __future__ import annotations

import threading

from .codec import decode, sealed
from .port import Conflict, Record


class MemoryStore:
    """Keeps encoded records (so the codec is exercised exactly as with Redis)."""

    def __init__(self) -> None:
        self._logs: dict[str, list[bytes]] = {}
        self._commands: dict[str, dict[str, int]] = {}
        self._meta: dict[tuple[str, str], dict[str, str]] = {}
        self._cond = threading.Condition()
        self._lapse: dict[str, float] = {}
        """Match id -> when its record lapses (``keep``; not enforced: tests read it)."""
        self._counters: dict[tuple[str, str, int], int] = {}
        self._slots: dict[tuple[str, str | None], dict[str, float]] = {}

    def append(self, match_id: str, record: Record) -> Record:
        with self._cond:
            log = self._logs.setdefault(match_id, [])
            ids = self._commands.setdefault(match_id, {})
            if record.version != len(log) + 1:
                raise Conflict(len(log))
            out, payload = sealed(record)
            log.append(payload)
            if record.command_id is not None:
                ids[record.command_id] = record.version
            self._cond.notify_all()
            return out

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
            self._cond.wait_for(lambda: len(self._logs.get(match_id, ())) > after,
                                timeout=block_ms / 1000)
        return self.read(match_id, after)

    def version(self, match_id: str) -> int:
        with self._cond:
            return len(self._logs.get(match_id, ()))

    def command_version(self, match_id: str, command_id: str) -> int | None:
        with self._cond:
            return self._commands.get(match_id, {}).get(command_id)

    def put_meta(self, match_id: str, name: str, values: dict[str, str]) -> None:
        with self._cond:
            self._meta.setdefault((match_id, name), {}).update(values)

    def get_meta(self, match_id: str, name: str) -> dict[str, str]:
        with self._cond:
            return dict(self._meta.get((match_id, name), {}))

    def get_meta_field(self, match_id: str, name: str, key: str) -> str | None:
        with self._cond:
            return self._meta.get((match_id, name), {}).get(key)

    def delete_meta_field(self, match_id: str, name: str, key: str) -> None:
        with self._cond:
            self._meta.get((match_id, name), {}).pop(key, None)

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
