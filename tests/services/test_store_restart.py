"""The gateway's asyncio client of a single Redis goes on after that Redis restarts: a pooled
connection the server closed is replaced when a command meets it (the first request after a
restart answered ``unavailable`` while ``/readyz`` said ok)."""

from __future__ import annotations

from typing import Any

from services.store import connect
from tests.conftest import PrivateRedis, run_async


def test_the_async_client_survives_a_restart_of_its_redis(private_redis: Any) -> None:
    server: PrivateRedis = private_redis("--appendonly", "no")
    server.start()

    async def scenario() -> list[bytes | None]:
        client = connect.async_client(connect.parse(server.url))
        await client.set("k", "before")
        server.kill()
        server.start()
        try:
            return [await client.get("k"), await client.set("k", "after") and b"after"]
        finally:
            await client.aclose()

    assert run_async(scenario(), timeout=60) == [None, b"after"]  # (nothing kept on disk)
