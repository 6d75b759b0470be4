"""Where the matches live, from a URL: one Redis, or a Redis Cluster.

* ``redis://host:port/db`` (also ``rediss://`` and ``unix://``): a single Redis, as redis-py
  reads it; a query parameter redis-py's clients do not take for the scheme is refused
  (``_query_names``), not left to fail at the first command.
* ``redis+cluster://host:port[,host:port...]`` (seed nodes; ``rediss+cluster://`` for TLS, an
  optional ``user:password@`` before the first node): a Redis Cluster, through redis-py's
  ``RedisCluster`` (sync and asyncio), which finds every node from the seeds and follows the
  cluster's changes (failovers, moved slots).  No query parameters: the clients are made
  from the seeds alone, so any would be ignored.

RQ cannot use a cluster, so the bot queue has a URL of its own (``HOKM_QUEUE_URL``): it
defaults to the match store's when that is a single Redis, and must be given with a cluster.

A URL that is none of these is a ``BadStoreUrl``: a ``SettingError`` naming the variable it
came from, so every command reports it as it reports any bad setting (one line, exit 2).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from functools import cache
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import redis
import redis.asyncio as aioredis
import redis.asyncio.connection as aioconnection
from redis.asyncio.cluster import ClusterNode as AsyncClusterNode
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import ExponentialBackoff
from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster
from redis.cluster import ClusterNode, RedisCluster

from services.clitools import redact_url
from services.settings import SettingError

from .port import StoreUnavailable
from .transient import TRANSIENT

CLUSTER_SCHEMES = ("redis+cluster", "rediss+cluster")
FORMS = ("redis://host:port/db, or redis+cluster://host:port,host:port for a Redis "
         "Cluster")
"""The forms of a store URL, as the errors name them."""
EXTERNAL_HELP = (
    "External Redis: HOKM_REDIS_URL=redis://host:6379/0 (one Redis; rediss:// for TLS, "
    "user:password@ before the host), or HOKM_REDIS_URL=redis+cluster://host:7000,host:7001 "
    "for a Redis Cluster (any of its nodes as seeds; rediss+cluster:// for TLS).  The bots' "
    "queue (RQ) is kept in HOKM_QUEUE_URL=redis://queue:6379/0, one plain Redis (RQ does not "
    "support Cluster): by default the matches' Redis, required with a cluster.  `hokm serve` "
    "and `hokm worker` take the same two settings.  Both Redis must keep their data (AOF, "
    "deploy/redis.conf; deploy/README.md says what a queue that lost its data costs).")
"""The end of ``hokm serve --help`` and ``hokm worker --help``: where the matches and the
bot queue live."""


UNREACHABLE: tuple[type[Exception], ...] = (StoreUnavailable, *TRANSIENT)
"""What a store that cannot serve a request for now raises (``transient.TRANSIENT``, and the
stores' own ``StoreUnavailable``).  Expected and handled (an answer of ``503 unavailable``, a
pass or a job tried again later), so logged in one line (``one_line``), never with a traceback:
an outage of seconds must not bury the log."""


def one_line(exc: BaseException) -> str:
    """``exc`` as one short line for a log: its type and the first line of its message."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:200]}" if text else type(exc).__name__


SOCKET_TIMEOUT_S = 3.0
"""How long the gateway's and the workers' store clients wait for a Redis's answer (and for a
connection) before the command fails as unavailable (``SERVING``).  redis-py 8's default is
5 s, and its cluster client tries a timed-out command again after asking the cluster's shape:
a request to a frozen primary (``SIGSTOP``, a stalled VM) waited ~10 s in QA's test before the
replica that had taken over answered it (measured again: 10.1 s; with 3 s, 6.1 s).  A
timeout holds a gateway thread, whatever match it serves.  3 s is far above any command's time
(a match's log reads in milliseconds; a slow ``fsync`` rarely stalls a second).  A command
that times out may still be applied when the node wakes; it is answered ``503``, not
acknowledged, and the client's retry with the same id is safe.  Not a setting: nothing in the
store waits longer on purpose (the followers' blocking reads give their own timeouts, the
replica ``WAIT``'s clients add its time: ``replicas._node_options``)."""

