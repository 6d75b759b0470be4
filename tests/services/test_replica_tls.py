"""The plain node clients of replica-acknowledged appends (``replicas.py``) speak TLS to a
cluster reached over TLS (``rediss+cluster://``), with the cluster client's TLS settings: they
were built from its credentials and timeouts only, so every such append met a TLS port with a
plain connection.  No server is reached here: the clients are built and their connection
settings read."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster
from redis.asyncio.connection import SSLConnection as AsyncSSLConnection
from redis.connection import SSLConnection

from services.store import connect
from services.store.replicas import Acked, AsyncAcked


def test_the_asyncio_node_clients_keep_the_clusters_tls() -> None:
    cluster = connect.async_client(connect.parse("rediss+cluster://127.0.0.1:7000"))
    assert isinstance(cluster, AsyncRedisCluster)
    acked = AsyncAcked(cluster, 1, 100)
    acked._pipeline("m1", ("127.0.0.1", 7000), "return 1", 0)
    pool = acked._clients[("127.0.0.1", 7000)].connection_pool
    assert issubclass(pool.connection_class, AsyncSSLConnection)
    assert pool.connection_kwargs["ssl_cert_reqs"] == "required"  # verification kept on


@pytest.mark.parametrize("tls", [True, False], ids=["rediss", "redis"])
def test_the_threads_node_clients_keep_the_clusters_tls(tls: bool) -> None:
    # redis-py's cluster client reads the cluster's shape when built, so it is stood in for
    # by what the node clients read of it: its node options as redis-py keeps them
    options: dict[str, Any] = {"password": "pw", "socket_timeout": 3.0}
    if tls:
        options |= {"ssl": True, "ssl_ca_certs": "/etc/ca.pem", "ssl_cert_reqs": "required",
                    "ssl_keyfile": None}
    cluster = SimpleNamespace(nodes_manager=SimpleNamespace(connection_kwargs=options))
    acked = Acked(cluster, 1, 500)
    acked._pipeline("m1", ("127.0.0.1", 7000), "return 1", 0)
    pool = acked._clients[("127.0.0.1", 7000)].connection_pool
    assert issubclass(pool.connection_class, SSLConnection) is tls
    kwargs = pool.connection_kwargs
    assert kwargs["password"] == "pw" and kwargs["socket_timeout"] == 3.5
    if tls:
        assert kwargs["ssl_ca_certs"] == "/etc/ca.pem"

