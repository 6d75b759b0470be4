"""The deployment behind a real load balancer: HAProxy (``deploy/haproxy.cfg``, the very file
deploy/README.md points to: round robin, no stickiness, WebSocket timeouts) in front of two real
``hokm serve`` processes sharing a Redis, with one real ``hokm worker`` playing the bots.

* A player's HTTP requests alternate between the two gateways, two sockets of its seat on the
  two gateways see one match (the same view at every version, and the same as the commands'
  answers), and a whole solo match against bots ends through the balancer.  HAProxy's log (the
  file's format: the path without its query) never holds the seat's token; ``/metrics`` is
  refused at the proxy, encoded or not.
* A gateway stopped mid-match, gracefully (SIGTERM) and then outright (SIGKILL), while a
  command is on its way: the seat's socket (hokmclient's, the real client) reconnects through
  HAProxy to the other gateway with ``since`` and misses no version; every command is answered
  (retried with its command id where the stopped gateway could not answer) and applied once;
  nothing acknowledged is lost.
* The gateways see each client's own address through their trusted proxy: per-address limits
  (requests per second, matches created) hold per client, not for the balancer; an
  X-Forwarded-For a client writes itself counts neither through the proxy nor sent straight to
  a gateway.
* A WebSocket is held by the file's ``timeout tunnel``, not by its request timeouts: idle
  longer than those, it stays open and carries the next view.

Clients are told apart by their loopback source address (127.0.0.x: Linux answers the whole
127.0.0.0/8); HAProxy connects to the gateways from 127.0.0.1, the trusted proxy.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from hokmclient import AsyncClient, AsyncSeat, LocalServer, over
from hokmclient.http import request_key
from services.audit import check
from services.lobby import command_key
from services.store.redis_streams import RedisStore
from tests.conftest import free_port, real_redis_client, redis_db_url, run_async, wait_for

DB = 4
pytestmark = pytest.mark.redis
ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "deploy" / "haproxy.cfg"
HOKM = str(Path(sys.executable).parent / "hokm")
PROXY = "127.0.0.1"
"""The address HAProxy connects to the gateways from: their trusted proxy."""
SERVED_BY = "X-Hokm-Gateway"
"""The one line the test adds to deploy/haproxy.cfg: the answering gateway's name, on every
answer (the WebSocket's 101 too), so the test can tell where the balancer sent a request."""
NAMES = ("gateway1", "gateway2")
CREATES = 2
"""Matches one address may create per window (HOKM_CREATES_PER_WINDOW): small, to reach."""
RATE = 10
"""Requests per second per address and gateway (HOKM_RATE_PER_ADDRESS; bursts 4x)."""
STEP = 0.05
"""How often the waits below look again."""


class Balancer:
    """``haproxy -db -f deploy/haproxy.cfg`` (plus the ``SERVED_BY`` line) in a temporary
    folder, its log in a file there."""

    def __init__(self, folder: Path, port: int, gateways: list[int],
                 edits: dict[str, str] | None = None) -> None:
        """``edits``: lines of the file replaced (each must be there) for a test's own
        balancer."""
        exe = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin:/sbin")
        if exe is None:
            pytest.fail("haproxy is not installed (.ci/run installs it: apt-get install haproxy)")
        text = CONFIG.read_text()
        anchor = "    balance roundrobin\n"
        assert anchor in text, "deploy/haproxy.cfg no longer balances round robin"
        text = text.replace(anchor, anchor + f"    http-response set-header {SERVED_BY} %s\n")
        for line, edited in (edits or {}).items():
            assert f"\n{line}\n" in text, f"deploy/haproxy.cfg no longer has {line!r}"
            text = text.replace(f"\n{line}\n", f"\n{edited}\n")
        self.config = folder / f"haproxy-{port}.cfg"
        self.config.write_text(text)
        self.log = folder / f"haproxy-{port}.log"
        self.url = f"http://127.0.0.1:{port}"
        env = {**os.environ, "HOKM_LB_BIND": f"127.0.0.1:{port}",
               "HOKM_GATEWAY_1": f"127.0.0.1:{gateways[0]}",
               "HOKM_GATEWAY_2": f"127.0.0.1:{gateways[1]}"}
        with self.log.open("w") as out:
            self.proc = subprocess.Popen([exe, "-db", "-f", str(self.config)], env=env,
                                         stdout=out, stderr=subprocess.STDOUT)

    def logged(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


@dataclass
class Deployment:
    redis_url: str
    gateways: list[LocalServer]
    balancer: Balancer
    worker: subprocess.Popen[bytes]

    @property
    def url(self) -> str:
        return self.balancer.url

    def gateway(self, name: str) -> LocalServer:
        return self.gateways[NAMES.index(name)]

    def serving(self) -> set[str]:
        """The gateways the balancer sends requests to now (a few requests' worth)."""
        seen: set[str] = set()
        with httpx.Client(base_url=self.url, timeout=5) as http:
            for _ in range(4):
                try:
                    answer = http.get("/healthz")
                except httpx.HTTPError:
                    continue
                if answer.status_code == 200 and answer.headers.get(SERVED_BY):
                    seen.add(answer.headers[SERVED_BY])
        return seen

    def ensure_up(self) -> None:
        """Both gateways running, and the balancer sending requests to both."""
        for gateway in self.gateways:
            if gateway.proc is None or gateway.proc.poll() is not None:
                gateway.start()
        assert self.balancer.proc.poll() is None, self.balancer.logged()
        wait_for(lambda: self.serving() == set(NAMES), 30, STEP,
                 "the balancer sending requests to both gateways", self.serving)

    def sockets_open(self, name: str) -> int | None:
        """The gateway's ``hokm_websockets_open`` (asked directly, not through the balancer);
        None when it does not answer."""
        try:
            text = httpx.get(self.gateway(name).url + "/metrics", timeout=5).text
        except httpx.HTTPError:
            return None
        found = re.search(r"^hokm_websockets_open ([0-9.]+)$", text, re.M)
        assert found, "hokm_websockets_open is missing from /metrics"
        return int(float(found.group(1)))

    def socket_on(self) -> str | None:
        """The gateway that holds the one socket open, once exactly one does."""
        counts = {name: self.sockets_open(name) for name in NAMES}
        holding = [name for name, count in counts.items() if count]
        if len(holding) == 1 and counts[holding[0]] == 1:
            return holding[0]
        return None


@pytest.fixture(scope="module")
def deployment() -> Iterator[Deployment]:
    client = real_redis_client(DB)
    client.flushdb()
    folder = Path(tempfile.mkdtemp(prefix="hokm-lb-"))
    env = {"HOKM_REDIS_URL": redis_db_url(DB), "HOKM_QUEUE": f"test-lb-{secrets.token_hex(4)}",
           "HOKM_TRUSTED_PROXIES": PROXY, "HOKM_CREATES_PER_WINDOW": str(CREATES),
           "HOKM_RATE_PER_ADDRESS": str(RATE)}
    ports = [free_port(), free_port()]
    gateways = [LocalServer(env=env, port=port, cwd=ROOT) for port in ports]
    worker_env = {k: v for k, v in os.environ.items() if not k.startswith("HOKM_")}
    worker = subprocess.Popen([HOKM, "worker"], env={**worker_env, **env}, cwd=ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    balancer: Balancer | None = None
    try:
        with ThreadPoolExecutor(2) as pool:  # (each start waits for its gateway's /readyz)
            list(pool.map(LocalServer.start, gateways))
        balancer = Balancer(folder, free_port(), ports)
        deployment = Deployment(redis_db_url(DB), gateways, balancer, worker)
        deployment.ensure_up()
        yield deployment
    finally:
        if balancer is not None:
            balancer.stop()
        for gateway in gateways:
            gateway.stop()
        if worker.poll() is None:
            worker.terminate()
            try:
                worker.wait(15)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait(10)
        shutil.rmtree(folder, ignore_errors=True)
        client.flushdb()


# -- a player through the balancer -------------------------------------------------------------


@dataclass
class Command:
    """One decision sent (hokmclient sends it with a command id and retries it with that id
    after a broken connection or a proxy's 502/503/504)."""
    at: int
    """The version it was decided at."""
    choice: str
    cid: str = ""
    tries: list[str] = field(default_factory=list)
    """What each try met: the answering gateway and status, or the transport's failure."""
    answered: int | None = None
    """The version of its answer's view (the view right after its record)."""
    view: dict[str, Any] | None = None
    """Its answer's view."""


class Player:
    """A player on its own loopback address: hokmclient's ``AsyncClient`` (every request
    through the balancer, each answer's gateway noted) and ``AsyncSeat``s (their sockets)."""

    def __init__(self, base: str, address: str) -> None:
        self.address = address
        self.who = ""
        """The player's id (the create's answer)."""
        self.served: list[tuple[str, str, int, str | None]] = []
        """(method, path, status, the gateway that answered) of every answer, in order."""
        self.commands: list[Command] = []
        self.before_command: Callable[[], None] | None = None
        """Called once as the next command's request leaves (then cleared)."""
        self.http = httpx.AsyncClient(
            base_url=base, timeout=15,
            transport=httpx.AsyncHTTPTransport(local_address=address),
            event_hooks={"request": [self._request], "response": [self._response]})
        self.client = AsyncClient(base, http=self.http)
        self.frames: dict[AsyncSeat, list[dict[str, Any]]] = {}

    async def _request(self, request: httpx.Request) -> None:
        if request.url.path.endswith("/commands"):
            cid = json.loads(request.content)["id"]
            command = self.commands[-1]
            if command.cid and command.cid != cid:
                raise AssertionError("a command was sent while another waited for its answer")
            command.cid = cid
            command.tries.append("sent")
            if self.before_command is not None:
                act, self.before_command = self.before_command, None
                act()

    async def _response(self, response: httpx.Response) -> None:
        gateway = response.headers.get(SERVED_BY)
        self.served.append((response.request.method, response.request.url.path,
                            response.status_code, gateway))
        if response.request.url.path.endswith("/commands") and self.commands:
            self.commands[-1].tries[-1] = f"{gateway}:{response.status_code}"

    def seat(self, match_id: str, token: str) -> AsyncSeat:
        frames: list[dict[str, Any]] = []
        seat = AsyncSeat(self.client, match_id, token, on_frame=frames.append)
        self.frames[seat] = frames
        return seat

    async def play(self, seat: AsyncSeat, until: Callable[[], bool]) -> dict[str, Any]:
        """Make the seat's decisions (the first legal choice) until ``until()`` holds at the
        seat's turn, or the match is over; returns the view it stopped at."""
        while True:
            view = await seat.turn(timeout=60)
            if over(view) or until():
                return view
            command = Command(view["version"], view["legal"][0])
            self.commands.append(command)
            answer = await seat.decide(command.choice, view)
            command.answered, command.view = answer["version"], answer

    async def aclose(self, *seats: AsyncSeat) -> None:
        for seat in seats:
            await seat.close()
        await self.http.aclose()


def known_versions(player: Player, seat: AsyncSeat) -> set[int]:
    """Every version the seat was told of: its socket's views and ``missed`` records, and its
    commands' answers (the answer's view may be the newest the seat holds when a socket ends,
    and then the next socket starts after it)."""
    known = {frame["version"] for frame in player.frames[seat] if frame["type"] == "view"}
    known |= {record["version"] for record in seat.missed}
    known |= {c.answered for c in player.commands if c.answered is not None}
    return known


def socket_views(frames: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """Version -> the view a socket was sent at it, without the seats' ``connected`` (a
    presence change sends a view again at the same version)."""
    return {frame["version"]: without_presence(frame["view"]) for frame in frames
            if frame["type"] == "view"}


def without_presence(view: dict[str, Any]) -> dict[str, Any]:
    seats = [{k: v for k, v in s.items() if k != "connected"} for s in view["seats"]]
    return {**view, "seats": seats}


def log_of(deployment: Deployment, match_id: str) -> list[Any]:
    import redis

    return RedisStore(redis.Redis.from_url(deployment.redis_url)).read(match_id)


def assert_acknowledged_kept(player: Player, seat: int, records: list[Any]) -> None:
    """Every answered command is in the log once, with its command id, by this seat, after
    the version it was decided at and no later than its answer's (an answer may show the
    system steps that followed, a deal after a round's last card), and the seat's records are
    exactly those: nothing acknowledged was lost, nothing applied twice (a retry with the same
    id gets the first try's answer).  (A record keeps a digest of the player's id and the
    command's: ``command_key``.)"""
    for command in player.commands:
        assert command.answered is not None, f"a command was never answered: {command}"
        key = command_key(player.who, command.cid)
        found = [r for r in records if r.command_id == key]
        assert len(found) == 1, f"an acknowledged command is in the log {len(found)} times: " \
                                f"{command}"
        assert found[0].actor == seat and command.at < found[0].version <= command.answered, (
            f"{command} is not where its answer says: {found[0]}")
    mine = [r.command_id for r in records if r.actor == seat]
    assert mine == [command_key(player.who, c.cid) for c in player.commands], (
        "the seat's records are not exactly its acknowledged commands")


# -- the tests ---------------------------------------------------------------------------------


def test_round_robin_one_match_and_a_whole_solo_match(deployment: Deployment) -> None:
    deployment.ensure_up()
    player = Player(deployment.url, "127.0.0.11")

    async def scenario() -> tuple[str, str, list[AsyncSeat]]:
        created = await player.client.create(
            seats=["human", "bot:easy", "bot:easy", "bot:easy"], name="Through the balancer")
        match_id, token = created["match_id"], created["token"]
        player.who = created["player"]
        # invite links are made from the Host the proxy passed on: the balancer's
        assert created["invite_url"] == f"{deployment.url}/m/{match_id}"
        first = player.seat(match_id, token)
        await first.start()
        on_first = await asyncio.to_thread(
            wait_for, deployment.socket_on, 15, STEP, "the first socket's gateway")
        # round robin: the next connection goes to the other gateway (nothing else goes
        # through the balancer meanwhile)
        second = player.seat(match_id, token)
        await second.start()
        counts = await asyncio.to_thread(
            wait_for, lambda: [deployment.sockets_open(n) for n in NAMES] == [1, 1] or None,
            15, STEP, "one socket on each gateway",
            lambda: {n: deployment.sockets_open(n) for n in NAMES})
        assert counts and on_first in NAMES
        final = await player.play(first, lambda: False)
        assert over(final)
        for seat in (first, second):  # the match's last record: its secret revealed
            await seat.wait(lambda v: over(v) and v.get("secret") is not None, timeout=30)
        await player.aclose(first, second)
        return match_id, token, [first, second]

    match_id, token, (first, second) = run_async(scenario(), timeout=240)

    # every HTTP request of the player went to the gateway the previous one did not
    gateways = [served[3] for served in player.served]
    assert set(gateways) == set(NAMES), player.served
    assert all(a != b for a, b in itertools.pairwise(gateways)), gateways

    # one match: the two sockets (one on each gateway) saw every version, the same views,
    # and each command's answer (from either gateway) is the view the sockets saw
    records = log_of(deployment, match_id)
    assert check(records) == []
    final = len(records)
    one, two = socket_views(player.frames[first]), socket_views(player.frames[second])
    start = max(min(one), min(two))
    assert set(range(start, final + 1)) <= set(one) and set(range(start, final + 1)) <= set(two)
    for version in range(start, final + 1):
        assert one[version] == two[version], f"the two gateways' views differ at {version}"
    for command in player.commands:
        assert command.answered is not None and command.view is not None
        assert without_presence(command.view) == one[command.answered], command
    assert one[final]["phase"] == "match_over" and max(one[final]["score"]) >= 7
    assert_acknowledged_kept(player, one[final]["seat"], records)  # (the ace draw's seat)

    # the balancer's log: the path of every request, never the seat's token
    ws_path = f"/api/matches/{match_id}/ws"
    wait_for(lambda: ws_path in deployment.balancer.logged(), 15, STEP,
             "the sockets in HAProxy's log")
    logged = deployment.balancer.logged()
    assert f"/api/matches/{match_id}/commands" in logged
    assert token not in logged and "token=" not in logged

    # /metrics is for operators: refused at the proxy, however the path is written
    for path in ("/metrics", "/%6detrics", "/metrics/"):
        assert httpx.get(deployment.url + path).status_code == 403, path


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_a_gateway_stopped_mid_match(deployment: Deployment, how: signal.Signals,
                                     caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="hokmclient")  # (why each socket ended)
    deployment.ensure_up()
    address = "127.0.0.12" if how == signal.SIGTERM else "127.0.0.13"
    player = Player(deployment.url, address)
    state: dict[str, Any] = {}

    def stop_gateway() -> None:
        gateway = deployment.gateway(state["target"])
        assert gateway.proc is not None
        os.kill(gateway.proc.pid, how)
        state["stopped_at_command"] = len(player.commands)

    async def scenario() -> tuple[str, AsyncSeat, dict[str, Any]]:
        created = await player.client.create(
            seats=["human", "bot:easy", "bot:easy", "bot:easy"], name="Survivor")
        match_id = created["match_id"]
        player.who = created["player"]
        seat = player.seat(match_id, created["token"])
        await seat.start()
        target = await asyncio.to_thread(
            wait_for, deployment.socket_on, 15, STEP, "the socket's gateway",
            lambda: {n: deployment.sockets_open(n) for n in NAMES})
        state["target"] = target
        survivor = NAMES[1 - NAMES.index(target)]

        def armed() -> bool:
            """Stop the socket's gateway as the next command leaves, one that round robin
            sends to that gateway (the previous request went to the other one)."""
            if len(player.commands) >= 3 and player.served[-1][3] == survivor:
                player.before_command = stop_gateway
                return True
            return False

        await player.play(seat, armed)
        view = await player.play(seat, lambda: "stopped_at_command" in state)
        assert not over(view)
        proc = deployment.gateway(target).proc
        assert proc is not None
        # the match goes on: the socket is back, through the balancer, on the other gateway
        await player.play(seat, lambda: seat.reconnects >= 1 and proc.poll() is not None
                          and len(player.commands) >= state["stopped_at_command"] + 6)
        # the match waits for this seat now: nothing moves until it decides
        on = await asyncio.to_thread(wait_for, deployment.socket_on, 15, STEP,
                                     "the socket on the surviving gateway")
        assert on == survivor
        final_view = seat.view
        assert final_view is not None
        await player.aclose(seat)
        return match_id, seat, final_view

    match_id, seat, view = run_async(scenario(), timeout=180)
    stopped = deployment.gateway(state["target"]).proc
    assert stopped is not None
    ended = [r.getMessage() for r in caplog.records if "reconnecting" in r.getMessage()]
    assert ended, "the socket never ended"
    if how == signal.SIGTERM:  # a graceful stop: the gateway closed its sockets saying so
        assert "1012" in ended[0], ended  # (service restart: come back)
        assert stopped.returncode == 0  # (a stop asked for, done: hokm serve's SIGTERM)

    records = log_of(deployment, match_id)
    assert check(records) == []
    assert view["version"] == len(records), "the seat does not hold the match's last version"
    # no version missed: every version from the socket's first view on reached the seat, by
    # a socket (views, and the `missed` records of the reconnection) or a command's answer
    first = next(f["version"] for f in player.frames[seat] if f["type"] == "view")
    missing = set(range(first, len(records) + 1)) - known_versions(player, seat)
    assert not missing, f"versions the seat never saw: {sorted(missing)}"
    views = [f["version"] for f in player.frames[seat] if f["type"] == "view"]
    assert views == sorted(views), "a socket's views went back"
    # in-flight commands were answered (retried with their id where needed), applied once
    assert_acknowledged_kept(player, view["seat"], records)
    deployment.ensure_up()  # (the stopped gateway back, for what follows)


def test_client_addresses_through_the_trusted_proxy(deployment: Deployment) -> None:
    deployment.ensure_up()
    via = deployment.url
    direct = deployment.gateways[0].url

    def client(address: str, base: str) -> httpx.Client:
        return httpx.Client(base_url=base, timeout=10,
                            transport=httpx.HTTPTransport(local_address=address))

    def create(http: httpx.Client, **headers: str) -> httpx.Response:
        return http.post("/api/matches", json={"name": "Addr"}, headers=headers)

    a, b, d = client("127.0.0.21", via), client("127.0.0.22", via), client("127.0.0.24", via)
    c_direct, a_direct = client("127.0.0.23", direct), client("127.0.0.21", direct)
    try:
        # matches created per address (counted in Redis, for both gateways): client A's
        # quota runs out, through either gateway; B's, behind the same proxy, is its own
        for _ in range(CREATES):
            assert create(a).status_code == 201
        refused = create(a)
        assert refused.status_code == 429, refused.text
        assert create(b).status_code == 201
        # A naming another address in its own X-Forwarded-For, through the proxy: the
        # gateway takes the address the proxy added, A's
        assert create(a, **{"X-Forwarded-For": "127.0.0.99"}).status_code == 429
        # straight to a gateway, an X-Forwarded-For is no proxy's: C naming A (whose quota
        # is spent) is C; A naming an unspent address is A
        assert create(c_direct, **{"X-Forwarded-For": "127.0.0.21"}).status_code == 201
        assert create(a_direct, **{"X-Forwarded-For": "127.0.0.98"}).status_code == 429

        # the scheme is the proxy's to say, as the address is: D claiming https over plain
        # HTTP gets a plain link (the gateway believes its trusted proxy's X-Forwarded-Proto)
        created = create(d, **{"X-Forwarded-Proto": "https"})
        assert created.status_code == 201
        assert created.json()["invite_url"].startswith(f"{via}/m/"), created.json()

        # requests per second per address (each gateway keeps its own buckets): A, asking
        # as fast as it can, is slowed down; B, right after, is not
        sent = 0

        def a_limited() -> bool:
            nonlocal sent
            sent += 1
            return a.get("/healthz").status_code == 429 or (
                a.get("/api/matches/nosuchmatch").status_code == 429)

        wait_for(a_limited, 30, 0, "client A rate-limited", lambda: f"{sent} requests")
        answers = [b.get("/api/matches/nosuchmatch").status_code for _ in range(6)]
        assert answers == [404] * 6, answers
    finally:
        for http in (a, b, d, c_direct, a_direct):
            http.close()


def test_connections_per_client_are_capped_at_the_proxy(deployment: Deployment) -> None:
    """The gateways do not cap their trusted proxy's connections (every client comes through
    it): the proxy caps each client's, at the gateways' own default (64)."""
    deployment.ensure_up()
    port = int(deployment.url.rsplit(":", 1)[1])
    request = b"GET /healthz HTTP/1.1\r\nHost: hokm\r\n\r\n"

    held: list[socket.socket] = []

    def status(source: str) -> bytes:
        """A new connection from ``source`` asking ``/healthz``, kept open: the status line of
        its answer, or b"" when the proxy refused the connection."""
        conn = socket.socket()
        held.append(conn)
        conn.settimeout(10)
        conn.bind((source, 0))
        data = b""
        try:
            conn.connect(("127.0.0.1", port))
            conn.sendall(request)
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(4096)
                if not chunk:
                    return b""
                data += chunk
            # the next request begun, not finished: the connection stays open for the proxy's
            # `timeout http-request` (10 s) rather than its idle keep-alive's 5 s
            conn.sendall(request[:16])
        except (ConnectionResetError, BrokenPipeError):
            return b""
        return data.split(b"\r\n", 1)[0]

    try:
        for _ in range(64):
            assert status("127.0.0.26").endswith(b"200 OK")
        assert status("127.0.0.26") == b"", "a 65th connection of one client was served"
        assert status("127.0.0.27").endswith(b"200 OK")  # another client is not held back
    finally:
        for conn in held:
            conn.close()


IDLE_S = 2
"""The client and server timeouts of the tunnel test's own balancer (the file's: 30 s)."""


def test_a_websocket_outlives_the_http_timeouts_through_the_proxy(
        deployment: Deployment, tmp_path: Path) -> None:
    """Once upgraded, a WebSocket is a tunnel: HAProxy holds it by ``timeout tunnel`` (1 h),
    not by the ``timeout client``/``timeout server`` of requests.  A balancer of the file with
    those two cut to 2 s keeps a seat's socket open through more than twice that without a
    byte (a match waiting for a player), and the next view comes on that same socket.  Without
    ``timeout tunnel`` the socket would be closed after 2 s (so 30 s with the file's own)."""
    deployment.ensure_up()
    ports = [int(g.url.rsplit(":", 1)[1]) for g in deployment.gateways]
    balancer = Balancer(tmp_path, free_port(), ports, {
        "    timeout client 30s": f"    timeout client {IDLE_S}s",
        "    timeout server 30s": f"    timeout server {IDLE_S}s"})
    address = "127.0.0.31"

    def ready() -> bool:
        try:
            return httpx.get(balancer.url + "/readyz", timeout=5).status_code == 200
        except httpx.HTTPError:
            return False

    async def scenario() -> tuple[dict[str, Any], dict[str, Any], int]:
        async with httpx.AsyncClient(
                base_url=balancer.url, timeout=10,
                transport=httpx.AsyncHTTPTransport(local_address=address)) as http:
            made = (await http.post("/api/matches", json={
                "name": "Tunnel", "seats": ["human", "human", "bot:easy", "bot:easy"]})).json()
            match_id = made["match_id"]
            url = (f"{balancer.url.replace('http', 'ws', 1)}/api/matches/{match_id}/ws?"
                   f"token={made['token']}")
            async with websockets.connect(url, open_timeout=10, proxy=None,
                                          local_addr=(address, 0)) as ws:
                first = json.loads(await asyncio.wait_for(ws.recv(), 10))
                # nothing to say while the match waits: the socket stays open (a close, by
                # the proxy's timeouts, would end this wait early with ConnectionClosed)
                quiet = asyncio.get_running_loop().time()
                with pytest.raises(TimeoutError):
                    await asyncio.wait_for(ws.recv(), 2 * IDLE_S + 1)
                idle = asyncio.get_running_loop().time() - quiet
                joined = await http.post(f"/api/matches/{match_id}/join",
                                         json={"id": request_key(), "name": "Late"})
                assert joined.status_code == 200, joined.text
                nxt = json.loads(await asyncio.wait_for(ws.recv(), 10))
                return first, nxt, int(idle)

    try:
        wait_for(ready, 30, STEP, "the test's balancer answering", balancer.logged)
        first, nxt, idle = run_async(scenario(), timeout=60)
    finally:
        balancer.stop()
    assert idle > IDLE_S
    assert first["type"] == nxt["type"] == "view", (first, nxt)
    assert nxt["version"] > first["version"], (first, nxt)  # the join's, on the same socket
