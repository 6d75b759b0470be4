"""A conformance pass of the HTTP and WebSocket API against api.md: a body not declared JSON
(``415 unsupported_media_type``), numbers with more than one spelling (a seat ``01``), a JSON
key given twice, a query parameter given twice, a ping with a field it does not take, and the
health answers' caching.  Every refusal is a 4xx with its code and changes nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from services.store import keys

from .helpers import Gateway, bearer, create, recv, recv_until, refused_socket

JSON = {"content-type": "application/json"}


def _room(gw: Gateway) -> tuple[str, str]:
    created = create(gw, seats=["human"] * 4, name="Ann")
    return created["match_id"], created["token"]


def _matches(gw: Gateway) -> int:
    """How many matches the store holds (their logs)."""
    return len(list(gw.rt.client.scan_iter(keys.log("*"))))


def _refused(answer: Any, status: int, code: str) -> None:
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"].startswith("application/json")
    assert answer.json()["error"]["code"] == code, answer.text


@pytest.mark.parametrize("content_type", [
    None, "text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x", "application/vnd.api+json",
    "application/json; charset=latin-1", "application/jsonx",
])
def test_a_body_not_declared_json_is_415_and_changes_nothing(gw: Gateway,
                                                            content_type: str | None) -> None:
    match_id, token = _room(gw)
    before = gw.version(match_id)
    headers = {} if content_type is None else {"content-type": content_type}
    matches = _matches(gw)
    _refused(gw.post("/api/matches", content=json.dumps({"name": "Bob"}), headers=headers),
             415, "unsupported_media_type")
    assert _matches(gw) == matches  # no match was created
    base = f"/api/matches/{match_id}"
    for path, body in (("/join", {"name": "Bob"}), ("/seats/1/bot", {"level": "easy"}),
                       ("/commands", {"type": "play", "card": "AS"}), ("/leave", {})):
        answer = gw.post(base + path, content=json.dumps(body),
                         headers={**headers, **bearer(token)})
        _refused(answer, 415, "unsupported_media_type")
    assert gw.version(match_id) == before
    assert all(seat["empty"] for seat in gw.get(base).json()["seats"][1:])


def test_a_compressed_body_is_415(gw: Gateway) -> None:
    import gzip

    answer = gw.post("/api/matches", content=gzip.compress(b'{"name": "Bob"}'),
                     headers={**JSON, "content-encoding": "gzip"})
    _refused(answer, 415, "unsupported_media_type")


def test_a_bad_token_is_told_before_the_media_type(gw: Gateway) -> None:
    match_id, _ = _room(gw)
    for path in ("/commands", "/leave", "/seats/1/bot", "/rematch"):
        answer = gw.post(f"/api/matches/{match_id}{path}", content=b"{}",
                         headers={**bearer("x" * 32), "content-type": "text/plain"})
        _refused(answer, 401, "bad_token")


@pytest.mark.parametrize("content_type", [
    "application/json", "application/json; charset=utf-8", "Application/JSON;Charset=UTF-8",
    'application/json; charset="utf-8"',
])
def test_json_bodies_and_empty_bodies_are_taken(gw: Gateway, content_type: str) -> None:
    answer = gw.post("/api/matches", content=json.dumps({"name": "Bob"}),
                     headers={"content-type": content_type})
    assert answer.status_code == 201, answer.text
    match_id, token = answer.json()["match_id"], answer.json()["token"]
    # an empty body needs no type (rematch and leave take none)
    left = gw.post(f"/api/matches/{match_id}/leave", headers={**bearer(token),
                                                              "content-type": "text/plain"})
    assert left.status_code == 200, left.text


def test_the_clients_declare_their_json() -> None:
    """The repository's clients send the type the server now requires."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    js = (root / "services/gateway/static/api.js").read_text()
    assert 'headers["Content-Type"] = "application/json"' in js
    py = (root / "hokmclient/http.py").read_text()
    assert 'headers["Content-Type"] = "application/json"' in py


