"""A command's shape is checked before its phase over HTTP and WebSocket alike (a malformed
command is ``400 bad_request`` in every phase), and a command id names one command: the same
id with another command is ``400 bad_request`` and changes nothing, while the same command
again still gets its original answer (docs/api.md, ``POST /commands``)."""

from __future__ import annotations

import json

from services.store import keys

from .helpers import Gateway, recv, recv_until, stacked_room

REUSED = "this command id was used for another command"


def test_a_malformed_choose_trump_is_bad_request_in_every_phase(gw: Gateway) -> None:
    r = stacked_room(gw, seed=21)
    hakem = r.tokens[0]
    bad = {"type": "choose_trump", "suit": "X"}
    assert r.command(hakem, bad).json()["error"]["code"] == "bad_request"  # choosing_trump
    assert r.command(hakem, {"type": "choose_trump", "suit": "H"}).status_code == 200
    version = gw.version(r.match_id)
    answer = r.command(hakem, bad)  # phase playing: the finding answered 409 wrong_phase
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "bad_request"
    answer = r.command(hakem, {"type": "choose_trump", "suit": "S"})
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "wrong_phase"
    assert gw.version(r.match_id) == version


def test_a_command_id_reused_for_another_command_is_refused(gw: Gateway) -> None:
    r = stacked_room(gw, seed=22)
    hakem = r.tokens[0]
    version = gw.version(r.match_id)
    first = r.command(hakem, {"type": "choose_trump", "suit": "H", "version": version,
                              "id": "c-1"})
    assert first.status_code == 200
    hand = first.json()["view"]["hand"]
    after = gw.version(r.match_id)
    for other in ({"type": "choose_trump", "suit": "S", "id": "c-1"},  # another suit
                  {"type": "play", "card": hand[0], "id": "c-1"},  # another command
                  {"type": "choose_trump", "suit": "H", "version": after, "id": "c-1"}):
        answer = r.command(hakem, other)
        assert answer.status_code == 400, (other, answer.text)  # the finding: 200, silently
        assert answer.json()["error"] == {"code": "bad_request",
                                          "message": REUSED + "; send a new command with a "
                                                              "new id"}
    assert gw.version(r.match_id) == after  # nothing applied
    # the same command again: the original answer, with or without its version
    for same in ({"type": "choose_trump", "suit": "H", "version": version, "id": "c-1"},
                 {"type": "choose_trump", "suit": "H", "id": "c-1"}):
        again = r.command(hakem, same)
        assert again.status_code == 200, again.text
        assert again.json()["version"] == first.json()["version"]
        assert again.json()["view"]["trump"] == "H"
    # a played card's id too, and over the socket as over HTTP
    played = r.command(hakem, {"type": "play", "card": hand[0], "id": "c-2"})
    assert played.status_code == 200
    with gw.websocket_connect(f"/api/matches/{r.match_id}/ws?token={hakem}") as ws:
        recv(ws)
        ws.send_text(json.dumps({"type": "play", "card": hand[1], "id": "c-2"}))
        frame = recv_until(ws, lambda f: f["type"] == "error")
        assert frame["code"] == "bad_request" and frame["id"] == "c-2"
        assert frame["message"].startswith(REUSED)
    assert gw.version(r.match_id) == played.json()["version"]


