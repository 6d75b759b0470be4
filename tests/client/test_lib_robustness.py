"""The client library's edges, against a real ``hokm serve`` (and, for a ``Retry-After`` longer
than the server sends today, a stub HTTP server on a real socket):

* a 429 whose ``Retry-After`` is past the library's longest backoff is raised at once, with
  ``retry_after``; a short one is still retried;
* the blocking ``Seat`` has ``views()`` (every view until the match is over) and ``errors``;
* a command sent over the socket without an ``id`` and refused reaches ``seat.errors``, while a
  refused socket still ends the seat (and is not a command's error);
* ``Seat.create`` / ``AsyncSeat.create`` pass the room's options on to the create request;
* a create or a join is sent again after a ``503`` with its one request key, a bounded number
  of times (a stub transport);
* the token is URL-encoded in the socket's URL; a failure of the socket's task ends the seat
  instead of leaving its waits asleep; ``start`` against a server that is down raises
  ``NetworkError``; a server that accepts and never answers gives a ``NetworkError`` that
  says it timed out (its exception's text is empty: the message once ended in ``: ``).
"""

from __future__ import annotations

import contextlib
import json
import random
import re
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from hokmclient import (
    ApiError, AsyncClient, AsyncSeat, Client, LocalServer, NetworkError, Seat, free_port,
    my_turn, over,
)
from hokmclient.cards import RANKS, SUITS
from hokmclient.http import MAX_BACKOFF_S
from tests.conftest import run_async, wait_for

SOLO = ["human", "bot:easy", "bot:easy", "bot:easy"]


class Stub:
    """An HTTP server answering each request with the next of ``answers`` (status,
    Retry-After), the last one again once they run out; ``hits`` counts the requests."""

    def __init__(self, answers: list[tuple[int, str | None]]) -> None:
        self.answers = answers
        self.hits = 0
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                status, retry = stub.answers[min(stub.hits, len(stub.answers) - 1)]
                stub.hits += 1
                body = (json.dumps({"match_id": "abc"}) if status == 200 else json.dumps(
                    {"error": {"code": "rate_limited", "message": "slow down"}})).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                if retry is not None:
                    self.send_header("Retry-After", retry)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def stub() -> Iterator[list[Stub]]:
    made: list[Stub] = []
    yield made
    for s in made:
        s.close()


def test_a_retry_after_longer_than_the_longest_backoff_is_raised_at_once(
        stub: list[Stub]) -> None:
    lasting = str(int(MAX_BACKOFF_S * 60))  # e.g. what is left of the create window
    stub.append(Stub([(429, lasting)]))
    with pytest.raises(ApiError) as refused:
        Client(stub[0].url, retries=2).summary("abc")
    assert refused.value.code == "rate_limited" and refused.value.retry_after == float(lasting)
    assert stub[0].hits == 1  # not sent again: the limit lasts longer than a backoff

    async def asynchronously() -> ApiError:
        async with AsyncClient(stub[0].url, retries=2) as client:
            try:
                await client.summary("abc")
            except ApiError as error:
                return error
        raise AssertionError("no refusal")

    assert run_async(asynchronously(), 60).retry_after == float(lasting)
    assert stub[0].hits == 2
    # a Retry-After within the backoff is waited and the request sent again
    stub.append(Stub([(429, "0"), (200, None)]))
    assert Client(stub[1].url, retries=2).summary("abc") == {"match_id": "abc"}
    assert stub[1].hits == 2


def test_the_blocking_seat_yields_every_view_until_the_match_is_over(
        server: LocalServer) -> None:
    created = Client(server.url).create(seats=["human", "bot:easy", "bot:easy"], players=3)
    versions: list[int] = []
    decisions = 0
    last: dict[str, object] = {}
    with Seat.resume(created["invite_url"], created["token"]) as seat:
        for view in seat.views(timeout=60):  # the bots' moves too, not only this seat's turns
            versions.append(view["version"])
            last = view
            if my_turn(view):
                seat.decide(view["legal"][0], view)
                decisions += 1
        # it ends with the first view of the match over (the record revealing the deck's
        # secret may follow it: the seat's newest view, not yielded)
        assert over(last) and seat.view is not None and over(seat.view)
        assert versions[-1] <= seat.view["version"]
    assert versions == sorted(set(versions)) and decisions > 0


def _deck(seed: int) -> list[str]:
    cards = [r + s for s in SUITS for r in RANKS]
    random.Random(seed).shuffle(cards)
    return cards


