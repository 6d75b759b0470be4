"""A real Redis Cluster for tests: six ``redis-server`` processes (three primaries with one
replica each) on free loopback ports, each in its own folder under one temporary folder, joined
by ``redis-cli --cluster create``.

Contract:

- ``start_cluster()`` returns a ``Cluster`` only once every node reports ``cluster_state:ok``
  with all 16384 slots assigned and ok, every node knows all six, every node gives the same
  owner for every slot, every primary has its replica online and every replica's link to its
  primary is up with its first sync done.  Otherwise it stops whatever it started and fails the
  test (``pytest.fail``) with what was still missing and the tails of the nodes' logs.
- It fails, never skips, when ``redis-server`` or ``redis-cli`` is not installed.
- Every wait polls with a deadline; nothing sleeps for a fixed time.
- ``stop()`` SIGKILLs every process and removes the folder; calling it again does nothing.
  The processes are also started under ``setpriv --pdeathsig KILL`` when ``setpriv`` exists
  (util-linux), so a test run killed outright leaves no cluster behind.
- Memory stays small: each node is an idle ``redis-server`` (a few MB) with ``maxmemory``
  64 MB; replication is diskless with no delay, so the first syncs take milliseconds.

Requires Redis 7.0 or later (``--cluster-port`` names the bus port, so the client ports may be
anywhere in the ephemeral range).
"""

from __future__ import annotations

import atexit
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import redis
import redis.asyncio.cluster
import redis.cluster
from redis.crc import key_slot

HOST = "127.0.0.1"
SLOTS = 16384
NODES = 6
PRIMARIES = 3
NODE_TIMEOUT_MS = 1500
"""Small, so that a dead primary is replaced in a few seconds; large enough that a node starved
of CPU for a moment on a loaded two-core machine is not failed over by mistake."""
START_TIMEOUT_S = 60.0
FAILOVER_TIMEOUT_S = 30.0

Address = tuple[str, int]


class ClusterError(Exception):
    """The cluster did not reach the state waited for within the deadline."""


class _PortTaken(ClusterError):
    """A node could not bind its port (another process took it after we picked it)."""


def _executable(name: str, package: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed (Debian package {package}; .ci/run installs it): "
                    "the Redis Cluster tests need it", pytrace=False)
    return found


def _free_ports(count: int) -> list[int]:
    """``count`` distinct loopback ports free right now (held together while picked)."""
    held: list[socket.socket] = []
    try:
        for _ in range(count):
            s = socket.socket()
            s.bind((HOST, 0))
            held.append(s)
        return [int(s.getsockname()[1]) for s in held]
    finally:
        for s in held:
            s.close()


