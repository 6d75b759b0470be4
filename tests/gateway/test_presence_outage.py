"""Sockets that close while the match store is unreachable (a Redis restarting from its dump):
their seats count as away once the store answers again, from when their last socket closed, so
the stand-ins play after the room's ``disconnect_timeout`` (docs/api.md).  The finding: the
gateway logged the failed close with a traceback and forgot it; once the match's last socket
had closed no hub followed the match to notice, and the match waited for good.  A real Redis,
shut down with ``SHUTDOWN SAVE`` and started again from its dump."""

from __future__ import annotations

import logging
import time
from typing import Any

import pytest
import redis

from services.gateway import presence
from services.store import keys
from tests.conftest import PrivateRedis
from worker.main import start_in_process

from .helpers import api, create, deck, gateway, recv, wait_for


def test_seats_whose_sockets_closed_during_an_outage_are_away_once_the_store_is_back(
        private_redis: Any, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(presence, "PRESENCE_EVERY_S", 0.2)  # the gateway's period, not 5 s
    server: PrivateRedis = private_redis()
    server.start()
    with gateway(worker=False, redis_url=server.url) as gw:
        # two humans and two bots; seat 0 is the first Hakem, so once the second human has
        # joined the match waits for seat 0 to name trump
        created = create(gw, seats=["human", "human", "bot:easy", "bot:easy"], first_hakem=0,
                         decks=[deck(17)], disconnect_timeout=1)
        match_id = created["match_id"]
        second = api(gw).join(match_id, name="P2")
        assert second["seat"] == 1
        store = redis.Redis.from_url(server.url)
        away = [f"{match_id}:0", f"{match_id}:1"]
        base = f"/api/matches/{match_id}/ws?token="
        caplog.set_level(logging.WARNING, logger="hokm.gateway")
        with gw.websocket_connect(base + created["token"]) as one, \
                gw.websocket_connect(base + second["token"]) as two:
            recv(one), recv(two)
            wait_for(lambda: all(store.zscore(keys.AWAY, a) is None for a in away), 10,
                     what="both seats here")
            store.shutdown(save=True)
            assert server.proc is not None
            server.proc.wait(30)
            server.proc = None
            closing = time.time()
        # both sockets are closed: the gateway could not tell the store
        wait_for(lambda: len(unsaid(caplog, match_id)) == 2, 20, what="both closes refused")
        closed = time.time()

        server.start()  # from its dump: the presence entries and no away seat
        store = redis.Redis.from_url(server.url)
        since = [wait_for(lambda a=a: store.zscore(keys.AWAY, a), 20, what=f"{a} away")
                 for a in away]  # the finding: never
        for at in since:  # away from when its socket closed, not from when the store is back
            assert closing - 0.01 <= at <= closed + 0.01
        # a worker (started now: its thread is not what this test is about) plays the stand-ins
        stop = start_in_process(gw.rt)
        try:
            wait_for(lambda: {r.actor for r in gw.rt.store.read(match_id)} >= {0, 1}, 30,
                     what="both seats played by stand-ins")
        finally:
            stop.set()
        events = gw.get(f"/api/matches/{match_id}/events?since=0").json()["events"]
        assert all(r["stand_in"] for r in events if r["actor"] in (0, 1))
        seats = gw.state(match_id).match.seats
        assert [seats[0].player, seats[1].player] == [created["player"], second["player"]]
        for record in unsaid(caplog, match_id):  # the outage in one line each, no traceback
            assert record.exc_info is None, record.getMessage()
            assert "\n" not in record.getMessage() and "unreachable" in record.getMessage()


def unsaid(caplog: pytest.LogCaptureFixture, match_id: str) -> list[logging.LogRecord]:
    """The gateway's log records of a seat's close of ``match_id`` the store did not take."""
    return [r for r in caplog.records if r.name == "hokm.gateway"
            and f"presence of {match_id}" in r.getMessage()
            and "not cleared" in r.getMessage()]
