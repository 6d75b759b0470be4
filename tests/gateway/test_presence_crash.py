"""A gateway that crashes unsubscribes nobody: its presence entries stay in the match's presence
hash until they expire.  The hub of a surviving gateway that follows the match must notice the
expiry in its periodic presence pass, put the seat in the away set (``Hub._note_away``) and so
let the watchdog's stand-in play for the absent player after the room's timeout."""

from __future__ import annotations

import time

import pytest

from services.gateway import presence
from services.store import keys

from .helpers import Gateway, create, deck, recv, recv_until, wait_for

CRASHED = "dead0001"
"""The id of a gateway that died without unsubscribing its sockets (real ids: 8 hex digits)."""


def test_a_crashed_gateways_player_is_noted_away_and_gets_a_stand_in(
        gw: Gateway, monkeypatch: pytest.MonkeyPatch) -> None:
    # the surviving hub's presence pass every 0.2 s instead of 5 s (the loop reads the constant
    # at each pass, so the running hub of the shared gateway picks it up after one more pass)
    monkeypatch.setattr(presence, "PRESENCE_EVERY_S", 0.2)
    # seat 0 is the Hakem and must name trump first: the match waits for the human at once
    created = create(gw, seats=["human", "bot:easy", "bot:easy", "bot:easy"], first_hakem=0,
                     decks=[deck(91)], disconnect_timeout=1)
    match_id, client = created["match_id"], gw.rt.client
    away = f"{match_id}:0"
    # the player's socket was on the crashed gateway: its entry outlives it by three seconds,
    # and its opening took the seat out of the away set (where the seat was put when given)
    expiry_ms = int(time.time() * 1000) + 3000
    client.hset(keys.presence(match_id), f"0:{CRASHED}", expiry_ms)
    client.zrem(keys.AWAY, away)
    assert gw.get(f"/api/matches/{match_id}").json()["seats"][0]["connected"] is True
    assert client.zscore(keys.AWAY, away) is None
    # a spectator on the surviving gateway: its hub follows the match (and no seat of its own
    # connects or disconnects, so only the presence pass can tell that seat 0 is gone)
    with gw.websocket_connect(f"/api/matches/{match_id}/ws") as ws:
        assert recv(ws)["type"] == "view"
        since = wait_for(lambda: client.zscore(keys.AWAY, away), 20)
        assert since >= expiry_ms / 1000 - 0.01  # noted once the entry had expired, not before
        assert client.hget(keys.presence(match_id), f"0:{CRASHED}") is not None  # never removed
        recv_until(ws, lambda f: f["type"] == "view"
                   and f["view"]["seats"][0]["connected"] is False, timeout=10)
        # the stand-in names trump for the absent Hakem once the room's timeout has passed
        wait_for(lambda: any(r.actor == 0 for r in gw.rt.store.read(match_id)), 20)
        assert gw.state(match_id).deal.trump is not None
    seat0 = gw.state(match_id).match.seats[0]
    assert seat0.bot is None and seat0.player == created["player"]  # still the player's seat
