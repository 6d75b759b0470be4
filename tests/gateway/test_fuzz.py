"""A fuzz run over the HTTP API and the WebSocket (hypothesis): odd methods, paths, query
parameters, headers and bodies; zero 5xx answers, every refusal a documented code, and no
refused request changes a match."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.errors import STATUS

from .helpers import Gateway, bearer, recv, stacked_room

CODES = set(STATUS) | {"bad_rules"}
PATHS = ["", "/join", "/view", "/commands", "/events", "/replay", "/hint", "/leave",
         "/seats/{seat}/bot", "/ws", "/analysis", "/nothing"]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False)
    | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner,
                                                               max_size=5),
    max_leaves=20,
)
command_like = st.fixed_dictionaries(
    {"type": st.sampled_from(["play", "choose_trump", "ping", "resign", "", 3])},
    optional={
        "card": st.sampled_from(["AS", "TH", "2C", "ZZ", "", "as", 5]) | st.text(max_size=4),
        "suit": st.sampled_from(["S", "H", "D", "C", "X", "", None]),
        "version": st.integers(-3, 10_000) | st.text(max_size=3) | st.none(),
        "id": st.text(max_size=70) | st.integers(),
        "extra": json_values,
    },
)
create_like = st.fixed_dictionaries({}, optional={
    "players": st.sampled_from([4, 2, 3, 5, "4", None]),
    "seats": st.lists(st.sampled_from(["human", "bot:easy", "bot:hard", "bot:x", "", 1]),
                      max_size=5) | json_values,
    "rules": st.dictionaries(st.sampled_from(["target", "deal", "teams", "must_trump", "satat",
                                              "bavney", "double_sar", "sets", "other"]),
                             json_values, max_size=4) | json_values,
    "name": st.text(max_size=50) | json_values,
    "disconnect_timeout": st.integers(-5, 5000) | st.floats(allow_nan=False) | st.text(),
    "first_hakem": st.integers(-2, 6) | json_values,
    "decks": json_values,
})
deep = st.builds(
    lambda levels, opener, inside, closed: (
        opener * levels + inside + ("]" if opener == "[" else "}") * (levels if closed else 0)
    ).encode(),
    st.integers(1, 20_000), st.sampled_from(["[", '{"a":']), st.sampled_from(["1", '"x"', ""]),
    st.booleans())
"""Nesting deep enough to exhaust a recursive parser (the finding: a 500 over HTTP)."""
bodies = (
    deep
    | json_values.map(lambda v: json.dumps(v).encode())
    | command_like.map(lambda v: json.dumps(v).encode())
    | create_like.map(lambda v: json.dumps(v).encode())
    | st.binary(max_size=64)
)
params = st.dictionaries(st.sampled_from(["since", "step", "token", "x"]),
                         st.integers(-5, 10**20).map(str) | st.text(max_size=8)
                         | st.sampled_from(["²", "١٢", "9" * 5000]), max_size=3)


@pytest.fixture(scope="module")
def target(gw: Gateway) -> Iterator[tuple[Gateway, str, list[str]]]:
    r = stacked_room(gw, seed=41)
    yield gw, r.match_id, r.tokens


@settings(max_examples=400, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(
    method=st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH"]),
    path=st.sampled_from(PATHS),
    which_match=st.sampled_from(["ours", "unknown", "junk"]),
    junk=st.text(min_size=1, max_size=12).map(lambda t: quote(t, safe="")),
    seat=st.sampled_from(["0", "1", "3", "7", "-1", "x", "99999999999999999999"]),
    token=st.sampled_from(["seat0", "seat1", "none", "junk"]),
    query=params,
    body=bodies,
    content_type=st.sampled_from(["application/json", "text/plain", None]),
)
def test_http_fuzz(target: tuple[Gateway, str, list[str]], method: str, path: str,
                   which_match: str, junk: str, seat: str, token: str, query: dict[str, str],
                   body: bytes, content_type: str | None) -> None:
    gw, match_id, tokens = target
    mid = {"ours": match_id, "unknown": "0000000000000000", "junk": junk}[which_match]
    url = "/api/matches" + ("" if path == "" and method == "POST" and which_match == "junk"
                            else f"/{mid}{path.replace('{seat}', seat)}")
    headers: dict[str, str] = {}
    if token == "seat0":
        headers.update(bearer(tokens[0]))
    elif token == "seat1":
        headers.update(bearer(tokens[1]))
    elif token == "junk":
        headers.update(bearer("x" * 32))
    if content_type:
        headers["content-type"] = content_type
    before = gw.version(match_id)
    answer = gw.request(method, url, params=query, headers=headers,
                        content=body if method in ("POST", "PUT", "PATCH") else None)
    assert answer.status_code < 500, (method, url, query, body, answer.text)
    if answer.status_code >= 400 and answer.headers.get("content-type", "").startswith(
            "application/json"):
        error = answer.json()["error"]
        assert error["code"] in CODES, error
        assert isinstance(error["message"], str)
        assert gw.version(match_id) == before, (method, url, body, answer.text)


@pytest.fixture(scope="module")
def ws_target(gw: Gateway) -> Iterator[tuple[Gateway, str, list[str]]]:
    r = stacked_room(gw, seed=42)
    yield gw, r.match_id, r.tokens


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(frames=st.lists(
    command_like.map(json.dumps) | json_values.map(json.dumps) | st.text(max_size=40)
    | deep.filter(lambda b: len(b) <= 16 * 1024).map(bytes.decode),  # (larger: close 1009)
    min_size=1, max_size=6))
def test_ws_fuzz(ws_target: tuple[Gateway, str, list[str]], frames: list[str]) -> None:
    """Odd frames over a seat's socket: each gets an error frame (or a pong, or a view when a
    command happens to be legal); the socket stays open."""
    gw, match_id, tokens = ws_target
    with gw.websocket_connect(f"/api/matches/{match_id}/ws?token={tokens[1]}") as ws:
        recv(ws)
        for frame in frames:
            before = gw.version(match_id)
            ws.send_text(frame)
            ws.send_text('{"type": "ping"}')
            answers: list[dict[str, Any]] = []
            while not answers or answers[-1] != {"type": "pong"}:
                answers.append(recv(ws))
            for answer in answers[:-1]:
                assert answer["type"] in ("view", "error", "pong"), answer
                if answer["type"] == "error":
                    assert answer["code"] in CODES, answer
            if not any(a["type"] == "view" and a["version"] > before for a in answers):
                assert gw.version(match_id) == before
