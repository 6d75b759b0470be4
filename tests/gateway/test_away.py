"""A human who disconnects is played by a stand-in bot after the room's timeout, keeps the seat,
and takes it back by reconnecting (gateway presence -> away set -> the worker's watchdog)."""

from __future__ import annotations

import time

from .helpers import Gateway, create, wait_for


def test_a_disconnected_human_gets_a_stand_in_then_takes_the_seat_back(gw: Gateway) -> None:
    created = create(gw, seats=["human", "bot:random", "bot:random", "bot:random"],
                     rules={"teams": "as_seated"}, disconnect_timeout=1)
    match_id, token = created["match_id"], created["token"]
    service = gw.app.state.runtime.service  # type: ignore[attr-defined]
    with gw.websocket_connect(f"/api/matches/{match_id}/ws?token={token}") as ws:
        ws.receive_json()
        summary = gw.get(f"/api/matches/{match_id}").json()
        assert summary["seats"][0]["connected"] is True
    # gone: once it is seat 0's turn and a second has passed, a stand-in plays for it
    assert wait_for(lambda: any(r.actor == 0 for r in service.store.read(match_id)), 20)
    seat0 = service.load(match_id).state.match.seats[0]
    assert seat0.bot is None and seat0.player == created["player"]  # still the player's seat
    assert gw.get(f"/api/matches/{match_id}").json()["seats"][0]["connected"] is False
    # back: the seat answers to its token again and nobody plays for the player any more
    with gw.websocket_connect(f"/api/matches/{match_id}/ws?token={token}") as ws:
        first = ws.receive_json()
        assert first["view"]["seat"] == 0
        assert wait_for(lambda: service.next_actor(service.load(match_id).state) == 0, 20)
        waiting = service.load(match_id).version
        time.sleep(2.5)  # more than the room's timeout and several watchdog passes
        assert service.load(match_id).version == waiting
