"""A Redis restarted from an older snapshot (RDB persistence, or a replica promoted without the
newest records) loses a match's newest records while sockets follow it.  The finding (QA with
two gateways, a worker and a Redis restarted from its dump mid-match): the hub kept its newer
copy of the match and sent nothing until the log passed that version again; the seat to play,
its client holding the newer view too, was refused ``stale_version`` and ignored the older
view; the match waited for good.  Now the follower checks, when it reads a match again after
its connection was lost, that the log still holds the record at its position; the hub reads a
match whose log went back afresh and closes its sockets with 1012, and a client reconnecting
takes the older view it is sent first (``hokmclient``: the first view of a connection older
than the version it reconnected with)."""

from __future__ import annotations

from typing import Any

import pytest
import redis
from starlette.websockets import WebSocketDisconnect


from tests.conftest import PrivateRedis

from .helpers import bearer, create, deck, gateway, recv, recv_until, wait_for


def test_sockets_of_a_match_whose_log_went_back_reconnect_to_the_log_as_it_is(
        private_redis: Any) -> None:
    server: PrivateRedis = private_redis("--appendonly", "no")
    server.start()
    with gateway(worker=False, redis_url=server.url) as gw:
        created = create(gw, seats=["human", "human", "human", "human"], first_hakem=0,
                         decks=[deck(17)])
        match_id, hakem = created["match_id"], created["token"]
        for n in range(1, 4):
            gw.post(f"/api/matches/{match_id}/join", json={"name": f"P{n}"})
        base = f"/api/matches/{match_id}"
        with gw.websocket_connect(f"{base}/ws?token={hakem}") as ws:
            view = recv_until(ws, lambda f: f["type"] == "view"
                              and f["view"]["phase"] == "choosing_trump")["view"]
            snapshot = view["version"]
            store = redis.Redis.from_url(server.url)
            store.save()  # the snapshot the Redis restarts from
            answer = gw.post(f"{base}/commands", headers=bearer(hakem),
                             json={"type": "choose_trump", "suit": "H", "version": snapshot})
            assert answer.status_code == 200, answer.text
            recv_until(ws, lambda f: f["type"] == "view" and f["version"] > snapshot)
            server.kill()
            server.start()  # from the snapshot: the trump is no longer chosen
            # the finding: the socket stayed open and silent for good
            with pytest.raises(WebSocketDisconnect) as closed:
                while True:
                    frame = recv(ws, timeout=30)
                    assert frame["type"] != "view" or frame["version"] > snapshot, frame
            assert closed.value.code == 1012  # (CLOSE_RESTART: reconnect)
        with gw.websocket_connect(f"{base}/ws?token={hakem}&since={snapshot + 1}") as ws:
            view = recv(ws)["view"]
            assert (view["version"], view["phase"]) == (snapshot, "choosing_trump")
            answer = gw.post(f"{base}/commands", headers=bearer(hakem),
                             json={"type": "choose_trump", "suit": "S", "version": snapshot})
            assert answer.status_code == 200, answer.text
            frame = recv_until(ws, lambda f: f["type"] == "view" and f["version"] > snapshot)
            assert frame["view"]["trump"] == "S"
        hub = gw.app.state.holder["hub"]  # type: ignore[attr-defined]
        wait_for(lambda: match_id not in hub.subs, 10, what="the socket gone from the hub")