SERVING: dict[str, Any] = {"socket_timeout": SOCKET_TIMEOUT_S,
                           "socket_connect_timeout": SOCKET_TIMEOUT_S}
"""The options of the clients that serve players (``services/runtime.py``); the audit commands
and benchmarks keep redis-py's defaults."""


class BadStoreUrl(SettingError):
    """A URL that names no Redis: ``name`` is the variable it was read from, the message one
    line that names it (the password, if any, left out)."""

    def __init__(self, name: str, must: str, url: str | None) -> None:
        super().__init__(name, must, None if url is None else _shown(url))


def _shown(url: str) -> str:
    try:
        return redact_url(url)
    except ValueError:  # a port that is not a number: redact_url cannot take it apart
        return "<the URL given>" if "@" in url else url


@dataclass(frozen=True, slots=True)
class Target:
    """A parsed store URL: a single Redis (``url``) or a cluster (``seeds``)."""

    url: str
    cluster: bool
    seeds: tuple[tuple[str, int], ...] = ()
    username: str | None = None
    password: str | None = None
    tls: bool = False


def parse(url: str, name: str = "HOKM_REDIS_URL") -> Target:
    """``BadStoreUrl`` naming the variable ``name`` for anything that is not one of the forms
    above (a single Redis's URL as redis-py reads it: a port that is not a number fails here,
    not at the first connection)."""
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    if scheme in ("redis", "rediss", "unix"):
        try:
            options = redis.connection.parse_url(url)  # type: ignore[no-untyped-call]
        except ValueError as exc:
            raise BadStoreUrl(name, f"a Redis URL ({exc})", url) from None
        path = unquote(urlsplit(url).path).replace("/", "")
        if scheme != "unix" and not urlsplit(url).hostname:
            # (redis-py reads redis:// as localhost:6379: a template's host left empty would
            # reach whatever Redis runs here)
            raise BadStoreUrl(name, f"a Redis URL that names its host ({scheme}://HOST:PORT)",
                              url)
        if scheme != "unix" and path and not path.isdigit():  # (redis-py reads it as db 0)
            raise BadStoreUrl(name, f"a Redis URL whose database is a number ({path!r} is not)",
                              url)
        unknown = sorted(set(options) - _query_names(scheme))
        if unknown:
            raise BadStoreUrl(name, f"a Redis URL whose query parameters redis-py knows for "
                              f"{scheme}:// ({unknown[0]!r} is not one)", url)
        return Target(url, False)
    if scheme not in CLUSTER_SCHEMES:
        raise BadStoreUrl(name, f"a Redis URL: {FORMS}", url)
    rest = url.split("://", 1)[1]
    query = rest.split("?", 1)[1] if "?" in rest else ""
    if query:  # (the cluster's clients are made from the seeds alone: ``_cluster_options``)
        given = sorted(parse_qs(query, keep_blank_values=True)) or [query]
        raise BadStoreUrl(name, f"a Redis Cluster URL without query parameters ({given[0]!r} "
                          "would be ignored)", url)
    username = password = None
    if "@" in rest:
        auth, rest = rest.rsplit("@", 1)
        user, _, secret = auth.partition(":")
        username, password = unquote(user) or None, unquote(secret) or None
    rest = rest.split("?", 1)[0]
    rest, _, database = rest.partition("/")
    if database.strip("/") not in ("", "0"):  # (a cluster has only database 0)
        raise BadStoreUrl(name, f"a Redis Cluster URL with no database but 0 ({database!r}: "
                          "a cluster has only database 0)", url)
    seeds = []
    for part in rest.split(","):
        found = urlsplit(f"//{part.strip()}")
        try:
            port = found.port
        except ValueError:
            port = None
        if not found.hostname or port is None:
            raise BadStoreUrl(name, f"a Redis Cluster URL whose seed nodes are each host:port "
                                    f"({part.strip()!r} is not)", url)
        seeds.append((found.hostname, port))
    return Target(url, True, tuple(seeds), username, password, scheme.startswith("rediss"))


