"""A socket whose client pinged and then fell silent is closed as gone (1001), so its seat
counts as away and a stand-in can play for it (the finding: a browser tab frozen in the
background kept its socket open without running the page, and held the table for good).  A
client that never pings is never closed for silence: the ping is optional (api.md)."""

from __future__ import annotations

import pytest
from starlette.testclient import WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

from services.gateway import ws as ws_module
from services.store import keys

from .helpers import create, gateway, recv, wait_for


def test_a_socket_silent_after_pinging_is_closed_and_its_seat_is_away(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ws_module, "IDLE_S", 0.5)
    with gateway(worker=False) as gw:
        created = create(gw, seats=["human", "human", "bot:easy", "bot:easy"],
                         disconnect_timeout=30)
        match_id, token = created["match_id"], created["token"]
        base = f"/api/matches/{match_id}/ws"
        with gw.websocket_connect(base) as quiet, \
                gw.websocket_connect(f"{base}?token={token}") as pinging:
            assert recv(quiet)["type"] == "view"  # a spectator that never pings
            assert recv(pinging)["type"] == "view"
            assert wait_for(lambda: gw.get(f"/api/matches/{match_id}").json()["seats"][0][
                "connected"], 20)
            assert gw.rt.client.zscore(keys.AWAY, f"{match_id}:0") is None
            pinging.send_json({"type": "ping"})
            assert recv(pinging)["type"] == "pong"
            with pytest.raises(WebSocketDisconnect) as closed:
                while True:
                    recv(pinging, timeout=20)  # views of presence changes, then the close
            assert closed.value.code == 1001
            assert wait_for(lambda: gw.rt.client.zscore(keys.AWAY, f"{match_id}:0"), 20)
            # the one that never pinged has been silent longer, and is still served
            quiet.send_json({"type": "ping"})
            assert recv_type(quiet, "pong")


def recv_type(ws: WebSocketTestSession, kind: str) -> bool:
    while True:
        frame = recv(ws)
        if frame["type"] == kind:
            return True
