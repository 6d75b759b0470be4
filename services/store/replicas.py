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

from typing import Any

import redis
import redis.asyncio as aioredis

from . import keys
from .port import StoreUnavailable
from .scripts import APPEND, HELD, append_args, refused

ATTEMPTS = 4


def _node_options(cluster: Any, wait_ms: int) -> dict[str, Any]:
    """The cluster client's credentials and timeouts for a plain client of one of its nodes;
    the socket timeout lengthened by the ``WAIT``'s own time (``connect.SOCKET_TIMEOUT_S``: a
    frozen primary must not hold an acknowledged append for good either)."""
    kwargs = cluster.nodes_manager.connection_kwargs
    options = {k: kwargs[k] for k in ("username", "password", "socket_connect_timeout")
               if kwargs.get(k)}
    if kwargs.get("socket_timeout"):
        options["socket_timeout"] = float(kwargs["socket_timeout"]) + wait_ms / 1000
    return options


def _redirected(answer: Any) -> bool:
    text = str(answer)
    return isinstance(answer, redis.ResponseError) and (
        text.startswith("MOVED") or text.startswith("ASK") or "CLUSTERDOWN" in text)


def _settle(stored: Any, acked: Any, replicas: int) -> bool:
    if isinstance(stored, redis.ResponseError):
        if refused(stored):
            return False
        raise stored
    if isinstance(acked, BaseException) or int(acked) < replicas:
        raise StoreUnavailable(f"no replica acknowledged the record in time ({acked})")
    return True


class AsyncAcked:
    """Acknowledged appends for the event loop (``AsyncClusterStore``)."""

    def __init__(self, cluster: Any, replicas: int, wait_ms: int) -> None:
        self.cluster = cluster
        self.replicas = replicas
        self.wait_ms = wait_ms
        self._clients: dict[str, aioredis.Redis] = {}

    async def append(self, match_id: str, version: int, payload: bytes) -> bool:
        log = keys.log(match_id)
        for _ in range(ATTEMPTS):
            await self.cluster.initialize()
            node = self.cluster.get_node_from_key(log)
            client = self._clients.get(node.name)
            if client is None:
                client = self._clients[node.name] = aioredis.Redis(
                    host=node.host, port=node.port, **_node_options(self.cluster, self.wait_ms))
            pipe = client.pipeline(transaction=False)
            pipe.eval(APPEND, *append_args(match_id, version, payload))
            pipe.execute_command("WAIT", self.replicas, self.wait_ms)
            try:
                stored, acked = await pipe.execute(raise_on_error=False)
            except (redis.ConnectionError, redis.TimeoutError, OSError):
                await self.cluster.nodes_manager.initialize()
                continue
            if _redirected(stored):
                await self.cluster.nodes_manager.initialize()
                continue
            return _settle(stored, acked, self.replicas)
        raise StoreUnavailable("the match's primary could not be reached")

    async def close(self) -> None:
        for client in self._clients.values():
            await client.aclose()


class Acked:
    """Acknowledged appends for threads (``RedisStore`` on a cluster)."""

    def __init__(self, cluster: Any, replicas: int, wait_ms: int) -> None:
        self.cluster = cluster
        self.replicas = replicas
        self.wait_ms = wait_ms
        self._clients: dict[str, redis.Redis] = {}

    def append(self, match_id: str, version: int, payload: bytes) -> bool:
        stored, acked = self._waited(match_id, APPEND, *append_args(match_id, version, payload))
        return _settle(stored, acked, self.replicas)

    def held(self, match_id: str, version: int) -> None:
        """Return once ``replicas`` replicas hold the match's record ``version`` (read from the
        store by a caller that could not see its own append acknowledged); else
        ``StoreUnavailable``."""
        found, acked = self._waited(match_id, HELD, 1, keys.log(match_id), f"{version}-0")
        if isinstance(found, BaseException):
            raise found
        if not found:
            raise StoreUnavailable(f"record {version} is not on the match's primary")
        _settle(found, acked, self.replicas)

    def _waited(self, match_id: str, script: str, *args: Any) -> tuple[Any, Any]:
        """``EVAL script *args`` then ``WAIT``, on one connection to the match's primary:
        both answers (errors as values)."""
        log = keys.log(match_id)
        for _ in range(ATTEMPTS):
            node = self.cluster.get_node_from_key(log)
            client = self._clients.get(node.name)
            if client is None:
                client = self._clients[node.name] = redis.Redis(
                    host=node.host, port=node.port, **_node_options(self.cluster, self.wait_ms))
            pipe = client.pipeline(transaction=False)
            pipe.eval(script, *args)
            pipe.execute_command("WAIT", self.replicas, self.wait_ms)  # type: ignore[no-untyped-call]
            try:
                answer, acked = pipe.execute(raise_on_error=False)
            except (redis.ConnectionError, redis.TimeoutError, OSError):
                self.cluster.nodes_manager.initialize()
                continue
            if _redirected(answer):
                self.cluster.nodes_manager.initialize()
                continue
            return answer, acked
        raise StoreUnavailable("the match's primary could not be reached")
