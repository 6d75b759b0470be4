"""Routine changes of a Redis Cluster's shape under a live match: a graceful failover
(``CLUSTER FAILOVER`` on a replica) and a slot migration.  A gateway follows the match over a
socket; another writer (this process's own match service, as a worker or a second gateway
would be) appends records; each must reach the socket, and no request may fail with a 500."""

from __future__ import annotations

import asyncio
import secrets
import signal
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from redis.crc import key_slot

from engine.commands import LeaveSeat, TakeSeat
from hokmclient import ApiError, Client, LocalServer, Seat, command_for, command_id, my_turn
from services.audit import check
from services.matches import MatchService
from services.store import connect, keys
from services.store.redis_cluster import AsyncClusterStore
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


def _fail_over(cluster: Cluster, old: int, new: int) -> None:
    """``CLUSTER FAILOVER`` on the replica ``new`` until the primary ``old`` is demoted.  Redis
    gives a manual failover 5 s (``Manual failover timed out`` when the replica does not catch
    up in time, as once right after a full resync): it is asked again, a few times."""
    for attempt in range(4):
        with _direct(cluster, new) as c:
            assert c.execute_command("CLUSTER", "FAILOVER") == b"OK"
        try:
            wait_for(lambda: _role(cluster, old) == "slave", 8, every=0.001,
                     what="the old primary's demotion", seen=cluster.logs)
            return
        except AssertionError:
            if attempt == 3:
                raise


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
        _fail_over(cluster, old, new)
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



class Players:
    """Every seat of a four-human match on ``url``, played over HTTP by this test with no
    retries of the client's own, so that every answer is seen: ``answers`` holds each
    request's HTTP status.  A command refused as ``unavailable`` is sent again with the same
    id at the next step (what the client's retry does)."""

    def __init__(self, url: str) -> None:
        self.client = Client(url, retries=0)
        created = self.client.create(seats=FOUR, name="P0")
        self.match_id: str = created["match_id"]
        self.tokens = [created["token"]] + [
            self.client.join(self.match_id, name=f"P{i}")["token"] for i in range(1, 4)]
        self.answers: list[int] = []
        self.errors: list[str] = []
        self.waiting: tuple[str, dict[str, Any]] | None = None
        """A command refused as unavailable (its token and body), to send again."""
        self.applied = 0

    def _ask(self, call: Any) -> Any:
        try:
            answer = call()
        except ApiError as error:
            self.answers.append(error.status)
            if (error.status, error.code) != (503, "unavailable"):
                self.errors.append(f"{error.status} {error.code}: {error.message}")
            return None
        self.answers.append(200)
        return answer

    def step(self) -> None:
        """The match's summary (it reads the seats' presence, a key a match may not have),
        then the requests towards the next decision: the waiting command again, or the views
        until the seat whose turn it is, and its command."""
        self._ask(lambda: self.client.summary(self.match_id))
        if self.waiting is None and not self.prepare():
            return
        self.send()

    def prepare(self) -> bool:
        """Find the seat whose turn it is and make its command ``waiting``; False if a view
        was refused."""
        for token in self.tokens:
            got = self._ask(lambda token=token: self.client.view(self.match_id, token))
            if got is None:
                return False
            view = got["view"]
            if my_turn(view):
                self.waiting = (token, command_for(view, view["legal"][0], command_id()))
                return True
        raise AssertionError(f"no seat's turn in {self.match_id}")

    def send(self) -> dict[str, Any] | None:
        """Send the waiting command (again, with its id); its answer, or None if refused."""
        assert self.waiting is not None
        token, body = self.waiting
        answer = self._ask(lambda: self.client.command(self.match_id, token, body))
        if answer is not None:
            self.waiting = None
            self.applied += 1
        return answer  # type: ignore[no-any-return]


