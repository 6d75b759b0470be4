"""The client library against a real ``hokm serve``: a seat follows a match over its WebSocket
and plays it to its end; its socket is killed mid-match (reset by a proxy while the bots play
on, and broken by the client) and it reconnects by itself with ``since``, receiving the missed
records; refusals are ``ApiError`` with the API's codes; a repeated command id is applied once;
spectators see the public view only; links parse."""

from __future__ import annotations

import random
from typing import Any

import pytest

from hokmclient import (
    ApiError, AsyncClient, AsyncSeat, Client, LocalServer, NetworkError, Seat, command,
    command_for, match_link, my_turn, over, parse_card, parse_link,
)
from hokmclient.cards import RANKS, SUITS
from tests.client.proxy import Proxy
from tests.conftest import run_async, wait_for

SOLO = ["human", "bot:easy", "bot:easy", "bot:easy"]


def deck(seed: int) -> list[str]:
    cards = [r + s for s in SUITS for r in RANKS]
    random.Random(seed).shuffle(cards)
    return cards


def cut_while_the_bots_play(seat: Seat, proxy: Proxy, direct: Client, view: dict[str, Any]
                            ) -> None:
    """Reset the seat's connections at its decision in ``view``, make its move past the proxy
    and let the bots play on while it is cut off, then let it reconnect: it must catch up with
    the missed records."""
    at = view["version"]
    proxy.cut()
    wait_for(lambda: not seat.connected, timeout=10, what="the seat noticing the cut")
    assert seat.token is not None
    token = seat.token
    direct.command(seat.match_id, token, command_for(view, view["legal"][0]))
    moved = wait_for(lambda: my_turn(v := direct.view(seat.match_id, token)["view"])
                     and v["version"], timeout=30,
                     what="the bots playing up to the seat's turn while it is cut off")
    assert moved > at + 1 and seat.version == at  # nothing arrived while cut off
    proxy.restore()
    wait_for(lambda: seat.version >= moved and len(seat.missed) >= moved - at, timeout=30,
             what="the seat catching up after reconnecting (the view, then the missed records)")
    got = [r["version"] for r in seat.missed]
    assert got[:moved - at] == list(range(at + 1, moved + 1)), got
    assert seat.reconnects >= 1
    # the missed records are the server's own, redacted for the seat (as /events gives them)
    assert seat.missed[:moved - at] == direct.events(seat.match_id, at, token)["events"][
        :moved - at]


def drop_and_reconnect(seat: Seat) -> None:
    before = seat.reconnects
    seat.drop()  # the client's own connection broken at once
    wait_for(lambda: seat.reconnects > before and seat.connected, timeout=30,
             what="a reconnection after drop()")


def test_a_seat_survives_its_socket_being_killed_and_catches_up_with_since(
        server: LocalServer, proxy: Proxy) -> None:
    direct = Client(server.url)
    with Seat.create(proxy.url, seats=SOLO, name="Cut") as seat:
        assert seat.view is not None and seat.view["seat"] in range(4)  # the ace draw seats
        decisions = 0
        cut = False
        for view in seat.turns(timeout=60):
            assert my_turn(view) and view["version"] == seat.version
            decisions += 1
            if not cut and view["phase"] == "playing" and len(view["trick"]) == 0:
                cut_while_the_bots_play(seat, proxy, direct, view)  # it leads: three follow
                cut = True
                continue
            seat.decide(view["legal"][0], view)
            if decisions == 40:
                drop_and_reconnect(seat)
        assert cut and proxy.cuts == 1 and decisions > 40
        final = seat.view
        assert final is not None and over(final)
        assert final["winner"] in (0, 1) and max(final["score"]) >= final["target"]
        assert direct.summary(seat.match_id)["phase"] == "match_over"


def test_refusals_are_api_errors_with_the_codes(server: LocalServer) -> None:
    client = Client(server.url)
    created = client.create(seats=SOLO, name="Codes", first_hakem=0, decks=[deck(3)])
    mid, token = created["match_id"], created["token"]
    view = wait_for(lambda: (v := client.view(mid, token)["view"])["phase"] == "choosing_trump"
                    and v, what="the first deal")
    with pytest.raises(ApiError) as refused:
        client.play(mid, token, view["hand"][0], view["version"])
    assert refused.value.code == "wrong_phase" and refused.value.status == 409
    with pytest.raises(ApiError) as stale:
        client.choose_trump(mid, token, "S", view["version"] - 1)
    assert stale.value.code == "stale_version"
    with pytest.raises(ApiError) as bad:
        client.view(mid, "not-a-token")
    assert bad.value.code == "bad_token" and bad.value.status == 401
    with pytest.raises(ApiError) as missing:
        client.summary("nosuchmatch")
    assert missing.value.code == "not_found" and missing.value.status == 404
    with pytest.raises(ApiError) as full:
        client.join(mid, name="Late")
    assert full.value.code == "match_full"
    with pytest.raises(ApiError) as rules:
        client.create(rules={"target": 8})
    assert rules.value.code == "bad_rules"
    # a command sent twice with one id is applied once, and both get the same answer
    body = command("choose_trump", "H", view["version"])
    first = client.command(mid, token, body)
    again = client.command(mid, token, body)
    assert first["version"] == again["version"] == view["version"] + 1
    assert client.summary(mid)["version"] >= first["version"]
    assert client.view(mid, token)["view"]["trump"] == "H"
    with pytest.raises(NetworkError):
        Client("http://127.0.0.1:1", retries=0).summary(mid)


