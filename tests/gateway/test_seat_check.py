"""``GET /api/matches/{id}/seat`` (docs/api.md): whether a token holds a seat of the match now,
answered 200 either way, so the start page learns that a stored token is dead without an error
response (the browser logs each one as a console error)."""

from __future__ import annotations

import pytest

from services.gateway import openapi

from .helpers import Gateway, bearer, gateway, room
from .test_openapi import answer_schema, check

PATH = "/api/matches/{match_id}/seat"


def seat_of(gw: Gateway, match_id: str, token: str) -> object:
    answer = gw.get(f"/api/matches/{match_id}/seat", headers=bearer(token))
    assert answer.status_code == 200, answer.text
    body = answer.json()
    check(openapi.document(), answer_schema(openapi.document(), PATH, "get"), body)
    return body["seat"]


def test_a_token_answers_its_seat_and_a_seat_left_answers_none(gw: Gateway) -> None:
    # (first_hakem: no ace draw, whose swap of two players would move a seat between the
    # views and the checks read below)
    r = room(gw, seats=["human", "human", "bot:easy", "bot:easy"], disconnect_timeout=0,
             turn_timeout=0, first_hakem=0)
    other = room(gw, fill=False, seats=["human", "human"], players=2)
    seats = [gw.get(r.base + "/view", headers=bearer(t)).json()["view"]["seat"]
             for t in r.tokens]
    assert sorted(seats) == [0, 1]
    assert [seat_of(gw, r.match_id, t) for t in r.tokens] == seats
    # a token the match never gave, and another match's, hold no seat here
    assert seat_of(gw, r.match_id, "t" * 24) is None
    assert seat_of(gw, r.match_id, other.tokens[0]) is None
    # the seat left (on another device, say): the token holds none now, and says so with a 200
    left = gw.post(r.base + "/leave", headers=bearer(r.tokens[1]),
                   json={"replace_with": "bot:easy"})
    assert left.status_code == 200, left.text
    assert seat_of(gw, r.match_id, r.tokens[1]) is None
    assert seat_of(gw, r.match_id, r.tokens[0]) == seats[0]
    # a match id spelt with capitals is the same match
    assert seat_of(gw, r.match_id.upper(), r.tokens[0]) == seats[0]


@pytest.mark.parametrize("headers", [
    [], [("Authorization", "Bearer")], [("Authorization", "Basic abc")],
    [("Authorization", "Bearer a"), ("Authorization", "Bearer b")],
])
def test_no_token_or_a_bad_header_is_bad_token(gw: Gateway,
                                               headers: list[tuple[str, str]]) -> None:
    r = room(gw, fill=False, seats=["human", "human"], players=2)
    answer = gw.get(r.base + "/seat", headers=headers)
    assert answer.status_code == 401, answer.text
    assert answer.json()["error"]["code"] == "bad_token"


def test_bad_queries_and_unknown_matches_are_refused(gw: Gateway) -> None:
    r = room(gw, fill=False, seats=["human", "human"], players=2)
    token = r.tokens[0]
    for query in ("?token=x", "?since=0", "?seat=1&seat=2"):
        answer = gw.get(r.base + "/seat" + query, headers=bearer(token))
        assert answer.status_code == 400, (query, answer.text)
        assert answer.json()["error"]["code"] == "bad_request"
    for match_id in ("abcdefabcdef0099", "no-such-id"):
        answer = gw.get(f"/api/matches/{match_id}/seat", headers=bearer(token))
        assert answer.status_code == 404, answer.text
        assert answer.json()["error"]["code"] == "not_found"


def test_the_seat_check_is_rate_limited_per_address() -> None:
    with gateway(worker=False, rate_per_address=5.0) as gw:
        r = room(gw, fill=False, seats=["human", "human"], players=2)
        answers = [gw.get(r.base + "/seat", headers=bearer(r.tokens[0])) for _ in range(40)]
        statuses = [a.status_code for a in answers]
        assert set(statuses) == {200, 429} and statuses.count(429) >= 10, statuses
        assert {a.json()["error"]["code"] for a in answers if a.status_code == 429} == \
            {"rate_limited"}
