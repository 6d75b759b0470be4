"""Query and path parameters that look like numbers but are not (superscripts and other
scripts' digits pass ``str.isdigit`` yet ``int`` refuses some; thousands of digits exceed
``int``'s limit): every route refuses them with ``bad_request`` and changes nothing, and a
WebSocket refused this way leaves nothing behind in the hub — no subscriber, no presence — so
the seat's stand-in still plays for an absent player.
"""

from __future__ import annotations

import tracemalloc
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.websockets import WebSocketDisconnect

from services.gateway.hub import Hub

from .helpers import Gateway, bearer, create, gateway, recv, wait_for

NOT_DIGITS = st.characters(
    codec="utf-8", exclude_characters="0123456789&#%+", exclude_categories=["Cs"])
"""Any one character that is not an ASCII digit (or a character the URL would reinterpret)."""

BAD_NUMBERS = st.one_of(
    st.text(st.sampled_from("²³¹⁰⁴⁵⁶⁷⁸⁹٣۴५๑१߁𝟙１"), min_size=1, max_size=6),
    st.integers(13, 5000).map(lambda n: "9" * n),  # beyond 12 digits; past 4300 int() fails
    st.tuples(st.text("0123456789", max_size=4), NOT_DIGITS, st.text("0123456789", max_size=4))
    .map("".join),
    st.sampled_from(["-1", "1e3", " 1", "0x10", "1.5", "1_000"]),
)


def _quoted(text: str) -> str:
    from urllib.parse import quote

    return quote(text, safe="")


def _hub(gw: Gateway) -> Hub:
    hub: Hub = gw.app.state.holder["hub"]  # type: ignore[attr-defined]
    return hub


def test_the_bad_numbers_include_what_isdigit_accepts() -> None:
    """The strategy covers the finding's class: strings ``isdigit`` accepts and ``int``
    refuses."""
    found = []

    @given(BAD_NUMBERS)
    @settings(max_examples=300, database=None)
    def probe(text: str) -> None:
        if text.isdigit():
            try:
                int(text)
            except ValueError:
                found.append(text)

    probe()
    assert found


@given(raw=BAD_NUMBERS, route=st.sampled_from(["events?since=", "replay?step=", "hint?since="]))
@settings(max_examples=60, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_http_query_numbers_are_strict(gw: Gateway, raw: str, route: str) -> None:
    created = create(gw, seats=["human"] * 4, name="Ann")
    match_id, token = created["match_id"], created["token"]
    before = gw.version(match_id)
    r = gw.get(f"/api/matches/{match_id}/{route}{_quoted(raw)}", headers=bearer(token))
    assert r.status_code == 400, (raw, r.text)
    assert r.json()["error"]["code"] == "bad_request"
    assert gw.version(match_id) == before


@given(raw=BAD_NUMBERS)
@settings(max_examples=40, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_path_numbers_are_strict(gw: Gateway, raw: str) -> None:
    created = create(gw, seats=["human"] * 4, name="Ann")
    match_id, token = created["match_id"], created["token"]
    before = gw.version(match_id)
    r = gw.post(f"/api/matches/{match_id}/seats/{_quoted(raw)}/bot", json={"level": "easy"},
                headers=bearer(token))
    assert r.status_code in (400, 404), (raw, r.text)  # 404: a path that matches no route
    assert r.json()["error"]["code"] in ("bad_request", "not_found")
    assert gw.version(match_id) == before


def test_match_ids_that_cannot_exist_are_not_found(gw: Gateway) -> None:
    for bad in ("x" * 65, "ABC", "a}b", "a%7Bb", "%00"):
        r = gw.get(f"/api/matches/{bad}")
        assert r.status_code == 404, (bad, r.text)
        assert r.json()["error"]["code"] == "not_found"


def _broken_socket(gw: Gateway, match_id: str, token: str | None, since: str) -> dict[str, Any]:
    query = f"since={_quoted(since)}" + (f"&token={token}" if token else "")
    with gw.websocket_connect(f"/api/matches/{match_id}/ws?{query}") as ws:
        first: dict[str, Any] = recv(ws)
        with pytest.raises(WebSocketDisconnect) as closed:
            recv(ws)
    first["close"] = closed.value.code
    return first


def test_broken_sockets_leave_nothing_behind_and_the_stand_in_plays() -> None:
    """Hundreds of sockets with a bad ``since`` (with the seat's token and without): each gets
    ``bad_request`` and the close code 4400; afterwards the hub holds no subscriber, the seat
    is not shown connected, memory did not grow with the sockets, and once the room's timeout
    has passed the stand-in bot plays for the absent player."""
    samples = []

    @given(BAD_NUMBERS)
    @settings(max_examples=150, database=None)
    def collect(text: str) -> None:
        samples.append(text)

    collect()
    with gateway() as gw:
        created = create(gw, seats=["human", "bot:easy", "bot:easy", "bot:easy"], name="Ann",
                         rules={"teams": "as_seated"}, disconnect_timeout=1)
        match_id, token = created["match_id"], created["token"]
        hub = _hub(gw)
        # a good socket first, so the hub follows the match while the broken ones come
        with gw.websocket_connect(f"/api/matches/{match_id}/ws?token={token}") as good:
            recv(good)
            tracemalloc.start()
            try:
                base = tracemalloc.get_traced_memory()[0]
                for i, since in enumerate(samples * 2):
                    answer = _broken_socket(gw, match_id, token if i % 2 else None, since)
                    assert answer["type"] == "error" and answer["code"] == "bad_request"
                    assert answer["close"] == 4400
                grown = tracemalloc.get_traced_memory()[0] - base
            finally:
                tracemalloc.stop()
            assert len(hub.subs.get(match_id, ())) == 1  # the good socket alone
        # every socket gone: nothing left in the hub, nobody shown connected
        assert wait_for(lambda: match_id not in hub.subs, 10)
        assert wait_for(lambda: gw.get(f"/api/matches/{match_id}").json()["seats"][0][
            "connected"] is False, 10)
        # the finding: about 18 KB per leaked socket; 300 sockets here
        assert grown < 2 * 1024 * 1024, grown
        service = gw.rt.service
        assert wait_for(lambda: any(r.actor == 0 for r in service.store.read(match_id)), 30)
        seat0 = service.load(match_id).state.match.seats[0]
        assert seat0 is not None and seat0.bot is None  # played for, still the player's