@pytest.mark.parametrize("raw", ["01", "00", "001", "%201", "1%20", "1.0", "+1", "1_0"])
def test_a_seat_with_another_spelling_is_bad_request(gw: Gateway, raw: str) -> None:
    match_id, token = _room(gw)
    before = gw.version(match_id)
    answer = gw.post(f"/api/matches/{match_id}/seats/{raw}/bot", json={"level": "easy"},
                     headers=bearer(token))
    _refused(answer, 400, "bad_request")
    assert gw.version(match_id) == before
    assert not gw.get(f"/api/matches/{match_id}").json()["seats"][1]["bot"]


def test_numbers_in_queries_have_one_spelling_and_one_value(gw: Gateway) -> None:
    match_id, token = _room(gw)
    base = f"/api/matches/{match_id}"
    for query in ("events?since=01", "replay?step=01", "events?since=x&since=1",
                  "events?since=1&since=1", "replay?step=0&step=1"):
        _refused(gw.get(f"{base}/{query}", headers=bearer(token)), 400, "bad_request")
    assert gw.get(f"{base}/events?since=0", headers=bearer(token)).status_code == 200
    assert gw.get(f"{base}/replay?step=0", headers=bearer(token)).status_code == 200


@pytest.mark.parametrize("body", [
    '{"name": "Bob", "name": "Eve"}',
    '{"name": "Bob", "seat": 1, "seat": 2}',
])
def test_a_json_key_given_twice_is_bad_request(gw: Gateway, body: str) -> None:
    match_id, _ = _room(gw)
    before = gw.version(match_id)
    _refused(gw.post(f"/api/matches/{match_id}/join", content=body, headers=JSON),
             400, "bad_request")
    assert gw.version(match_id) == before
    _refused(gw.post("/api/matches", content='{"rules": {"target": 7, "target": 10}}',
                     headers=JSON), 400, "bad_request")


def test_a_frame_with_a_key_twice_or_a_ping_with_a_field_is_refused(gw: Gateway) -> None:
    match_id, token = _room(gw)
    with gw.websocket_connect(f"/api/matches/{match_id}/ws?token={token}") as ws:
        recv(ws)
        for text in ('{"type": "play", "card": "AS", "card": "2C", "id": "twins"}',
                     '{"type": "ping", "type": "play", "id": "twins"}',
                     '{"type": "ping", "extra": 1, "id": "twins"}'):
            ws.send_text(text)
            frame = recv_until(ws, lambda f: f["type"] in ("error", "pong"))
            assert frame["type"] == "error" and frame["code"] == "bad_request", (text, frame)
        ws.send_text('{"type": "ping"}')
        assert recv_until(ws, lambda f: f["type"] in ("error", "pong"))["type"] == "pong"


def test_health_answers_are_not_cached(gw: Gateway) -> None:
    for path in ("/healthz", "/readyz"):
        answer = gw.get(path)
        assert answer.status_code == 200
        assert answer.headers.get("cache-control") == "no-store", path


def test_a_query_parameter_the_route_does_not_take_is_bad_request(gw: Gateway) -> None:
    """A misspelt ``sinse=3`` was ignored (every record from 0 answered), as a body's unknown
    field is not.  The API document declares that 400 on every route (an audit: the summary,
    the view, the seat's check and the analysis did not)."""
    from services.gateway import openapi

    paths = openapi.document()["paths"]
    match_id, token = _room(gw)
    before = gw.version(match_id)
    base = f"/api/matches/{match_id}"
    for method, path, body in (("GET", "/events?sinse=3", None), ("GET", "?x=1", None),
                               ("GET", "/view?since=1", None), ("GET", "/replay?since=1", None),
                               ("GET", "/hint?step=1", None), ("GET", "/seat?x=1", None),
                               ("GET", "/analysis?x=1", None),
                               ("POST", "/join?seat=1", {"name": "Bob"}),
                               ("POST", "/seats/1/bot?level=easy", {})):
        answer = gw.request(method, base + path, json=body, headers=bearer(token))
        _refused(answer, 400, "bad_request")
        assert "unknown query parameter" in answer.json()["error"]["message"], path
        route = "/api/matches/{match_id}" + path.split("?")[0].replace("/1/", "/{seat}/")
        assert "400" in paths[route][method.lower()]["responses"], route
    _refused(gw.post("/api/matches?players=2", json={"name": "Bob"}), 400, "bad_request")
    assert gw.version(match_id) == before
    assert gw.get(f"{base}/events?since=", headers=bearer(token)).status_code == 200


