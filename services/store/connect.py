"""Where the matches live, from a URL: one Redis, or a Redis Cluster.

* ``redis://host:port/db`` (also ``rediss://`` and ``unix://``): a single Redis, as redis-py
  reads it.
* ``redis+cluster://host:port[,host:port...]`` (seed nodes; ``rediss+cluster://`` for TLS, an
  optional ``user:password@`` before the first node): a Redis Cluster, through redis-py's
  ``RedisCluster`` (sync and asyncio), which finds every node from the seeds and follows the
  cluster's changes (failovers, moved slots).

RQ cannot use a cluster, so the bot queue has a URL of its own (``HOKM_QUEUE_URL``): it
defaults to the match store's when that is a single Redis, and must be given with a cluster.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

import redis
import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode as AsyncClusterNode
from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster
from redis.cluster import ClusterNode, RedisCluster

CLUSTER_SCHEMES = ("redis+cluster", "rediss+cluster")


class BadStoreUrl(ValueError):
    """A URL that names no Redis (worded for a person, one line)."""


@dataclass(frozen=True, slots=True)
class Target:
    """A parsed store URL: a single Redis (``url``) or a cluster (``seeds``)."""

    url: str
    cluster: bool
    seeds: tuple[tuple[str, int], ...] = ()
    username: str | None = None
    password: str | None = None
    tls: bool = False


def parse(url: str) -> Target:
    """``BadStoreUrl`` for anything that is not one of the forms above."""
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    if scheme in ("redis", "rediss", "unix"):
        return Target(url, False)
    if scheme not in CLUSTER_SCHEMES:
        raise BadStoreUrl(f"{url!r} is not a Redis URL (redis://host:port/db, or "
                          "redis+cluster://host:port,host:port for a Redis Cluster)")
    rest = url.split("://", 1)[1]
    username = password = None
    if "@" in rest:
        auth, rest = rest.rsplit("@", 1)
        user, _, secret = auth.partition(":")
        username, password = unquote(user) or None, unquote(secret) or None
    rest = rest.split("/", 1)[0].split("?", 1)[0]
    seeds = []
    for part in rest.split(","):
        found = urlsplit(f"//{part.strip()}")
        try:
            port = found.port
        except ValueError:
            port = None
        if not found.hostname or port is None:
            raise BadStoreUrl(f"{url!r}: every seed node is host:port (got {part!r})")
        seeds.append((found.hostname, port))
    return Target(url, True, tuple(seeds), username, password, scheme.startswith("rediss"))


def _cluster_options(target: Target) -> dict[str, Any]:
    options: dict[str, Any] = {"username": target.username, "password": target.password,
                               "ssl": target.tls}
    return {k: v for k, v in options.items() if v}


def sync_client(target: Target, **options: Any) -> redis.Redis | RedisCluster:
    """A redis-py client (``Redis`` or ``RedisCluster``) for ``target``."""
    if not target.cluster:
        return redis.Redis.from_url(target.url, **options)
    try:  # (a cluster client asks the seeds for the cluster's shape at once)
        return RedisCluster(startup_nodes=[ClusterNode(h, p) for h, p in target.seeds],  # type: ignore[no-untyped-call]
                            **_cluster_options(target), **options)
    except redis.exceptions.RedisClusterException as exc:
        raise redis.ConnectionError(str(exc)) from exc


def async_client(target: Target, **options: Any) -> Any:
    """An asyncio redis-py client for ``target`` (a blocking pool on a single Redis: a burst
    of more than 64 concurrent commands waits for a free connection instead of failing)."""
    if not target.cluster:
        pool = aioredis.BlockingConnectionPool.from_url(target.url, max_connections=64,
                                                         timeout=30)
        return aioredis.Redis(connection_pool=pool, **options)
    return AsyncRedisCluster(startup_nodes=[AsyncClusterNode(h, p) for h, p in target.seeds],
                             **_cluster_options(target), **options)


def queue_url(store_url: str, queue: str | None) -> str:
    """The URL of RQ's Redis: ``queue`` if given, else the store's when that is a single
    Redis; ``BadStoreUrl`` for a cluster without one."""
    if queue:
        if parse(queue).cluster:
            raise BadStoreUrl("HOKM_QUEUE_URL must be a single Redis (RQ does not support "
                              "Redis Cluster)")
        return queue
    if parse(store_url).cluster:
        raise BadStoreUrl("with a Redis Cluster in HOKM_REDIS_URL, set HOKM_QUEUE_URL to a "
                          "single Redis for the bot queue (RQ does not support Redis Cluster)")
    return store_url
