"""The Redis Cluster fixture itself: a healthy six-node cluster, keys spread over the three
primaries by their hash tags, a shared cluster emptied between tests, a killed primary's slots
served again by its replica with the acknowledged data intact, and no cluster left behind."""

from __future__ import annotations

import itertools
import os
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import redis
from redis.crc import key_slot

from tests.cluster_fixture import SLOTS, Cluster, ClusterFactory, start_cluster
from tests.conftest import run_async, wait_for

ROOT = Path(__file__).resolve().parents[2]


def _cluster_info(port: int) -> dict[str, str]:
    with _direct(port) as c:
        text = c.execute_command("CLUSTER", "INFO").decode()
    return dict(line.split(":", 1) for line in text.split() if ":" in line)


def _replication(port: int) -> dict[str, str]:
    with _direct(port) as c:
        return {k: str(v) for k, v in c.info("replication").items()}


def _direct(port: int) -> redis.Redis:
    return redis.Redis(port=port, single_connection_client=True, socket_timeout=5)


def _refuses(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def _tag_on(cluster: Cluster, port: int, prefix: str) -> str:
    """A hash tag whose slot the primary on ``port`` owns."""
    for n in range(10_000):
        tag = f"{prefix}{n}"
        if cluster.primary_of(f"{{{tag}}}") == ("127.0.0.1", port):
            return tag
    raise AssertionError(f"no tag found for {port}")


def test_the_cluster_is_healthy(redis_cluster: Cluster) -> None:
    primaries = [p for _, p in redis_cluster.primaries]
    replicas = [p for _, p in redis_cluster.replicas]
    assert len(primaries) == 3 and len(replicas) == 3
    assert not set(primaries) & set(replicas)
    for port in primaries + replicas:
        info = _cluster_info(port)
        assert info["cluster_state"] == "ok", port
        assert info["cluster_slots_assigned"] == info["cluster_slots_ok"] == str(SLOTS)
        assert info["cluster_known_nodes"] == "6" and info["cluster_size"] == "3"
        repl = _replication(port)
        if port in primaries:
            assert repl["role"] == "master"
            assert repl["connected_slaves"] == "1"
        else:
            assert repl["role"] == "slave"
            assert repl["master_link_status"] == "up"
            assert int(repl["master_port"]) in primaries
    masters_of = {int(_replication(p)["master_port"]) for p in replicas}
    assert masters_of == set(primaries)  # one replica each
    with _direct(primaries[0]) as c:
        ranges = sorted((int(r[0]), int(r[1])) for r in c.execute_command("CLUSTER", "SLOTS"))
    assert ranges[0][0] == 0 and ranges[-1][1] == SLOTS - 1
    assert all(a[1] + 1 == b[0] for a, b in itertools.pairwise(ranges))
    seeds = redis_cluster.url.removeprefix("redis+cluster://").split(",")
    assert redis_cluster.url.startswith("redis+cluster://")
    assert sorted(seeds) == sorted(f"127.0.0.1:{p}" for p in primaries + replicas)


def test_hash_tags_spread_keys_over_every_primary(redis_cluster: Cluster) -> None:
    client = redis_cluster.client
    ports = [p for _, p in redis_cluster.primaries]
    for port in ports:  # the fixture handed the cluster out empty
        assert _direct(port).dbsize() == 0
    tags = {port: _tag_on(redis_cluster, port, "m") for port in ports}
    for tag in tags.values():
        client.xadd(f"hokm:{{{tag}}}:log", {"d": f"record of {tag}".encode()}, id="1-0")
        client.hset(f"hokm:{{{tag}}}:meta", mapping={"secret": tag})
    for port, tag in tags.items():
        entries = client.xrange(f"hokm:{{{tag}}}:log")
        assert entries == [(b"1-0", {b"d": f"record of {tag}".encode()})]
        assert client.hgetall(f"hokm:{{{tag}}}:meta") == {b"secret": tag.encode()}
        with _direct(port) as node:  # the keys really live on that primary, and only there
            slot = key_slot(tag.encode())
            assert node.execute_command("CLUSTER", "COUNTKEYSINSLOT", slot) == 2
            assert node.dbsize() == 2


def test_flush_empties_primaries_and_replicas(redis_cluster: Cluster) -> None:
    client = redis_cluster.client
    for n in range(30):
        client.set(f"k:{{{n}}}", n)
    assert sum(_direct(p).dbsize() for _, p in redis_cluster.primaries) == 30
    redis_cluster.flush()
    for _, port in redis_cluster.primaries + redis_cluster.replicas:
        assert _direct(port).dbsize() == 0, port


def test_the_asyncio_client_works_too(redis_cluster: Cluster) -> None:
    async def round_trip() -> list[object]:
        client = redis_cluster.async_client()
        try:
            for n in range(6):
                await client.set(f"a:{{{n}}}", f"v{n}")
            return [await client.get(f"a:{{{n}}}") for n in range(6)]
        finally:
            await client.aclose()

    assert run_async(round_trip()) == [f"v{n}".encode() for n in range(6)]


def test_a_killed_primary_is_replaced_by_its_replica(private_cluster: ClusterFactory) -> None:
    cluster = private_cluster()
    before = cluster.client  # a client that knew the old topology
    key = "hokm:{victim}:log"
    _, primary = cluster.primary_of(key)
    _, replica = cluster.replica_of(primary)
    with _direct(primary) as node:  # one connection: WAIT covers exactly these writes
        for version in range(1, 51):
            node.xadd(key, {"d": b"r%d" % version}, id=f"{version}-0")
        assert node.execute_command("WAIT", 1, 1000) == 1

    assert cluster.kill_primary_of(key) == primary
    assert _refuses(primary)
    new_primary = cluster.wait_failover(primary)

    assert new_primary == ("127.0.0.1", replica)
    assert ("127.0.0.1", primary) not in cluster.primaries + cluster.replicas
    assert new_primary in cluster.primaries and len(cluster.primaries) == 3
    for _, port in cluster.primaries + cluster.replicas:
        assert _cluster_info(port)["cluster_state"] == "ok", port
    assert _replication(replica)["role"] == "master"
    expected = [(f"{v}-0".encode(), {b"d": b"r%d" % v}) for v in range(1, 51)]
    fresh = cluster.new_client()
    try:
        assert fresh.xrange(key) == expected
        assert fresh.xadd(key, {"d": b"r51"}, id="51-0") == b"51-0"  # writable again
    finally:
        fresh.close()
    assert before.xlen(key) == 51  # the old client finds the new primary by itself

    folder = cluster.folder
    cluster.stop()
    assert not folder.exists()
    assert all(_refuses(port) for port in cluster.nodes)


def test_a_killed_test_run_leaves_no_cluster_behind() -> None:
    """The nodes die with the process that started them (setpriv --pdeathsig), even when that
    process is SIGKILLed and cannot run any clean-up (its folder stays: removed here)."""
    script = ("import sys; from tests.cluster_fixture import start_cluster; c = start_cluster(); "
              "print(c.folder, *c.nodes, flush=True); sys.stdin.read()")
    child = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    folder: Path | None = None
    try:
        assert child.stdout is not None and child.stderr is not None
        line = child.stdout.readline().split()
        assert len(line) == 7, child.stderr.read() if child.poll() is not None else line
        folder, ports = Path(line[0]), [int(p) for p in line[1:]]
        assert not any(_refuses(p) for p in ports)
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        wait_for(lambda: all(_refuses(p) for p in ports), timeout=15, what="the nodes to die")
    finally:
        if child.poll() is None:
            os.kill(child.pid, signal.SIGKILL)
            child.wait()
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


def test_missing_redis_programs_fail_rather_than_skip(monkeypatch: pytest.MonkeyPatch,
                                                       tmp_path: Path) -> None:
    server = shutil.which("redis-server")
    assert server is not None
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(pytest.fail.Exception, match="redis-server is not installed"):
        start_cluster()
    (tmp_path / "redis-server").symlink_to(server)  # the server alone: no redis-cli
    with pytest.raises(pytest.fail.Exception, match="redis-cli is not installed"):
        start_cluster()
