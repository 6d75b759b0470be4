"""Appends on a Redis Cluster that are acknowledged only once a replica holds them.

Redis replicates asynchronously: a primary answers an append before its replicas have it, so a
primary that dies at that moment takes the append with it, and the replica promoted in its place
never had it (``bench/failover.py`` measures how many acknowledged records that loses).  With
``HOKM_REPLICA_ACKS=1`` every append is followed, on the same connection to the match's primary,
by ``WAIT 1 <HOKM_REPLICA_WAIT_MS>``: the append is acknowledged only once a replica has it, so a
failover loses none.  If no replica answers in time the append is refused as unavailable (it may
be stored: the writer reads again, as after any store failure).  The price is a round trip to a
replica per append (measured by ``bench/failover.py``) and no pipelining across matches.

WAIT counts the writes of its own connection, and redis-py's cluster client sends a WAIT to every
node on connections of its choosing: so these appends go through a plain client per primary, and
follow the cluster's shape (``MOVED`` after a failover) themselves.

An append refused as unavailable may be stored, and the writer's retry (or its own thread path)
then finds it by its command id: that answer must not be a way around the wait (QA F6: with
the replica down, every such command was acknowledged as a duplicate while no replica held
it).  ``Acked.held`` asks the same of a record found so: on the match's primary, a script
checks that the record is there and makes a write after it that changes nothing (``XSETID`` of
the log to its own top: replicated like any write), then ``WAIT``: a replica that
acknowledges that write holds everything before it, the record included.  A record not on the
primary (a stale one answered the read: F4), or no replica in time, is unavailable: the
client sends the command again with the same id, which stays safe.
"""

from __future__ import annotations

import inspect
from typing import Any

import redis
import redis.asyncio as aioredis
from redis import exceptions

from . import keys
from .port import StoreUnavailable
from .entries import entry_id
from .scripts import APPEND, HELD, append_answer, append_args

ATTEMPTS = 4


def _node_options(cluster: Any, wait_ms: int, client: type) -> dict[str, Any]:
    """The cluster client's credentials, TLS settings and timeouts for a plain ``client``
    (``redis.Redis`` or its asyncio twin) of one of its nodes; the socket timeout lengthened
    by the ``WAIT``'s own time (``connect.SOCKET_TIMEOUT_S``: a frozen primary must not hold
    an acknowledged append for good either).  A cluster reached over TLS (``rediss+cluster``)
    is reached so by these clients too: redis-py's cluster client keeps ``ssl`` among its
    node options, its asyncio twin an SSL connection class, and both the ``ssl_*`` settings,
    of which the ones ``client`` takes are passed on."""
    kwargs = cluster.nodes_manager.connection_kwargs
    options = {k: kwargs[k] for k in ("username", "password", "socket_connect_timeout")
               if kwargs.get(k)}
    if kwargs.get("socket_timeout"):
        options["socket_timeout"] = float(kwargs["socket_timeout"]) + wait_ms / 1000
    connection = kwargs.get("connection_class")
    if kwargs.get("ssl") or (isinstance(connection, type) and "SSL" in connection.__name__):
        takes = inspect.signature(client).parameters
        options.update({k: v for k, v in kwargs.items()
                        if k.startswith("ssl_") and k in takes and v is not None})
        options["ssl"] = True
    return options


_LOST = (redis.ConnectionError, redis.TimeoutError, OSError)
"""What a pipeline to a node raises when the node cannot be reached (``_redirect``: ask the
cluster again, then retry)."""


def _redirect(answer: Any) -> tuple[str, int] | bool:
    """Where a node's answer sends the command: ``(host, port)`` for an ``ASK`` (the slot is
    migrating and the key already moved: the command goes there once, after ``ASKING``),
    ``True`` for ``MOVED``, a cluster in change or a node out of reach (read the slots again
    and retry), ``False``
    for an answer to keep.  redis-py's parser makes these replies exceptions of their own
    kinds, whose text has lost its ``ASK``/``MOVED`` word (``MovedError`` is an
    ``AskError``), so they are told by class."""
    if isinstance(answer, exceptions.MovedError):
        return True
    if isinstance(answer, exceptions.AskError):
        return answer.host, int(answer.port)
    return isinstance(answer, (exceptions.ClusterError, exceptions.TryAgainError, *_LOST))


def _settle(stored: Any, acked: Any, replicas: int) -> bool:
    """What the last two answers of a pipeline of ``_Primaries._pipeline`` (errors as values:
    a redirection already followed) say of an append: stored and held by ``replicas``
    replicas, True; refused (``scripts.append_answer``), False; an error answer raised; too
    few replicas in time, ``StoreUnavailable``."""
    outcome = append_answer(stored)
    if isinstance(outcome, BaseException):
        raise outcome
    if not outcome:
        return False
    if isinstance(acked, BaseException) or int(acked) < replicas:
        raise StoreUnavailable(f"no replica acknowledged the record in time ({acked})")
    return True


