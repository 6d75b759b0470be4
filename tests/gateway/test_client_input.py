"""What a client sends that the gateway must not believe or must not choke on: forwarding
headers from peers that are not trusted proxies, deeply nested JSON, hint counts from a future
version, and bot levels nobody documented."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.bots import LEVELS
from services.gateway import openapi
from services.gateway.jsonbody import MAX_DEPTH, depth
from worker.policies import LEVELS as POLICY_LEVELS

from .helpers import Gateway, bearer, create, gateway, other_address, recv, recv_until, wait_for

# -- forwarding headers ---------------------------------------------------------------------


def _creates(gw: Any, forwarded: list[str]) -> list[int]:
    return [gw.post("/api/matches", json={"seats": ["human"] * 4, "name": "Ann"},
                    headers={"X-Forwarded-For": xff}).status_code for xff in forwarded]


def test_forwarded_for_is_ignored_unless_the_peer_is_a_trusted_proxy() -> None:
    """Varied ``X-Forwarded-For`` from an untrusted peer (loopback included) all count as
    that peer: the fourth create from it is refused."""
    with gateway(client=("127.0.0.1", 50000), creates_per_window=3) as gw:
        codes = _creates(gw, [f"10.0.0.{i}" for i in range(4)])
    assert codes == [201, 201, 201, 429]
    with gateway(client=("127.0.0.1", 50000), creates_per_window=3,
                 trusted_proxies=("10.0.0.0/8",)) as gw:  # a proxy list without this peer
        codes = _creates(gw, [f"10.0.0.{i}" for i in range(4)])
    assert codes == [201, 201, 201, 429]


def test_a_trusted_proxy_forwards_the_real_client_address() -> None:
    with gateway(client=("127.0.0.1", 50000), creates_per_window=3,
                 trusted_proxies=("127.0.0.1",)) as gw:
        varied = _creates(gw, [f"203.0.113.{i}" for i in range(6)])
        same = _creates(gw, ["198.51.100.7"] * 4)
        chained = _creates(gw, ["198.51.100.7, 127.0.0.1"])  # the proxy appended itself
        untrusted = other_address(gw, "192.0.2.1")
        spoofed = [untrusted.post("/api/matches", json={"seats": ["human"] * 4},
                                  headers={"X-Forwarded-For": f"203.0.114.{i}"}).status_code
                   for i in range(4)]
    assert varied == [201] * 6  # each real client has its own count
    assert same == [201, 201, 201, 429]  # the limit follows the real client
    assert chained == [429]
    assert spoofed == [201, 201, 201, 429]  # a client that is no proxy cannot pretend


# -- nesting ---------------------------------------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='[]{}"\\ab,:'),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                max_size=3),
    max_leaves=30)


def _reference_depth(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max((_reference_depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((_reference_depth(v) for v in value.values()), default=0)
    return 0


@given(JSON)
def test_depth_counts_nesting_like_the_parser(value: Any) -> None:
    """Brackets inside strings (escaped quotes and backslashes included) do not count."""
    assert depth(json.dumps(value)) == _reference_depth(value)


@given(levels=st.integers(1, 20_000), kind=st.sampled_from(["[", "{\"a\":"]),
       closed=st.booleans())
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
def test_deep_nesting_is_bad_request_over_http_and_websocket(gw: Gateway, levels: int,
                                                              kind: str, closed: bool) -> None:
    opener, closer = (kind, "]") if kind == "[" else (kind, "}")
    inner = opener * levels + "1" + (closer * levels if closed else "")
    body = '{"type": "play", "card": ' + inner + "}"
    created = create(gw, seats=["human"] * 4, name="Ann")
    match_id, token = created["match_id"], created["token"]
    before = gw.version(match_id)
    r = gw.post(f"/api/matches/{match_id}/commands", content=body.encode(),
                headers={**bearer(token), "Content-Type": "application/json"})
    assert r.status_code in (400, 413), r.text  # past 16 KiB the size limit answers first
    assert r.json()["error"]["code"] in ("bad_request", "too_large")
    if levels + 1 > MAX_DEPTH and len(body) <= 16 * 1024:
        assert r.json()["error"]["code"] == "bad_request"
    with gw.websocket_connect(f"/api/matches/{match_id}/ws?token={token}") as ws:
        recv(ws)
        if len(body) <= 16 * 1024:
            ws.send_text(body)
            # presence changes resend views
            answer = recv_until(ws, lambda f: f["type"] != "view")
            assert answer["type"] == "error" and answer["code"] == "bad_request", answer
    assert gw.version(match_id) == before


# -- hints ------------------------------------------------------------------------------------


def test_hints_from_a_future_version_are_refused(gw: Gateway) -> None:
    created = create(gw, seats=["human", "bot:easy", "bot:easy", "bot:easy"], name="Ann",
                     rules={"teams": "as_seated"}, first_hakem=0)
    match_id, token = created["match_id"], created["token"]
    version = gw.version(match_id)
    base = f"/api/matches/{match_id}/hint?since="
    for future in (version + 1, version + 1000, 10**12 - 1):
        r = gw.get(base + str(future), headers=bearer(token))
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_request", r.text
    r = gw.get(base + str(version), headers=bearer(token))
    assert r.status_code == 200 and r.json()["remaining"] == 2


def test_three_decisions_exhaust_hints_whatever_since_the_past_names(gw: Gateway) -> None:
    """From a version ``v`` hints accompany three own decisions: once three records of the
    seat follow ``v``, no ``since`` at or before ``v`` gets another."""
    from .helpers import command_for

    created = create(gw, seats=["human", "bot:easy", "bot:easy", "bot:easy"], name="Ann",
                     rules={"teams": "as_seated"}, first_hakem=0)
    match_id, token = created["match_id"], created["token"]
    start = gw.version(match_id)
    def my_turn() -> Any:
        r = gw.get(f"/api/matches/{match_id}/view", headers=bearer(token))
        return r if r.json()["view"]["legal"] else None

    for made in range(3):
        r = wait_for(my_turn, 20)  # while the bots move
        view = r.json()["view"]
        hint = gw.get(f"/api/matches/{match_id}/hint?since={start}", headers=bearer(token))
        assert hint.status_code == 200 and hint.json()["remaining"] == 2 - made, hint.text
        answer = gw.post(f"/api/matches/{match_id}/commands", headers=bearer(token),
                         json=command_for(view, hint.json()["suggestion"], r.json()["version"]))
        assert answer.status_code == 200, answer.text
    wait_for(my_turn, 20)
    for since in range(0, start + 1):
        r = gw.get(f"/api/matches/{match_id}/hint?since={since}", headers=bearer(token))
        assert r.status_code == 409 and r.json()["error"]["code"] == "hints_exhausted", since


# -- bot levels -------------------------------------------------------------------------------


def test_one_list_of_bot_levels_everywhere() -> None:
    assert set(POLICY_LEVELS) == set(LEVELS) == {"easy", "medium", "hard", "expert"}
    doc = json.dumps(openapi.document())
    assert "bot:(easy|medium|hard|expert)" in doc
    text = open("docs/api.md").read()
    assert "Bot levels: `easy`, `medium`, `hard`, `expert`" in text


def test_undocumented_levels_are_refused_everywhere(gw: Gateway) -> None:
    for level in ("random", "heuristic", "search", "novice", "Hard", "", "easy "):
        r = gw.post("/api/matches", json={"seats": ["human", f"bot:{level}", "human", "human"]})
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_request", r.text
    created = create(gw, seats=["human"] * 4, name="Ann")
    match_id, token = created["match_id"], created["token"]
    before = gw.version(match_id)
    for level in ("random", "heuristic", "search"):
        r = gw.post(f"/api/matches/{match_id}/seats/1/bot", json={"level": level},
                    headers=bearer(token))
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_request", r.text
        r = gw.post(f"/api/matches/{match_id}/leave", json={"replace_with": f"bot:{level}"},
                    headers=bearer(token))
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_request", r.text
    assert gw.version(match_id) == before
    for i, level in enumerate(LEVELS):  # the documented ones are taken (three open seats a room)
        if i % 3 == 0 and i:
            created = create(gw, seats=["human"] * 4, name="Ann")
            match_id, token = created["match_id"], created["token"]
        r = gw.post(f"/api/matches/{match_id}/seats/{i % 3 + 1}/bot",
                    json={"level": level}, headers=bearer(token))
        assert r.status_code == 200, r.text


# -- unknown fields ---------------------------------------------------------------------------


def test_every_body_refuses_a_field_its_route_does_not_take(gw: Gateway) -> None:
    """A misspelt or unknown field is ``bad_request`` naming it, on every route with a body,
    and changes nothing (before, join, leave and seat_bot ignored it and acted)."""
    r = gw.post("/api/matches", json={"seats": ["human"] * 4, "name": "Ann", "player": 4})
    assert r.status_code == 400 and "'player'" in r.json()["error"]["message"], r.text
    created = create(gw, seats=["human"] * 4, name="Ann")
    match_id, token = created["match_id"], created["token"]
    before = gw.version(match_id)
    calls = [
        (f"/api/matches/{match_id}/join", {"name": "Bob", "sit": 2}, None),
        (f"/api/matches/{match_id}/seats/2/bot", {"level": "easy", "lvl": "hard"}, token),
        (f"/api/matches/{match_id}/leave", {"replace": "bot:easy"}, token),
        (f"/api/matches/{match_id}/commands", {"type": "choose_trump", "suit": "S", "x": 1},
         token),
    ]
    for path, body, auth in calls:
        r = gw.post(path, json=body, headers=bearer(auth) if auth else {})
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_request", (path, r.text)
        assert "unknown field" in r.json()["error"]["message"], r.text
    assert gw.version(match_id) == before
    summary = gw.get(f"/api/matches/{match_id}").json()
    assert [s["empty"] for s in summary["seats"]] == [False, True, True, True]
    # the same bodies without the stray field are taken
    assert gw.post(f"/api/matches/{match_id}/join", json={"name": "Bob"}).status_code == 200
    r = gw.post(f"/api/matches/{match_id}/seats/2/bot", json={"level": "easy"},
                headers=bearer(token))
    assert r.status_code == 200, r.text


# -- which refusal first -----------------------------------------------------------------------


def test_a_bad_token_is_told_before_a_bad_body_on_every_token_route(gw: Gateway) -> None:
    """A QA finding: with a bad or missing token, a bad body answered 400 on some routes
    (rematch always; commands for an unknown field or bad JSON) and 401 on others.  Every
    route that needs a seat token answers ``401 bad_token`` first; a good token with the same
    body gets ``400 bad_request``; nothing changes either way."""
    created = create(gw, seats=["human"] * 4, name="Ann")
    match_id, token = created["match_id"], created["token"]
    base = f"/api/matches/{match_id}"
    routes = [base + "/commands", base + "/rematch", base + "/leave", base + "/seats/1/bot"]
    # (an audit's finding: a body over the limit answered 413 to any token)
    too_large = b'{"pad": "' + b"x" * (16 * 1024) + b'"}'
    bodies = [b"{not json", b'{"nonsense": 1}', b'{"type": "play", "card": "AS", "x": 1}',
              too_large]
    before = gw.version(match_id)
    for route in routes:
        for body in bodies:
            for headers in ({}, bearer("not-a-token"), {"Authorization": "Basic abc"}):
                answer = gw.post(route, content=body,
                                 headers={**headers, "Content-Type": "application/json"})
                assert answer.status_code == 401, (route, body[:40], headers, answer.text)
                assert answer.json()["error"]["code"] == "bad_token"
            answer = gw.post(route, content=body, headers={**bearer(token),
                                                           "Content-Type": "application/json"})
            want = (413, "too_large") if body is too_large else (400, "bad_request")
            assert (answer.status_code, answer.json()["error"]["code"]) == want, (
                route, body[:40], answer.text)
    assert gw.version(match_id) == before
