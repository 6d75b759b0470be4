"""The event store on Redis Streams: one stream per match, the entry id is the version.

Record ``v`` is the stream entry ``v-0`` with one field ``d`` holding the encoded record (one
constant field name lets Redis store it once per listpack node).  ``append`` is a single
``XADD`` with that explicit id: a writer whose version is stale names an id that is not above the
stream's top entry, and Redis itself refuses it.  That refusal is the optimistic lock, and it costs
nothing beyond the write (a Lua script checking the top first measured ~30 us slower per append).

A writer can only be *ahead* of the stream (which would leave a gap) if Redis lost acknowledged
writes; with ``appendfsync always`` (deploy/redis.conf) it does not.  Under a lossier policy the
match service drops its caches whenever the connection to Redis fails, and every load checks that
versions are contiguous and that each record links to the digest of the one before.

Streams are never trimmed.  All keys of a match share a hash tag (see ``keys``).
"""

from __future__ import annotations

from typing import Any

import redis

from . import keys
from .codec import sealed
from .entries import (entry_id, id_range, payloads_of, raw_payloads, reaches, records_of,
                      top_version)
from .entries import version_of as version_of  # (bench/ imports it from here)
from .port import Conflict, Record
from .scripts import APPEND, append_args, publishes, refused, xadd_args
from .transient import translated

META_NAMES = frozenset({"meta", "tokens", "presence"})


def _meta_key(match_id: str, name: str) -> str:
    if name not in META_NAMES:
        raise ValueError(f"unknown side-data map {name!r}")
    return getattr(keys, name)(match_id)  # type: ignore[no-any-return]


def _request_key(match_id: str | None, request: str) -> str:
    """The key of a remembered request (``EventStore.remember``): a join's beside its match,
    a create's alone."""
    if match_id is None:
        return keys.create_request(request)
    return keys.join_request(match_id, request)


def _raw_xrange(like: Any) -> Any:
    """A client of ``like``'s kind on its connection pool whose ``XRANGE`` answers are left as
    Redis sends them."""
    raw = type(like)(connection_pool=like.connection_pool)
    raw.set_response_callback("XRANGE", lambda response, **_: response)
    return raw