@cache
def _query_names(scheme: str) -> frozenset[str]:
    """The names a single Redis's URL may give in its query: those that both redis-py clients
    made from it (``sync_client``'s ``ConnectionPool`` and ``async_client``'s
    ``BlockingConnectionPool``) take, as redis-py says itself: the parameters of the pool's and
    of the scheme's connection class's ``__init__`` (over their bases).  Any other name reaches
    the connection class as a keyword argument it refuses: a ``TypeError`` at the first
    command, long after the start (QA: ``?foo=bar``).  The names ``parse_url`` sets from the
    URL's other parts (``host``, ``db`` ...) are parameters too."""
    url = f"{scheme}://x/0"
    names = []
    for pool, parse_url in ((redis.ConnectionPool, redis.connection.parse_url),
                            (aioredis.BlockingConnectionPool, aioconnection.parse_url)):
        default = inspect.signature(pool).parameters["connection_class"].default
        connection = parse_url(url).get("connection_class", default)
        found = {"connection_class"}
        for klass in (*pool.__mro__, *connection.__mro__):
            init = klass.__dict__.get("__init__")
            if init is None or klass is object:
                continue
            found |= {p.name for p in inspect.signature(init).parameters.values()
                      if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
        names.append(found - {"self", "connection_kwargs"})
    return frozenset(names[0] & names[1])


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
        # A connection the Redis closed (it restarted) fails its next command; the blocking
        # client tries that again on a new connection by default, this one is told to (the
        # gateway's first request after a restart answered `unavailable`).  The commands are
        # safe to send twice: the append script finds its own record (scripts.py).
        # (the options go to the pool: a client given a pool ignores its connection options)
        pool = aioredis.BlockingConnectionPool.from_url(
            target.url, max_connections=64, timeout=30,
            retry=AsyncRetry(ExponentialBackoff(cap=0.5, base=0.05), 3),
            retry_on_error=[redis.ConnectionError, redis.TimeoutError], **options)
        return aioredis.Redis(connection_pool=pool)
    return AsyncRedisCluster(startup_nodes=[AsyncClusterNode(h, p) for h, p in target.seeds],
                             **_cluster_options(target), **options)


def check_single(client: Any, url: str, name: str = "HOKM_REDIS_URL") -> None:
    """``BadStoreUrl`` when ``url``, a single Redis's, names a node of a Redis Cluster: the node
    answers MOVED to most keys, so the server would look ready and then fail its requests (a
    cluster is ``redis+cluster://``).  Nothing for a cluster client; a server that refuses
    ``INFO`` is left to answer for itself."""
    if isinstance(client, RedisCluster):
        return
    try:
        info = client.info("cluster")
    except redis.ResponseError:
        return
    if str(info.get("cluster_enabled", 0)) == "1":
        raise BadStoreUrl(name, "redis+cluster://HOST:PORT,... for a Redis Cluster (this "
                          "redis:// URL names one of its nodes)", url)


def queue_url(store_url: str, queue: str | None) -> str:
    """The URL of RQ's Redis: ``queue`` (HOKM_QUEUE_URL) if given, else the store's
    (HOKM_REDIS_URL) when that is a single Redis; ``BadStoreUrl`` for a cluster without one."""
    if queue:
        if parse(queue, "HOKM_QUEUE_URL").cluster:
            raise BadStoreUrl("HOKM_QUEUE_URL", "a single Redis (RQ does not support Redis "
                              "Cluster)", queue)
        return queue
    if parse(store_url).cluster:
        raise BadStoreUrl("HOKM_QUEUE_URL", "set to a single Redis for the bot queue when "
                          "HOKM_REDIS_URL is a Redis Cluster (RQ does not support Redis "
                          "Cluster)", None)
    return store_url
