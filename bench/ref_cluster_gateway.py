"""The least a Starlette gateway can do per move on a Redis Cluster: the cluster twin of
``../shared/bench/ref_gateway.py`` (which is single-Redis), for ``bench/load.py --cluster``.

A WebSocket message is ``XADD``ed to its table's stream and fanned out to the table's sockets by
an ``XREAD`` loop; no engine, no views, no auth.  One ``XREAD`` cannot span slots on a cluster, so
the streams are grouped under ``GROUPS`` shard hash tags (``ref:{g<k>}:<table>``, ``k`` from the
table's name) and each group has its own ``XREAD`` loop (and so its own blocking connection):
the cheapest fan-out a cluster allows, with no wake-up channel and nothing per match beyond the
stream.  ``REF_CLUSTER_URL`` holds the seed nodes, ``host:port[,host:port...]``.

    REF_CLUSTER_URL=127.0.0.1:7000 uvicorn ref_cluster_gateway:app --app-dir bench --port 8100
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import zlib
from collections.abc import AsyncIterator
from typing import Any

from redis.asyncio.cluster import ClusterNode, RedisCluster
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

GROUPS = 16
SEEDS = [(host, int(port)) for host, port in (
    seed.rsplit(":", 1) for seed in os.environ.get("REF_CLUSTER_URL", "127.0.0.1:7000").split(","))]
redis = RedisCluster(startup_nodes=[ClusterNode(host, port) for host, port in SEEDS],
                     max_connections=64)
sockets: dict[str, set[WebSocket]] = {}
last_id: list[dict[str, str]] = [{} for _ in range(GROUPS)]
changed = [asyncio.Event() for _ in range(GROUPS)]


def group_of(table: str) -> int:
    return zlib.crc32(table.encode()) % GROUPS


async def fan_out(group: int) -> None:
    streams, wake = last_id[group], changed[group]
    while True:
        if not streams:
            wake.clear()
            await wake.wait()
            continue
        try:
            found = await redis.xread(dict(streams), block=1000, count=100) or []
        except Exception as exc:  # (a pool momentarily full, say): read again, never die
            print(f"ref_cluster_gateway: a read failed ({type(exc).__name__}); again",
                  flush=True)
            await asyncio.sleep(0.01)
            continue
        for key, entries in found:
            stream = key.decode()
            for entry_id, fields in entries:
                streams[stream] = entry_id
                for ws in list(sockets.get(stream, ())):
                    with contextlib.suppress(Exception):
                        await ws.send_text(fields[b"e"].decode())


async def table(ws: WebSocket) -> None:
    await ws.accept()
    name = ws.path_params["table"]
    group = group_of(name)
    stream = f"ref:{{g{group}}}:{name}"
    sockets.setdefault(stream, set()).add(ws)
    if stream not in last_id[group]:
        last_id[group][stream] = "0-0"
        changed[group].set()
    try:
        while True:
            await redis.xadd(stream, {"e": await ws.receive_text()})
    except WebSocketDisconnect:
        sockets[stream].discard(ws)


@contextlib.asynccontextmanager
async def lifespan(app: Any) -> AsyncIterator[None]:
    tasks = [asyncio.create_task(fan_out(g)) for g in range(GROUPS)]
    yield
    for task in tasks:
        task.cancel()
    await redis.aclose()


app = Starlette(routes=[WebSocketRoute("/ws/{table}", table)], lifespan=lifespan)
