"""The presence pass writes the seats that have sockets when it runs, not when its period began:
a socket closed while the pass waited stays cleared (seen: a seat shown connected for 30 s after
its player closed the page at the end of a match)."""

from __future__ import annotations

import logging
from typing import Any

import fakeredis
import pytest
import redis

from hokmclient import free_port
from services.gateway.presence import Presence
from services.store import keys
from tests.conftest import run_async


class Stop(Exception):
    pass


def test_a_socket_closed_during_the_wait_is_not_written_back() -> None:
    async def scenario() -> dict[bytes, bytes]:
        redis = fakeredis.FakeAsyncRedis()
        await redis.xadd(keys.log("m1"), {"d": b""}, id="1-0")  # the match exists
        here = {"m1": {0, 2}}
        presence = Presence(lambda: redis, "g1", lambda _: None, lambda _: None)
        waits = 0

        async def sleep(_: float) -> None:
            nonlocal waits
            waits += 1
            if waits == 1:  # seat 0's socket closes while the pass waits (as the hub does)
                here["m1"].discard(0)
                await presence.mark("m1", 0, False)
            elif waits == 2:
                raise Stop

        try:
            await presence.run(lambda: [(m, set(s)) for m, s in here.items()], sleep)
        except Stop:
            pass
        return await redis.hgetall(keys.presence("m1"))

    written = run_async(scenario(), timeout=60)  # (the browser tests keep a loop running)
    assert set(written) == {b"2:g1"}, written  # seat 2 refreshed, seat 0 not written back


class Migrating:
    """A cluster client whose pipelines meet a slot being migrated: redis-py's cluster client
    gives up with ``ClusterError("TTL exhausted.")`` once its redirections ran out."""

    def pipeline(self, transaction: bool = False) -> Migrating:
        return self

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: self

    async def execute(self) -> list[Any]:
        raise redis.exceptions.ClusterError("TTL exhausted.")

    async def aclose(self) -> None:
        pass


@pytest.mark.parametrize("store", ["down", "migrating"])
def test_a_pass_while_the_store_is_unreachable_logs_one_line(
        caplog: pytest.LogCaptureFixture, store: str) -> None:
    """The findings (an operator, Redis killed and restarted; QA, a cluster slot migrating):
    "presence refresh failed" with a 35-line traceback, where every other path logs the outage
    in one line."""
    async def scenario() -> None:
        down: Any = (redis.asyncio.Redis(port=free_port(), socket_connect_timeout=1)
                     if store == "down" else Migrating())
        presence = Presence(lambda: down, "g1", lambda _: None, lambda _: None)
        await presence.pass_once([("m1", {0})])
        await down.aclose()

    with caplog.at_level(logging.WARNING, logger="hokm.gateway"):
        run_async(scenario(), timeout=60)
    mine = [r for r in caplog.records if "presence refresh failed" in r.getMessage()]
    assert len(mine) == 1
    assert mine[0].exc_info is None and "\n" not in mine[0].getMessage()
    assert "unreachable" in mine[0].getMessage()
