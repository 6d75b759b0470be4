"""Socket lag of the bots' replies: from a bot's record visible in Redis to its view on a human's
WebSocket, through a real ``hokm serve`` and a real ``hokm worker`` on a private Redis.

An operator found the human's socket getting the bots' replies about 0.5 s late on most moves
(a solo match against ``easy`` bots took 41.5 s instead of 5 s): the gateway's follower
(``ShardedFollower.next_batch``, which ``redis_wake.WakeFollower`` inherits on one Redis) paused
half a second after a read that found nothing new, the gateway's own record read back, holding
the bots' replies woken meanwhile.  ``bench/bots.py`` stamps the records with its own ``XREAD``
tail and ``bench/load.py`` has tables of humans only, whose views the appending gateway sends
itself: neither measured this path.  Here:

* a private ``redis-server`` on a free port in a temporary folder (``bench/analysis.py``'s
  ``start_redis``); ``--cluster``: a private six-node Redis Cluster
  (``tests/cluster_fixture.py``) for the matches and a private plain Redis for the bot queue
  (``HOKM_QUEUE_URL``);
* one ``hokm serve`` (the client library's ``LocalServer``, every limit off) and one
  ``hokm worker --processes 1``, real processes;
* solo matches created over the API (one human seat and three ``bot:easy``, seats as seated),
  one after another until ``--moves`` bot records were measured.  This script plays the human
  seat over its WebSocket: at each view that asks the seat to decide it sends a random legal
  choice over the socket (the command path of the gateway's event loop);
* a thread of this script tails the match's stream (one blocked ``XREAD``, the key from
  ``services/store/keys.py``) and stamps the moment each record became visible, with its actor;
  the socket stamps each view frame on receipt (both ``time.monotonic``).  A record's lag is the
  arrival of the first frame at its version or later (a frame is a whole snapshot: it carries
  every record up to its version) minus the record's visibility stamp.

Reported: the p50/p95 lag of the bots' records (``socket_lag_p50_ms``, ``socket_lag_p95_ms``),
also apart for the replies right after the human's move (woken while the gateway's follower had
just read back its own record: where the pause held them), after another bot's move, and after
a system record (a deal); and the reference measured in the same run, the same lag of the
human's own records, whose views the appending gateway sends itself (``ref_lag_p50_ms``), and
``lag_ratio = socket_lag_p50_ms / max(ref_lag_p50_ms, 0.05)``.  Goal: ``socket_lag_p50_ms``
at most 5 (with the half-second pause it was hundreds of ms).

Ends with ``RESULT socket_lag_p50_ms=<a> socket_lag_p95_ms=<b> ref_lag_p50_ms=<c>
lag_ratio=<d>``.  A phase that measured nothing prints ``nan``: the benchmark never ends without
its RESULT line, also after a failure or Ctrl+C (then with what was measured).  Every process it
started and its temporary folder are removed on the way out.  Sized for two cores: the default
300 bot records (230 to 310 a match: one or two matches) take a few seconds (a cluster adds about
five to start); with the half-second pause back, about 50 s.

    python bench/socket_lag.py [--moves 300] [--cluster] [--seed 1]
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import json
import os
import random
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import websockets

from analysis import start_redis
from benchcli import positive_int
from bots import NAN, median, percentile
from hokmclient import NO_LIMITS, AsyncClient, LocalServer, command_for, my_turn, over
from hokmclient.local import hokm_command
from services.store import connect, keys
from services.store.codec import decode
from services.store.redis_streams import version_of

SEATS = ["human", "bot:easy", "bot:easy", "bot:easy"]
RULES = {"teams": "as_seated"}  # the human keeps seat 0 (no ace draw moving it)
STALL_S = 30.0
"""A match gives up (and the run reports what it has) after this long without a frame."""
REF_FLOOR_MS = 0.05
"""The least reference ``lag_ratio`` divides by (the reference may be about 0 or below)."""
GOAL_MS = 5.0


# -- what is measured ---------------------------------------------------------------------------


@dataclass
class Lags:
    """Lags in seconds, by kind of record; filled as matches end, so a run cut short still
    reports what it measured."""

    after_human: list[float] = field(default_factory=list)
    """Bot records right after the human's own record."""
    after_bot: list[float] = field(default_factory=list)
    """Bot records right after another bot's record."""
    after_system: list[float] = field(default_factory=list)
    """Bot records right after a system record (a deal, the ace draw)."""
    human: list[float] = field(default_factory=list)
    """The reference: the human's own records (the appending gateway sends their views)."""
    matches: int = 0
    unmatched: int = 0
    """Records seen on the stream with no frame at or after their version (a match cut short)."""
    errors: list[str] = field(default_factory=list)
    """Error frames the socket got (a refused command)."""

    @property
    def bots(self) -> list[float]:
        return self.after_human + self.after_bot + self.after_system


