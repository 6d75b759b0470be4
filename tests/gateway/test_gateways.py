"""Several gateways, one Redis: two real ``hokm serve`` processes (uvicorn) on the real Redis
serve the same match.  A player connected to one sees moves made through the other, the
presence of every seat shows on both, and killing one loses nothing."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import real_redis_client

from .helpers import REDIS_DB, deck, redis_url

pytestmark = pytest.mark.redis

ROOT = Path(__file__).resolve().parents[2]
CROSS_TIMEOUT_S = 5.0
"""Generous: a move typically arrives through the other gateway within milliseconds."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(port: int, url: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "HOKM_REDIS_URL": url, "HOKM_ALLOW_STACKED_DECKS": "1",
           "HOKM_RATE_PER_ADDRESS": "0", "HOKM_RATE_PER_TOKEN": "0",
           # every client here is 127.0.0.1: no per-address quotas (counted in the shared Redis)
           "HOKM_CREATES_PER_WINDOW": "0", "HOKM_BOT_MATCHES": "0",
           "HOKM_BOT_MATCHES_PER_ADDRESS": "0", "HOKM_CONNECTIONS_PER_ADDRESS": "0"}
    return subprocess.Popen([str(Path(sys.executable).parent / "hokm"), "serve", "--port",
                             str(port)], env=env, cwd=ROOT, stdout=subprocess.DEVNULL)


def ready(port: int, proc: subprocess.Popen[bytes], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the gateway exited"
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=1).status_code == 200:
                return
        time.sleep(0.1)
    raise AssertionError(f"gateway on {port} not ready")


@pytest.fixture(scope="module")
def gateways() -> Iterator[tuple[int, int]]:
    url = redis_url()
    client = real_redis_client(REDIS_DB)  # fails (not skips) without Redis, as the others do
    client.flushdb()
    ports = free_port(), free_port()
    procs = [start(p, url) for p in ports]
    try:
        for port, proc in zip(ports, procs, strict=True):
            ready(port, proc)
        yield ports
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
        for proc in procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        client.flushdb()


class Socket:
    """A WebSocket client (``websockets``' synchronous one) that keeps every frame."""

    def __init__(self, port: int, match_id: str, token: str | None = None,
                 since: int | None = None) -> None:
        from websockets.sync.client import connect

        query = "&".join([*([f"token={token}"] if token else []),
                          *([f"since={since}"] if since is not None else [])])
        self._cm = connect(f"ws://127.0.0.1:{port}/api/matches/{match_id}/ws?{query}",
                           open_timeout=10)
        self.ws = self._cm.__enter__()
        self.frames: list[tuple[float, dict[str, Any]]] = []

    def until(self, pred: Any, timeout: float = CROSS_TIMEOUT_S) -> tuple[float, dict[str, Any]]:
        """The first frame (already received or not) that satisfies ``pred``."""
        for got in self.frames:
            if pred(got[1]):
                return got
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("no such frame in time")
            frame = json.loads(self.ws.recv(timeout=left))
            got = (time.perf_counter(), frame)
            self.frames.append(got)
            if pred(frame):
                return got

    def version(self, v: int, timeout: float = CROSS_TIMEOUT_S) -> tuple[float, dict[str, Any]]:
        """The first view of version ``v`` or later."""
        return self.until(lambda f: f["type"] == "view" and f["version"] >= v, timeout)

    def close(self) -> None:
        self._cm.__exit__(None, None, None)


