"""Bot workers benchmark on the real Redis with real `hokm worker` processes.

1. Overhead: one human seat (driven by this script through the match service) and three
   ``easy`` bots (the cheapest level of the API).  For each bot move, the time from the previous
   record becoming visible on the stream to the bot's record becoming visible (both stamped by
   one XREAD tail here), minus the policy's own time (the median time of the ``easy`` policy on
   the same views, measured here).  Goal: p50 at most 5 ms.  Printed also apart: replies to
   the human's move (a trip through the queue) and replies to a bot's move (the job kept the
   turn, worker/jobs.py).
2. Scale-out: bots-only matches of ``hard`` bots, bot moves per second with 1 and with 2 worker
   processes in alternating slices of one run (see ``scale_out``).  Goal: 2 workers at least
   1.8x one.
3. Worker class: the cost per (trivial) job of RQ's forking ``Worker`` against the in-process
   ``SimpleWorker`` the project uses (the evidence behind that choice, see worker/main.py).
4. Search budget: the wall time of decisions of a search whose only limit is ``max_ms=20``
   (``SearchConfig.max_ms``), in this process without Redis: how far the budget is overrun
   (tests/worker/test_search.py checks the stop itself with a fake clock).

Ends with ``RESULT overhead_p50_ms=<a> scale_2_over_1=<b> budget_p95_ms=<c>``.  A phase or a
slice that measured nothing is reported as failed and its figure printed as ``nan``: the
benchmark never ends without its RESULT line.

    python bench/bots.py [--moves 200] [--matches 16] [--slices 25] [--slice-s 2.5]
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import random
import secrets
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import redis

from benchcli import positive_float, positive_int
from engine import NAMES, ChooseTrump, PlayCard, legal_choices, view_for
from services.bots import RQScheduler
from services.matches import MatchService
from services.store import keys
from services.store.codec import decode
from services.store.redis_streams import RedisStore, version_of
from worker.policies import policy_for

URL = os.environ.get("HOKM_BENCH_REDIS_URL", "redis://127.0.0.1:6379/2")
NAN = float("nan")
STALL_S = 30.0
"""The overhead phase gives up (and reports what it has) after this long without a bot reply."""
T = TypeVar("T")


# -- guarded statistics: a phase that measured nothing gives nan, never an exception ---------


def mean(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else NAN


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else NAN


def ratio(a: float, b: float) -> float:
    """a / b, or nan when b is zero or either is not a number."""
    if not (math.isfinite(a) and math.isfinite(b)) or b == 0:
        return NAN
    return a / b


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) by rank of ``values``; nan when there are none."""
    if not values:
        return NAN
    ordered = sorted(values)
    return ordered[int(q * (len(ordered) - 1))]


def phase(name: str, run: Callable[[], T], failed: T) -> T:
    """Run one phase of the benchmark; if it raises, say so and go on with ``failed``."""
    try:
        return run()
    except Exception as exc:  # a benchmark reports a failed phase, it does not crash
        print(f"phase {name!r} failed: {type(exc).__name__}: {exc}")
        return failed