def test_a_refused_command_sent_over_the_socket_reaches_errors_with_or_without_an_id(
        server: LocalServer) -> None:
    client = Client(server.url)
    created = client.create(seats=SOLO, name="Sender", first_hakem=0, decks=[_deck(5)])
    with Seat.resume(created["invite_url"], created["token"]) as seat:
        view = seat.wait(my_turn, timeout=30)  # seat 0 names trump
        stale = {"type": "choose_trump", "suit": view["legal"][0], "version": view["version"] - 1}
        seat.send(stale)  # no id
        got = wait_for(lambda: seat.errors, timeout=10, what="the refusal in seat.errors")
        assert [e["code"] for e in got] == ["stale_version"] and got[0]["id"] is None
        seat.send({**stale, "id": "c-1"})
        wait_for(lambda: len(seat.errors) == 2, timeout=10, what="the second refusal")
        assert seat.errors[1]["code"] == "stale_version" and seat.errors[1]["id"] == "c-1"
        # the seat lives on: it still decides
        assert seat.decide(view["legal"][0], view)["trump"] == view["legal"][0]
    # a refused socket (error frame, then 4401) still ends the seat, and is no command's error
    refused = Seat.resume(created["invite_url"], "not-the-token")
    try:
        with pytest.raises(ApiError) as ended:
            refused.start(timeout=30)
        assert ended.value.code == "bad_token" and refused.errors == []
    finally:
        refused.close()


def test_create_passes_the_rooms_options_on_to_the_request(server: LocalServer) -> None:
    client = Client(server.url)
    seen: list[int] = []
    with Seat.create(server.url, seats=["human", "bot:easy", "bot:easy"], players=3,
                     disconnect_timeout=0, name="Three",
                     on_view=lambda v: seen.append(v["version"])) as seat:
        assert client.summary(seat.match_id)["players"] == 3
        assert seat.view is not None and seat.view["sides"] == [[0], [1], [2]]
        assert seen  # the seat's own keyword went to the seat
    with pytest.raises(ApiError) as refused:  # the options reach the server, which checks them
        Seat.create(server.url, seats=["human", "bot:easy"], players=2, disconnect_timeout=-1)
    assert refused.value.code == "bad_request" and "disconnect_timeout" in refused.value.message

    async def talon() -> tuple[int, Any]:
        seat = await AsyncSeat.create(server.url, seats=["human", "bot:easy"], players=2,
                                      rules={"two_player": "talon"}, first_hakem=0)
        async with seat:
            view = await seat.wait(my_turn, timeout=30)
            return (await seat.client.summary(seat.match_id))["players"], view

    players, view = run_async(talon(), 120)
    assert players == 2 and view["seat"] == 0 and view["phase"] == "choosing_trump"
    assert view["rules"]["two_player"] == "talon"


def _seat_threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name == "hokmclient"}


def test_the_token_is_url_encoded_in_the_sockets_address(server: LocalServer) -> None:
    created = Client(server.url).create(seats=SOLO)
    threads = _seat_threads()
    # unencoded, "&since=0" would end the token and the socket would open as the real seat
    with pytest.raises(ApiError) as refused:
        with Seat.resume(created["invite_url"], created["token"] + "&since=0"):
            raise AssertionError("the socket opened with another token")
    assert refused.value.code == "bad_token"
    # the failed ``with`` stopped its seat's thread (``with`` calls no __exit__ then)
    wait_for(lambda: _seat_threads() <= threads, timeout=10, what="the seat's thread stopping")


def test_a_failure_of_the_sockets_task_ends_the_seat(server: LocalServer) -> None:
    created = Client(server.url).create(seats=SOLO)

    def broken(view: dict[str, Any]) -> None:
        raise ZeroDivisionError("a bug in the caller's callback")

    seat = Seat.resume(created["invite_url"], created["token"], on_view=broken)
    try:
        with contextlib.suppress(NetworkError):
            seat.start(timeout=60)  # (the view that broke the callback may be returned)
        with pytest.raises(NetworkError) as ended:  # before: asleep until TimeoutError
            seat.wait(lambda v: v["version"] > 10 ** 9, timeout=60)
        assert isinstance(ended.value.__cause__, ZeroDivisionError)
        assert "ZeroDivisionError" in str(ended.value)
    finally:
        seat.close()


def test_start_against_a_server_that_is_down_raises_network_error() -> None:
    link = f"http://127.0.0.1:{free_port()}/m/abcd1234"  # nothing listens there
    seat = Seat.resume(link, "some-token")
    try:
        with pytest.raises(NetworkError) as down:
            seat.start(timeout=1)  # before: a plain TimeoutError
        assert down.value.code == "network" and "abcd1234" in str(down.value)
        assert "the socket" in str(down.value)  # the last failure is named
        assert not seat.connected
    finally:
        seat.close()


@pytest.fixture
def silent() -> Iterator[str]:
    """The URL of a server that takes connections and never answers (the kernel accepts them
    into the listening socket's backlog; nothing reads them)."""
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen(8)
        yield f"http://127.0.0.1:{listening.getsockname()[1]}"


