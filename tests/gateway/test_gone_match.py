"""A match this gateway holds in its cache whose keys expired, were deleted or were lost (a
Redis restarted without its data): its summary, views and commands answer ``404 not_found``,
as for any match that does not exist, and no command starts its log anew (the finding: the
cached match was served as if nothing had happened, and a command appended its next version
onto an empty log)."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect

from services.store import keys

from .helpers import bearer, gateway, recv, recv_until, stacked_room


@pytest.mark.parametrize("real", [False, True], ids=["embedded", "redis"])
def test_a_cached_match_whose_keys_are_gone_is_not_found(real: bool, private_redis: Any
                                                         ) -> None:
    over: dict[str, Any] = {}
    if real:  # the appends run the store's script there, not fakeredis's XADD
        server = private_redis()
        server.start()
        over["redis_url"] = server.url
    with gateway(worker=False, **over) as gw:
        r = stacked_room(gw, seed=5)
        hakem = r.tokens[0]
        assert gw.get(r.base + "/view", headers=bearer(hakem)).status_code == 200  # cached
        client = gw.rt.store.client
        client.delete(keys.log(r.match_id))  # the log alone first: the seats still known
        answer = r.command(hakem, {"type": "choose_trump", "suit": "H"})
        assert answer.status_code == 404, answer.text  # the finding: 200
        assert answer.json()["error"]["code"] == "not_found"
        assert gw.version(r.match_id) == 0  # the finding: a log holding only version 3
        assert not client.exists(keys.log(r.match_id))
        for key in keys.MATCH_KEYS:  # then every key of the match, as when it expires
            client.delete(key(r.match_id))
        for path in ("", "/view"):
            got = gw.get(r.base + path, headers=bearer(r.tokens[1]))
            assert got.status_code == 404, (path, got.text)
            assert got.json()["error"]["code"] == "not_found"
        answer = r.command(hakem, {"type": "choose_trump", "suit": "H"})
        assert answer.status_code == 404 and answer.json()["error"]["code"] == "not_found"
        assert not client.exists(keys.log(r.match_id))


def test_a_socket_on_a_match_that_is_deleted_is_told_not_found_and_closed() -> None:
    """The finding (an operator, HOKM_IDLE_TTL=20): a room waiting for players expired with its
    creator's socket open; the socket stayed open and silent for good, and the gateway kept
    writing the deleted match's presence (and, for a match waiting for a bot, logged "moving
    on failed" every second).  Now the presence pass finds the log gone: the socket gets a
    ``not_found`` error frame and close 4404, as a socket opened now would, and nothing of the
    match is written again."""
    with gateway(worker=False) as gw:
        r = stacked_room(gw, seed=6, fill=False)
        client = gw.rt.store.client
        with gw.websocket_connect(f"{r.base}/ws?token={r.tokens[0]}") as ws:
            assert recv(ws)["type"] == "view"
            for key in keys.MATCH_KEYS:  # it expires
                client.delete(key(r.match_id))
            frame = recv_until(ws, lambda f: f["type"] != "view", timeout=30)
            assert frame["type"] == "error" and frame["code"] == "not_found", frame
            with pytest.raises(WebSocketDisconnect) as closed:
                recv(ws)
            assert closed.value.code == 4404
        hub = gw.app.state.holder["hub"]  # type: ignore[attr-defined]
        assert r.match_id not in hub.subs and r.match_id not in hub.loaded
        assert not client.exists(keys.presence(r.match_id))
