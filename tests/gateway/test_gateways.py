"""Several gateways, one Redis: two real ``hokm serve`` processes (uvicorn) on the real Redis
serve the same match.  A player connected to one sees moves made through the other, the
presence of every seat shows on both, and killing one loses nothing."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hokmclient import NO_LIMITS, Client, LocalServer, Seat
from tests.conftest import real_redis_client

from .helpers import REDIS_DB, deck, redis_url

pytestmark = pytest.mark.redis

ROOT = Path(__file__).resolve().parents[2]
CROSS_TIMEOUT_S = 5.0
"""Generous: a move typically arrives through the other gateway within milliseconds."""


def start(url: str) -> LocalServer:
    """A ``hokm serve`` on the shared Redis (stacked decks allowed; every client here is
    127.0.0.1: no per-address quotas, which are counted in the shared Redis)."""
    return LocalServer(env={**NO_LIMITS, "HOKM_REDIS_URL": url, "HOKM_ALLOW_STACKED_DECKS": "1"},
                       cwd=ROOT, timeout=30).start()


@pytest.fixture(scope="module")
def gateways() -> Iterator[tuple[str, str]]:
    url = redis_url()
    client = real_redis_client(REDIS_DB)  # fails (not skips) without Redis, as the others do
    client.flushdb()
    servers: list[LocalServer] = []
    try:
        servers = [start(url), start(url)]
        yield servers[0].url, servers[1].url
    finally:
        for server in servers:
            server.stop(10)
        client.flushdb()


class Socket:
    """A seat (or a spectator) of the client library that also keeps every frame it receives,
    with its arrival time."""

    def __init__(self, base: str, match_id: str, token: str | None = None,
                 since: int | None = None) -> None:
        self.frames: list[tuple[float, dict[str, Any]]] = []
        self._arrived = threading.Condition()
        self.seat = Seat.resume(f"{base}/m/{match_id}", token, since=since, on_frame=self._keep)
        self.seat.start(timeout=10)

    def _keep(self, frame: dict[str, Any]) -> None:
        with self._arrived:
            self.frames.append((time.perf_counter(), frame))
            self._arrived.notify_all()

    def until(self, pred: Any, timeout: float = CROSS_TIMEOUT_S) -> tuple[float, dict[str, Any]]:
        """The first frame (already received or not) that satisfies ``pred``."""
        deadline = time.monotonic() + timeout
        seen = 0
        with self._arrived:
            while True:
                for got in self.frames[seen:]:
                    if pred(got[1]):
                        return got
                seen = len(self.frames)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(
                        f"no such frame within {timeout} s; {seen} frame(s) came, the last: "
                        f"{self.frames[-1][1] if self.frames else None}")
                self._arrived.wait(left)

    def version(self, v: int, timeout: float = CROSS_TIMEOUT_S) -> tuple[float, dict[str, Any]]:
        """The first view of version ``v`` or later."""
        return self.until(lambda f: f["type"] == "view" and f["version"] >= v, timeout)

    def send(self, body: dict[str, Any]) -> None:
        self.seat.send(body)

    def close(self) -> None:
        self.seat.close()


def test_two_gateways_serve_one_match(gateways: tuple[str, str]) -> None:
    a, b = gateways
    http_a, http_b = Client(a, timeout=10), Client(b, timeout=10)
    created = http_a.create(name="A0", first_hakem=0, decks=[deck(51)])
    match_id = created["match_id"]
    tokens = [created["token"]] + [http_b.join(match_id, name=f"B{i}")["token"]
                                   for i in range(1, 4)]
    # seats 0 and 2 follow through A; seats 1 and 3 and a spectator through B
    socks = [Socket(a if seat % 2 == 0 else b, match_id, token)
             for seat, token in enumerate(tokens)]
    watcher = Socket(b, match_id)
    try:
        everyone = [*socks, watcher]
        for s in everyone:
            s.until(lambda f: f["type"] == "view")
        version = http_a.summary(match_id)["version"]
        # presence is shared: both gateways show all four seats connected
        deadline = time.monotonic() + CROSS_TIMEOUT_S
        while time.monotonic() < deadline:
            summaries = [c.summary(match_id) for c in (http_a, http_b)]
            if all(all(s["connected"] for s in x["seats"]) for x in summaries):
                break
            time.sleep(0.05)
        else:
            raise AssertionError(f"presence not shared: {summaries}")

        local: list[float] = []
        cross: list[float] = []
        rng_moves = 0
        for move in range(24):
            # the mover's view, from its own socket
            _, frame = socks[0].version(version)
            view = frame["view"]
            mover = view["hakem"] if view["phase"] == "choosing_trump" else view["turn"]
            _, mine = socks[mover].version(version)
            legal = mine["view"]["legal"]
            body = ({"type": "choose_trump", "suit": legal[0]}
                    if mine["view"]["phase"] == "choosing_trump"
                    else {"type": "play", "card": legal[move % len(legal)]})
            body["version"] = version
            sent = time.perf_counter()
            if move % 3 == 2:  # now and then over HTTP, through the other gateway
                other = http_b if mover % 2 == 0 else http_a
                assert other.command(match_id, tokens[mover], body)["version"] == version + 1
                through = b if mover % 2 == 0 else a
            else:
                socks[mover].send(body)
                through = a if mover % 2 == 0 else b
            for seat, s in enumerate(everyone):
                at, _ = s.version(version + 1)
                port = (a if seat % 2 == 0 else b) if seat < 4 else b
                (local if port == through else cross).append(at - sent)
            version = http_b.summary(match_id)["version"]
            rng_moves += 1
        assert rng_moves == 24 and cross and local
        cross.sort()
        local.sort()
        print(f"\n  views through the same gateway: median {local[len(local) // 2] * 1e3:.1f} ms,"
              f" max {local[-1] * 1e3:.1f} ms; through the other gateway: median "
              f"{cross[len(cross) // 2] * 1e3:.1f} ms, max {cross[-1] * 1e3:.1f} ms")
        # (each view above was awaited with a deadline of CROSS_TIMEOUT_S: that is the check)
        # every socket saw every version, in order
        for s in everyone:
            versions = [f["version"] for _, f in s.frames if f["type"] == "view"]
            assert versions == sorted(versions)
            assert set(range(versions[0], version + 1)) <= set(versions)
    finally:
        for s in [*socks, watcher]:
            with contextlib.suppress(Exception):
                s.close()


def test_killing_a_gateway_loses_nothing(gateways: tuple[str, str]) -> None:
    """A third gateway is killed (SIGKILL) after serving moves; its clients reconnect to another
    one with ``since`` and find everything, since the stream is the record."""
    a, _ = gateways
    third = start(redis_url())
    try:
        http = Client(third.url, timeout=10)
        created = http.create(first_hakem=0, decks=[deck(52)])
        match_id = created["match_id"]
        tokens = [created["token"]] + [http.join(match_id)["token"] for _ in range(3)]
        sock = Socket(third.url, match_id, tokens[1])
        _, first = sock.until(lambda f: f["type"] == "view")
        played = http.choose_trump(match_id, tokens[0], "S")["version"]
        sock.version(played)
        sock.close()
    finally:
        third.kill()
        third.stop()
    again = Socket(a, match_id, tokens[1], since=first["version"])
    try:
        _, view = again.until(lambda f: f["type"] == "view")
        assert view["version"] == played and view["view"]["trump"] == "S"
        _, missed = again.until(lambda f: f["type"] == "missed")
        assert [r["version"] for r in missed["records"]] == list(
            range(first["version"] + 1, played + 1))
        # and play goes on through the surviving gateway
        http_a = Client(a, timeout=10)
        leader = http_a.view(match_id, tokens[0])["view"]
        assert leader["turn"] == 0 and leader["legal"]
        http_a.play(match_id, tokens[0], leader["legal"][0])
        _, seen = again.version(played + 1)
        assert seen["view"]["trick"] == [{"seat": 0, "card": leader["legal"][0]}]
    finally:
        again.close()