class Tail(threading.Thread):
    """Stamps the moment every record of one match became visible (one blocked XREAD loop on
    the match's stream), with the record's actor (None: a system record)."""

    def __init__(self, client: Any, match_id: str, human: int) -> None:
        super().__init__(name=f"tail-{match_id}", daemon=True)
        self.client = client
        self.key = keys.log(match_id)
        self.human = human
        self.seen: dict[int, tuple[float, int | None]] = {}
        self.latest = 0
        self.bot_records = 0
        self.stopped = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        last: bytes | str = "0-0"
        try:
            while not self.stopped.is_set():
                found = self.client.xread({self.key: last}, block=100)
                now = time.monotonic()
                for _, entries in found or ():
                    for entry_id, fields in entries:
                        version = version_of(entry_id)
                        actor = decode(version, fields[b"d"]).actor
                        self.seen[version] = (now, actor)
                        if actor is not None and actor != self.human:
                            self.bot_records += 1
                        self.latest = max(self.latest, version)
                        last = entry_id
        except Exception as exc:  # reported by the match that started it
            self.error = exc

    def stop(self) -> None:
        self.stopped.set()
        self.join(timeout=5)


def file_lags(lags: Lags, seen: dict[int, tuple[float, int | None]], arrivals: dict[int, float],
              human: int) -> None:
    """Add one match's lags: each record's visibility stamp against the first frame at its
    version or later (frames come in version order, so the earliest of those)."""
    first_at_or_after: dict[int, float] = {}
    earliest = float("inf")
    for version in sorted(arrivals, reverse=True):
        earliest = min(earliest, arrivals[version])
        first_at_or_after[version] = earliest
    frames = sorted(arrivals)
    for version, (stamp, actor) in sorted(seen.items()):
        if actor is None:
            continue
        at = bisect.bisect_left(frames, version)
        if at == len(frames):
            lags.unmatched += 1
            continue
        lag = first_at_or_after[frames[at]] - stamp
        if actor == human:
            lags.human.append(lag)
            continue
        before = seen.get(version - 1, (0.0, None))[1]
        (lags.after_human if before == human else lags.after_system if before is None
         else lags.after_bot).append(lag)


# -- servers -----------------------------------------------------------------------------------


