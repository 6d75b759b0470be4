"""Following on one Redis by wake-ups, the way ``redis_cluster.ShardedFollower`` follows on a
cluster: every stored record publishes its version on its match's channel (``scripts.APPEND``,
run by every writer on a real Redis), the follower subscribes to the channels of the matches it
follows on one pub/sub connection of its own and reads, with one pipeline of ``XRANGE``s, only
the streams that woke; a wake-up naming a version the follower was told it has (``seen``: the
process appended it itself) costs no read at all.

Chosen over ``redis_async.StreamsFollower`` (one blocking ``XREAD`` over every followed stream)
on measurements (``bench/load.py``'s capacity phase, 1,000 matches on one gateway): that read
is sent again after every answer, and with a thousand streams packing and writing it took
about 30 % of the gateway's CPU, for the gateway's own appends read back as much as for
anyone else's.  fakeredis (the embedded server) keeps ``StreamsFollower``: it has no socket to
subscribe on, and one process is every writer there.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import redis.asyncio as aioredis

from .redis_cluster import ShardedFollower


class _Node(NamedTuple):
    name: str


class WakeFollower(ShardedFollower):
    """``Follower`` on one Redis (a ``redis.asyncio.Redis`` client): the cluster's design with
    a single node, whose feed connects with the client's own settings (database, password,
    TLS or a Unix socket alike)."""

    _NODE = _Node("redis")
    MOVES = False  # one node: nothing moves

    async def _owner(self, channel: bytes) -> Any:
        return self._NODE

    async def _refresh(self) -> None:
        pass

    def _feed_client(self, node: Any) -> Any:
        pool = self.cluster.connection_pool
        # a pool of its own (the feed's one connection never returns to the client's)
        return aioredis.Redis(connection_pool=aioredis.ConnectionPool(
            connection_class=pool.connection_class, **pool.connection_kwargs))