class _Primaries:
    """Plain clients of a cluster's nodes, one a node (``WAIT`` counts the writes of its own
    connection), and one attempt's pipeline: on the node of a match's log, or once on the
    node an ``ASK`` named (after ``ASKING``)."""

    def __init__(self, cluster: Any, replicas: int, wait_ms: int, client: type) -> None:
        self.cluster = cluster
        self.replicas = replicas
        self.wait_ms = wait_ms
        self._client = client
        self._clients: dict[tuple[str, int], Any] = {}

    def _pipeline(self, match_id: str, asked: tuple[str, int] | None, script: str,
                  *args: Any) -> Any:
        """``[ASKING,] EVAL script *args, WAIT`` for the match's primary (or ``asked``): its
        answers are the last two of the pipeline's."""
        if asked is None:
            node = self.cluster.get_node_from_key(keys.log(match_id))
            where = (node.host, node.port)
        else:
            where = asked
        client = self._clients.get(where)
        if client is None:
            client = self._clients[where] = self._client(
                host=where[0], port=where[1],
                **_node_options(self.cluster, self.wait_ms, self._client))
        pipe = client.pipeline(transaction=False)
        if asked is not None:
            pipe.execute_command("ASKING")
        pipe.eval(script, *args)
        pipe.execute_command("WAIT", self.replicas, self.wait_ms)
        return pipe


class AsyncAcked(_Primaries):
    """Acknowledged appends for the event loop (``AsyncClusterStore``)."""

    def __init__(self, cluster: Any, replicas: int, wait_ms: int) -> None:
        super().__init__(cluster, replicas, wait_ms, aioredis.Redis)

    async def append(self, match_id: str, version: int, payload: bytes) -> bool:
        stored, acked = await self._waited(match_id, APPEND,
                                           *append_args(match_id, version, payload))
        return _settle(stored, acked, self.replicas)

    async def _waited(self, match_id: str, script: str, *args: Any) -> tuple[Any, Any]:
        """``Acked._waited`` on the event loop."""
        asked: tuple[str, int] | None = None
        for _ in range(ATTEMPTS):
            await self.cluster.initialize()
            pipe = self._pipeline(match_id, asked, script, *args)
            try:
                answer, acked = (await pipe.execute(raise_on_error=False))[-2:]
            except _LOST:
                answer = redis.ConnectionError()
            where = _redirect(answer)
            if where is False:
                return answer, acked
            asked = where if isinstance(where, tuple) else None
            if asked is None:
                await self.cluster.nodes_manager.initialize()
        raise StoreUnavailable("the match's primary could not be reached")

    async def close(self) -> None:
        for client in self._clients.values():
            await client.aclose()


class Acked(_Primaries):
    """Acknowledged appends for threads (``RedisStore`` on a cluster)."""

    def __init__(self, cluster: Any, replicas: int, wait_ms: int) -> None:
        super().__init__(cluster, replicas, wait_ms, redis.Redis)

    def append(self, match_id: str, version: int, payload: bytes) -> bool:
        stored, acked = self._waited(match_id, APPEND, *append_args(match_id, version, payload))
        return _settle(stored, acked, self.replicas)

    def held(self, match_id: str, version: int) -> None:
        """Return once ``replicas`` replicas hold the match's record ``version`` (read from the
        store by a caller that could not see its own append acknowledged); else
        ``StoreUnavailable``."""
        found, acked = self._waited(match_id, HELD, 1, keys.log(match_id), entry_id(version))
        if isinstance(found, BaseException):
            raise found
        if not found:
            raise StoreUnavailable(f"record {version} is not on the match's primary")
        _settle(found, acked, self.replicas)

    def _waited(self, match_id: str, script: str, *args: Any) -> tuple[Any, Any]:
        """``EVAL script *args`` then ``WAIT``, on one connection to the match's primary:
        both answers (errors as values)."""
        asked: tuple[str, int] | None = None
        for _ in range(ATTEMPTS):
            pipe = self._pipeline(match_id, asked, script, *args)
            try:
                answer, acked = pipe.execute(raise_on_error=False)[-2:]
            except _LOST:
                answer = redis.ConnectionError()
            where = _redirect(answer)
            if where is False:
                return answer, acked
            asked = where if isinstance(where, tuple) else None
            if asked is None:
                self.cluster.nodes_manager.initialize()
        raise StoreUnavailable("the match's primary could not be reached")


def short_of_replicas(cluster: Any, replicas: int) -> list[str]:
    """The primaries (``host:port``) of ``cluster`` (a sync ``RedisCluster``) with fewer than
    ``replicas`` replicas online, as each says (``INFO replication``: its ``slaveN`` lines in
    state ``online``, those a ``WAIT`` can count): every append to their matches is refused as
    unavailable until one is back.  A primary that does not answer is short too."""
    short = []
    for node in cluster.get_primaries():
        try:
            info = cluster.get_redis_connection(node).info("replication")
        except (redis.RedisError, OSError):
            info = {}
        online = sum(1 for name, value in info.items()
                     if name.startswith("slave") and isinstance(value, dict)
                     and value.get("state") == "online")
        if online < replicas:
            short.append(f"{node.host}:{node.port}")
    return short


class ReplicaCheck:
    """Whether every primary has the replicas ``HOKM_REPLICA_ACKS`` waits for (readiness:
    without them every create and command of some matches answers ``503``), asked at most
    once per ``ttl_s`` (a probe every second must not cost a round trip to every primary)."""

    def __init__(self, cluster: Any, replicas: int, ttl_s: float = 5.0,
                 clock: Any = None) -> None:
        import time

        self.cluster = cluster
        self.replicas = replicas
        self.ttl_s = ttl_s
        self._clock = clock or time.monotonic
        self._checked: tuple[float, bool] | None = None

    def ok(self) -> bool:
        now = self._clock()
        if self._checked is None or now - self._checked[0] >= self.ttl_s:
            self._checked = (now, not short_of_replicas(self.cluster, self.replicas))
        return self._checked[1]