def stop_process(proc: subprocess.Popen[bytes], group: bool = False,
                 timeout: float = 15.0) -> None:
    """Stop a process this script started: SIGTERM, SIGKILL after ``timeout`` seconds;
    ``group``: it was started in a session of its own, whose processes left (its children)
    are killed too."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
    if group:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)


def private_redis(stack: contextlib.ExitStack) -> str:
    """A private ``redis-server`` (``bench/analysis.py``'s), stopped with the stack; its URL."""
    proc, url = start_redis()
    stack.callback(stop_process, proc)
    return url


def start_worker(stack: contextlib.ExitStack, env: dict[str, str], log: Path) -> None:
    """``hokm worker --processes 1``, until it says what it serves (or 60 s)."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("HOKM_")}
    with open(log, "wb") as out:
        proc = subprocess.Popen([*hokm_command(), "worker", "--processes", "1"],
                                env={**base, **env}, cwd=ROOT, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)
    stack.callback(stop_process, proc, True)
    deadline = time.monotonic() + 60
    while "playing bot turns" not in log.read_text(errors="replace"):
        if proc.poll() is not None or time.monotonic() > deadline:
            tail = log.read_text(errors="replace")[-2000:]
            raise RuntimeError(f"hokm worker did not start; its output:\n{tail}")
        time.sleep(0.05)  # poll interval of a deadline-bound wait


def start_gateway(stack: contextlib.ExitStack, env: dict[str, str],
                  serve_cmd: str | None) -> str:
    """``hokm serve`` on a free port (``serve_cmd``: another command line before ``serve``,
    such as a wrapper around ``hokm.cli.main``); its URL."""
    command = None
    if serve_cmd:
        command = [*shlex.split(serve_cmd), "serve", "--host", "127.0.0.1", "--port", "0"]
    server = LocalServer(env={**NO_LIMITS, **env}, command=command, cwd=ROOT)
    stack.callback(server.stop)
    server.start()
    return server.url


@contextlib.contextmanager
def deployment(cluster: bool, folder: Path, serve_cmd: str | None) -> Iterator[tuple[str, str]]:
    """The stores, one gateway and one worker; yields the gateway's URL and the match store's
    URL.  Everything is stopped on the way out, whatever happens."""
    with contextlib.ExitStack() as stack:
        if cluster:
            from tests.cluster_fixture import start_cluster

            nodes = start_cluster()
            stack.callback(nodes.stop)
            store_url = nodes.url
            env = {"HOKM_REDIS_URL": store_url, "HOKM_QUEUE_URL": private_redis(stack)}
            print(f"on a private six-node Redis Cluster ({store_url}), the queue on a private "
                  f"Redis ({env['HOKM_QUEUE_URL']})", flush=True)
        else:
            store_url = private_redis(stack)
            env = {"HOKM_REDIS_URL": store_url}
            print(f"on a private Redis ({store_url})", flush=True)
        start_worker(stack, env, folder / "worker.log")
        base = start_gateway(stack, env, serve_cmd)
        print(f"hokm serve at {base}" + (f" (run by {serve_cmd})" if serve_cmd else "")
              + ", hokm worker --processes 1", flush=True)
        yield base, store_url


# -- playing -----------------------------------------------------------------------------------


async def play_match(api: AsyncClient, base: str, tail_client: Any, lags: Lags, moves: int,
                     rng: random.Random) -> bool:
    """One solo match, the human seat played over its WebSocket until the match is over or,
    at the human's turn, ``moves`` bot records are measured in all.  Files its lags; returns
    whether the run should go on."""
    created = await api.create(seats=SEATS, rules=RULES, name="bench")
    match_id, human = str(created["match_id"]), int(created["seat"])
    tail = Tail(tail_client, match_id, human)
    tail.start()
    arrivals: dict[int, float] = {}
    go_on = True
    ws_url = base.replace("http", "ws", 1) + f"/api/matches/{match_id}/ws?token={created['token']}"
    try:
        async with websockets.connect(ws_url, max_queue=None, open_timeout=30) as ws:
            decided = -1
            while True:
                try:
                    raw = await asyncio.wait_for(ws.recv(), STALL_S)
                except TimeoutError:
                    print(f"match {match_id}: no frame for {STALL_S:g} s, stopping", flush=True)
                    go_on = False
                    break
                now = time.monotonic()
                message = json.loads(raw)
                if message.get("type") == "error":
                    lags.errors.append(str(message.get("code")))
                    continue
                if message.get("type") != "view":
                    continue
                version = int(message["version"])
                arrivals.setdefault(version, now)
                view = message["view"]
                if over(view):
                    break
                if not my_turn(view) or version <= decided:
                    continue
                # every record so far has its frame: a good place to stop
                if len(lags.bots) + tail.bot_records >= moves:
                    go_on = False
                    break
                decided = version
                await ws.send(json.dumps(command_for(view, rng.choice(view["legal"]))))
    finally:
        last = max(arrivals, default=0)
        deadline = time.monotonic() + 2.0
        while tail.latest < last and time.monotonic() < deadline and tail.is_alive():
            await asyncio.sleep(0.01)
        tail.stop()
        # what was measured counts, also when the match was cut short (Ctrl+C, a failure)
        before = len(lags.bots), len(lags.human)
        file_lags(lags, dict(tail.seen), arrivals, human)
        lags.matches += 1
        new_bots = lags.bots[before[0]:]
        print(f"match {match_id}: {last} records, {len(new_bots)} bot records (p50 "
              f"{ms(median(new_bots)):.2f} ms), {len(lags.human) - before[1]} human records "
              f"(p50 {ms(median(lags.human[before[1]:])):.2f} ms)", flush=True)
    if tail.error is not None:
        raise RuntimeError(f"the tail of {match_id} failed: {tail.error!r}")
    return go_on


async def play(base: str, store_url: str, moves: int, seed: int, lags: Lags) -> None:
    # Ctrl+C and SIGTERM cancel the run at once: through the loop's wake-up, since the signal
    # may reach the tail's thread while the loop waits (a plain handler ran only when the
    # loop's wait ended, up to STALL_S later)
    loop, task = asyncio.get_running_loop(), asyncio.current_task()
    assert task is not None
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, task.cancel)
    rng = random.Random(seed)
    tail_client = connect.sync_client(connect.parse(store_url))
    try:
        async with AsyncClient(base) as api:
            while len(lags.bots) < moves:
                if not await play_match(api, base, tail_client, lags, moves, rng):
                    break
    finally:
        tail_client.close()


# -- report ------------------------------------------------------------------------------------


def ms(seconds: float) -> float:
    return seconds * 1e3


def line(label: str, values: Sequence[float]) -> str:
    if not values:
        return f"  {label}: none measured"
    return (f"  {label}: {len(values)}, p50 {ms(median(values)):.2f} ms, p95 "
            f"{ms(percentile(values, 0.95)):.2f} ms, max {ms(max(values)):.1f} ms")


def report(lags: Lags) -> str:
    """Print the figures; returns the RESULT line."""
    bots = lags.bots
    print(f"{lags.matches} matches; lag from a record visible in Redis to its view on the human's "
          "socket:")
    print(line("bot records", bots))
    print(line("  right after the human's move", lags.after_human))
    print(line("  after another bot's move", lags.after_bot))
    print(line("  after a system record (a deal)", lags.after_system))
    print(line("reference, the human's own records", lags.human))
    if lags.unmatched:
        print(f"  {lags.unmatched} records had no frame yet when their match was left")
    if lags.errors:
        print(f"  the socket got {len(lags.errors)} error frames: {sorted(set(lags.errors))}")
    if not bots:
        print("socket lag: failed, no bot record was measured")
    if not lags.human:
        print("reference: failed, no human record was measured")
    p50, p95 = ms(median(bots)), ms(percentile(bots, 0.95))
    ref = ms(median(lags.human))
    ratio = p50 / max(ref, REF_FLOOR_MS) if lags.human else NAN
    verdict = "holds" if p50 <= GOAL_MS else "does not hold" if bots else "not measured"
    print(f"goal socket_lag_p50_ms <= {GOAL_MS:g}: {verdict}")
    return (f"RESULT socket_lag_p50_ms={p50:.2f} socket_lag_p95_ms={p95:.2f} "
            f"ref_lag_p50_ms={ref:.2f} lag_ratio={ratio:.2f}")


def _interrupted(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=positive_int, default=300,
                        help="bot records to measure (230 to 310 a match)")
    parser.add_argument("--cluster", action="store_true",
                        help="the matches on a private six-node Redis Cluster (the queue on a "
                        "private Redis)")
    parser.add_argument("--seed", type=int, default=1, help="the human's random choices")
    # another command line that runs `hokm serve` (what follows it: serve --port 0 ...), such as
    # a wrapper that patches the gateway to show the benchmark catches a defect
    parser.add_argument("--serve-cmd", default=os.environ.get("HOKM_BENCH_SERVE_CMD"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, _interrupted)  # stop everything as Ctrl+C does
    lags = Lags()
    status = 0
    folder = Path(tempfile.mkdtemp(prefix="hokm-bench-socket-lag-"))
    tempfile.tempdir = str(folder)  # every helper's temporary folder goes in here
    started = time.monotonic()
    try:
        with deployment(args.cluster, folder, args.serve_cmd) as (base, store_url):
            try:
                asyncio.run(play(base, store_url, args.moves, args.seed, lags))
            finally:  # (the loop put back the default handlers as it closed)
                signal.signal(signal.SIGTERM, _interrupted)
    except (KeyboardInterrupt, asyncio.CancelledError):
        print("interrupted: reporting what was measured", flush=True)
        status = 130
    except BaseException as exc:  # (also pytest's Failed, from the cluster fixture)
        print(f"failed: {type(exc).__name__}: {exc}", flush=True)
        status = 1
    finally:
        tempfile.tempdir = None
        shutil.rmtree(folder, ignore_errors=True)
    print(f"ran {time.monotonic() - started:.1f} s")
    print(report(lags), flush=True)
    return status



if __name__ == "__main__":
    sys.exit(main())
