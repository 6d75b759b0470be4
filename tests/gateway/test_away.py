"""A human who disconnects is played by a stand-in bot after the room's timeout, keeps the seat,
and takes it back by reconnecting (gateway presence -> away set -> the worker's watchdog)."""

from __future__ import annotations

import time

from services.matches import Loaded
from services.store import keys

from .helpers import Gateway, create, deck, recv, wait_for

BOTS3 = ["bot:easy", "bot:easy", "bot:easy"]


def pending_for(gw: Gateway, match_id: str) -> list[bytes]:
    """The bot turns of ``match_id`` claimed and not yet done."""
    return [m for m in gw.rt.client.zrange(keys.PENDING_BOTS, 0, -1)
            if m.decode().startswith(f"{match_id}:")]


def test_a_disconnected_human_gets_a_stand_in_then_takes_the_seat_back(gw: Gateway) -> None:
    created = create(gw, seats=["human", *BOTS3], rules={"teams": "as_seated"},
                     disconnect_timeout=1)
    match_id, token = created["match_id"], created["token"]
    service = gw.app.state.runtime.service  # type: ignore[attr-defined]
    with gw.websocket_connect(f"/api/matches/{match_id}/ws?token={token}") as ws:
        left_at = recv(ws)["version"]
        summary = gw.get(f"/api/matches/{match_id}").json()
        assert summary["seats"][0]["connected"] is True
    # gone: once it is seat 0's turn and a second has passed, a stand-in plays for it
    assert wait_for(lambda: any(r.actor == 0 for r in service.store.read(match_id)), 20)
    seat0 = service.load(match_id).state.match.seats[0]
    assert seat0.bot is None and seat0.player == created["player"]  # still the player's seat
    assert gw.get(f"/api/matches/{match_id}").json()["seats"][0]["connected"] is False
    # back: the seat answers to its token again and nobody plays for the player any more;
    # the records it missed say which moves a stand-in made for it (and only those)
    with gw.websocket_connect(f"/api/matches/{match_id}/ws?token={token}&since={left_at}"
                              ) as ws:
        first = recv(ws)
        assert first["view"]["seat"] == 0
        missed = recv(ws)
        assert missed["type"] == "missed", missed
        mine = [r for r in missed["records"] if r["actor"] == 0]
        assert mine and all(r["stand_in"] for r in mine)
        assert not any(r["stand_in"] for r in missed["records"] if r["actor"] != 0)
        events = gw.get(f"/api/matches/{match_id}/events?since={left_at}").json()["events"]
        assert [r["version"] for r in events if r["stand_in"]] == [r["version"] for r in mine]
        assert wait_for(lambda: gw.rt.client.zscore(keys.AWAY, f"{match_id}:0") is None)

        def settled() -> Loaded | None:
            """The match waits for the player: seat 0 to move and no turn of it claimed (a
            stand-in claimed just before the player came back has finished, refusing)."""
            loaded = service.load(match_id)
            if service.next_actor(loaded.state) == 0 and not pending_for(gw, match_id):
                return loaded
            return None

        waiting = wait_for(settled, 20).version
        # a witness: another room (its Hakem a human who must name trump now) whose player is
        # away from now on.  Once its stand-in has moved, the watchdog has made its passes past
        # the timeout since the player above came back; had it still counted them away, it
        # would have claimed their turn in the same pass, and first (their entry is older)
        witness = create(gw, seats=["human", *BOTS3], first_hakem=0, decks=[deck(81)],
                         disconnect_timeout=1)["match_id"]
        gw.rt.client.zadd(keys.AWAY, {f"{witness}:0": time.time()})
        assert wait_for(lambda: any(r.actor == 0 for r in service.store.read(witness)), 20)
        assert service.load(match_id).version == waiting  # nobody played for the player
        assert pending_for(gw, match_id) == []  # and nobody is about to