def _migrate(cluster: Cluster, slot: int, source: int, target: int, between: Any) -> None:
    """Move ``slot`` from the primary on ``source`` to the one on ``target`` as ``redis-cli
    --cluster reshard`` does, calling ``between()`` at each stage: the source marked (before
    the target, as an operator by hand may: a key not on the source is then sent to the
    target and back, and redis-py gives up with ``ClusterError``), both ends marked, each key
    moved (``MIGRATE``), the slot given to the target on every primary."""
    source_id, target_id = _node_id(cluster, source), _node_id(cluster, target)
    with _direct(cluster, source) as c:
        c.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", target_id)
    between("source marked")
    with _direct(cluster, target) as c:
        c.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", source_id)
    between("both marked")
    with _direct(cluster, source) as c:
        names = c.execute_command("CLUSTER", "GETKEYSINSLOT", slot, 1000)
        assert names, "the match's keys are not on its primary"
        for name in names:  # one key at a time: a batch that is half moved is met too
            c.execute_command("MIGRATE", "127.0.0.1", target, name, 0, 5000)
            between(f"{name.decode()} moved")
    for port in [target, source] + [p for _, p in cluster.primaries if p not in (source, target)]:
        with _direct(cluster, port) as c:
            c.execute_command("CLUSTER", "SETSLOT", slot, "NODE", target_id)


@pytest.mark.parametrize("acks", ["0", "1"], ids=["async-replication", "replica-acks"])
def test_a_match_plays_on_while_its_slot_migrates(private_cluster: Any, acks: str) -> None:
    """Resharding moves a live match's slot to another primary: while it is under way every
    request is answered 200 or a clean ``503 unavailable`` (the client's retry then gets
    through), never a 500; the match plays on during and after it, its chain intact.  The
    append script declared the wake channel as a key, which during a migration looks like a
    key set half moved: every append was refused (``TRYAGAIN``) for the whole migration and
    redis-py's ``ClusterError`` reached the HTTP route as a 500 (QA F2).  With
    ``HOKM_REPLICA_ACKS=1`` the appends go through plain clients of the primaries, which must
    follow ``ASK`` and ``MOVED`` themselves: they read neither (redis-py's error text has no
    ``ASK``/``MOVED`` prefix), so once the log had moved every append was refused until the
    migration ended and a read elsewhere refreshed the slots."""
    cluster: Cluster = private_cluster()
    real_redis_client(QUEUE_DB).flushdb()
    env = {**env_for(cluster, f"hokm-topo-{secrets.token_hex(3)}"), "HOKM_REPLICA_ACKS": acks}
    gateway = LocalServer(env=env, cwd=ROOT).start()
    try:
        players = Players(gateway.url)
        for _ in range(12):
            players.step()
        assert players.answers and set(players.answers) == {200}, players.errors
        log_key = keys.log(players.match_id)
        source = cluster.primary_of(log_key)[1]
        target = next(p for _, p in cluster.primaries if p != source)

        applied: dict[str, int] = {}

        def play_some(stage: str) -> None:
            before = players.applied
            for _ in range(6):
                players.step()
            applied[stage] = players.applied - before

        _migrate(cluster, key_slot(log_key.encode()), source, target, play_some)
        assert players.errors == [], players.errors
        # the decisions went on while the slot was marked and its keys moved (the log among
        # them), not only refused cleanly until the end
        assert all(applied.values()), applied
        assert cluster.primary_of(log_key)[1] == target
        cluster.wait_ok(30, what="the cluster after the migration", replicas=3)
        after = players.applied
        wait_for(lambda: players.step() or players.applied >= after + 8, 30,
                 what="eight more decisions after the migration", seen=lambda: players.errors)
        assert players.errors == [], players.errors
        store = RedisStore(connect.sync_client(connect.parse(cluster.url)))
        assert check(store.read(players.match_id)) == []
        # an expected outage is one log line, never a traceback
        assert not [line for line in gateway.output if "Traceback" in line], \
            list(gateway.output)[-20:]
    finally:
        gateway.stop()