def test_a_lone_surrogate_anywhere_is_bad_request_and_an_emoji_id_is_fine(gw: Gateway) -> None:
    """JSON can spell a lone UTF-16 surrogate, which no UTF-8 encoder takes: in a command id
    it made a 500 with a traceback where the id is hashed (HTTP) and ``unavailable`` over the
    socket.  It is ``bad_request`` wherever it stands, and changes nothing."""
    r = stacked_room(gw, seed=23)
    hakem = r.tokens[0]
    version = gw.version(r.match_id)
    url = f"/api/matches/{r.match_id}/commands"
    headers = {"Authorization": f"Bearer {hakem}", "Content-Type": "application/json"}
    for body in ('{"type": "choose_trump", "suit": "H", "id": "\\ud800"}',
                 '{"type": "choose_trump", "suit": "H", "id": "a\\uDFFFb"}',
                 '{"type": "choose_trump", "suit": "H", "id": "\\ude00\\ud83d"}',  # reversed
                 '{"type": "choose_trump", "suit": "H", "\\udc00": 1}'):
        answer = gw.post(url, content=body.encode(), headers=headers)
        assert answer.status_code == 400, (body, answer.text)
        assert answer.json()["error"]["code"] == "bad_request"
        with gw.websocket_connect(f"/api/matches/{r.match_id}/ws?token={hakem}") as ws:
            recv(ws)
            ws.send_text(body)
            frame = recv_until(ws, lambda f: f["type"] == "error")
            assert frame["code"] == "bad_request", frame
    assert gw.version(r.match_id) == version
    emoji = gw.post(url, content=b'{"type": "choose_trump", "suit": "H", "id": '
                                 b'"\\ud83d\\ude00"}', headers=headers)
    assert emoji.status_code == 200, emoji.text  # a pair is a character like any other


def test_a_retry_after_its_player_left_gets_the_original_answer(gw: Gateway) -> None:
    """A command, its keyed retry and the seat's leave in flight at once (a hostile-client
    finding): the leave could land between the two, and the retry was then ``401 bad_token``
    while the command itself was answered ``200``.  The retry of a command applied before its
    player left gets the original answer; anything else from the dead token is still refused
    and changes nothing."""
    r = stacked_room(gw, seed=23)
    hakem = r.tokens[0]
    command = {"type": "choose_trump", "suit": "H", "version": gw.version(r.match_id),
               "id": "c-left"}
    first = r.command(hakem, command)
    assert first.status_code == 200
    assert gw.post(r.base + "/leave", headers={"Authorization": f"Bearer {hakem}"},
                   json={}).status_code == 200
    after = gw.version(r.match_id)
    again = r.command(hakem, command)
    assert again.status_code == 200, again.text  # the finding: 401 bad_token
    assert again.json() == first.json()
    for other in ({"type": "choose_trump", "suit": "S", "id": "c-left"},  # another command
                  {"type": "play", "card": first.json()["view"]["hand"][0], "id": "c-new"},
                  {"type": "play", "card": first.json()["view"]["hand"][0]}):
        refused = r.command(hakem, other)
        assert refused.status_code == 401, (other, refused.text)
        assert refused.json()["error"]["code"] == "bad_token"
    assert gw.version(r.match_id) == after  # nothing applied
    assert gw.get(r.base + "/view", headers={"Authorization": f"Bearer {hakem}"}
                  ).status_code == 401


def test_a_retry_after_its_player_left_does_not_count_the_new_player_present(gw: Gateway
                                                                             ) -> None:
    """The retry's answer is of the original's version, where its player still held the seat;
    the seat's presence is another player's now: the dead token's retry must not restart that
    player's away clock (``Presence.polled``), or the stand-in for them came later."""
    r = stacked_room(gw, seed=24, disconnect_timeout=3600)
    hakem, name = r.tokens[0], f"{r.match_id}:0"
    command = {"type": "choose_trump", "suit": "H", "id": "c-away"}
    assert r.command(hakem, command).status_code == 200
    assert gw.post(r.base + "/leave", headers={"Authorization": f"Bearer {hakem}"},
                   json={}).status_code == 200
    assert r.api.join(r.match_id, name="Newcomer", seat=0)["seat"] == 0
    since = gw.rt.client.zscore(keys.AWAY, name)
    assert since is not None  # the newcomer has no socket: away from when seated
    assert r.command(hakem, command).status_code == 200
    assert gw.rt.client.zscore(keys.AWAY, name) == since  # the finding: the retry's time