@pytest.mark.parametrize("query", ["since=01", "since=1&since=2", "sinse=1", "token=a&token=b"])
def test_a_socket_with_a_bad_query_is_refused_with_4400(gw: Gateway, query: str) -> None:
    match_id, _ = _room(gw)
    frame, code = refused_socket(gw, f"/api/matches/{match_id}/ws?{query}")
    assert frame["type"] == "error" and frame["code"] == "bad_request", frame
    assert code == 4400


@pytest.mark.parametrize("token", ["x" * 300, "%C3%A9abc", "a%07b"],
                         ids=["long", "not_ascii", "not_printable"])
def test_a_token_no_seat_can_have_closes_the_socket_as_bad_token(gw: Gateway,
                                                                 token: str) -> None:
    """A token too long or not printable ASCII: HTTP answers ``401 bad_token``; the socket
    said ``bad_request`` and closed with 4400 (an audit), which a client reads as its own
    mistake rather than a token that holds no seat."""
    match_id, _ = _room(gw)
    frame, code = refused_socket(gw, f"/api/matches/{match_id}/ws?token={token}")
    assert frame["type"] == "error" and frame["code"] == "bad_token", frame
    assert code == 4401
    _refused(gw.get(f"/api/matches/{match_id}/view", headers=bearer("x" * 300)), 401,
             "bad_token")


def test_a_socket_checks_a_pings_id_and_echoes_no_id_it_refused(gw: Gateway) -> None:
    """A ping's ``id`` is checked as a command's (any value was taken), and an error frame
    echoes only an id a command may have: a 15,000-character one came back whole."""
    match_id, token = _room(gw)
    before = gw.version(match_id)
    with gw.websocket_connect(f"/api/matches/{match_id}/ws?token={token}") as ws:
        def answer() -> dict[str, Any]:  # (presence frames may come between)
            return recv_until(ws, lambda f: f.get("type") in ("pong", "error"))

        ws.send_json({"type": "ping", "id": "p1"})
        assert answer() == {"type": "pong"}
        for bad in (123, {"a": [1]}, "", [1, 2], "p" * 65):
            ws.send_json({"type": "ping", "id": bad})
            frame = answer()
            assert frame["type"] == "error" and frame["code"] == "bad_request", frame
            assert frame.get("id") is None, frame
        ws.send_json({"type": "play", "card": "QH", "id": "z" * 15000})
        frame = answer()
        assert frame["code"] == "bad_request" and frame.get("id") is None, frame
        ws.send_json({"type": "play", "card": "ZZ", "id": "c1"})
        assert answer()["id"] == "c1"  # a valid id is echoed as before
    assert gw.version(match_id) == before


def test_a_header_given_twice_is_refused(gw: Gateway) -> None:
    """Two ``Authorization`` (or ``Content-Type``) headers: which one counts depends on who
    reads them; the first was taken silently."""
    match_id, token = _room(gw)
    before = gw.version(match_id)
    url = f"/api/matches/{match_id}"
    twice = [("authorization", f"Bearer {token}"), ("authorization", "Bearer " + "x" * 32)]
    _refused(gw.get(url + "/view", headers=twice), 401, "bad_token")
    _refused(gw.get(url + "/events", headers=twice), 401, "bad_token")
    answer = gw.post(url + "/commands", content=b'{"type": "play", "card": "AS"}',
                     headers=[twice[0], *[("content-type", "application/json")] * 2])
    _refused(answer, 415, "unsupported_media_type")
    _refused(gw.post(url + "/join", content=b'{"name": "Bob"}',
                     headers=[("content-type", "application/json"),
                              ("content-type", "text/plain")]), 415, "unsupported_media_type")
    assert gw.version(match_id) == before