def test_a_command_found_stored_waits_for_its_replica_too(private_cluster: Any) -> None:
    """With ``HOKM_REPLICA_ACKS=1`` a command is acknowledged only once a replica holds its
    record.  With the replica of the match's primary stopped, the append is stored on the
    primary but refused as unavailable; the thread path (and the client's retry with the same
    id) then found the record by its command id and answered 200 as a duplicate: an
    acknowledgement for a record no replica held (QA F6).  It must stay ``503 unavailable``
    until the replica has the record; then the same id is answered 200, applied once."""
    cluster: Cluster = private_cluster()
    real_redis_client(QUEUE_DB).flushdb()
    env = {**env_for(cluster, f"hokm-topo-{secrets.token_hex(3)}"), "HOKM_REPLICA_ACKS": "1"}
    gateway = LocalServer(env=env, cwd=ROOT).start()
    replica: subprocess.Popen[bytes] | None = None
    try:
        players = Players(gateway.url)
        for _ in range(4):
            players.step()
        assert players.errors == [] and players.applied == 4, players.errors
        log_key = keys.log(players.match_id)
        replica_port = cluster.replica_of(cluster.primary_of(log_key)[1])[1]
        assert players.prepare() and players.waiting is not None
        at = players.waiting[1]["version"]
        replica = cluster.node(replica_port).proc
        assert replica is not None
        replica.send_signal(signal.SIGSTOP)
        for _ in range(3):  # the command, then the client's retries with the same id
            assert players.send() is None
            assert players.answers[-1] == 503, players.errors
        assert players.errors == []
        store = RedisStore(connect.sync_client(connect.parse(cluster.url)))
        assert store.version(players.match_id) == at + 1  # stored on the primary all along
        replica.send_signal(signal.SIGCONT)
        replica = None
        answer = wait_for(players.send, 30, what="the command acknowledged once the replica "
                          "is back", seen=lambda: players.answers[-3:])
        assert answer["version"] == at + 1  # the record stored before, applied once
        with _direct(cluster, replica_port) as c:
            c.execute_command("READONLY")
            assert c.xrange(log_key, f"{at + 1}-0", f"{at + 1}-0")  # the replica holds it
        for _ in range(4):  # and the match plays on
            players.step()
        assert players.errors == [] and players.applied == 9, players.errors
    finally:
        if replica is not None:
            replica.send_signal(signal.SIGCONT)
        gateway.stop()


def test_acknowledged_appends_follow_their_slot_as_it_moves(private_cluster: Any) -> None:
    """With replica acknowledgements (``replicas.py``) both stores, the threads' and the event
    loop's, append through plain clients of the match's primary.  At every stage of a slot
    migration, and with the slots they knew gone stale after it, each append is stored and
    acknowledged: an ``ASK`` is followed to the importing node (after ``ASKING``), a ``MOVED``
    re-reads the slots.  They followed neither: redis-py's parser turns those replies into
    ``AskError``/``MovedError``, whose text lost the word the check looked for, so from the
    log's move on every append was refused as unavailable."""
    cluster: Cluster = private_cluster()
    threads = RedisStore(connect.sync_client(connect.parse(cluster.url)), replica_acks=1,
                         wait_ms=5000)
    # the event loop's store on a loop of its own thread (the main thread may hold a running
    # loop already: Playwright's, in the same pytest process), driven from the migration's
    # steps, which are plain calls
    loop = asyncio.new_event_loop()
    runner = threading.Thread(target=loop.run_forever, daemon=True)
    runner.start()

    def on_loop(coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, loop).result(60)

    async def make() -> AsyncClusterStore:
        return AsyncClusterStore(connect.async_client(connect.parse(cluster.url)),
                                 replica_acks=1, wait_ms=5000)

    events = on_loop(make())
    match_id = secrets.token_hex(8)
    written: list[tuple[int, bytes]] = []

    def both(stage: str) -> None:
        version = len(written) + 1
        threads.append_sealed(match_id, version, f"t{version}".encode())
        assert on_loop(events.append(match_id, version + 1, f"e{version + 1}".encode())), stage
        written.extend([(version, f"t{version}".encode()),
                        (version + 1, f"e{version + 1}".encode())])

    try:
        both("before")
        log_key = keys.log(match_id)
        source = cluster.primary_of(log_key)[1]
        target = next(p for _, p in cluster.primaries if p != source)
        _migrate(cluster, key_slot(log_key.encode()), source, target, both)
        assert cluster.primary_of(log_key)[1] == target
        both("after, with the slots each client knew before")
        assert on_loop(events.read_raw(match_id)) == written
        assert len(written) >= 2 * 4  # before, two marks, the log's move, after
    finally:
        on_loop(events.close())
        loop.call_soon_threadsafe(loop.stop)
        runner.join(10)
        loop.close()