def _parse_info(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in text.splitlines():
        name, sep, value = line.strip().partition(":")
        if sep:
            out[name] = value
    return out


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


@dataclass
class Node:
    """One ``redis-server`` of the cluster."""

    port: int
    bus_port: int
    folder: Path
    proc: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> Address:
        return (HOST, self.port)

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def client(self) -> redis.Redis:
        """A direct (non-cluster) client on this node alone, one connection, short timeouts."""
        return redis.Redis(host=HOST, port=self.port, socket_timeout=5,
                           socket_connect_timeout=2, single_connection_client=True)

    def log_tail(self, lines: int = 6) -> str:
        parts = []
        for name in ("stderr.log", "redis.log"):
            path = self.folder / name
            if path.exists():
                text = path.read_text(errors="replace").splitlines()[-lines:]
                if text:
                    parts.append(f"--- {HOST}:{self.port} {name}\n" + "\n".join(text))
        return "\n".join(parts)

    def kill(self) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()


@dataclass(frozen=True, order=True)
class _Shard:
    start: int
    end: int
    primary: int
    replicas: tuple[int, ...]


@dataclass
class Cluster:
    """A running cluster.  ``primaries`` and ``replicas`` are (host, port) lists of the live
    nodes as of the last check (start-up or ``wait_failover``)."""

    folder: Path
    nodes: dict[int, Node]
    node_timeout_ms: int = NODE_TIMEOUT_MS
    primaries: list[Address] = field(default_factory=list)
    replicas: list[Address] = field(default_factory=list)
    _client: redis.cluster.RedisCluster | None = None
    primary_of_replica: dict[int, int] = field(default_factory=dict)
    """Replica port -> its primary's port, as of the last check."""
    _owned: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    launch: Callable[[Node], None] | None = None
    """Starts a node's ``redis-server`` as at start-up (``restart``)."""
    """Slot ranges a killed primary owned when it was killed, by its port."""
    _stopped: bool = False

    # -- addresses and clients ----------------------------------------------------------------

    @property
    def url(self) -> str:
        """The seed URL of the project's configuration: every live node, primaries first."""
        seeds = ",".join(f"{host}:{port}" for host, port in [*self.primaries, *self.replicas])
        return f"redis+cluster://{seeds}"

    def startup_nodes(self) -> list[redis.cluster.ClusterNode]:
        """Every live node, primaries first, as ``redis.cluster.ClusterNode``."""
        make: Any = redis.cluster.ClusterNode  # untyped in redis-py
        return [make(h, p) for h, p in [*self.primaries, *self.replicas]]

    @property
    def client(self) -> redis.cluster.RedisCluster:
        """A ``RedisCluster`` client shared by the cluster's users (do not close it)."""
        if self._client is None:
            self._client = self.new_client()
        return self._client

    def new_client(self, **options: Any) -> redis.cluster.RedisCluster:
        """A new ``RedisCluster`` client (the caller closes it).  ``require_full_coverage``
        stays True (a client is only built on a fully covered cluster)."""
        options.setdefault("socket_timeout", 5)
        options.setdefault("socket_connect_timeout", 2)
        return redis.cluster.RedisCluster(startup_nodes=self.startup_nodes(), **options)

    def async_client(self, **options: Any) -> redis.asyncio.cluster.RedisCluster:
        """A new ``redis.asyncio.cluster.RedisCluster`` (the caller awaits ``aclose()``)."""
        options.setdefault("socket_timeout", 5)
        options.setdefault("socket_connect_timeout", 2)
        make: Any = redis.asyncio.cluster.ClusterNode  # untyped in redis-py
        nodes = [make(h, p) for h, p in [*self.primaries, *self.replicas]]
        return redis.asyncio.cluster.RedisCluster(startup_nodes=nodes, **options)

    def node(self, port: int) -> Node:
        return self.nodes[port]

    # -- topology -----------------------------------------------------------------------------

    def _live(self) -> list[Node]:
        return [n for n in self.nodes.values() if n.alive]

    def _shards(self, node: Node) -> list[_Shard]:
        with node.client() as c:
            raw = c.execute_command("CLUSTER", "SLOTS")
        shards = [_Shard(int(r[0]), int(r[1]), int(r[2][1]), tuple(int(x[1]) for x in r[3:]))
                  for r in raw]
        return sorted(shards, key=lambda s: s.start)

    def slot_owner(self, slot: int) -> Address:
        """The primary serving ``slot``, as the first live node answering sees it."""
        for node in self._live():
            try:
                shards = self._shards(node)
            except redis.RedisError:
                continue
            for shard in shards:
                if shard.start <= slot <= shard.end:
                    return (HOST, shard.primary)
            raise ClusterError(f"slot {slot} is not covered")
        raise ClusterError("no node answers")

    def primary_of(self, key: str | bytes) -> Address:
        """The primary that owns ``key``'s slot."""
        return self.slot_owner(key_slot(key.encode() if isinstance(key, str) else key))

    def replica_of(self, primary: int) -> Address:
        """The (single) replica of the primary on port ``primary``."""
        for shard in self._shards(self._live()[0]):
            if shard.primary == primary and shard.replicas:
                return (HOST, shard.replicas[0])
        raise ClusterError(f"{HOST}:{primary} is not a primary with a replica")

    # -- health -------------------------------------------------------------------------------

    def problems(self, replicas: int = 0) -> list[str]:
        """What keeps the live nodes from being a healthy cluster (empty when healthy): on
        every live node state ok, all slots ok, every live node known; one view of the slots
        on all of them, covering all 16384, served by live primaries only; every live replica
        linked to its primary, first sync done, and listed in that primary's shard; at least
        ``replicas`` replicas.  When healthy, refreshes ``primaries`` and ``replicas``."""
        live = self._live()
        problems: list[str] = []
        views: dict[int, tuple[_Shard, ...]] = {}
        masters: dict[int, int] = {}
        """replica port -> its primary's port, as the replica says."""
        for node in live:
            try:
                with node.client() as c:
                    info = _parse_info(_text(c.execute_command("CLUSTER", "INFO")))
                    repl = c.info("replication")
                views[node.port] = tuple(self._shards(node))
            except redis.RedisError as exc:
                problems.append(f"{node.port}: {exc}")
                continue
            if info.get("cluster_state") != "ok":
                problems.append(f"{node.port}: cluster_state {info.get('cluster_state')}")
            if info.get("cluster_slots_ok") != str(SLOTS):
                problems.append(f"{node.port}: {info.get('cluster_slots_ok')} slots ok")
            if int(info.get("cluster_known_nodes", 0)) < len(live):
                problems.append(f"{node.port}: knows {info.get('cluster_known_nodes')} nodes")
            if repl.get("role") == "slave":
                masters[node.port] = int(repl.get("master_port", 0))
                if repl.get("master_link_status") != "up":
                    problems.append(f"{node.port}: master link {repl.get('master_link_status')}")
                if int(repl.get("master_sync_in_progress", 0)):
                    problems.append(f"{node.port}: first sync in progress")
        if problems:
            return problems
        distinct = set(views.values())
        if len(distinct) != 1:
            return [f"the nodes disagree about the slots: {sorted(distinct)}"]
        shards = distinct.pop()
        covered = sum(s.end - s.start + 1 for s in shards)
        if covered != SLOTS:
            return [f"{covered} slots covered"]
        live_ports = {n.port for n in live}
        for shard in shards:
            if shard.primary not in live_ports:
                problems.append(f"slots {shard.start}-{shard.end} still on dead {shard.primary}")
        listed = {r: s.primary for s in shards for r in s.replicas}
        for replica, master in masters.items():
            if listed.get(replica) != master:
                problems.append(f"{replica}: not yet listed as the replica of {master}")
        if len(masters) < replicas:
            problems.append(f"{len(masters)} replicas, not {replicas}")
        if problems:
            return problems
        self.primaries = [(HOST, p) for p in sorted({s.primary for s in shards})]
        self.replicas = [(HOST, r) for r in sorted(masters)]
        self.primary_of_replica = dict(masters)
        return []

    def wait_ok(self, timeout: float = START_TIMEOUT_S, what: str = "a healthy cluster",
                replicas: int = 0) -> None:
        """Poll ``problems(replicas)`` until it is empty; ``ClusterError`` with the last
        problems once ``timeout`` seconds have passed."""
        deadline = time.monotonic() + timeout
        while True:
            problems = self.problems(replicas)
            if not problems:
                return
            if time.monotonic() > deadline:
                raise ClusterError(f"{what} not reached within {timeout:.1f} s: "
                                   + "; ".join(problems[:8]))
            time.sleep(0.05)

    # -- breaking it --------------------------------------------------------------------------

    def kill(self, port: int) -> None:
        """SIGKILL the node on ``port`` (no chance to write anything more), remembering the
        slots it served as a primary for ``wait_failover``."""
        node = self.nodes[port]
        for shard in self._shards(node if node.alive else self._live()[0]):
            if shard.primary == port:
                self._owned.setdefault(port, []).append((shard.start, shard.end))
        node.kill()

    def restart(self, port: int, timeout: float = FAILOVER_TIMEOUT_S) -> None:
        """Start the killed node on ``port`` again in its folder (its ``nodes.conf`` and
        append-only file): it rejoins the cluster, as a replica of whoever took its slots, and
        this returns once every primary has its replica again (``ClusterError`` after
        ``timeout`` seconds)."""
        node = self.nodes[port]
        if node.alive or self.launch is None:
            raise ClusterError(f"{HOST}:{port} is not a killed node of this cluster")
        self.launch(node)
        _wait_answering([node], time.monotonic() + timeout)
        self.wait_ok(timeout, what=f"{HOST}:{port} back as a replica",
                     replicas=NODES - PRIMARIES)

    def kill_primary_of(self, key: str | bytes) -> int:
        """SIGKILL the primary owning ``key``'s slot; its port."""
        _, port = self.primary_of(key)
        self.kill(port)
        return port

    def wait_failover(self, port: int, timeout: float = FAILOVER_TIMEOUT_S) -> Address:
        """Wait until a live replica serves every slot the killed node ``port`` owned and the
        cluster is healthy again (``problems()`` empty on the live nodes); the new primary.
        ``ClusterError`` with what was still missing after ``timeout`` seconds."""
        ranges = self._owned.get(port)
        if not ranges:
            raise ClusterError(f"{HOST}:{port} was not a primary killed by kill()")
        self.wait_ok(timeout, what=f"a failover of {HOST}:{port}")
        owners = {self.slot_owner(start) for start, _ in ranges}
        owners |= {self.slot_owner(end) for _, end in ranges}
        if len(owners) != 1:
            raise ClusterError(f"the slots of {port} are split between {sorted(owners)}")
        return owners.pop()

    # -- sharing it ---------------------------------------------------------------------------

    def flush(self) -> None:
        """FLUSHALL on every primary, and wait (up to 5 s) until its replicas acknowledge it,
        so that nothing is left on a replica either; ``ClusterError`` if one does not."""
        for _, port in self.primaries:
            replicas = sum(1 for master in self.primary_of_replica.values() if master == port)
            with self.nodes[port].client() as c:
                c.flushall()
                acked = int(c.execute_command("WAIT", replicas, 5000))
            if acked < replicas:
                raise ClusterError(f"{replicas - acked} replicas of {HOST}:{port} did not "
                                   "acknowledge FLUSHALL within 5 s")

    def rss_bytes(self) -> int:
        """Resident memory of the live nodes together (Linux ``/proc``)."""
        total = 0
        for node in self._live():
            assert node.proc is not None
            status = Path(f"/proc/{node.proc.pid}/status").read_text()
            kb = next(line.split()[1] for line in status.splitlines()
                      if line.startswith("VmRSS:"))
            total += int(kb) * 1024
        return total

    def logs(self) -> str:
        return "\n".join(n.log_tail() for n in self.nodes.values())

    def stop(self) -> None:
        """Kill every node and remove the folder (idempotent)."""
        if self._stopped:
            return
        self._stopped = True
        if self._client is not None:
            try:
                self._client.close()
            except Exception:  # the nodes are going away anyway
                pass
        for node in self.nodes.values():
            node.kill()
        shutil.rmtree(self.folder, ignore_errors=True)


def _launch(server: str, node: Node, node_timeout_ms: int, pdeathsig: list[str]) -> None:
    node.folder.mkdir(exist_ok=True)  # (a restart: the node's files are there already)
    args = [
        *pdeathsig, server,
        "--port", str(node.port), "--bind", HOST, "--dir", str(node.folder),
        "--cluster-enabled", "yes", "--cluster-config-file", str(node.folder / "nodes.conf"),
        "--cluster-port", str(node.bus_port),
        "--cluster-node-timeout", str(node_timeout_ms),
        "--cluster-replica-validity-factor", "0",  # a replica always stands for election
        "--appendonly", "yes", "--save", "",
        "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0",
        # CLUSTER SLOTS lists a replica only once its offset is above 0, which for an idle
        # primary happens at its first ping to its replicas (every 10 s by default)
        "--repl-ping-replica-period", "1",
        "--maxmemory", "64mb", "--logfile", str(node.folder / "redis.log"),
        "--daemonize", "no",
    ]
    with open(node.folder / "stderr.log", "wb") as err:
        node.proc = subprocess.Popen(args, cwd=node.folder, stdin=subprocess.DEVNULL,
                                     stdout=err, stderr=subprocess.STDOUT)


def _wait_answering(nodes: list[Node], deadline: float) -> None:
    pending = list(nodes)
    while pending:
        for node in list(pending):
            assert node.proc is not None
            if node.proc.poll() is not None:
                tail = node.log_tail()
                if "Address already in use" in tail:
                    raise _PortTaken(tail)
                raise ClusterError(f"{HOST}:{node.port} exited with {node.proc.returncode}")
            try:
                with node.client() as c:
                    c.ping()
                pending.remove(node)
            except redis.ConnectionError:
                pass
        if pending and time.monotonic() > deadline:
            raise ClusterError(f"nodes {[n.port for n in pending]} do not answer")
        if pending:
            time.sleep(0.02)


def _start_once(server: str, cli: str, node_timeout_ms: int, deadline: float) -> Cluster:
    folder = Path(tempfile.mkdtemp(prefix="hokm-cluster-"))
    ports = _free_ports(2 * NODES)
    nodes = {p: Node(p, b, folder / str(p)) for p, b in zip(ports[:NODES], ports[NODES:],
                                                             strict=True)}
    cluster = Cluster(folder, nodes, node_timeout_ms)
    atexit.register(cluster.stop)
    setpriv = shutil.which("setpriv")
    pdeathsig = [setpriv, "--pdeathsig", "KILL"] if setpriv else []
    cluster.launch = lambda node: _launch(server, node, node_timeout_ms, pdeathsig)
    try:
        for node in nodes.values():
            cluster.launch(node)
        _wait_answering(list(nodes.values()), deadline)
        create = [cli, "--cluster", "create", *(f"{HOST}:{p}" for p in nodes),
                  "--cluster-replicas", "1", "--cluster-yes"]
        try:
            done = subprocess.run(create, capture_output=True, text=True, check=False,
                                  timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired as exc:
            raise ClusterError(f"redis-cli --cluster create did not finish: {exc.stdout!r}"
                               ) from None
        if done.returncode != 0 or "All 16384 slots covered" not in done.stdout:
            raise ClusterError(f"redis-cli --cluster create failed ({done.returncode}):\n"
                               f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
        cluster.wait_ok(max(0.0, deadline - time.monotonic()), what="the new cluster",
                        replicas=NODES - PRIMARIES)
        if len(cluster.primaries) != PRIMARIES or len(cluster.replicas) != NODES - PRIMARIES:
            raise ClusterError(f"expected {PRIMARIES} primaries with a replica each: "
                               f"{cluster.primaries} {cluster.replicas}")
        return cluster
    except _PortTaken:
        cluster.stop()
        raise
    except BaseException as exc:
        logs = cluster.logs()
        cluster.stop()
        if isinstance(exc, ClusterError):
            raise ClusterError(f"{exc}\n{logs}") from None
        raise


def start_cluster(node_timeout_ms: int = NODE_TIMEOUT_MS,
                  timeout: float = START_TIMEOUT_S) -> Cluster:
    """Start a healthy six-node cluster (see the module's contract) or fail the test."""
    server = _executable("redis-server", "redis-server")
    cli = _executable("redis-cli", "redis-tools")
    deadline = time.monotonic() + timeout
    for _attempt in range(3):
        try:
            return _start_once(server, cli, node_timeout_ms, deadline)
        except _PortTaken:
            continue  # another process took a port between picking and binding: pick again
        except ClusterError as exc:
            pytest.fail(f"the test Redis Cluster did not start: {exc}", pytrace=False)
    pytest.fail("the test Redis Cluster did not start: its ports kept being taken",
                pytrace=False)


ClusterFactory = Callable[..., Cluster]
"""``private_cluster(node_timeout_ms=..., timeout=...)`` -> a new ``Cluster``."""