def test_two_gateways_serve_one_match(gateways: tuple[int, int]) -> None:
    a, b = gateways
    http_a = httpx.Client(base_url=f"http://127.0.0.1:{a}", timeout=10)
    http_b = httpx.Client(base_url=f"http://127.0.0.1:{b}", timeout=10)
    created = http_a.post("/api/matches", json={"name": "A0", "first_hakem": 0,
                                                "decks": [deck(51)]}).json()
    match_id = created["match_id"]
    tokens = [created["token"]] + [
        http_b.post(f"/api/matches/{match_id}/join", json={"name": f"B{i}"}).json()["token"]
        for i in range(1, 4)]
    # seats 0 and 2 follow through A; seats 1 and 3 and a spectator through B
    socks = [Socket(a if seat % 2 == 0 else b, match_id, token)
             for seat, token in enumerate(tokens)]
    watcher = Socket(b, match_id)
    try:
        everyone = [*socks, watcher]
        for s in everyone:
            s.until(lambda f: f["type"] == "view")
        version = http_a.get(f"/api/matches/{match_id}").json()["version"]
        # presence is shared: both gateways show all four seats connected
        deadline = time.monotonic() + CROSS_TIMEOUT_S
        while time.monotonic() < deadline:
            summaries = [c.get(f"/api/matches/{match_id}").json() for c in (http_a, http_b)]
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
                answer = other.post(f"/api/matches/{match_id}/commands",
                                    headers={"Authorization": f"Bearer {tokens[mover]}"},
                                    json=body)
                assert answer.status_code == 200, answer.text
                through = b if mover % 2 == 0 else a
            else:
                socks[mover].ws.send(json.dumps(body))
                through = a if mover % 2 == 0 else b
            for seat, s in enumerate(everyone):
                at, _ = s.version(version + 1)
                port = (a if seat % 2 == 0 else b) if seat < 4 else b
                (local if port == through else cross).append(at - sent)
            version = http_b.get(f"/api/matches/{match_id}").json()["version"]
            rng_moves += 1
        assert rng_moves == 24 and cross and local
        cross.sort()
        local.sort()
        print(f"\n  views through the same gateway: median {local[len(local) // 2] * 1e3:.1f} ms,"
              f" max {local[-1] * 1e3:.1f} ms; through the other gateway: median "
              f"{cross[len(cross) // 2] * 1e3:.1f} ms, max {cross[-1] * 1e3:.1f} ms")
        assert cross[-1] < CROSS_TIMEOUT_S
        # every socket saw every version, in order
        for s in everyone:
            versions = [f["version"] for _, f in s.frames if f["type"] == "view"]
            assert versions == sorted(versions)
            assert set(range(versions[0], version + 1)) <= set(versions)
    finally:
        for s in [*socks, watcher]:
            with contextlib.suppress(Exception):
                s.close()


def test_killing_a_gateway_loses_nothing(gateways: tuple[int, int]) -> None:
    """A third gateway is killed (SIGKILL) after serving moves; its clients reconnect to another
    one with ``since`` and find everything, since the stream is the record."""
    a, _ = gateways
    port = free_port()
    proc = start(port, redis_url())
    try:
        ready(port, proc)
        http = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10)
        created = http.post("/api/matches", json={"first_hakem": 0, "decks": [deck(52)]}).json()
        match_id = created["match_id"]
        tokens = [created["token"]] + [
            http.post(f"/api/matches/{match_id}/join", json={}).json()["token"]
            for _ in range(3)]
        sock = Socket(port, match_id, tokens[1])
        _, first = sock.until(lambda f: f["type"] == "view")
        answer = http.post(f"/api/matches/{match_id}/commands",
                           headers={"Authorization": f"Bearer {tokens[0]}"},
                           json={"type": "choose_trump", "suit": "S"})
        assert answer.status_code == 200
        played = answer.json()["version"]
        sock.version(played)
        sock.close()
    finally:
        proc.kill()
        proc.wait()
    again = Socket(a, match_id, tokens[1], since=first["version"])
    try:
        _, view = again.until(lambda f: f["type"] == "view")
        assert view["version"] == played and view["view"]["trump"] == "S"
        _, missed = again.until(lambda f: f["type"] == "missed")
        assert [r["version"] for r in missed["records"]] == list(
            range(first["version"] + 1, played + 1))
        # and play goes on through the surviving gateway
        http_a = httpx.Client(base_url=f"http://127.0.0.1:{a}", timeout=10)
        leader = http_a.get(f"/api/matches/{match_id}/view",
                            headers={"Authorization": f"Bearer {tokens[0]}"}).json()["view"]
        assert leader["turn"] == 0 and leader["legal"]
        answer = http_a.post(f"/api/matches/{match_id}/commands",
                             headers={"Authorization": f"Bearer {tokens[0]}"},
                             json={"type": "play", "card": leader["legal"][0]})
        assert answer.status_code == 200, answer.text
        _, seen = again.version(played + 1)
        assert seen["view"]["trick"] == [{"seat": 0, "card": leader["legal"][0]}]
    finally:
        again.close()
