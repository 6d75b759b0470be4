"""Bot workers benchmark on the real Redis with real `hokm worker` processes.

1. Overhead: one human seat (driven by this script through the match service) and three
   ``random`` bots.  For each bot move, the time from the previous record becoming visible on
   the stream to the bot's record becoming visible (both stamped by one XREAD tail here), minus
   the policy's own time (the median time of the ``random`` policy on the same views, measured
   here).  Goal: p50 at most 5 ms.  Printed also apart: replies to the human's move (a trip
   through the queue) and replies to a bot's move (the job kept the turn, worker/jobs.py).
2. Scale-out: bots-only matches of ``hard`` bots, bot moves per second with 1 and with 2 worker
   processes in alternating slices of one run (see ``scale_out``).  Goal: 2 workers at least
   1.8x one.
3. Worker class: the cost per (trivial) job of RQ's forking ``Worker`` against the in-process
   ``SimpleWorker`` the project uses (the evidence behind that choice, see worker/main.py).

Ends with ``RESULT overhead_p50_ms=<a> scale_2_over_1=<b>``.

    python bench/bots.py [--moves 200] [--matches 16] [--slices 25] [--slice-s 2.5]
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import secrets
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import redis

from engine import NAMES, ChooseTrump, PlayCard, legal_choices, view_for
from services.bots import RQScheduler
from services.matches import MatchService
from services.store import keys
from services.store.codec import decode
from services.store.redis_streams import RedisStore, version_of
from worker.policies import policy_for

URL = os.environ.get("HOKM_BENCH_REDIS_URL", "redis://127.0.0.1:6379/2")


def start_workers(n: int, queue: str) -> list[subprocess.Popen[bytes]]:
    env = {**os.environ, "HOKM_REDIS_URL": URL, "HOKM_QUEUE": queue}
    return [subprocess.Popen([sys.executable, "-m", "services.cli", "worker"], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for _ in range(n)]


def stop(procs: list[subprocess.Popen[bytes]]) -> None:
    for p in procs:
        p.terminate()
    for p in procs:
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            p.kill()


def service(queue: str) -> MatchService:
    client = redis.Redis.from_url(URL)
    return MatchService(RedisStore(client), scheduler=RQScheduler(client, queue))


class Tail(threading.Thread):
    """Stamps the arrival time of every record of one match (one XREAD loop)."""

    def __init__(self, match_id: str) -> None:
        super().__init__(daemon=True)
        self.client = redis.Redis.from_url(URL)
        self.match_id = match_id
        self.seen: dict[int, tuple[float, int | None]] = {}
        self.stopped = False

    def run(self) -> None:
        last = "0-0"
        key = keys.log(self.match_id)
        while not self.stopped:
            found = self.client.xread({key: last}, block=200)
            now = time.perf_counter()
            for _, entries in found or ():
                for entry_id, fields in entries:
                    version = version_of(entry_id)
                    self.seen[version] = (now, decode(version, fields[b"d"]).actor)
                    last = entry_id


def overhead(moves: int) -> tuple[float, float]:
    queue = f"bench-{secrets.token_hex(3)}"
    workers = start_workers(1, queue)
    svc = service(queue)
    random_policy = policy_for("random")
    gaps: list[float] = []
    after_bot: list[bool] = []  # whether the record before was a bot's (the job kept the turn)
    policy_times: list[float] = []
    rng = random.Random(1)
    try:
        time.sleep(1.0)  # let the worker start
        while len(gaps) < moves:
            created = svc.create(seats=["human", "bot:random", "bot:random", "bot:random"],
                                 rules={"teams": "as_seated"})
            match_id = created["match_id"]
            tail = Tail(match_id)
            tail.start()
            while len(gaps) < moves:
                loaded = svc.load(match_id)
                state = loaded.state
                if state.phase == "match_over":
                    break
                if svc.next_actor(state) != 0:
                    time.sleep(0.001)
                    continue
                choice = rng.choice(legal_choices(state, 0))
                command = ChooseTrump(choice) if state.phase == "choosing_trump" \
                    else PlayCard(choice)
                out = svc.handle(match_id, 0, command)
                # wait until the human is to play again (or the match ends), then read stamps
                deadline = time.perf_counter() + 10
                while time.perf_counter() < deadline:
                    latest = svc.load(match_id)
                    if latest.state.phase == "match_over" or svc.next_actor(latest.state) == 0:
                        break
                    time.sleep(0.002)
                time.sleep(0.01)
                versions = sorted(v for v in tail.seen if v > out.version - 1)
                for a, b in itertools.pairwise(versions):
                    if b == a + 1 and tail.seen[b][1] not in (None, 0):
                        gaps.append(tail.seen[b][0] - tail.seen[a][0])
                        after_bot.append(tail.seen[a][1] not in (None, 0))
                # the policy's own time on this seat's kind of view
                view = view_for(state, 0, loaded.version)
                t0 = time.perf_counter()
                random_policy.choose(view, [], rng)
                policy_times.append(time.perf_counter() - t0)
            tail.stopped = True
    finally:
        stop(workers)
    policy = statistics.median(policy_times)
    for label, part in (("after a bot's move (kept by the job)",
                         [g for g, b in zip(gaps, after_bot, strict=True) if b]),
                        ("after the human's or a system record (through the queue)",
                         [g for g, b in zip(gaps, after_bot, strict=True) if not b])):
        if part:
            print(f"  {label}: {len(part)} replies, p50 "
                  f"{(statistics.median(part) - policy) * 1e3:.2f} ms")
    gaps.sort()
    p50 = (statistics.median(gaps) - policy) * 1e3
    p95 = (gaps[int(0.95 * (len(gaps) - 1))] - policy) * 1e3
    print(f"overhead: {len(gaps)} bot replies, commit->visible minus policy: p50 {p50:.2f} ms, "
          f"p95 {p95:.2f} ms (policy median {policy * 1e3:.3f} ms)")
    return p50, p95


def scale_out(slices: int, slice_s: float, matches: int) -> float:
    """Bot moves per second of 1 and of 2 worker processes in alternating slices of one run.

    Both processes run all along on ``matches`` bots-only matches of ``hard`` bots (stacked
    deals, enough matches that both workers always find a turn to play); during the 1-worker
    slices the second process is paused (SIGSTOP).  So both settings meet the same drift in the
    machine's speed, which on these shared hosts moved whole-run figures by up to 40 %.  A slice
    is shorter than the bot timeout, so the watchdog never takes over a paused worker's turn.
    Returns the mean rate of the 2-worker slices over that of the 1-worker slices (slices
    alternate, so a drift weighs on both alike; a single slice of a few seconds is noisy, as a
    hard bot's time varies a lot with the position).
    """
    queue = f"bench-{secrets.token_hex(3)}"
    client = redis.Redis.from_url(URL)
    client.flushdb()  # a clean slate: no turns left pending by the earlier phase
    svc = MatchService(RedisStore(client), scheduler=RQScheduler(client, queue),
                       allow_stacked=True)
    decks = [[list(random.Random(1000 * m + r).sample(NAMES, 52)) for r in range(1, 6)]
             for m in range(matches)]
    workers = start_workers(2, queue)
    second = workers[1].pid
    rates: list[tuple[int, float]] = []
    try:
        ids = [svc.create(seats=["bot:hard"] * 4, rules={"teams": "as_seated"}, first_hakem=m % 4,
                          decks=decks[m])["match_id"] for m in range(matches)]

        def total() -> int:
            # one cheap XREVRANGE a match: this process shares the cores with the workers
            return sum(svc.store.version(m) for m in ids)

        time.sleep(3.0)  # both processes started and playing
        for i in range(slices):
            n = 1 if i % 2 == 0 else 2
            os.kill(second, signal.SIGSTOP if n == 1 else signal.SIGCONT)
            t0, v0 = time.perf_counter(), total()
            time.sleep(slice_s)
            rates.append((n, (total() - v0) / (time.perf_counter() - t0)))
    finally:
        os.kill(second, signal.SIGCONT)
        stop(workers)
    ones = [r for n, r in rates if n == 1]
    twos = [r for n, r in rates if n == 2]
    ratios = [two / ((ones[k] + ones[k + 1]) / 2) for k, two in enumerate(twos)
              if k + 1 < len(ones)]
    print(f"throughput: {matches} matches of hard bots, {slices} alternating slices of "
          f"{slice_s:g} s: 1 worker {statistics.fmean(ones):.1f} records/s, 2 workers "
          f"{statistics.fmean(twos):.1f}; each 2-worker slice over the 1-worker slices around "
          "it: " + ", ".join(f"{r:.2f}" for r in ratios))
    return statistics.fmean(twos) / statistics.fmean(ones)


def worker_classes(jobs: int = 200) -> dict[str, float]:
    """Milliseconds per trivial job with each RQ worker class (burst mode, same process)."""
    from rq import Queue, SimpleWorker, Worker
    from rq.serializers import JSONSerializer

    client = redis.Redis.from_url(URL)
    out = {}
    for cls in (SimpleWorker, Worker):
        queue = Queue(f"bench-cls-{secrets.token_hex(3)}", connection=client,
                      serializer=JSONSerializer)
        for _ in range(jobs):
            queue.enqueue("builtins.len", [1, 2, 3], result_ttl=0)
        worker = cls([queue], connection=client, serializer=JSONSerializer)
        t0 = time.perf_counter()
        worker.work(burst=True, logging_level="ERROR", with_scheduler=False)
        out[cls.__name__] = (time.perf_counter() - t0) / jobs * 1e3
    print("worker class: " + ", ".join(f"{k} {v:.2f} ms/job" for k, v in out.items()))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument("--matches", type=int, default=16)
    parser.add_argument("--slices", type=int, default=25,
                        help="alternating slices of 1 and 2 workers in the scale-out phase")
    parser.add_argument("--slice-s", type=float, default=2.5)
    args = parser.parse_args()
    redis.Redis.from_url(URL).flushdb()
    from worker.policies import MODE
    print(f"bot code: {'compiled (mypyc)' if MODE == 'compiled' else 'Python'}")
    worker_classes()
    p50, _ = overhead(args.moves)
    scale = scale_out(args.slices, args.slice_s, args.matches)
    redis.Redis.from_url(URL).flushdb()
    print(f"RESULT overhead_p50_ms={p50:.2f} scale_2_over_1={scale:.2f}")


if __name__ == "__main__":
    main()