def test_the_analysis_is_asked_as_every_other_operation(server: LocalServer) -> None:
    """The finding (a client author's probe): ``GET /analysis``, an endpoint of api.md, had no
    method in the library said to hold "every HTTP operation" (only ``request``).  Its
    refusals are the API's; a finished match's answer is 202 ``pending`` or 200 ``done``
    (api.md), both returned as the JSON they carry."""
    client = Client(server.url)
    created = client.create(seats=SOLO, name="Analyst")
    with pytest.raises(ApiError) as early:
        client.analysis(created["match_id"])
    assert early.value.code == "match_not_over" and early.value.status == 409

    async def unknown() -> None:
        async with AsyncClient(server.url) as aclient:
            await aclient.analysis("nosuchmatch")

    with pytest.raises(ApiError) as missing:
        run_async(unknown())
    assert missing.value.code == "not_found" and missing.value.status == 404


def test_the_number_of_players_may_be_given_in_the_rules_beside_them_or_both(
        server: LocalServer) -> None:
    """``create`` sends ``players`` only when given, so rules that name it are enough (as the
    API allows); given twice it must agree."""
    client = Client(server.url)
    cases: list[tuple[int | None, dict[str, Any] | None, int]] = [
        (None, {"players": 3}, 3), (3, None, 3), (3, {"players": 3}, 3),
        (None, {"players": 2, "two_player": "talon"}, 2), (None, None, 4)]
    for players, rules, want in cases:
        created = client.create(name="Count", players=players, rules=rules)
        assert client.summary(created["match_id"])["players"] == want, (players, rules)
    with pytest.raises(ApiError) as disagree:
        client.create(players=4, rules={"players": 3})
    assert disagree.value.code == "bad_request"


def test_a_refused_socket_ends_the_seat_with_the_code(server: LocalServer) -> None:
    client = Client(server.url)
    created = client.create(seats=SOLO)
    with pytest.raises(ApiError) as refused:
        Seat.resume(created["invite_url"], "wrong-token").start(timeout=30)
    assert refused.value.code == "bad_token"


def test_a_spectator_sees_the_public_view_and_cannot_play(server: LocalServer) -> None:
    created = Client(server.url).create(seats=SOLO, name="Watched")
    with Seat.spectate(created["invite_url"]) as watcher:
        view = watcher.wait(lambda v: v["phase"] == "playing" or v["phase"] == "choosing_trump",
                            timeout=30)
        assert view["seat"] is None and view["hand"] == [] and view["legal"] == []
        assert view["hands"] is None
        with pytest.raises(ApiError) as refused:
            watcher.play("AS")
        assert refused.value.code == "bad_token"


def test_the_async_seat_plays_a_match_with_hints_and_the_replay_shows_it(
        server: LocalServer) -> None:
    async def play() -> tuple[str, int, list[dict[str, object]]]:
        async with await AsyncSeat.create(server.url, seats=SOLO, name="Async") as seat:
            hints: list[dict[str, object]] = []
            since: int | None = None
            async for view in seat.turns():
                since = view["version"] if since is None else since
                if len(hints) < 3:
                    hints.append(await seat.hint(since))
                    assert hints[-1]["suggestion"] in view["legal"]
                elif len(hints) == 3:
                    with pytest.raises(ApiError) as spent:
                        await seat.hint(since)
                    assert spent.value.code == "hints_exhausted"
                    hints.append({})
                await seat.decide(view["legal"][-1], view)
            assert seat.view is not None and over(seat.view)
            return seat.match_id, seat.version, hints

    match_id, version, hints = run_async(play())
    assert [h["remaining"] for h in hints[:3]] == [2, 1, 0]

    async def replay() -> tuple[dict[str, object], int]:
        async with AsyncClient(server.url) as client:
            steps = (await client.summary(match_id))["version"]  # the secret's reveal included
            return await client.replay(match_id, steps), steps

    shown, steps = run_async(replay())
    assert shown["steps"] == steps >= version
    view = shown["view"]
    assert isinstance(view, dict) and view["phase"] == "match_over" and view["hands"]


def test_links() -> None:
    assert parse_link("http://127.0.0.1:8000/m/abc123") == match_link("127.0.0.1:8000",
                                                                      "abc123")
    assert parse_link("https://hokm.example/replay/abc/").match_id == "abc"
    assert parse_link("localhost:9").base == "http://localhost:9"
    assert parse_link("http://[::1]:8000/").ws_base == "ws://[::1]:8000"
    # an id spelt with capitals (a link typed on a phone) is the server's lowercase one
    assert parse_link("http://h/m/ABC123").match_id == "abc123"
    assert parse_link("h/replay/AbC").match_id == "abc"
    assert match_link("h", "ABC1").match_id == "abc1"
    for bad in ("", "ftp://x/m/a", "http://h/m/a_b", "http://h/m/ÀB", "http://h/elsewhere",
                "http://h:99999/"):
        with pytest.raises(ValueError):
            parse_link(bad)
    assert parse_card("10h") == "TH" and parse_card("q♠") == "QS" and parse_card("1H") is None
