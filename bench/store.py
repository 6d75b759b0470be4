"""Event store benchmark on the real Redis (127.0.0.1:6379 or HOKM_BENCH_REDIS_URL, DB 4).

* ``replay_ratio``: rebuilding the state of a complete 7-point match from Redis (XRANGE, decode
  into records and events, check the chain, fold ``evolve``), divided by the time of the bare
  XRANGE + msgpack decode of the same stream.  Goal: at most 2.0.
* ``append_ratio``: commands per second through the match service on one connection (decide,
  encode, the append script, evolve), divided by bare XADD round trips per second of the same
  payloads.  Goal: at least 0.5.
* ``bytes_per_match``: ``MEMORY USAGE`` of every key of one finished match whose every command
  carries a client id as the browser sends them (the median of the matches played here; the
  spread is printed too).  Goal: at most 32768.
* ``tail_wake_ms``: from the start of an append to the return of a ``tail`` blocked on that
  stream in another thread (the median; the store contract test only guards that a tail wakes
  on the append rather than waiting out its block).  No goal: a figure to watch.
* ``follower_idle_cps``: the commands per second one idle follower (the gateway's, for the
  event loop) sends while it follows 1,000 matches that get no record; also printed at 10 and
  100.  Goal: it does not grow with the matches (beyond a small constant).

``--cluster`` runs the same on a private six-node Redis Cluster on loopback (tests/
cluster_fixture.py), the references (bare ``XADD`` / ``XRANGE``) through the same
``RedisCluster`` client, and the cluster's follower (``redis_cluster.ShardedFollower``).

Every key it wrote is gone at the end (its DB is flushed before and after).

    python bench/store.py [MATCHES] [--cluster] [--idle-s 12]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import secrets
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import msgpack
import redis

from benchcli import positive_float, positive_int, run
from engine import (
    ChooseTrump, Command, DealRound, PlayCard, RevealSecret, Rules, State, decide, evolve,
    legal_choices,
)
from engine.events import SeatLeft
from services.matches import MatchService, command_key
from services.pipeline import fold_raw
from services.store import keys
from services.store.port import Record
from services.store.redis_streams import RedisStore

URL = os.environ.get("HOKM_BENCH_REDIS_URL", "redis://127.0.0.1:6379/4")


def play_commands(seed: int) -> list[tuple[int, Command]]:
    """The player commands of a random 7-point match, decided in memory (no Redis)."""
    from engine import CreateMatch, DrawAces, TakeSeat, commitment_of, derive_deck
    from engine.fairness import DRAW_LABEL, round_label

    rng = random.Random(seed)
    secret = f"{seed:064x}"
    state = State()

    def run(seat: int | None, command: Command) -> None:
        nonlocal state
        for event in decide(state, seat, command):
            state = evolve(state, event)

    run(None, CreateMatch("x", Rules(), commitment_of(secret)))
    for s in range(4):
        run(None, TakeSeat(s, f"p{s}", f"p{s}"))
    run(None, DrawAces(derive_deck(secret, DRAW_LABEL)))
    out: list[tuple[int, Command]] = []
    while state.phase != "match_over":
        if state.phase == "round_over" or state.phase == "waiting":
            run(None, DealRound(derive_deck(secret, round_label(state.deal.round_no + 1))))
            continue
        seat = state.turn
        assert seat is not None
        choice = rng.choice(legal_choices(state, seat))
        command: Command = ChooseTrump(choice) if state.phase == "choosing_trump" \
            else PlayCard(choice)
        run(seat, command)
        out.append((seat, command))
    run(None, RevealSecret(secret))
    return out


def tail_wake(client: redis.Redis, rounds: int = 50) -> float:
    """Median milliseconds from the start of an append to the return of a ``tail`` that was
    blocked on the stream in another thread (one connection each, as the hub and a writer)."""
    store = RedisStore(client)
    match_id = f"bench-tail-{secrets.token_hex(4)}"
    head = store.append(match_id, Record(1, (SeatLeft(0),))).digest
    wakes: list[float] = []
    for version in range(2, rounds + 2):
        woke: list[float] = []

        def wait(after: int = version - 1, out: list[float] = woke) -> None:
            store.tail(match_id, after, 5000)
            out.append(time.perf_counter())

        reader = threading.Thread(target=wait)
        reader.start()
        time.sleep(0.005)  # a head start for the tail to block
        t0 = time.perf_counter()
        head = store.append(match_id, Record(version, (SeatLeft(version % 4),),
                                             prev=head)).digest
        reader.join()
        if woke:
            wakes.append(woke[0] - t0)
    client.delete(keys.log(match_id))
    wake = statistics.median(wakes) * 1e3 if wakes else float("nan")
    print(f"tail wake-up: median {wake:.2f} ms over {len(wakes)} appends")
    return wake


async def _idle_cost(make: Any, counts: tuple[int, ...], seconds: float) -> dict[int, float]:
    """Commands per second of one idle follower of ``n`` matches (each with one record)."""
    out: dict[int, float] = {}
    for n in counts:
        store = make()
        ids = [secrets.token_hex(8) for _ in range(n)]
        await asyncio.gather(*(store.append(m, 1, b"x") for m in ids))
        follower = store.follower()
        for m in ids:
            follower.follow(m, 1)
        task = asyncio.ensure_future(follower.next_batch())
        await asyncio.sleep(2.0)  # subscriptions and first reads settle
        before = follower.commands
        await asyncio.sleep(seconds)
        out[n] = (follower.commands - before) / seconds
        task.cancel()
        await follower.close()
        await store.close()
    return out


def follower_idle(cluster: Any, seconds: float = 12.0) -> dict[int, float]:
    if cluster is not None:
        from services.store.redis_cluster import AsyncClusterStore

        def make() -> Any:
            return AsyncClusterStore(cluster.async_client())
    else:
        import redis.asyncio as aioredis

        from services.store.redis_async import AsyncRedisStore

        def make() -> Any:
            return AsyncRedisStore(aioredis.Redis.from_url(URL))
    return asyncio.run(_idle_cost(make, (10, 100, 1000), seconds))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("matches", type=positive_int, nargs="?", default=5)
    parser.add_argument("--idle-s", type=positive_float, default=12.0,
                        help="seconds the idle follower is counted at each size (after 2 s "
                        "to settle)")
    parser.add_argument("--cluster", action="store_true",
                        help="a private six-node Redis Cluster instead of one Redis")
    args = parser.parse_args()
    matches = args.matches
    cluster = None
    if args.cluster:
        from tests.cluster_fixture import start_cluster

        cluster = start_cluster()
        client: Any = cluster.new_client()
    else:
        client = redis.Redis.from_url(URL)
        client.flushdb()
    try:
        _run(client, matches, cluster, args.idle_s)
    finally:
        if cluster is None:
            client.flushdb()  # the idle follower's matches too: nothing is left behind
        if cluster is not None:
            cluster.stop()


def _run(client: Any, matches: int, cluster: Any, idle_s: float) -> None:
    service = MatchService(RedisStore(client))
    append_rates, bare_append_rates, replay_ratios, sizes, lengths = [], [], [], [], []
    for m in range(matches):
        # The service derives its own decks from its own secret, so replay the *choices*
        # by seat and phase: pick the same legal card index when the exact card is not legal.
        created = service.create(name="A", rules={"teams": "as_seated"})
        match_id = created["match_id"]
        for i in range(3):
            service.join(match_id, f"P{i}")
        rng = random.Random(m)
        commands: list[tuple[int, Command]] = []
        # decide the commands first (choices from the live state), then time only the service
        shadow = service.load(match_id).state
        del shadow
        start_version = service.load(match_id).version
        t_service = 0.0
        n = 0
        while True:
            state = service.load(match_id, fresh=False).state
            if state.turn is None:
                break
            seat = state.turn
            choice = rng.choice(legal_choices(state, seat))
            command: Command = ChooseTrump(choice) if state.phase == "choosing_trump" \
                else PlayCard(choice)
            commands.append((seat, command))
            # every command carries a client id, as the browser sends them (a room of four
            # humans: the largest records a match can have)
            occupant = state.match.seats[seat]
            assert occupant is not None
            key = command_key(occupant.player, f"c-{n}-{secrets.token_hex(4)}")
            t0 = time.perf_counter()
            service.handle(match_id, seat, command, command_id=key)
            t_service += time.perf_counter() - t0
            n += 1
        append_rates.append(n / t_service)
        total = service.load(match_id).version
        lengths.append(total)
        del start_version

        # bare XADD round trips of the same payloads, on one connection
        entries = client.xrange(keys.log(match_id))
        payloads = [fields[b"d"] for _, fields in entries]
        scratch = f"bench:{{{match_id}}}:bare"
        t0 = time.perf_counter()
        for payload in payloads[:n]:
            client.xadd(scratch, {"d": payload})
        bare_append_rates.append(n / (time.perf_counter() - t0))
        client.delete(scratch)

        # replay: the service's cold load vs bare XRANGE + msgpack decode
        store = service.store
        best_ours = best_bare = float("inf")
        for _ in range(7):
            t0 = time.perf_counter()
            loaded = fold_raw(store.read_raw(match_id))
            best_ours = min(best_ours, time.perf_counter() - t0)
            t0 = time.perf_counter()
            raw = client.xrange(keys.log(match_id))
            decoded = [msgpack.unpackb(fields[b"d"]) for _, fields in raw]
            best_bare = min(best_bare, time.perf_counter() - t0)
            assert len(decoded) == loaded.version == total
            assert loaded.state.phase == "match_over"
        replay_ratios.append(best_ours / best_bare)
        sizes.append(store.memory_usage(match_id))
        print(f"match {m + 1}: {total} records; service {append_rates[-1]:.0f} commands/s vs "
              f"bare XADD {bare_append_rates[-1]:.0f}/s; replay {best_ours * 1e3:.2f} ms vs bare "
              f"{best_bare * 1e3:.2f} ms; {sizes[-1]} bytes")
    if cluster is None:
        client.flushdb()
    replay_ratio = statistics.median(replay_ratios)
    append_ratio = statistics.median(append_rates) / statistics.median(bare_append_rates)
    size = statistics.median(sizes)
    print(f"records per match: median {statistics.median(lengths):.0f}, "
          f"range {min(lengths)}-{max(lengths)}; bytes range {min(sizes)}-{max(sizes)}")
    wake = tail_wake(client)
    idle = follower_idle(cluster, idle_s)
    print("an idle follower's commands per second: " + ", ".join(
        f"{n} matches {cps:.2f}" for n, cps in idle.items()))
    print(f"RESULT replay_ratio={replay_ratio:.2f} append_ratio={append_ratio:.2f} "
          f"bytes_per_match={size:.0f} tail_wake_ms={wake:.2f} "
          f"follower_idle_cps={idle[1000]:.2f}")


if __name__ == "__main__":
    sys.exit(run(main))