class RedisStore:
    """The event store on a ``redis.Redis`` client (real Redis or fakeredis)."""

    def __init__(self, client: Any, *, replica_acks: int = 0, wait_ms: int = 100) -> None:
        self.client = client
        # A second client on the same connection pool whose XRANGE answers are left as Redis
        # sends them ([id, [field, value]]): the fast load path needs no per-entry dict, and
        # skipping redis-py's conversion makes a cold load about a third cheaper.  A cluster
        # client has no one pool to share: it reads on the pool of the key's node instead
        # (``_raw_on_node``).
        self._raw: Any = None
        self.cluster = getattr(client, "connection_pool", None) is None
        """A ``RedisCluster`` client (no one connection pool)."""
        self.wakes = publishes(client)
        """Appends publish their match's wake-up (``publishes``)."""
        self._acked: Any = None
        if self.cluster and replica_acks:
            from .replicas import Acked

            self._acked = Acked(client, replica_acks, wait_ms)
        if not self.cluster:
            self._raw = _raw_xrange(client)
        self._raw_nodes: dict[str, Any] = {}
        """Cluster: per primary, a client on that node's pool whose ``XRANGE`` answers are left
        raw (``_raw_on_node``)."""

    def _raw_on_node(self, key: str) -> Any:
        """On a cluster, a client whose ``XRANGE`` answers are left raw, on the connection pool
        of the primary that the cluster client believes holds ``key`` (a cold load reads one
        stream on one node: the same third cheaper as on a single Redis); None where the
        cluster client cannot say."""
        try:
            node = self.client.get_node_from_key(key)
        except Exception:
            return None
        conn = getattr(node, "redis_connection", None)
        if conn is None:
            return None
        raw = self._raw_nodes.get(node.name)
        if raw is None or raw.connection_pool is not conn.connection_pool:
            raw = self._raw_nodes[node.name] = _raw_xrange(conn)
        return raw

    def append(self, match_id: str, record: Record) -> Record:
        out, payload = sealed(record)
        self.append_sealed(match_id, record.version, payload)
        return out

    def append_sealed(self, match_id: str, version: int, payload: bytes) -> None:
        try:
            # (the translation inside: TRYAGAIN, READONLY... are ResponseErrors too)
            with translated():
                if self._acked is not None:  # acknowledged once a replica has it (replicas.py)
                    if not self._acked.append(match_id, version, payload):
                        raise Conflict(self.version(match_id))
                    return
                if self.wakes:  # the wake-up of the match's followers goes with the record
                    self.client.eval(APPEND, *append_args(match_id, version, payload))
                else:
                    # fakeredis (one process, no script): as APPEND, a log is never started
                    # anew nor continued after a gap (the check and the XADD are two commands,
                    # but the embedded server's logs only grow or vanish, and NOMKSTREAM sees
                    # it vanish)
                    if version > 1 and not reaches(
                            self.client.xrevrange(keys.log(match_id), count=1), version):
                        raise Conflict(self.version(match_id))
                    if self.client.execute_command(
                            "XADD", *xadd_args(match_id, version, payload)) is None:
                        raise Conflict(0)
        except redis.ResponseError as exc:
            if not refused(exc):
                raise
            raise Conflict(self.version(match_id)) from None

    def read(self, match_id: str, after: int = 0, upto: int | None = None) -> list[Record]:
        bounds = id_range(after, upto)
        if bounds is None:
            return []
        with translated():
            entries: Any = self.client.xrange(keys.log(match_id), *bounds)
        return records_of(entries)

    def read_raw(self, match_id: str, after: int = 0, upto: int | None = None
                 ) -> list[tuple[int, bytes]]:
        bounds = id_range(after, upto)
        if bounds is None:
            return []
        key = keys.log(match_id)
        entries: Any = None
        with translated():
            if self._raw is not None:
                entries = self._raw.xrange(key, *bounds)
            else:
                raw = self._raw_on_node(key)
                if raw is not None:
                    try:
                        entries = raw.xrange(key, *bounds)
                    except (redis.RedisError, OSError):
                        # the slot moved (MOVED), or its node is down or failing over: the
                        # cluster client finds the node that holds it now (and learns the
                        # new topology, which a read on the node's pool alone never would)
                        self._raw_nodes.clear()
                        raw = None
                if raw is None:
                    return payloads_of(self.client.xrange(key, *bounds))
        # each entry is [id, [b"d", payload]] (one field per entry, see the module docstring)
        return raw_payloads(entries)

    def tail(self, match_id: str, after: int, block_ms: int) -> list[Record]:
        found: Any = self.client.xread({keys.log(match_id): entry_id(after)}, block=block_ms)
        if not found:
            return []
        return records_of(found[0][1])

    def version(self, match_id: str) -> int:
        return top_version(self.client.xrevrange(keys.log(match_id), "+", "-", count=1))

    def confirm_stored(self, match_id: str, version: int) -> None:
        if self._acked is not None:
            with translated():
                self._acked.held(match_id, version)

    def command_version(self, match_id: str, command_id: str) -> int | None:
        # Command ids live in the records themselves; the match service keeps the index in its
        # cache.  This scan is the slow path for callers without a cache.
        for record in reversed(self.read(match_id)):
            if record.command_id == command_id:
                return record.version
        return None

    def put_meta(self, match_id: str, name: str, values: dict[str, str]) -> None:
        if values:
            self.client.hset(_meta_key(match_id, name), mapping=values)

    def get_meta(self, match_id: str, name: str) -> dict[str, str]:
        raw = self.client.hgetall(_meta_key(match_id, name))
        return {k.decode(): v.decode() for k, v in raw.items()}

    def get_meta_field(self, match_id: str, name: str, key: str) -> str | None:
        value = self.client.hget(_meta_key(match_id, name), key)
        return value.decode() if value is not None else None

    def put_meta_once(self, match_id: str, name: str, key: str, value: str) -> str:
        if self.client.hsetnx(_meta_key(match_id, name), key, value):
            return value
        return self.get_meta_field(match_id, name, key) or value  # (deleted meanwhile: ours)

    def delete_meta_field(self, match_id: str, name: str, key: str) -> None:
        self.client.hdel(_meta_key(match_id, name), key)

    def remember(self, match_id: str | None, request: str, value: str, ttl_s: float) -> str:
        key = _request_key(match_id, request)
        for _ in range(3):  # (one that lapsed between the SET and the GET: set it again)
            if self.client.set(key, value, nx=True, px=max(1, int(ttl_s * 1000))):
                return value
            standing = self.client.get(key)
            if standing is not None:
                return standing.decode()  # type: ignore[no-any-return]
        return value  # kept and lapsed twice in a row: cannot be, short of a tiny ttl_s

    def forget(self, match_id: str | None, request: str) -> None:
        self.client.delete(_request_key(match_id, request))

    # -- lifetime and quotas -------------------------------------------------------------------

    def keep(self, match_id: str, seconds: float) -> None:
        """Let every key of the match's record lapse ``seconds`` from now (0: keep for ever).
        Called at each system step, so an abandoned match disappears ``seconds`` after the last
        one; a finished match gets its final lifetime the same way."""
        pipe = self.client.pipeline(transaction=False)
        for key in keys.MATCH_KEYS:
            if seconds > 0:
                pipe.pexpire(key(match_id), max(1, int(seconds * 1000)))
            else:
                pipe.persist(key(match_id))
        self._run(pipe)

    def hit(self, name: str, subject: str, window_s: float, now: float) -> int:
        """Count one more ``name`` for ``subject`` in the current window of ``window_s``
        seconds; returns the count so far in this window (this one included)."""
        window = int(now // window_s)
        key = keys.counter(name, subject, window)
        pipe = self.client.pipeline(transaction=False)
        pipe.incr(key)
        pipe.expire(key, max(1, int(window_s) + 1))
        count, _ = self._run(pipe)
        return int(count)

    def take_slot(self, pool: str, member: str, owner: str, limits: tuple[int, int],
                  lapse_at: float, now: float) -> bool:
        """Give ``member`` a slot of ``pool`` if fewer than ``limits`` = (in all, per owner)
        are held (0: no limit); a slot not released lapses at ``lapse_at``.  Never more than
        the limits are held; two racing takers may both be refused."""
        total, per_owner = limits
        pipe = self.client.pipeline(transaction=False)
        for key in (keys.slots(pool), keys.slots(pool, owner)):
            pipe.zremrangebyscore(key, "-inf", now)
            pipe.zadd(key, {member: lapse_at})
            pipe.zcard(key)
        answers = self._run(pipe)
        held_all, held_own = answers[2], answers[5]
        if (total > 0 and held_all > total) or (per_owner > 0 and held_own > per_owner):
            self.release_slot(pool, member, owner)
            return False
        return True

    def release_slot(self, pool: str, member: str, owner: str) -> None:
        pipe = self.client.pipeline(transaction=False)
        pipe.zrem(keys.slots(pool), member)
        pipe.zrem(keys.slots(pool, owner), member)
        self._run(pipe)

    # -- post-match analysis (port.AnalysisStore) ---------------------------------------------

    def analysis_results(self, match_id: str) -> dict[int, bytes]:
        with translated():
            raw = self.client.hgetall(keys.analysis(match_id))
        return {int(k): v for k, v in raw.items()}

    def put_analysis(self, match_id: str, round_no: int, payload: bytes) -> None:
        """One pipeline: the result, the mark cleared, and the log's expiry read; then the hash
        is given that very moment (``PEXPIREAT``, not the time left: a relative expiry set one
        round trip later outlived the log by that trip).  A match that never expires keeps its
        analysis for ever too."""
        pipe = self.client.pipeline(transaction=False)
        pipe.hset(keys.analysis(match_id), str(round_no), payload)
        pipe.delete(keys.analysis_mark(match_id, round_no))
        pipe.pexpiretime(keys.log(match_id))
        *_, at = self._run(pipe)
        if at is not None and int(at) > 0:
            self.client.pexpireat(keys.analysis(match_id), int(at))

    def mark_analysis(self, match_id: str, round_no: int, ttl_s: float, *, new: bool) -> bool:
        with translated():
            done = self.client.set(keys.analysis_mark(match_id, round_no), 1, nx=new,
                                   px=max(1, int(ttl_s * 1000)))
        return bool(done)

    @staticmethod
    def _run(pipe: Any) -> list[Any]:
        with translated():
            return pipe.execute()  # type: ignore[no-any-return]

    def memory_usage(self, match_id: str) -> int:
        """Bytes Redis uses for every key of the match (``MEMORY USAGE``)."""
        total = 0
        for key in (keys.log(match_id), keys.meta(match_id), keys.tokens(match_id),
                    keys.presence(match_id)):
            used = self.client.memory_usage(key, samples=0)
            total += int(used or 0)
        return total