def test_a_server_that_never_answers_gives_a_network_error_that_says_it_timed_out(
        silent: str) -> None:
    with Client(silent, retries=0, timeout=0.2) as client, pytest.raises(NetworkError) as sync:
        client.join("abc", name="Bot")

    async def asynchronously() -> NetworkError:
        async with AsyncClient(silent, retries=0, timeout=0.2) as client:
            try:
                await client.create(name="Host")
            except NetworkError as error:
                return error
        raise AssertionError("no NetworkError")

    asynced = run_async(asynchronously(), 30)
    assert sync.value.message == f"POST {silent}/api/matches/abc/join: timed out"  # not ": "
    assert asynced.message == f"POST {silent}/api/matches: timed out"


def test_a_server_that_cannot_be_reached_is_named_in_the_error() -> None:
    """The finding (a new bot author following docs/bots.md): ``examples/bot.py`` on a link to
    a server that is down printed ``bot.py: network: POST /api/matches/abc/join: All connection
    attempts failed``, naming no server to check.  The error names the address it tried."""
    down = f"http://127.0.0.1:{free_port()}"
    with Client(down, retries=0) as client, pytest.raises(NetworkError) as refused:
        client.join("abc", name="Bot")
    assert str(refused.value).startswith(f"network: POST {down}/api/matches/abc/join: ")


def test_a_create_and_a_join_are_retried_with_one_request_key_a_bounded_number_of_times(
        ) -> None:
    """``AsyncClient`` (``hokm play``'s) sends a create or a join with a request key and
    sends it again with the same key after a ``503`` (the server then answers the first try's
    seat: tests/gateway/test_join_retry.py); a new call has a new key; an outage that lasts is
    raised after ``retries`` retries."""
    seen: list[tuple[str, str]] = []
    down = {"left": 1}
    unavailable = {"error": {"code": "unavailable", "message": "the store is away"}}

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append((request.url.path, json.loads(request.content)["id"]))
        if down["left"] > 0:
            down["left"] -= 1
            return httpx.Response(503, json=unavailable, headers={"Retry-After": "0"})
        if request.url.path == "/api/matches":
            return httpx.Response(201, json={"match_id": "m1", "seat": 0, "token": "t",
                                             "player": "p", "invite_url": "u"})
        return httpx.Response(200, json={"seat": 1, "token": "t2", "player": "p2"})

    async def calls() -> None:
        http = httpx.AsyncClient(transport=httpx.MockTransport(answer), base_url="http://hokm")
        client = AsyncClient(http=http, retries=2)
        assert (await client.create(seats=["human", "bot:easy"]))["match_id"] == "m1"
        down["left"] = 1
        assert (await client.join("m1", name="Bob"))["seat"] == 1
        down["left"] = 10
        with pytest.raises(ApiError) as refused:
            await client.join("m1", name="Bob")
        assert refused.value.code == "unavailable"
        await http.aclose()

    run_async(calls(), timeout=30)
    paths = [path for path, _ in seen]
    assert paths == ["/api/matches"] * 2 + ["/api/matches/m1/join"] * 5
    ids = [key for _, key in seen]
    assert ids[0] == ids[1] and ids[2] == ids[3] and len(set(ids[4:])) == 1  # one key a call
    assert len(set(ids[::2][:3])) == 3  # a new key for each call
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{16,64}", key) for key in ids)


def test_a_server_that_takes_the_connection_and_never_answers_is_asked_twice_only() -> None:
    """A request that timed out is sent again once, not ``retries`` times: ``hokm play`` on a
    server that accepts connections and never answers waited 148 s (an audit's finding).  A
    refused connection (a server restarting) is still retried as before."""
    silent = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []

    def take() -> None:
        with contextlib.suppress(OSError):
            while True:
                accepted.append(silent.accept()[0])

    threading.Thread(target=take, daemon=True).start()
    url = f"http://127.0.0.1:{silent.getsockname()[1]}"
    try:
        with pytest.raises(NetworkError) as failed:
            Client(url, retries=8, timeout=0.3).summary("abc")
        assert failed.value.reason == "timed out"
        wait_for(lambda: len(accepted) == 2, what="two connections")
        assert len(accepted) == 2

        async def asynchronously() -> str:
            async with AsyncClient(url, retries=8, timeout=0.3) as client:
                try:
                    await client.summary("abc")
                except NetworkError as error:
                    return error.reason
            raise AssertionError("an answer")

        assert run_async(asynchronously(), 60) == "timed out"
        wait_for(lambda: len(accepted) == 4, what="two more connections")
    finally:
        silent.close()
        for s in accepted:
            s.close()
    # a port nobody listens on: refused at once, every retry made
    closed = free_port()
    calls = []
    real = httpx.Client.request

    def counted(self: httpx.Client, *args: Any, **kw: Any) -> Any:
        calls.append(args)
        return real(self, *args, **kw)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(httpx.Client, "request", counted)
        with pytest.raises(NetworkError):
            Client(f"http://127.0.0.1:{closed}", retries=3, timeout=0.3).summary("abc")
    assert len(calls) == 4
