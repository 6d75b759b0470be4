"""The event store on Redis Streams: one stream per match, the entry id is the version.

Record ``v`` is the stream entry ``v-0`` with one field ``d`` holding the encoded record (one
constant field name lets Redis store it once per listpack node).  ``append`` runs a small Lua
script so the check and the write are one atomic round trip:

* a writer whose version is stale calls ``XADD`` with an id not above the top entry, and Redis
  itself refuses it: that refusal is the optimistic lock;
* a writer ahead of the stream (it cannot normally happen; it could after a failover lost
  writes) is refused by the script, so versions never have gaps.

Streams are never trimmed.  All keys of a match share a hash tag (see ``keys``).
"""

from __future__ import annotations

from typing import Any

import redis

from . import keys
from .codec import decode, sealed
from .port import Conflict, Record

_APPEND = """
local version = tonumber(ARGV[1])
local top = 0
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
if #last > 0 then top = tonumber(string.match(last[1][1], '^(%d+)')) end
if top < version - 1 then return {'gap', tostring(top)} end
local r = redis.pcall('XADD', KEYS[1], ARGV[1] .. '-0', 'd', ARGV[2])
if type(r) == 'table' and r.err then return {'stale', tostring(top)} end
return {'ok', ARGV[1]}
"""

META_NAMES = frozenset({"meta", "tokens", "presence"})


def _meta_key(match_id: str, name: str) -> str:
    if name not in META_NAMES:
        raise ValueError(f"unknown side-data map {name!r}")
    return getattr(keys, name)(match_id)  # type: ignore[no-any-return]


def version_of(entry_id: bytes | str) -> int:
    text = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
    return int(text.split("-", 1)[0])


class RedisStore:
    """The event store on a ``redis.Redis`` client (real Redis or fakeredis)."""

    def __init__(self, client: redis.Redis) -> None:
        self.client = client
        self._append = client.register_script(_APPEND)

    def append(self, match_id: str, record: Record) -> Record:
        out, payload = sealed(record)
        status, top = self._append(keys=[keys.log(match_id)], args=[record.version, payload])
        if status != b"ok":
            raise Conflict(int(top))
        return out

    def _decode_entries(self, entries: list[Any]) -> list[Record]:
        return [decode(version_of(entry_id), fields[b"d"]) for entry_id, fields in entries]

    def read(self, match_id: str, after: int = 0, upto: int | None = None) -> list[Record]:
        end = "+" if upto is None else f"{upto}-0"
        if upto is not None and upto <= after:
            return []
        entries: Any = self.client.xrange(keys.log(match_id), f"{after + 1}-0", end)
        return self._decode_entries(entries)

    def tail(self, match_id: str, after: int, block_ms: int) -> list[Record]:
        found: Any = self.client.xread({keys.log(match_id): f"{after}-0"}, block=block_ms)
        if not found:
            return []
        return self._decode_entries(found[0][1])

    def version(self, match_id: str) -> int:
        last: Any = self.client.xrevrange(keys.log(match_id), "+", "-", count=1)
        return version_of(last[0][0]) if last else 0

    def command_version(self, match_id: str, command_id: str) -> int | None:
        # Command ids live in the records themselves; the match service keeps the index in its
        # cache.  This scan is the slow path for callers without a cache.
        for record in reversed(self.read(match_id)):
            if record.command_id == command_id:
                return record.version
        return None

    def put_meta(self, match_id: str, name: str, values: dict[str, str]) -> None:
        if values:
            self.client.hset(_meta_key(match_id, name), mapping=values)  # type: ignore[arg-type]

    def get_meta(self, match_id: str, name: str) -> dict[str, str]:
        raw = self.client.hgetall(_meta_key(match_id, name))
        return {k.decode(): v.decode() for k, v in raw.items()}  # type: ignore[union-attr]

    def get_meta_field(self, match_id: str, name: str, key: str) -> str | None:
        value = self.client.hget(_meta_key(match_id, name), key)
        return value.decode() if value is not None else None  # type: ignore[union-attr]

    def delete_meta_field(self, match_id: str, name: str, key: str) -> None:
        self.client.hdel(_meta_key(match_id, name), key)

    def memory_usage(self, match_id: str) -> int:
        """Bytes Redis uses for every key of the match (``MEMORY USAGE``)."""
        total = 0
        for key in (keys.log(match_id), keys.meta(match_id), keys.tokens(match_id),
                    keys.presence(match_id)):
            used = self.client.memory_usage(key, samples=0)
            total += int(used or 0)
        return total
