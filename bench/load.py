"""Gateway load: the project's gateway against ``../shared/bench/ref_gateway.py``, in one run, on
the real Redis, with the open-loop profile of ``../shared/bench/ref_load.py``.

Both gateways run as subprocesses (``hokm serve`` with ``HOKM_REDIS_URL``, Redis DB 12; ``uvicorn
ref_gateway:app``, DB 13; each DB is flushed before and after); this process is the load generator
(asyncio, ``websockets`` clients) on the same cores.  Project tables are four human seats created
through the HTTP API; each client plays legal cards read from its own views on its WebSocket.
Phases, each against both gateways:

* latency: 200 tables of four sockets, each table making one move a second (staggered, open
  loop); latency is the time from a command's send to the sender's view of the new version (ref:
  to the sender's echo), and to all four seats' views;
* throughput: every table as fast as the rules allow (the next mover acts as soon as its view
  says it may; ref: the next seat sends as soon as it sees the previous move), moves/s of one
  gateway process and of two behind the same Redis (tables split between them).  50 tables:
  with more than 64 appends in flight the reference fails ("Too many connections", its Redis pool
  is 64), and 50 already saturate both;
* capacity (the project only, ``--ref-capacity`` for both): 1,000 tables connected (4,000
  sockets), one move per table every 2 s for a minute; every move must reach every seat.

The machine is shared, so the two gateways are driven in alternating slices of each phase
(``--slices``), both servers up and connected all along: each meets the same background load.
Every phase reports latency to the sender and to all four seats, moves refused, lost (not seen by
all four seats within 5 s of the end) and sockets closed, and the CPU the servers and this
process used (per move).  It ends with
``RESULT p50_ratio=.. p99_ratio=.. throughput_ratio=.. throughput_1p_ratio=.. capacity_p99_ms=..
errors=..`` (ratios project/reference; throughput of the better of one and two processes, each
side, and of one process each;
``capacity_p99_ms``: the p99 from a move's send to its view at all four seats, at 1,000 tables;
errors: the project's moves refused, lost or not seen by all four seats, and sockets dropped, in
every phase).

``--cluster`` runs the same on a private six-node Redis Cluster on loopback
(``tests/cluster_fixture.py``): the project's gateways with ``HOKM_REDIS_URL=redis+cluster://``
(RQ on ``--redis``), the reference ``bench/ref_cluster_gateway.py`` (the shared reference's
least work per move, with its streams grouped under shard hash tags so that an ``XREAD`` stays
in one slot) on the same cluster, and the same ratios.

The servers are started and the tables created with the client library (``hokmclient``:
``LocalServer``, ``AsyncClient``); the sockets' hot loop stays lean on purpose: it reads a view's
version from the frame's first bytes and parses a view only for the seat that moves, where the
library's ``AsyncSeat`` parses every frame whole.  Measured here: 0.5 us a frame (plus ~5 us once
a move) against ~25 us a frame, about 100 us a move against 9 us, so at 1,200 moves/s the
library would take about 12% of a core more from the two the gateway shares with this process.

    python bench/load.py                 # the full run (about 4 minutes)
    python bench/load.py --quick         # a short sanity run (about a minute)
    python bench/load.py --phases latency --kinds project    # one phase, one side
    python bench/load.py --cluster       # the same workload on a local Redis Cluster
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import gc
import json
import os
import random
import re
import resource
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis
import websockets

from benchcli import positive_float, positive_int, run
from hokmclient import NO_LIMITS, AsyncClient, LocalServer, free_port

ROOT = Path(__file__).resolve().parent.parent
SHARED_BENCH = ROOT.parent / "shared" / "bench"
BIN = Path(sys.executable).parent
VIEW_PREFIX = '{"type":"view","version":'
GRACE_S = 5.0
PHASES = ("latency", "throughput", "capacity")
KINDS = ("ref", "project")


# -- servers -----------------------------------------------------------------------------------


def wait_tcp(port: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"port {port} did not open")
        time.sleep(0.1)


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (and its waited-for children), from /proc."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(v) for v in fields[11:15]) / os.sysconf("SC_CLK_TCK")


SERVER_PIDS: list[int] = []


@contextlib.contextmanager
def servers(kind: str, count: int, args: argparse.Namespace) -> Iterator[list[int]]:
    """``count`` gateway processes of ``kind`` ("project" or "ref"); yields their ports.  The
    project's run as the client library's ``LocalServer`` (``hokm serve``, every limit off)."""
    procs: list[subprocess.Popen[bytes]] = []
    project: list[LocalServer] = []
    ports = [free_port() for _ in range(count)]
    env = dict(os.environ)
    try:
        for port in ports:
            if kind == "project":
                custom = None
                if os.environ.get("HOKM_BENCH_SERVE"):  # an instrumented server, for analysis
                    custom = [sys.executable, os.environ["HOKM_BENCH_SERVE"], str(port),
                              os.environ.get("HOKM_BENCH_ARG", "")]
                elif args.profile:
                    out = f"{args.profile}-{port}.prof"
                    custom = [sys.executable, "-m", "cProfile", "-o", out, str(BIN / "hokm"),
                              "serve", "--port", str(port)]
                # (a long keep-alive: an idle connection closed by the server just as the
                # generator reuses it fails the request, and setting up 1,000 tables sends
                # 4,000 of them)
                env_of = {**NO_LIMITS, "HOKM_REDIS_URL": args.redis, "HOKM_KEEP_ALIVE": "120"}
                if args.cluster_url:  # the streams on the cluster, RQ on its plain Redis
                    env_of.update(HOKM_REDIS_URL=args.cluster_url, HOKM_QUEUE_URL=args.redis)
                server = LocalServer(env=env_of,
                                     port=port, command=custom, cwd=ROOT,
                                     url=f"http://127.0.0.1:{port}",
                                     log=sys.stdout if args.verbose else None)
                project.append(server.start())
                continue
            elif args.cluster_url:
                env.update(REF_CLUSTER_URL=args.cluster_url.split("://", 1)[1])
                cmd = [str(BIN / "uvicorn"), "ref_cluster_gateway:app", "--app-dir",
                       str(ROOT / "bench"), "--port", str(port), "--log-level", "warning"]
            else:
                env.update(REF_REDIS_URL=args.ref_redis)
                cmd = [str(BIN / "uvicorn"), "ref_gateway:app", "--app-dir", str(SHARED_BENCH),
                       "--port", str(port), "--log-level", "warning"]
            procs.append(subprocess.Popen(cmd, env=env, cwd=ROOT,
                                          stdout=subprocess.DEVNULL if not args.verbose else None))
        for port in ports:
            if kind != "project":
                wait_tcp(port)
        SERVER_PIDS[:] = [s.pid for s in project] + [p.pid for p in procs]
        yield ports
    finally:
        for server in project:
            server.stop()
        for proc in procs:
            proc.send_signal(signal.SIGINT)
        for proc in procs:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


# -- measurements ------------------------------------------------------------------------------


@dataclass
class Move:
    sent: float
    sender: int
    target: int
    """The version (project) or move number (ref) that shows this move."""
    seen: list[float | None] = field(default_factory=lambda: [None] * 4)


@dataclass
class Stats:
    own: list[float] = field(default_factory=list)
    """Send -> the sender sees its move (seconds)."""
    every: list[float] = field(default_factory=list)
    """Send -> all four seats saw it."""
    moves: int = 0
    refused: int = 0
    lost: int = 0
    skipped: int = 0
    finished: int = 0
    """Matches that ended while measured (their table starts another one)."""
    """Ticks with no decision ready (a view not arrived yet, or a deal in progress)."""
    closed: int = 0

    def add(self, move: Move) -> None:
        self.moves += 1
        own = move.seen[move.sender]
        if own is not None:
            self.own.append(own - move.sent)
        if all(t is not None for t in move.seen):
            self.every.append(max(t for t in move.seen if t is not None) - move.sent)
        else:
            self.lost += 1

    @property
    def errors(self) -> int:
        return self.refused + self.lost + self.closed


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[int(q * (len(ordered) - 1))] * 1e3


FIELD = {name: re.compile(pattern) for name, pattern in (
    ("phase", r'"phase":"([a-z_]+)"'), ("hakem", r'"hakem":(\d+|null)'),
    ("turn", r'"turn":(\d+|null)'), ("legal", r'"legal":\[([^\]]*)\]'))}


def view_fields(raw: str) -> dict[str, Any]:
    """``phase``, ``hakem``, ``turn`` and ``legal`` of a view message, read from its text (keys
    that occur once in a view) rather than by parsing all of it: the load generator shares the
    cores with the gateway under test, so it should cost as little as it can; any surprise falls
    back to ``json.loads``."""
    found = {name: pattern.search(raw) for name, pattern in FIELD.items()}
    if not all(found.values()):
        view = json.loads(raw)["view"]
        return {name: view[name] for name in FIELD}
    out: dict[str, Any] = {"phase": found["phase"].group(1)}  # type: ignore[union-attr]
    for name in ("hakem", "turn"):
        value = found[name].group(1)  # type: ignore[union-attr]
        out[name] = None if value == "null" else int(value)
    out["legal"] = re.findall(r'"([^"]+)"', found["legal"].group(1))  # type: ignore[union-attr]
    return out


# -- tables ------------------------------------------------------------------------------------


class Table:
    """Four sockets at one table; subclasses speak the project's API or the reference's."""

    def __init__(self, index: int, stats: Stats, rng: random.Random) -> None:
        self.index = index
        self.stats = stats
        self.rng = rng
        self.socks: list[Any] = []
        self.listeners: list[asyncio.Task[None]] = []
        self.pending: list[Move] = []
        self.mode = "idle"  # "tick" | "fast" | "idle"
        self.stopping = False

    async def open(self, url: str) -> Any:
        return await websockets.connect(url, max_queue=None, open_timeout=60,
                                        ping_interval=None, close_timeout=2)

    def seen(self, seat: int, target: int, now: float) -> None:
        for move in self.pending:
            if move.target <= target and move.seen[seat] is None:
                move.seen[seat] = now
        if self.pending and all(t is not None for t in self.pending[0].seen):
            while self.pending and all(t is not None for t in self.pending[0].seen):
                self.stats.add(self.pending.pop(0))

    def settle(self) -> None:
        for move in self.pending:
            self.stats.add(move)
        self.pending.clear()

    async def close(self) -> None:
        self.stopping = True
        for task in self.listeners:
            task.cancel()
        for sock in self.socks:
            with contextlib.suppress(Exception):
                await sock.close()

    async def listen(self, seat: int) -> None:
        try:
            async for raw in self.socks[seat]:
                self.frame(seat, raw if isinstance(raw, str) else raw.decode())
        except asyncio.CancelledError:
            raise
        except Exception:
            pass
        if not self.stopping:
            self.stats.closed += 1

    def frame(self, seat: int, raw: str) -> None:
        raise NotImplementedError

    def tick(self) -> None:
        raise NotImplementedError

    def kick(self) -> None:
        """Start playing as fast as possible."""
        raise NotImplementedError

    async def connect(self, ws_base: str) -> None:
        raise NotImplementedError


class ProjectTable(Table):
    def __init__(self, index: int, stats: Stats, rng: random.Random) -> None:
        super().__init__(index, stats, rng)
        self.match_id = ""
        self.tokens: list[str] = []
        self.seat_of: list[int] = [0, 0, 0, 0]
        """Socket index -> seat (read from the socket's first view)."""
        self.socket_of: dict[int, int] = {}
        self.latest: list[tuple[int, str]] = [(-1, "")] * 4
        self.acted = -1
        self.over = False
        self.http_base = self.ws_base = ""
        self.rules: dict[str, Any] = {}
        self.restarting: asyncio.Task[None] | None = None
        self.decided: tuple[int, int | None] = (-1, None)
        """(version, seat to move) of the newest version seen at the table."""

    async def create(self, http: AsyncClient, rules: dict[str, Any]) -> None:
        self.http_base, self.rules = http.base, rules
        created = await http.create(name=f"t{self.index}", rules=rules)
        self.match_id = created["match_id"]
        self.tokens = [created["token"]]
        for seat in range(3):
            joined = await http.join(self.match_id, name=f"t{self.index}s{seat + 1}")
            self.tokens.append(joined["token"])

    async def connect(self, ws_base: str) -> None:
        self.ws_base = ws_base
        for token in self.tokens:
            self.socks.append(await self.open(
                f"{ws_base}/api/matches/{self.match_id}/ws?token={token}"))
        self.listeners = [asyncio.create_task(self.listen(i)) for i in range(4)]

    async def restart(self) -> None:
        """The match is over: the table starts another one (new match, new sockets)."""
        try:
            async with AsyncClient(self.http_base, timeout=60) as http:
                await self.create(http, self.rules)
            old, listeners = self.socks, self.listeners
            self.socks, self.listeners = [], []
            for task in listeners:
                task.cancel()
            self.latest = [(-1, "")] * 4
            self.socket_of, self.acted, self.decided = {}, -1, (-1, None)
            await self.connect(self.ws_base)
            self.over = False
            for sock in old:
                with contextlib.suppress(Exception):
                    await sock.close()
        except Exception as exc:
            print(f"  table {self.index} could not start another match: {exc!r}",
                  file=sys.stderr)

    def frame(self, seat: int, raw: str) -> None:
        now = time.perf_counter()
        if not raw.startswith(VIEW_PREFIX):
            message = json.loads(raw)
            if message.get("type") == "error":
                self.stats.refused += 1
                if self.stats.refused <= 5:
                    print(f"  refused: {message}", file=sys.stderr)
            return
        start = len(VIEW_PREFIX)
        version = int(raw[start:raw.index(",", start)])
        if self.latest[seat][0] < 0:
            view = json.loads(raw)["view"]
            self.seat_of[seat] = view["seat"]
            self.socket_of[view["seat"]] = seat
        if version >= self.latest[seat][0]:
            self.latest[seat] = (version, raw)
        if self.pending:
            self.seen(seat, version, now)
        if self.mode == "fast":
            self.act()

    def mover(self) -> tuple[int, int | None]:
        """The newest version at the table and the socket whose decision it waits for."""
        seat = max(range(4), key=lambda i: self.latest[i][0])
        version, raw = self.latest[seat]
        if self.decided[0] != version:
            fields = view_fields(raw)
            phase = fields["phase"]
            if phase == "match_over" and not self.over:
                self.over = True
                self.stats.finished += 1
                task = asyncio.get_running_loop().create_task(self.restart())
                self.restarting = task
            who = (fields["hakem"] if phase == "choosing_trump"
                   else fields["turn"] if phase == "playing" else None)
            self.decided = (version, None if who is None else self.socket_of.get(who))
        return self.decided

    def move(self, sock: int, version: int) -> None:
        fields = view_fields(self.latest[sock][1])
        choice = self.rng.choice(fields["legal"])
        kind = "choose_trump" if fields["phase"] == "choosing_trump" else "play"
        body = {"type": kind, ("suit" if kind == "choose_trump" else "card"): choice,
                "version": version}
        self.acted = version
        self.pending.append(Move(time.perf_counter(), sock, version + 1))
        asyncio.get_running_loop().create_task(self.send(sock, json.dumps(body)))

    async def send(self, sock: int, text: str) -> None:
        try:
            await self.socks[sock].send(text)
        except Exception:
            self.stats.closed += 1

    def act(self) -> None:
        version, sock = self.mover()
        if sock is None or version <= self.acted or self.latest[sock][0] != version:
            return
        self.move(sock, version)

    def kick(self) -> None:
        self.act()

    def tick(self) -> None:
        version, sock = self.mover()
        if sock is None or version <= self.acted or self.latest[sock][0] != version:
            self.stats.skipped += 1
            return
        self.move(sock, version)


class RefTable(Table):
    def __init__(self, index: int, stats: Stats, rng: random.Random) -> None:
        super().__init__(index, stats, rng)
        self.n = 0
        self.stream = f"t{index}-{time.time_ns()}"

    async def connect(self, ws_base: str) -> None:
        for _ in range(4):
            self.socks.append(await self.open(f"{ws_base}/ws/{self.stream}"))
        self.listeners = [asyncio.create_task(self.listen(i)) for i in range(4)]

    def frame(self, seat: int, raw: str) -> None:
        now = time.perf_counter()
        n = json.loads(raw)["n"]
        if self.pending:
            self.seen(seat, n, now)
        if self.mode == "fast" and n == self.n - 1 and seat == self.n % 4:
            self.move()

    def move(self) -> None:
        seat = self.n % 4
        self.pending.append(Move(time.perf_counter(), seat, self.n))
        text = json.dumps({"n": self.n, "seat": seat, "card": "AS"})
        self.n += 1
        asyncio.get_running_loop().create_task(self.send(seat, text))

    async def send(self, sock: int, text: str) -> None:
        try:
            await self.socks[sock].send(text)
        except Exception:
            self.stats.closed += 1

    def tick(self) -> None:
        self.move()

    def kick(self) -> None:
        self.move()


# -- phases ------------------------------------------------------------------------------------


async def gather_limited(factories: list[Callable[[], Awaitable[None]]], limit: int) -> None:
    gate = asyncio.Semaphore(limit)

    async def run(factory: Callable[[], Awaitable[None]]) -> None:
        async with gate:
            await factory()

    await asyncio.gather(*(run(f) for f in factories))


async def open_tables(kind: str, ports: list[int], count: int, stats: Stats,
                      rules: dict[str, Any]) -> list[Table]:
    rng = random.Random(count)
    tables: list[Table] = []
    clients = [AsyncClient(f"http://127.0.0.1:{p}", timeout=60) for p in ports]
    try:
        for i in range(count):
            table: Table = (ProjectTable if kind == "project" else RefTable)(
                i, stats, random.Random(rng.random()))
            tables.append(table)
        n = len(ports)
        if kind == "project":
            await gather_limited([
                functools.partial(t.create, clients[i % n], rules)  # type: ignore[attr-defined]
                for i, t in enumerate(tables)], 32)
        await gather_limited([
            functools.partial(t.connect, f"ws://127.0.0.1:{ports[i % n]}")  # type: ignore
            for i, t in enumerate(tables)], 50)
    finally:
        for client in clients:
            await client.aclose()
    # let every socket receive its first view (project) before the clock starts
    deadline = time.monotonic() + 30
    while kind == "project" and time.monotonic() < deadline and not all(
            min(v for v, _ in t.latest) >= 0 for t in tables if isinstance(t, ProjectTable)):
        await asyncio.sleep(0.1)
    return tables


async def drain(tables: list[Table]) -> None:
    deadline = time.monotonic() + GRACE_S
    while time.monotonic() < deadline and any(t.pending for t in tables):
        await asyncio.sleep(0.05)
    for table in tables:
        table.settle()


async def open_loop(tables: list[Table], period: float, duration: float) -> None:
    """Each table makes one move every ``period`` seconds (staggered) for ``duration``."""
    start = time.perf_counter()
    end = start + duration

    async def run(table: Table) -> None:
        await asyncio.sleep(random.random() * period)
        table.mode = "tick"
        while time.perf_counter() < end:
            table.tick()
            await asyncio.sleep(period)
        table.mode = "idle"

    await asyncio.gather(*(run(t) for t in tables))
    await drain(tables)


async def as_fast_as_possible(tables: list[Table], duration: float) -> int:
    """Every table plays as fast as the rules allow for ``duration``; returns the moves made."""
    stats = {id(t.stats): t.stats for t in tables}
    before = sum(s.moves for s in stats.values()) + sum(len(t.pending) for t in tables)
    for table in tables:
        table.mode = "fast"
        table.kick()
    await asyncio.sleep(duration)
    for table in tables:
        table.mode = "idle"
    done = sum(s.moves for s in stats.values()) + sum(len(t.pending) for t in tables) - before
    await drain(tables)
    return done


@dataclass
class Side:
    """One gateway under test in a phase: its servers, tables and pooled measurements."""

    kind: str
    ports: list[int]
    pids: list[int]
    stats: Stats = field(default_factory=Stats)
    tables: list[Table] = field(default_factory=list)
    setup_s: float = 0.0
    busy_s: float = 0.0
    """Seconds this side was driven (the sum of its slices)."""
    fast_moves: int = 0
    cpu_s: list[float] = field(default_factory=list)
    load_cpu_s: float = 0.0
    redis_cpu_s: float | None = None
    """CPU of the Redis server behind this side while it was driven (single Redis only)."""
    redis_url: str | None = None


async def drive(side: Side, run: Callable[[Side], Awaitable[None]]) -> None:
    """One slice of load on ``side``, with the CPU its servers and this process used."""
    cpu0 = [cpu_seconds(p) for p in side.pids]
    own0 = resource.getrusage(resource.RUSAGE_SELF)
    redis0 = redis_cpu(side.redis_url)
    # This process is the measuring instrument: its own garbage collections (at 4,000 client
    # sockets a full one paused it 0.4 s, and young ones up to 65 ms) would be counted as the
    # gateway's latency.  So its heap is frozen and its collector off while a slice is driven
    # (reference counting still frees nearly everything; the rest waits for the slice's end).
    gc.collect()
    gc.freeze()
    gc.disable()
    t0 = time.perf_counter()
    try:
        await run(side)
    finally:
        side.busy_s += time.perf_counter() - t0
        gc.enable()
        gc.unfreeze()
    own = resource.getrusage(resource.RUSAGE_SELF)
    used = [cpu_seconds(p) - c for p, c in zip(side.pids, cpu0, strict=True)]
    side.cpu_s = [a + b for a, b in zip(side.cpu_s, used, strict=True)] if side.cpu_s else used
    side.load_cpu_s += own.ru_utime + own.ru_stime - own0.ru_utime - own0.ru_stime
    redis1 = redis_cpu(side.redis_url)
    if redis0 is not None and redis1 is not None:
        side.redis_cpu_s = (side.redis_cpu_s or 0.0) + redis1 - redis0


def redis_cpu(url: str | None) -> float | None:
    """CPU seconds the Redis server at ``url`` has used (user + system, from ``INFO cpu``)."""
    if url is None:
        return None
    info = redis.Redis.from_url(url).info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def report(side: Side, name: str, tables_n: int) -> None:
    st = side.stats
    busy = side.busy_s or 1.0
    rate = f" | {side.fast_moves / busy:.0f} moves/s" if side.fast_moves else ""
    cpu_ms = 1e3 * sum(side.cpu_s) / max(st.moves, 1)
    print(f"  {side.kind:7} {name}: {tables_n} tables ({4 * tables_n} sockets, connected in "
          f"{side.setup_s:.1f} s) moves={st.moves}{rate}\n"
          f"          to the sender p50={pct(st.own, .5):.2f} ms p99={pct(st.own, .99):.2f} ms "
          f"max={pct(st.own, 1):.1f} ms | to all four p50={pct(st.every, .5):.2f} "
          f"p99={pct(st.every, .99):.2f} ms\n"
          f"          refused={st.refused} lost={st.lost} closed={st.closed} "
          f"not-ready ticks={st.skipped} matches finished={st.finished} | cpu: servers "
          f"{'+'.join(f'{c / busy:.0%}' for c in side.cpu_s)} ({cpu_ms:.2f} ms/move), "
          f"load generator {side.load_cpu_s / busy:.0%}"
          + (f", redis {side.redis_cpu_s / busy:.0%}" if side.redis_cpu_s is not None else ""),
          flush=True)


async def phase(name: str, kinds: list[str], procs: int, tables_n: int, slices: int,
                args: argparse.Namespace, run: Callable[[Side], Awaitable[None]]
                ) -> dict[str, Side]:
    """Start ``procs`` servers of every kind, connect ``tables_n`` tables to each, then drive
    the kinds in alternating slices (so both meet the same background load), ``slices`` each."""
    sides: dict[str, Side] = {}
    with contextlib.ExitStack() as stack:
        for kind in kinds:
            ports = stack.enter_context(servers(kind, procs, args))
            sides[kind] = Side(kind, ports, list(SERVER_PIDS), redis_url=None if args.cluster_url
                               else args.redis if kind == "project" else args.ref_redis)
        try:
            for side in sides.values():
                t0 = time.perf_counter()
                side.tables = await open_tables(side.kind, side.ports, tables_n, side.stats,
                                                args.rules)
                side.setup_s = time.perf_counter() - t0
            await asyncio.sleep(1.0)
            order = list(sides.values())
            for i in range(slices):
                for side in (order if i % 2 == 0 else order[::-1]):
                    await drive(side, run)
        finally:
            for side in sides.values():
                for table in side.tables:
                    table.stopping = True
                await gather_limited([t.close for t in side.tables], 200)
    for side in sides.values():
        report(side, name, tables_n)
    return sides


def flush(url: str) -> None:
    redis.Redis.from_url(url).flushdb()


async def main_async(args: argparse.Namespace) -> int:
    phases = set(args.phases.split(","))
    kinds = args.kinds.split(",")
    errors = ref_errors = 0
    ratios: dict[str, float] = {}
    rates: dict[str, dict[int, float]] = {k: {} for k in kinds}
    capacity_p99: float | None = None
    for url in (args.redis, args.ref_redis):
        flush(url)
    try:
        if "latency" in phases:
            slice_s = args.duration / args.slices
            sides = await phase(
                "latency", kinds, 1, args.tables, args.slices, args,
                lambda side: open_loop(side.tables, args.period, slice_s))
            if "project" in sides:
                errors += sides["project"].stats.errors
            if "ref" in sides:
                ref_errors += sides["ref"].stats.errors
            if len(sides) == 2:
                p, r = sides["project"].stats.own, sides["ref"].stats.own
                ratios["p50_ratio"] = pct(p, .5) / pct(r, .5)
                ratios["p99_ratio"] = pct(p, .99) / pct(r, .99)

        if "throughput" in phases:
            fast_slice = args.fast_duration / args.slices

            async def fast(side: Side) -> None:
                side.fast_moves += await as_fast_as_possible(side.tables, fast_slice)

            for procs in (1, 2):
                sides = await phase(f"throughput x{procs}", kinds, procs, args.fast_tables,
                                    args.slices, args, fast)
                for kind, side in sides.items():
                    rates[kind][procs] = side.fast_moves / side.busy_s
                if "project" in sides:
                    errors += sides["project"].stats.errors
                if "ref" in sides:
                    ref_errors += sides["ref"].stats.errors
            if len(kinds) == 2:
                best = {k: max(v.values()) for k, v in rates.items()}
                ratios["throughput_ratio"] = best["project"] / best["ref"]
                ratios["throughput_1p_ratio"] = rates["project"][1] / rates["ref"][1]
            for kind in kinds:
                print(f"throughput {kind}: {rates[kind][1]:.0f} moves/s with one process, "
                      f"{rates[kind][2]:.0f} with two")

        if "capacity" in phases:
            cap_kinds = kinds if args.ref_capacity else [k for k in kinds if k == "project"]
            sides = await phase(
                "capacity", cap_kinds, 1, args.cap_tables, 1, args,
                lambda side: open_loop(side.tables, args.cap_period, args.cap_duration))
            if "project" in sides:
                errors += sides["project"].stats.errors
                capacity_p99 = pct(sides["project"].stats.every, .99)
            if "ref" in sides:
                ref_errors += sides["ref"].stats.errors
    finally:
        for url in (args.redis, args.ref_redis):
            flush(url)
    if ref_errors:
        print(f"note: the reference lost or failed {ref_errors} moves: its figures are degraded",
              flush=True)
    fields = " ".join(f"{k}={v:.2f}" for k, v in ratios.items())
    if capacity_p99 is not None:
        fields += f" capacity_p99_ms={capacity_p99:.2f}"
    print(f"RESULT {fields} errors={errors}", flush=True)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="short phases: a sanity run")
    parser.add_argument("--phases", default="latency,throughput,capacity")
    parser.add_argument("--kinds", default="ref,project", help="gateways to drive")
    parser.add_argument("--tables", type=positive_int, default=200)
    parser.add_argument("--period", type=positive_float, default=1.0)
    parser.add_argument("--duration", type=positive_float, default=20.0)
    parser.add_argument("--fast-tables", type=positive_int, default=50,
                        help="tables in the throughput phase (the reference fails with more "
                        "than 64 appends in flight: its pool of Redis connections is 64)")
    parser.add_argument("--fast-duration", type=positive_float, default=10.0)
    parser.add_argument("--cap-tables", type=positive_int, default=1000)
    parser.add_argument("--cap-period", type=positive_float, default=2.0)
    parser.add_argument("--cap-duration", type=positive_float, default=60.0)
    parser.add_argument("--slices", type=positive_int, default=4,
                        help="alternating slices per phase")
    parser.add_argument("--ref-capacity", action="store_true",
                        help="also run the capacity phase against the reference")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/12",
                        help="the project's Redis database (flushed before and after)")
    parser.add_argument("--ref-redis", default="redis://127.0.0.1:6379/13",
                        help="the reference's Redis database (flushed before and after)")
    parser.add_argument("--profile", default="", help="cProfile the project's servers to "
                        "PREFIX-<port>.prof")
    parser.add_argument("--cluster", action="store_true",
                        help="the same on a private six-node Redis Cluster on loopback, against "
                        "bench/ref_cluster_gateway.py on that cluster (RQ on --redis)")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    for option, given, known in (("--phases", args.phases, PHASES), ("--kinds", args.kinds, KINDS)):
        unknown = [v for v in given.split(",") if v not in known]
        if unknown:
            parser.error(f"argument {option}: unknown {', '.join(map(repr, unknown))} "
                         f"(a comma-separated list of {', '.join(known)})")
    args.cluster_url = ""
    if args.quick:
        args.tables, args.duration = 50, 4.0
        args.fast_tables, args.fast_duration = 50, 4.0
        args.cap_tables, args.cap_duration = 200, 10.0
        args.slices = 2
    # Two sets of seven: a match lasts about 600 records, so no table runs out of match while
    # it is measured (a finished table could only stand idle, and look like a slow gateway).
    args.rules = {"target": "2x7"}
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 4 * args.cap_tables * 2 + 1000
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(want, soft)), hard))
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    if not args.cluster:
        return asyncio.run(main_async(args))
    sys.path.insert(0, str(ROOT))
    from tests.cluster_fixture import start_cluster

    cluster = start_cluster()
    try:
        args.cluster_url = cluster.url
        print(f"on a six-node Redis Cluster: {cluster.url}", flush=True)
        return asyncio.run(main_async(args))
    finally:
        cluster.stop()


if __name__ == "__main__":
    sys.exit(run(main))
