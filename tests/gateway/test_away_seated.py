"""Who counts as away for the room's ``disconnect_timeout`` (docs/api.md, ``POST
/api/matches``): a seat given to a human who never opens a socket is away from the moment it
was given, so the stand-in bot plays for it after the timeout like for one who left; a player
who follows the match over HTTP instead (``GET /view``, ``POST /commands``: a polling bot)
keeps its turns while it keeps asking.  The embedded gateway with its in-process worker, whose
watchdog plays the stand-in moves."""

from __future__ import annotations

import time
from typing import Any

from services.store import keys

from .helpers import Gateway, bearer, create, deck, recv, wait_for

BOTS3 = ["bot:easy", "bot:easy", "bot:easy"]


def hakem_room(gw: Gateway, seed: int) -> dict[str, Any]:
    """A human at seat 0 and three bots; seat 0 is the first Hakem, so the match waits for the
    human (to name trump) as soon as it is dealt; the room's timeout is a second."""
    return create(gw, seats=["human", *BOTS3], first_hakem=0, decks=[deck(seed)],
                  disconnect_timeout=1)


def left_socket(gw: Gateway, match_id: str, token: str) -> None:
    """Open a socket on seat 0 and close it: the seat is away from then on."""
    with gw.websocket_connect(f"/api/matches/{match_id}/ws?token={token}") as ws:
        recv(ws)
        wait_for(lambda: gw.rt.client.zscore(keys.AWAY, f"{match_id}:0") is None, 10)
    wait_for(lambda: gw.rt.client.zscore(keys.AWAY, f"{match_id}:0") is not None, 10)


def acted(gw: Gateway, match_id: str, seat: int) -> bool:
    return any(r.actor == seat for r in gw.rt.store.read(match_id))


def test_a_seat_that_never_connected_gets_a_stand_in_after_the_timeout(gw: Gateway) -> None:
    created = hakem_room(gw, 61)
    match_id = created["match_id"]
    # away from the moment the seat was given, though no socket ever opened and closed on it
    assert gw.rt.client.zscore(keys.AWAY, f"{match_id}:0") is not None
    # the finding: the match waited for ever; now the stand-in names trump for the Hakem
    wait_for(lambda: acted(gw, match_id, 0), 20, what="the stand-in's move")
    assert gw.state(match_id).deal.trump is not None
    seat0 = gw.state(match_id).match.seats[0]
    assert seat0.bot is None and seat0.player == created["player"]  # still the player's
    # the player comes back and the seat is theirs again: no longer away
    with gw.websocket_connect(f"/api/matches/{match_id}/ws?token={created['token']}") as ws:
        assert recv(ws)["view"]["seat"] == 0
        wait_for(lambda: gw.rt.client.zscore(keys.AWAY, f"{match_id}:0") is None, 10)


def test_a_joined_seat_that_never_connected_is_away_from_its_join(gw: Gateway) -> None:
    created = create(gw, seats=["human", "human", *BOTS3[:2]], rules={"teams": "as_seated"},
                     disconnect_timeout=1)
    match_id = created["match_id"]
    joined = gw.post(f"/api/matches/{match_id}/join", json={"name": "Bea"}).json()
    assert gw.rt.client.zscore(keys.AWAY, f"{match_id}:{joined['seat']}") is not None


def test_every_seat_is_away_after_an_ace_draw_moved_players(gw: Gateway) -> None:
    """Four humans with the ace draw for teams: the join that fills the table draws, and the
    draw may move players to other seats; whoever sits where, every seat nobody connected to
    is away."""
    for _ in range(5):
        created = create(gw, disconnect_timeout=1)  # four humans, teams by the ace draw
        match_id = created["match_id"]
        for name in ("B", "C", "D"):
            assert gw.post(f"/api/matches/{match_id}/join", json={"name": name}).status_code \
                == 200
        assert gw.state(match_id).phase != "waiting"
        for seat in range(4):
            assert gw.rt.client.zscore(keys.AWAY, f"{match_id}:{seat}") is not None, seat


def test_a_player_polling_over_http_keeps_its_turns(gw: Gateway) -> None:
    """A seat whose socket closed is away; from then on the player polls ``GET /view`` (as
    docs/bots.md allows a program that cannot keep a socket): the stand-in does not take its
    turn while it polls.  The witness: a room made later whose player stays away; once its
    stand-in has moved, the watchdog has passed the polled seat (away longer, so first) after
    the timeout had run out many times over."""
    polled = hakem_room(gw, 62)
    match_id, token = polled["match_id"], polled["token"]
    left_socket(gw, match_id, token)
    created = hakem_room(gw, 63)
    witness = created["match_id"]
    left_socket(gw, witness, created["token"])
    views = 0
    while not acted(gw, witness, 0):
        answer = gw.get(f"/api/matches/{match_id}/view", headers=bearer(token))
        assert answer.status_code == 200
        views += 1
        assert views < 20_000, "the witness's stand-in never moved"
    assert not acted(gw, match_id, 0)  # the finding: the stand-in named trump for the poller
    assert gw.state(match_id).deal.trump is None
    # the poller makes its own move: the command is the player's, over HTTP
    answer = gw.post(f"/api/matches/{match_id}/commands", headers=bearer(token),
                     json={"type": "choose_trump", "suit": "H"})
    assert answer.status_code == 200, answer.text
    assert answer.json()["view"]["trump"] == "H"


def test_a_seat_given_to_a_bot_leaves_the_away_set(gw: Gateway) -> None:
    # a seat that is away, then handed to a bot by its player: nobody is away any more (the
    # entry lingered until the match ended, read by every watchdog pass)
    created = create(gw, seats=["human", "human", *BOTS3[:2]], rules={"teams": "as_seated"},
                     disconnect_timeout=1)
    match_id = created["match_id"]
    joined = gw.post(f"/api/matches/{match_id}/join", json={"name": "Bea"}).json()
    name = f"{match_id}:{joined['seat']}"
    assert gw.rt.client.zscore(keys.AWAY, name) is not None
    left = gw.post(f"/api/matches/{match_id}/leave", json={"replace_with": "bot:easy"},
                   headers=bearer(joined["token"]))
    assert left.status_code == 200, left.text
    wait_for(lambda: gw.rt.client.zscore(keys.AWAY, name) is None, 20,
             what="the seat given to a bot out of the away set")


def test_a_head_request_on_the_view_does_not_count_the_seat_present(gw: Gateway) -> None:
    """``HEAD /view`` (a link checker, a monitor; Starlette answers it on the GET route) reads
    no view: the seat stays away since when it was, only a real ``GET`` moves that on."""
    created = create(gw, seats=["human", *BOTS3], first_hakem=0, decks=[deck(64)],
                     disconnect_timeout=3600)  # no stand-in moves meanwhile
    match_id, token = created["match_id"], created["token"]
    name = f"{match_id}:0"
    since = float(int(time.time()) - 60)  # away for a minute already
    gw.rt.client.zadd(keys.AWAY, {name: since}, xx=True)
    answer = gw.request("HEAD", f"/api/matches/{match_id}/view", headers=bearer(token))
    assert answer.status_code == 200
    assert gw.rt.client.zscore(keys.AWAY, name) == since  # the finding: HEAD moved it on
    answer = gw.get(f"/api/matches/{match_id}/view", headers=bearer(token))
    assert answer.status_code == 200
    score = gw.rt.client.zscore(keys.AWAY, name)
    assert score is not None and score > since