def start_workers(n: int, queue: str) -> list[subprocess.Popen[bytes]]:
    env = {**os.environ, "HOKM_REDIS_URL": URL, "HOKM_QUEUE": queue}
    return [subprocess.Popen([sys.executable, "-m", "hokm", "worker"], env=env,
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
    easy_policy = policy_for("easy")
    gaps: list[float] = []
    after_bot: list[bool] = []  # whether the record before was a bot's (the job kept the turn)
    policy_times: list[float] = []
    rng = random.Random(1)
    stalled_after = time.perf_counter() + STALL_S
    try:
        time.sleep(1.0)  # let the worker start
        while len(gaps) < moves:
            if time.perf_counter() > stalled_after:
                break
            created = svc.create(seats=["human", "bot:easy", "bot:easy", "bot:easy"],
                                 rules={"teams": "as_seated"})
            match_id = created["match_id"]
            tail = Tail(match_id)
            tail.start()
            while len(gaps) < moves:
                if time.perf_counter() > stalled_after:
                    print(f"overhead: no bot reply for {STALL_S:g} s, stopping with "
                          f"{len(gaps)} replies measured")
                    break
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
                        stalled_after = time.perf_counter() + STALL_S
                # the policy's own time on this seat's kind of view
                view = view_for(state, 0, loaded.version)
                t0 = time.perf_counter()
                easy_policy.choose(view, [], rng)
                policy_times.append(time.perf_counter() - t0)
            tail.stopped = True
    finally:
        stop(workers)
    return overhead_stats(gaps, after_bot, policy_times)


def overhead_stats(gaps: Sequence[float], after_bot: Sequence[bool],
                   policy_times: Sequence[float]) -> tuple[float, float]:
    """p50 and p95 (ms) of the reply gaps minus the policy's median time, printed also apart by
    kind of reply; nan (and a line saying so) for what has no replies."""
    policy = median(policy_times)
    if not policy_times:
        print("overhead: the policy's own time was not measured (taken as 0)")
        policy = 0.0
    for label, part in (("after a bot's move (kept by the job)",
                         [g for g, b in zip(gaps, after_bot, strict=True) if b]),
                        ("after the human's or a system record (through the queue)",
                         [g for g, b in zip(gaps, after_bot, strict=True) if not b])):
        if part:
            print(f"  {label}: {len(part)} replies, p50 "
                  f"{(median(part) - policy) * 1e3:.2f} ms")
        else:
            print(f"  {label}: no replies")
    if not gaps:
        print("overhead: failed, no bot reply was measured")
    p50 = (median(gaps) - policy) * 1e3
    p95 = (percentile(gaps, 0.95) - policy) * 1e3
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
            rates.append((n, ratio(total() - v0, time.perf_counter() - t0)))
    finally:
        os.kill(second, signal.SIGCONT)
        stop(workers)
    print(f"throughput: {matches} matches of hard bots, {slices} alternating slices of "
          f"{slice_s:g} s:")
    return scale_of(rates)


def scale_of(rates: Sequence[tuple[int, float]]) -> float:
    """The mean rate of the 2-worker slices over that of the 1-worker slices, from the slices'
    (workers, records/s) in the order they ran.  A slice with no records (or no rate) failed:
    it is named and left out; nan when either setting has no slice left."""
    ok = [math.isfinite(r) and r > 0 for _, r in rates]
    for i, ((n, r), good) in enumerate(zip(rates, ok, strict=True)):
        if not good:
            print(f"  slice {i + 1} ({n} worker{'s' if n > 1 else ''}) failed: no records "
                  f"measured (rate {r})")
    ones = [r for (n, r), good in zip(rates, ok, strict=True) if good and n == 1]
    twos = [r for (n, r), good in zip(rates, ok, strict=True) if good and n == 2]
    # each good 2-worker slice over the good 1-worker slices next to it
    ratios = []
    for i, ((n, r), good) in enumerate(zip(rates, ok, strict=True)):
        if n != 2 or not good:
            continue
        around = [rates[j][1] for j in (i - 1, i + 1)
                  if 0 <= j < len(rates) and rates[j][0] == 1 and ok[j]]
        if around:
            ratios.append(ratio(r, mean(around)))
    print(f"  1 worker {mean(ones):.1f} records/s ({len(ones)} slices), 2 workers "
          f"{mean(twos):.1f} ({len(twos)} slices); each 2-worker slice over the 1-worker "
          "slices around it: " + (", ".join(f"{x:.2f}" for x in ratios) or "none"))
    return ratio(mean(twos), mean(ones))


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
        out[cls.__name__] = ratio(time.perf_counter() - t0, jobs) * 1e3
    print("worker class: " + ", ".join(f"{k} {v:.2f} ms/job" for k, v in out.items()))
    return out


def search_budget(rounds: int = 2, max_ms: float = 20.0) -> float:
    """Wall time (ms, p95) of the decisions of a search limited by ``max_ms`` alone, four such
    seats playing ``rounds`` stacked rounds in this process (no Redis)."""
    from engine import Rules
    from worker.arena import deck_for_deal, play_round
    from worker.policies import SearchConfig, SearchPolicy

    hurried = SearchPolicy(SearchConfig(samples=10_000, work=10**9, max_ms=max_ms), "budget")
    walls: list[list[float]] = [[], [], [], []]
    for r in range(rounds):
        play_round(deck_for_deal(7, r), r % 4, [hurried] * 4,
                   [random.Random(10 * r + s) for s in range(4)], Rules(), walls=walls)
    times = [w for seat in walls for w in seat]
    p50, p95 = percentile(times, 0.5), percentile(times, 0.95)
    print(f"search budget: {len(times)} decisions with max_ms={max_ms:g}: p50 {p50:.1f} ms, "
          f"p95 {p95:.1f} ms, max {max(times, default=NAN):.1f} ms")
    return p95


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--moves", type=positive_int, default=200)
    parser.add_argument("--matches", type=positive_int, default=16)
    parser.add_argument("--slices", type=positive_int, default=25,
                        help="alternating slices of 1 and 2 workers in the scale-out phase")
    parser.add_argument("--slice-s", type=positive_float, default=2.5)
    args = parser.parse_args()
    phase("set-up", lambda: redis.Redis.from_url(URL).flushdb(), None)
    from worker.policies import MODE
    print(f"bot code: {'compiled (mypyc)' if MODE == 'compiled' else 'Python'}")
    phase("worker classes", worker_classes, {})
    p50, _ = phase("overhead", lambda: overhead(args.moves), (NAN, NAN))
    scale = phase("scale-out", lambda: scale_out(args.slices, args.slice_s, args.matches), NAN)
    budget = phase("search budget", search_budget, NAN)
    phase("clean-up", lambda: redis.Redis.from_url(URL).flushdb(), None)
    print(f"RESULT overhead_p50_ms={p50:.2f} scale_2_over_1={scale:.2f} "
          f"budget_p95_ms={budget:.1f}")


if __name__ == "__main__":
    main()
