"""What a Redis Cluster failover loses, and what acknowledging appends after a replica costs.

On a private six-node cluster on loopback (``tests/cluster_fixture.py``), in one run:

1. Cost: appends through ``AsyncClusterStore`` one after another (each waits for its answer),
   with asynchronous replication (``replica_acks=0``, Redis's default) and with
   ``replica_acks=1`` (``WAIT 1`` after each append, ``services/store/replicas.py``):
   the median microseconds per append of each, and their ratio.
2. Loss: ``--writers`` tasks append to ``--matches`` matches as fast as they can; a primary is
   SIGKILLed in the middle; once its replica has taken over, every match is read back and the
   records that had been acknowledged but are not there are counted.  Once per setting, each
   on a fresh cluster.

Ends with ``RESULT append_us_async=<a> append_us_acked=<b> cost_ratio=<b/a>
lost_async=<n> lost_acked=<m> acked_async=<records acknowledged> acked_acked=<...>``.
The goal of the acknowledged setting: ``lost_acked=0``.

    python bench/failover.py [--appends 2000] [--matches 60] [--writers 30] [--seconds 6]
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchcli import positive_float, positive_int
from services.store.redis_cluster import AsyncClusterStore
from tests.cluster_fixture import Cluster, start_cluster

NAN = float("nan")


async def cost(cluster: Cluster, acks: int, appends: int) -> float:
    store = AsyncClusterStore(cluster.async_client(), replica_acks=acks)
    match = secrets.token_hex(8)
    times = []
    for v in range(1, appends + 1):
        t0 = time.perf_counter()
        assert await store.append(match, v, b"x" * 60)
        times.append(time.perf_counter() - t0)
    await store.close()
    return statistics.median(times) * 1e6


async def loss(cluster: Cluster, acks: int, matches: int, writers: int, seconds: float
               ) -> tuple[int, int]:
    store = AsyncClusterStore(cluster.async_client(), replica_acks=acks)
    ids = [secrets.token_hex(8) for _ in range(matches)]
    acked: dict[str, int] = dict.fromkeys(ids, 0)
    stop = time.monotonic() + seconds

    async def write(k: int) -> None:
        while time.monotonic() < stop:
            m = ids[(k + int(time.monotonic() * 1000)) % matches]
            v = acked[m] + 1
            try:
                if await store.append(m, v, b"%d" % v):
                    acked[m] = max(acked[m], v)
            except Exception:
                await asyncio.sleep(0.05)  # the failover is under way

    async def kill() -> None:
        await asyncio.sleep(seconds / 3)
        victim = cluster.primary_of(f"hokm:{{{ids[0]}}}:log")
        cluster.kill(victim[1])
        await asyncio.get_running_loop().run_in_executor(
            None, lambda: cluster.wait_failover(victim[1]))

    await asyncio.gather(kill(), *(write(k) for k in range(writers)))
    lost = 0
    for m in ids:
        stored = await store.read_raw(m)
        have = {v for v, _ in stored}
        lost += sum(1 for v in range(1, acked[m] + 1) if v not in have)
    total = sum(acked.values())
    await store.close()
    return lost, total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--appends", type=positive_int, default=2000)
    parser.add_argument("--matches", type=positive_int, default=60)
    parser.add_argument("--writers", type=positive_int, default=30)
    parser.add_argument("--seconds", type=positive_float, default=6.0)
    args = parser.parse_args()
    figures: dict[str, float] = {}
    cluster = start_cluster()
    try:
        for acks, name in ((0, "async"), (1, "acked"), (0, "async"), (1, "acked")):
            us = asyncio.run(cost(cluster, acks, max(1, args.appends // 2)))
            figures.setdefault(f"append_us_{name}", 0.0)
            figures[f"append_us_{name}"] += us / 2
        print(f"per append (median, serial): asynchronous {figures['append_us_async']:.0f} us, "
              f"acknowledged by a replica {figures['append_us_acked']:.0f} us")
    finally:
        cluster.stop()
    for acks, name in ((0, "async"), (1, "acked")):
        cluster = start_cluster()
        try:
            lost, total = asyncio.run(loss(cluster, acks, args.matches, args.writers,
                                           args.seconds))
        finally:
            cluster.stop()
        figures[f"lost_{name}"], figures[f"acked_{name}"] = lost, total
        print(f"{name}: a primary killed under load: {total} records acknowledged, "
              f"{lost} of them lost")
    ratio = (figures["append_us_acked"] / figures["append_us_async"]
             if figures["append_us_async"] else NAN)
    print(f"goal lost_acked = 0: {'holds' if figures['lost_acked'] == 0 else 'does not hold'}")
    print(f"RESULT append_us_async={figures['append_us_async']:.0f} "
          f"append_us_acked={figures['append_us_acked']:.0f} cost_ratio={ratio:.2f} "
          f"lost_async={figures['lost_async']:.0f} lost_acked={figures['lost_acked']:.0f} "
          f"acked_async={figures['acked_async']:.0f} acked_acked={figures['acked_acked']:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
