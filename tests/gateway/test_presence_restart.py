"""A gateway killed with SIGKILL leaves its presence entries behind: the seats whose sockets it
held show connected until those entries lapse (``presence.PRESENCE_TTL_MS``), and only then
does a hub of another gateway following the match count them away.  Real ``hokm serve``
processes on the real Redis: one is killed -9 under a player's socket, a spectator on the
other watches the seat go away, the killed one is started again on its port, and the player's
socket, reconnecting by itself, shows the seat connected again."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from hokmclient import Client, LocalServer
from services.gateway import presence
from services.store import keys
from tests.conftest import real_redis_client

from .helpers import REDIS_DB, deck, redis_url
from .test_gateways import Socket, start

pytestmark = pytest.mark.redis

LAPSE_S = presence.PRESENCE_TTL_MS / 1000 + 2 * presence.PRESENCE_EVERY_S + 20
"""A deadline, not a measure: the entry's lease, a pass of the surviving hub, and slack."""


def test_a_lease_outlives_few_refreshes() -> None:
    """The lease is what a gateway killed -9 leaves its seats shown connected for (and away
    from the watchdog): three refresh periods, enough for two missed refreshes (a stalled
    loop, a Redis failover) and no more (it was six: 30 s)."""
    assert presence.PRESENCE_TTL_MS <= 3 * presence.PRESENCE_EVERY_S * 1000


@pytest.fixture
def survivor() -> Iterator[str]:
    client = real_redis_client(REDIS_DB)  # fails (not skips) without Redis, as the others do
    client.flushdb()
    server = start(redis_url())
    try:
        yield server.url
    finally:
        server.stop(10)
        client.flushdb()


def connected(frame: dict, seat: int) -> bool | None:
    if frame["type"] != "view":
        return None
    return bool(frame["view"]["seats"][seat]["connected"])


def test_a_killed_gateways_seat_goes_away_and_comes_back_on_its_restart(survivor: str) -> None:
    url = redis_url()
    victim = start(url)
    port = int(victim.url.rsplit(":", 1)[1])
    client = real_redis_client(REDIS_DB)
    http = Client(survivor, timeout=10)
    created = http.create(first_hakem=0, decks=[deck(53)])
    match_id = created["match_id"]
    tokens = [created["token"]] + [http.join(match_id)["token"] for _ in range(3)]
    player = Socket(victim.url, match_id, tokens[1])
    watcher = Socket(survivor, match_id)
    restarted: LocalServer | None = None
    try:
        player.until(lambda f: f["type"] == "view")
        watcher.until(lambda f: connected(f, 1) is True)
        assert client.zscore(keys.AWAY, f"{match_id}:1") is None
        before = {id(f) for _, f in watcher.frames}
        victim.kill()
        killed = time.perf_counter()  # (the clock of the frames' arrival)
        # the entry lapses and the surviving hub notes the seat away (nothing else can)
        gone, _ = watcher.until(lambda f: id(f) not in before and connected(f, 1) is False,
                                LAPSE_S)
        assert client.zscore(keys.AWAY, f"{match_id}:1") is not None
        print(f"seat shown connected {gone - killed:.1f} s after the kill")
        # the gateway is back on its port: the player's socket reconnects by itself
        before = {id(f) for _, f in watcher.frames}
        restarted = LocalServer(env=victim.env, port=port, cwd=victim.cwd, timeout=30).start()
        watcher.until(lambda f: id(f) not in before and connected(f, 1) is True, LAPSE_S)
        assert player.seat.reconnects >= 1
        assert client.zscore(keys.AWAY, f"{match_id}:1") is None
    finally:
        for s in (player, watcher):
            s.close()
        victim.kill()
        if restarted is not None:
            restarted.stop(10)
