"""Routine changes of a Redis Cluster's shape under a live match: a graceful failover
(``CLUSTER FAILOVER`` on a replica) and a slot migration.  A gateway follows the match over a
socket; another writer (this process's own match service, as a worker or a second gateway
would be) appends records; each must reach the socket, and no request may fail with a 500."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from engine.commands import LeaveSeat, TakeSeat
from hokmclient import LocalServer, Seat
from services.matches import MatchService
from services.store import connect, keys
from services.store.redis_streams import RedisStore
from tests.cluster.test_play import QUEUE_DB, env_for
from tests.cluster_fixture import Cluster
from tests.conftest import real_redis_client, wait_for

ROOT = Path(__file__).resolve().parents[2]
FOUR = ["human"] * 4
WINDOW_TRIES = 6
"""Failovers tried until one leaves the writer's records inside the window looked for."""


class Table:
    """A gateway of its own on ``cluster``, a match on it followed over the first seat's socket,
    and another writer on the same cluster."""

    def __init__(self, cluster: Cluster) -> None:
        real_redis_client(QUEUE_DB).flushdb()
        self.cluster = cluster
        self.gateway = LocalServer(env=env_for(cluster, f"hokm-topo-{secrets.token_hex(3)}"),
                                   cwd=ROOT).start()
        self.store = RedisStore(connect.sync_client(connect.parse(cluster.url)))
        self.writer = MatchService(self.store)
        self.seat = Seat.create(self.gateway.url, seats=FOUR, name="Watched")
        self.seat.start()
        self.match_id = self.seat.match_id
        self.log_key = keys.log(self.match_id)
        self.channel = keys.wake_channel(self.match_id)
        self.seated = False

    def append(self) -> int:
        """One record by the other writer (seat 1 taken, or left again); its version."""
        command = LeaveSeat(1) if self.seated else TakeSeat(1, "Other", "p-other")
        self.writer.seat_command(self.match_id, command)
        self.seated = not self.seated
        return self.store.version(self.match_id)

    def reaches_socket(self, version: int, timeout: float = 20.0) -> None:
        try:
            self.seat.wait(lambda v: v["version"] >= version, timeout)
        except TimeoutError:
            raise AssertionError(
                f"version {version} of {self.match_id} never reached the socket (it shows "
                f"{self.seat.version}); gateway: {list(self.gateway.output)[-6:]}") from None

    def stop(self) -> None:
        self.seat.close()
        self.gateway.stop()


@pytest.fixture
def table(private_cluster: Any) -> Iterator[Table]:
    made = Table(private_cluster())
    try:
        yield made
    finally:
        made.stop()


def _direct(cluster: Cluster, port: int) -> redis.Redis:
    return cluster.node(port).client()


def _node_id(cluster: Cluster, port: int) -> str:
    with _direct(cluster, port) as c:
        return str(c.execute_command("CLUSTER", "MYID").decode())


def _role(cluster: Cluster, port: int) -> str:
    with _direct(cluster, port) as c:
        return str(c.execute_command("ROLE")[0].decode())


def _counts_as_replica(cluster: Cluster, primary: int, replica_id: str) -> bool:
    """Whether the primary on ``primary`` lists ``replica_id`` among its replicas: from then on
    it forwards its shard's wake-ups to that node's subscribers too."""
    with _direct(cluster, primary) as c:
        lines = c.execute_command("CLUSTER", "REPLICAS", _node_id(cluster, primary))
    return any(replica_id in (line.decode() if isinstance(line, bytes) else line)
               for line in lines)


def test_a_graceful_failover_keeps_waking_a_followed_match(table: Table) -> None:
    """``CLUSTER FAILOVER`` on the replica of the match's primary: the demoted primary drops
    the gateway's subscription and takes it back as a replica, but its new primary forwards
    the shard's wake-ups to it only once it counts it as its replica (gossip, a few hundred
    ms later).  Records appended in between by another writer woke nobody, and the match
    waited for good (QA F3).  The follower must notice that its feed's node no longer serves
    the slot and read the match from where it was.  A try whose last record did not fall in
    that window proves nothing and is made again (failing over back)."""
    cluster, match_id = table.cluster, table.match_id
    table.reaches_socket(table.append())  # the follower is subscribed and reading
    for _ in range(WINDOW_TRIES):
        old = cluster.primary_of(table.log_key)[1]
        new = cluster.replica_of(old)[1]
        old_id = _node_id(cluster, old)
        with _direct(cluster, new) as c:
            assert c.execute_command("CLUSTER", "FAILOVER") == b"OK"
        wait_for(lambda old=old: _role(cluster, old) == "slave", 20, every=0.001,
                 what="the old primary's demotion", seen=cluster.logs)
        # the gateway's subscription is back (on the demoted node, or wherever it went) and
        # what was appended before it is read; the next record comes after that read
        table.reaches_socket(table.append())
        last = table.append()
        inside = not _counts_as_replica(cluster, new, old_id)
        table.reaches_socket(last)
        cluster.wait_ok(30, what="the cluster after the failover", replicas=3)
        if inside:
            return
    pytest.fail(f"none of {WINDOW_TRIES} failovers left the writer's records inside the "
                f"window (match {match_id}); the test proved nothing")

