"""Fair scheduling: a table with a human while bots-only matches flood the workers.

One real ``hokm worker`` process on the real Redis (DB 13, or ``HOKM_BENCH_REDIS_URL``; flushed
before and after).  A table (a human driven by this script and
three ``medium`` bots) plays ``--moves`` human moves; after each, the time until the first bot
reply is visible on the stream.  Measured twice in one run, alternating blocks of moves:

* ``idle``: nothing else to do for the worker (the reference);
* ``flood``: ``--flood`` bots-only matches of ``hard`` bots playing all the while (created
  through the match service without quotas, so the cap does not stop them).

Before the bots-only queue (issue 11) five hard bots-only matches slowed such replies from
0.18 s to 2 s.  With it, a table with a human waits at most for the one decision the worker is
in.  Goal: ``flood_p95_ms <= idle_p95_ms + 250`` (a hard decision is well under 100 ms at p95).

Ends with ``RESULT idle_p50_ms=<a> flood_p50_ms=<b> idle_p95_ms=<c> flood_p95_ms=<d>
p95_ratio=<flood/idle>``.

    python bench/fairness.py [--moves 60] [--flood 5] [--blocks 4]
"""

from __future__ import annotations

import argparse
import math
import os
import random
import secrets
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import redis

from benchcli import nonnegative_float, positive_int, run
from engine import ChooseTrump, PlayCard, legal_choices
from services.bots import RQScheduler
from services.matches import MatchService
from services.store.redis_streams import RedisStore

URL = os.environ.get("HOKM_BENCH_REDIS_URL", "redis://127.0.0.1:6379/13")
NAN = float("nan")


def quantile(values: list[float], q: float) -> float:
    if not values:
        return NAN
    ordered = sorted(values)
    return ordered[int(q * (len(ordered) - 1))]


def start_worker(queue: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "HOKM_REDIS_URL": URL, "HOKM_QUEUE": queue}
    return subprocess.Popen([sys.executable, "-m", "hokm", "worker"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def replies(svc: MatchService, moves: int, rng: random.Random, table: list[str],
            think_s: float) -> list[float]:
    """``moves`` human moves at the table (a new one when a match ends), each after
    ``think_s`` of thought; the seconds from each to the first bot reply on the stream."""
    out: list[float] = []
    while len(out) < moves:
        if not table or svc.load(table[0]).state.phase == "match_over":
            table[:] = [svc.create(seats=["human", "bot:medium", "bot:medium", "bot:medium"],
                                   rules={"teams": "as_seated"})["match_id"]]
        match_id = table[0]
        deadline = time.monotonic() + 30
        while True:  # the human's turn (the bots may be moving)
            loaded = svc.load(match_id)
            if loaded.state.phase == "match_over" or svc.next_actor(loaded.state) == 0:
                break
            if time.monotonic() > deadline:
                raise RuntimeError("the table's bots did not move for 30 s")
            time.sleep(0.002)
        state = loaded.state
        if state.phase == "match_over":
            continue
        time.sleep(think_s)  # the human thinks; meanwhile the worker may take a flood job
        loaded = svc.load(match_id)
        state = loaded.state
        choice = rng.choice(legal_choices(state, 0))
        command = ChooseTrump(choice) if state.phase == "choosing_trump" else PlayCard(choice)
        done = svc.handle(match_id, 0, command)
        latest = done.latest.version if done.latest is not None else done.version
        if svc.next_actor(svc.load(match_id).state) in (None, 0):
            continue  # the human plays again, or the match is over: no bot reply to wait for
        t0 = time.perf_counter()
        deadline = time.monotonic() + 30
        while svc.store.version(match_id) <= latest:
            if time.monotonic() > deadline:
                raise RuntimeError("no bot reply for 30 s")
            time.sleep(0.001)
        out.append(time.perf_counter() - t0)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--moves", type=positive_int, default=60,
                        help="human moves per setting")
    parser.add_argument("--flood", type=positive_int, default=5, help="bots-only hard matches")
    parser.add_argument("--blocks", type=positive_int, default=4,
                        help="alternating blocks per setting")
    parser.add_argument("--think", type=nonnegative_float, default=0.2,
                        help="the human's thinking, s")
    args = parser.parse_args()
    client = redis.Redis.from_url(URL)
    client.flushdb()
    queue = f"bench-fair-{secrets.token_hex(3)}"
    svc = MatchService(RedisStore(client), scheduler=RQScheduler(client, queue))
    rng = random.Random(7)
    idle: list[float] = []
    flood: list[float] = []
    table: list[str] = []
    flooding: list[str] = []
    per_block = max(1, args.moves // args.blocks)
    played = started = 0
    worker = start_worker(queue)  # (nothing that may fail between its start and the try)
    try:
        for block in range(2 * args.blocks):
            if block % 2 == 0:
                # stop the flood: its matches are dropped from the queue and left unplayed
                for name in (queue, f"{queue}-bots-only"):
                    client.delete(f"rq:queue:{name}")
                flooding.clear()
                time.sleep(0.5)  # the job the worker is in ends
                idle += replies(svc, per_block, rng, table, args.think)
            else:
                while len(flooding) < args.flood:
                    flooding.append(svc.create(seats=["bot:hard"] * 4)["match_id"])
                time.sleep(0.5)  # the flood is under way
                started = sum(svc.store.version(m) for m in flooding)
                flood += replies(svc, per_block, rng, table, args.think)
            if block % 2 == 1:
                played += sum(svc.store.version(m) for m in flooding) - started
            else:
                started = 0
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=5)
        except subprocess.TimeoutExpired:
            worker.kill()
        client.flushdb()  # the matches, the queues and the jobs left: nothing stays behind
    ms = {name: [v * 1000 for v in values] for name, values in (("idle", idle),
                                                                 ("flood", flood))}
    for name, values in ms.items():
        print(f"{name}: {len(values)} replies, p50 {quantile(values, 0.5):.1f} ms, "
              f"p95 {quantile(values, 0.95):.1f} ms, max {max(values, default=NAN):.1f} ms")
    print(f"bots-only matches ({args.flood} at a time) played {played} records during the "
          "flood blocks: the worker served them whenever the table did not wait")
    idle95, flood95 = quantile(ms["idle"], 0.95), quantile(ms["flood"], 0.95)
    ratio = flood95 / idle95 if idle95 and math.isfinite(idle95) else NAN
    goal = "holds" if flood95 <= idle95 + 250 else "does not hold"
    print(f"goal flood_p95 <= idle_p95 + 250 ms: {goal}")
    print(f"(mean of the flood replies {statistics.fmean(ms['flood']) if flood else NAN:.1f} ms)")
    print(f"RESULT idle_p50_ms={quantile(ms['idle'], 0.5):.1f} "
          f"flood_p50_ms={quantile(ms['flood'], 0.5):.1f} idle_p95_ms={idle95:.1f} "
          f"flood_p95_ms={flood95:.1f} p95_ratio={ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
