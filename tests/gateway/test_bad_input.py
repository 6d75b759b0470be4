"""Bad input over HTTP: every refusal is the documented code with a 4xx, never a 500, never a
change to the match, and one bad client never disturbs another."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .helpers import Gateway, bearer, gateway, other_address, recv, recv_until, stacked_room

POSTS = ["/commands", "/join", "/leave", "/seats/1/bot"]


@pytest.fixture(scope="module")
def room_gw(gw: Gateway) -> Iterator[tuple[Gateway, str, list[str]]]:
    r = stacked_room(gw, seed=31)
    yield gw, r.match_id, r.tokens


@pytest.mark.parametrize("path", ["", *POSTS])
@pytest.mark.parametrize("body, code, status", [
    (b"{not json", "bad_request", 400),
    (b"\xff\xfe\x00", "bad_request", 400),
    (b"[1, 2, 3]", "bad_request", 400),
    (b'"a string"', "bad_request", 400),
    (b"42", "bad_request", 400),
    (b"null", "bad_request", 400),
    (b'{"pad": "' + b"x" * (16 * 1024) + b'"}', "too_large", 413),
])
def test_malformed_bodies(room_gw: tuple[Gateway, str, list[str]], path: str, body: bytes,
                          code: str, status: int) -> None:
    gw, match_id, tokens = room_gw
    version = gw.version(match_id)
    url = "/api/matches" + (f"/{match_id}{path}" if path else "")
    answer = gw.post(url, content=body, headers={**bearer(tokens[0]),
                                                 "content-type": "application/json"})
    assert answer.status_code == status, (url, answer.text)
    assert answer.json()["error"]["code"] == code
    assert gw.version(match_id) == version


def test_oversized_body_without_a_length(room_gw: tuple[Gateway, str, list[str]]) -> None:
    gw, match_id, tokens = room_gw

    def chunks() -> Iterator[bytes]:
        yield b'{"type": "play", "card": "'
        for _ in range(40):
            yield b"x" * 1024
        yield b'"}'

    answer = gw.post(f"/api/matches/{match_id}/commands", content=chunks(),
                     headers=bearer(tokens[0]))
    assert answer.status_code == 413 and answer.json()["error"]["code"] == "too_large"
    answer = gw.post("/api/matches", content=b"{}", headers={"content-length": "abc"})
    assert answer.status_code in (400, 413)


@pytest.mark.parametrize("method, path", [
    ("GET", "/view"), ("POST", "/commands"), ("GET", "/hint"), ("POST", "/leave"),
    ("POST", "/seats/1/bot"),
])
@pytest.mark.parametrize("headers", [
    {}, {"Authorization": "Bearer"}, {"Authorization": "Bearer nope"},
    {"Authorization": "Basic abc"}, {"Authorization": "Bearer " + "y" * 500},
    {"Authorization": "bearer \u00e9t\u00e9"},
])
def test_missing_or_wrong_tokens(room_gw: tuple[Gateway, str, list[str]], method: str,
                                 path: str, headers: dict[str, str]) -> None:
    gw, match_id, _ = room_gw
    version = gw.version(match_id)
    encoded = {k: v.encode("utf-8") for k, v in headers.items()}
    answer = gw.request(method, f"/api/matches/{match_id}{path}", headers=encoded,
                        json={"type": "choose_trump", "suit": "H"} if method == "POST" else None)
    assert answer.status_code == 401, answer.text
    assert answer.json()["error"]["code"] == "bad_token"
    assert gw.version(match_id) == version


def test_a_long_token_is_not_said_to_be_missing(room_gw: tuple[Gateway, str, list[str]]
                                                ) -> None:
    """The finding (a client author's probe): a token over 128 characters was refused as "a
    seat token is required", as if none had been sent; it is one of no seat, as any other
    wrong token."""
    gw, match_id, _ = room_gw
    for token in ("y" * 129, "y" * 5000):
        answer = gw.get(f"/api/matches/{match_id}/view", headers=bearer(token))
        assert answer.status_code == 401, answer.text
        error = answer.json()["error"]
        assert error["code"] == "bad_token" and "does not belong" in error["message"], error


@pytest.mark.parametrize("players", [4.0, "4", True, None])
def test_players_that_is_no_whole_number_is_said_so(gw: Gateway, players: object) -> None:
    """``"players": 4.0`` was refused as "players must be a number" (it is one)."""
    if players is None:  # absent: the default, 4
        assert gw.post("/api/matches", json={"players": None}).status_code == 201
        return
    answer = gw.post("/api/matches", json={"players": players})
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert error["code"] == "bad_request" and "2, 3 or 4" in error["message"], error


def test_a_token_of_another_match(gw: Gateway) -> None:
    a = stacked_room(gw, seed=32)
    b = stacked_room(gw, seed=33)
    version = gw.version(b.match_id)
    answer = b.command(a.tokens[0], {"type": "choose_trump", "suit": "H"})
    assert answer.status_code == 401 and answer.json()["error"]["code"] == "bad_token"
    assert gw.get(b.base + "/view", headers=bearer(a.tokens[0])).status_code == 401
    assert gw.version(b.match_id) == version


@pytest.mark.parametrize("path", ["/api/matches/x", "/api/matches/../etc/view",
                                  "/api/matches/%00/view", "/api/matches/" + "a" * 300])
def test_odd_match_ids(gw: Gateway, path: str) -> None:
    for method in ("GET", "POST"):
        answer = gw.request(method, path, json={})
        assert 400 <= answer.status_code < 500, (path, answer.status_code)


def test_an_api_path_with_a_trailing_slash_is_the_same_route(gw: Gateway) -> None:
    """``/api/matches/`` is ``/api/matches``: the answer itself, never a redirect without a
    body (Starlette's 307, which a client not following redirects saw as an empty answer); an
    unknown path with a slash is still the API's JSON ``not_found``."""
    created = gw.post("/api/matches/", json={"seats": ["human", "bot:easy", "bot:easy",
                                                       "bot:easy"], "disconnect_timeout": 0,
                                             "turn_timeout": 0}, follow_redirects=False)
    assert created.status_code == 201, created.text
    match_id, token = created.json()["match_id"], created.json()["token"]
    base = f"/api/matches/{match_id}"
    for path, headers in ((base + "/", {}), (base + "/view/", bearer(token)),
                          (base + "/view//", bearer(token))):
        answer = gw.get(path, headers=headers, follow_redirects=False)
        plain = gw.get(path.rstrip("/"), headers=headers, follow_redirects=False)
        assert answer.status_code == plain.status_code == 200, (path, answer.status_code)
        assert answer.json().keys() == plain.json().keys()
        assert answer.json().get("match_id", match_id) == match_id
    with gw.websocket_connect(f"{base}/ws/?token={token}") as ws:
        assert ws.receive_json()["type"] == "view"
    answer = gw.get("/api/nothing/", follow_redirects=False)
    assert answer.status_code == 404 and answer.json()["error"]["code"] == "not_found"
    page = gw.get(f"/m/{match_id}/", follow_redirects=False)  # pages keep the redirect
    assert page.status_code == 307 and page.headers["location"].endswith(f"/m/{match_id}")


def test_rate_limit_per_token() -> None:
    with gateway(worker=False, rate_per_token=2.0) as gw:
        r = stacked_room(gw, seed=34)
        version = gw.version(r.match_id)
        codes = [r.command(r.tokens[1], {"type": "choose_trump", "suit": "H"}).json()
                 ["error"]["code"] for _ in range(20)]
        assert codes.count("rate_limited") >= 10
        assert set(codes) == {"not_your_turn", "rate_limited"}
        answer = r.command(r.tokens[1], {"type": "choose_trump", "suit": "H"})
        assert answer.status_code == 429
        assert answer.headers["retry-after"] == "1"
        # another seat of the same match is not slowed down by its neighbour's flood
        answer = r.command(r.tokens[0], {"type": "choose_trump", "suit": "H"})
        assert answer.status_code == 200, answer.text
        assert gw.version(r.match_id) == version + 1


def test_rate_limit_per_address_spares_others() -> None:
    with gateway(worker=False, rate_per_address=5.0) as gw:
        r = stacked_room(gw, seed=35)
        calm = other_address(gw, "10.0.0.2")
        with calm.websocket_connect(f"/api/matches/{r.match_id}/ws?token={r.tokens[2]}") as ws:
            version = recv_until(ws, lambda f: f["type"] == "view")["version"]
            answers = [gw.get(f"/api/matches/{r.match_id}") for _ in range(60)]
            statuses = [a.status_code for a in answers]
            assert statuses.count(429) >= 30 and set(statuses) == {200, 429}
            # (checked on the flood's own answers: a later request may find the bucket refilled
            # on a slow machine)
            assert {a.json()["error"]["code"] for a in answers if a.status_code == 429} == \
                {"rate_limited"}
            # the other address is served, and its socket still gets every view
            assert calm.get(f"/api/matches/{r.match_id}").status_code == 200
            answer = calm.post(f"/api/matches/{r.match_id}/commands",
                               headers=bearer(r.tokens[0]),
                               json={"type": "choose_trump", "suit": "C"})
            assert answer.status_code == 200, answer.text
            frame = recv_until(ws, lambda f: f["version"] > version)
            assert frame["view"]["trump"] == "C"


def test_no_500_for_odd_requests(gw: Gateway) -> None:
    r = stacked_room(gw, seed=36)
    version = gw.version(r.match_id)
    odd = [
        ("GET", r.base + "/events?since=99999999999999999999999"),
        ("GET", r.base + "/replay?step=99999999999999999999999"),
        ("GET", r.base + "/hint?since=abc"),
        ("GET", r.base + "/events?since=%00"),
        ("POST", r.base + "/seats/99999999999999999999/bot"),
        ("POST", r.base + "/seats/-1/bot"),
        ("PUT", r.base + "/commands"),
        ("GET", r.base + "/commands"),
        ("POST", "/api/matches?x=1"),
        ("GET", "/static/../services/gateway/app.py"),
        ("GET", "/m/" + "x" * 2000),
    ]
    for method, url in odd:
        answer = gw.request(method, url, headers=bearer(r.tokens[0]), json={})
        assert answer.status_code < 500, (method, url, answer.status_code, answer.text)
    assert gw.version(r.match_id) == version


def test_redis_down_is_503_never_500() -> None:
    """With the store unreachable every request is refused with ``503 unavailable`` (or a 4xx
    for bad input), and a socket gets an error frame and a close, not a crash."""
    with gateway(worker=False, redis_url="redis://127.0.0.1:9/0") as down:
        answers = [
            down.post("/api/matches", json={}),
            down.get("/api/matches/0123456789abcdef"),
            down.post("/api/matches/0123456789abcdef/join", json={}),
            down.get("/api/matches/0123456789abcdef/view", headers=bearer("x" * 32)),
            down.post("/api/matches/0123456789abcdef/commands", headers=bearer("x" * 32),
                      json={"type": "play", "card": "AS"}),
            down.get("/api/matches/0123456789abcdef/events"),
        ]
        for answer in answers:
            assert answer.status_code in (400, 401, 404, 503), answer.text
            assert answer.status_code != 503 or answer.json()["error"]["code"] == "unavailable"
            assert (answer.status_code == 503) == ("retry-after" in answer.headers)
        assert any(a.status_code == 503 for a in answers)
        assert down.get("/readyz").status_code == 503
        assert down.get("/healthz").status_code == 200
        with down.websocket_connect("/api/matches/0123456789abcdef/ws") as ws:
            assert recv(ws)["code"] == "unavailable"


def test_a_long_bearer_token_is_refused_before_the_rate_limit_keeps_it() -> None:
    """The per-token rate limit keeps a bucket per token it sees, up to 100,000 of them; a
    command's bearer token was read whole from a header (up to the 16 KiB head), so a client
    sending commands with long made-up tokens made the gateway keep about 1.6 GB of them (a
    hostile-client finding).  No token is longer than 128 characters: such a one is
    ``bad_token`` before any bucket is made for it."""
    with gateway(rate_per_token=5.0) as gw:
        r = stacked_room(gw, seed=34)
        buckets = gw.app.state.holder["api"].by_token._buckets  # type: ignore[attr-defined]
        for filler in "ab":
            answer = r.command(filler * 10_000, {"type": "choose_trump", "suit": "H"})
            assert answer.status_code == 401
            assert answer.json()["error"]["code"] == "bad_token"
        assert all(len(key) <= 128 for key in buckets)  # the finding: two keys of 10,000
        assert r.command(r.tokens[0], {"type": "choose_trump", "suit": "H"}).status_code == 200
