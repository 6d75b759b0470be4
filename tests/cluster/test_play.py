"""The whole product on a real Redis Cluster: two ``hokm serve`` processes and two ``hokm
worker`` processes on a six-node cluster (RQ on its own plain Redis), twenty matches played to
their end at once, a scripted human in each over the WebSocket of either gateway, bots in the
workers, a spectator of each on the other gateway; every socket receives every version in
order, every match ends with an intact chain, and the audit commands read the cluster.  Then the
same with a primary killed in the middle of play: its replica takes over, gateways and workers
reconnect by themselves, and every match finishes.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hokmclient import AsyncSeat, LocalServer
from hokmclient.errors import RETRYABLE, ApiError
from hokmclient.http import retry_pause
from hokmclient.local import NO_LIMITS
from services.audit import check
from services.store import connect
from services.store.redis_streams import RedisStore
from tests.cluster_fixture import Cluster
from tests.conftest import real_redis_client, redis_db_url, run_async, wait_for

QUEUE_DB = 14
HOKM = str(Path(sys.executable).parent / "hokm")
ROOT = Path(__file__).resolve().parents[2]
SOLO = ["human", "bot:easy", "bot:easy", "bot:easy"]


def env_for(cluster: Cluster, queue: str) -> dict[str, str]:
    return {**NO_LIMITS, "HOKM_REDIS_URL": cluster.url, "HOKM_QUEUE_URL": redis_db_url(QUEUE_DB),
            "HOKM_QUEUE": queue, "HOKM_BOT_TIMEOUT": "2"}


class Deployment:
    """Two gateways and two workers on ``cluster``."""

    def __init__(self, cluster: Cluster) -> None:
        real_redis_client(QUEUE_DB).flushdb()
        self.env = env_for(cluster, f"hokm-cluster-{secrets.token_hex(3)}")
        self.gateways = [LocalServer(env=self.env, cwd=ROOT).start() for _ in range(2)]
        base = {k: v for k, v in os.environ.items() if not k.startswith("HOKM_")}
        self.workers = [subprocess.Popen([HOKM, "worker"], env={**base, **self.env}, cwd=ROOT,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                        for _ in range(2)]

    def stop(self) -> None:
        for gateway in self.gateways:
            gateway.stop()
        for worker in self.workers:
            worker.terminate()
        for worker in self.workers:
            try:
                worker.wait(timeout=10)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait(timeout=10)


@pytest.fixture
def deployment(redis_cluster: Cluster) -> Iterator[Deployment]:
    d = Deployment(redis_cluster)
    try:
        yield d
    finally:
        d.stop()


class Table:
    """One match: the human's seat on one gateway, a spectator on the other; every version
    each socket received, in the order received."""

    def __init__(self, gateways: list[LocalServer], i: int) -> None:
        self.home, self.other = gateways[i % 2], gateways[(i + 1) % 2]
        self.over_ws = i % 2 == 0  # half the humans send their commands over the socket
        self.rng = random.Random(i)
        self.versions: dict[str, list[int]] = {"seat": [], "spectator": []}
        self.frames: dict[str, list[tuple[str, int, int]]] = {"seat": [], "spectator": []}
        self.reconnects: dict[str, int] = {}
        self.refusals: list[dict[str, Any]] = []
        self.retried: list[dict[str, Any]] = []  # refusals that did nothing, sent again
        # with a gate: the first command after version 30 waits for ``gate`` (``held`` is set
        # while it waits), so a test can send it into a failover
        self.gate: asyncio.Event | None = None
        self.held: asyncio.Event | None = None
        self.match_id = ""

    def _log(self, who: str) -> Any:
        def frame(message: dict[str, Any]) -> None:
            if message.get("type") == "view":
                self.versions[who].append(message["version"])
                self.frames[who].append(("view", message["version"], message["version"]))
            elif message.get("type") == "missed":
                versions = [r["version"] for r in message["records"]]
                whole = versions == list(range(message["since"] + 1, message["version"] + 1))
                self.frames[who].append(("missed" if whole else "incomplete", message["since"],
                                         message["version"]))
        return frame

    async def play(self) -> dict[str, Any]:
        seat = await AsyncSeat.create(self.home.url, seats=SOLO, name="Scripted",
                                      on_frame=self._log("seat"))
        self.match_id = seat.match_id
        watcher = AsyncSeat.spectate(f"{self.other.url}/m/{seat.match_id}",
                                     on_frame=self._log("spectator"))
        async with seat, watcher:
            self.reconnects = {"seat": 0, "spectator": 0}
            async for view in seat.turns():
                choice = self.rng.choice(view["legal"])
                if self.gate is not None and self.held is not None and view["version"] > 30:
                    self.held.set()
                    await self.gate.wait()
                    self.gate = None
                if self.over_ws:
                    body = ({"type": "choose_trump", "suit": choice}
                            if view["phase"] == "choosing_trump"
                            else {"type": "play", "card": choice})
                    await self._over_socket(seat, {**body, "version": view["version"],
                                                   "id": f"c{view['version']}"})
                else:
                    await seat.decide(choice, view)
            # the last record reveals the deck secret (after the match's end)
            final = await seat.wait(lambda v: v.get("secret") is not None, 60)
            # (the final view may have come as a command's HTTP answer: the socket brings it too)
            await seat.wait(lambda v: self.versions["seat"][-1:] >= [final["version"]], 60)
            await watcher.wait(lambda v: v["version"] >= final["version"], 60)
            self.reconnects = {"seat": seat.reconnects, "spectator": watcher.reconnects}
            return final


    async def _over_socket(self, seat: AsyncSeat, command: dict[str, Any]) -> None:
        """Send ``command`` over the seat's socket; the answer is the next view, or an error
        frame on this socket.  A socket that is reconnecting (the client does by itself) gets
        the same command again once it is back, and so does a command refused as ``unavailable``
        (the store failing over did nothing with it), after the HTTP client's own backoff: the
        command id makes both idempotent.  (Taking that refusal as the answer left the match
        waiting for a command nobody would send again.)"""
        at = command["version"]
        attempt = 0
        while True:
            refused, reconnects, sent = len(seat.errors), seat.reconnects, False
            if seat.connected:
                with contextlib.suppress(ApiError):  # (it closed just now)
                    await seat.send(command)
                    sent = True

            def answered(v: dict[str, Any], n: int = refused, r: int = reconnects,
                         sent: bool = sent) -> bool:
                return (v["version"] > at or len(seat.errors) > n
                        or (seat.connected and (not sent or seat.reconnects > r)))

            await seat.wait(answered, 60)
            if seat.version > at:
                return
            if len(seat.errors) > refused:
                new = seat.errors[refused:]
                if all(e.get("code") in RETRYABLE for e in new) and attempt < 30:
                    self.retried.extend(new)
                    await asyncio.sleep(retry_pause(ApiError(new[-1]["code"]), attempt))  # backoff
                    attempt += 1
                    continue
                self.refusals.extend(new)
                return


async def play_all(tables: list[Table], timeout: float) -> list[dict[str, Any]]:
    return await asyncio.wait_for(asyncio.gather(*(t.play() for t in tables)), timeout)


def progress(tables: list[Table], deployment: Deployment) -> str:
    """Where each table is, and what the gateways said last (for a failure's message)."""
    lines = [f"{t.match_id}: seat at {t.versions['seat'][-1:]}, spectator at "
             f"{t.versions['spectator'][-1:]}" for t in tables]
    for gateway in deployment.gateways:
        lines.append("gateway: " + " | ".join(list(gateway.output)[-8:]))
    return "\n".join(lines)


def in_order(frames: list[tuple[str, int, int]]) -> bool:
    """Every version from the first received to the last, in order, none skipped.  A view may
    come twice in a row (it is sent again when who is connected changes); a socket that
    reconnected (the client does by itself, ``since`` the last version it delivered) may jump
    ahead, but then the next frame is the ``missed`` records from that version to the one shown."""
    held = frames[0][1]
    gap: tuple[int, int] | None = None
    for kind, first, last in frames[1:]:
        if kind == "incomplete":
            return False
        if kind == "missed":
            if gap is None or (first, last) != gap:
                return False
            gap = None
        elif gap is not None:
            return False
        elif first > held + 1:
            gap = (held, first)
        elif first < held:
            return False
        held = max(held, last)
    return gap is None


def test_twenty_matches_through_two_gateways_and_two_workers(redis_cluster: Cluster,
                                                             deployment: Deployment) -> None:
    tables = [Table(deployment.gateways, i) for i in range(20)]
    finals = run_async(play_all(tables, 300), timeout=420)
    store = RedisStore(connect.sync_client(connect.parse(redis_cluster.url)))
    primaries = set()
    for table, final in zip(tables, finals, strict=True):
        assert final["phase"] == "match_over" and final["winner"] in (0, 1)
        assert table.refusals == [], table.refusals  # every command sent at its turn applies
        for who, versions in table.versions.items():
            assert in_order(table.frames[who]), (who, table.match_id, table.frames[who][:20],
                                                 table.reconnects)
            assert versions[-1] == final["version"], who
        records = store.read(table.match_id)
        assert len(records) == final["version"] and check(records) == []
        primaries.add(redis_cluster.primary_of(f"hokm:{{{table.match_id}}}:log"))
    assert len(primaries) > 1  # the matches were spread over the cluster
    # the audit commands read the cluster
    audit_env = {**{k: v for k, v in os.environ.items() if not k.startswith("HOKM_")},
                 "HOKM_REDIS_URL": redis_cluster.url}
    match_id = tables[0].match_id
    verified = subprocess.run([HOKM, "verify", match_id], env=audit_env, capture_output=True,
                              text=True, timeout=120)
    assert verified.returncode == 0, verified.stderr
    replayed = subprocess.run([HOKM, "replay", match_id], env=audit_env, capture_output=True,
                              text=True, timeout=120)
    assert replayed.returncode == 0, replayed.stderr[-500:]
    assert f"match {match_id} created" in replayed.stdout and "phase match_over" in replayed.stdout
    exported = subprocess.run([HOKM, "export", match_id], env=audit_env, capture_output=True,
                              text=True, timeout=120)
    assert exported.returncode == 0 and match_id in exported.stdout


def test_a_primary_killed_in_play_loses_no_match(private_cluster: Any) -> None:
    """SIGKILL one primary while eight matches are being played: its replica is promoted, the
    gateways and workers reconnect by themselves, and every match finishes with an intact
    chain."""
    cluster: Cluster = private_cluster()
    deployment = Deployment(cluster)
    try:
        tables = [Table(deployment.gateways, i) for i in range(8)]

        # the first table's human holds a command over its socket until its match's primary
        # is killed, then sends it into the failover
        first, gate, held = tables[0], asyncio.Event(), asyncio.Event()
        first.gate, first.held = gate, held

        async def scenario() -> list[dict[str, Any]]:
            playing = asyncio.ensure_future(play_all(tables, 240))
            deadline = time.monotonic() + 120
            while (sum(1 for t in tables if len(t.versions["seat"]) > 30) < 4
                   or not held.is_set()):
                assert time.monotonic() < deadline, progress(tables, deployment)
                await asyncio.sleep(0.05)  # (a poll, not a wait: the kill comes mid-play)
                if playing.done():
                    break
            victim = cluster.primary_of(f"hokm:{{{first.match_id}}}:log")
            cluster.kill(victim[1])
            gate.set()
            await asyncio.get_running_loop().run_in_executor(
                None, lambda: cluster.wait_failover(victim[1]))
            try:
                return await playing
            except TimeoutError:
                raise AssertionError(progress(tables, deployment)) from None

        finals = run_async(scenario(), timeout=420)
        store = RedisStore(connect.sync_client(connect.parse(cluster.url)))
        for table, final in zip(tables, finals, strict=True):
            assert final["phase"] == "match_over", table.match_id
            records = store.read(table.match_id)
            assert check(records) == [], table.match_id
    finally:
        deployment.stop()
    wait_for(lambda: all(w.poll() is not None for w in deployment.workers), 20,
             what="the workers' end")
