"""Helpers of the gateway tests: an embedded gateway under Starlette's TestClient,
rooms of seats with their tokens, WebSocket receives with a timeout, and the server-side truth
(every seat's hidden cards) for the no-leak checks."""

from __future__ import annotations

import contextlib
import json
import random
import time
from collections.abc import Iterator
from typing import Any

import anyio
from starlette.testclient import TestClient, WebSocketTestSession

from engine import HokmError
from engine.cards import NAMES, names_of_mask
from hokmclient import Client
from hokm.compose import gateway_app
from services.runtime import Runtime, build_runtime
from services.settings import Settings
from tests.conftest import redis_db_url
from tests.services.test_variant_rooms import choose
from tests.conftest import wait_for as wait_for  # re-exported: the gateway tests import it here

SEATS4 = ["human"] * 4


def make_settings(**over: Any) -> Settings:
    """Embedded settings for tests: no rate limits or quotas unless asked (matches never
    expire), stacked decks allowed."""
    base: dict[str, Any] = {
        "redis_url": None, "allow_stacked_decks": True, "queue": "hokm-bots",
        "bot_timeout_s": 3.0, "max_body": 16 * 1024, "rate_per_token": 0.0,
        "rate_per_address": 0.0, "creates_per_window": 0, "bot_matches": 0,
        "bot_matches_per_address": 0, "connections_per_address": 0, "idle_ttl_s": 0.0,
        "finished_ttl_s": 0.0,
        # the create limit counts in fixed windows of the clock: creates that straddle a
        # 10-minute boundary would all pass, so a test asking for the limit gets a window no
        # run straddles (a CI run failed so at 19:30:00)
        "create_window_s": 1e9,
    }
    base.update(over)
    return Settings(**base)


class Gateway(TestClient):
    """A TestClient that also knows its runtime (the server side, for checks)."""

    rt: Runtime

    def version(self, match_id: str) -> int:
        """The stored version, read straight from the store."""
        return self.rt.store.version(match_id)

    def state(self, match_id: str) -> Any:
        return self.rt.service.load(match_id).state


@contextlib.contextmanager
def gateway(*, worker: bool | None = None, client: tuple[str, int] = ("testclient", 50000),
            **over: Any) -> Iterator[Gateway]:
    """An embedded gateway (fakeredis) with its lifespan running; ``over`` changes Settings."""
    rt = build_runtime(make_settings(**over))
    app = gateway_app(rt, in_process_worker=worker)
    with Gateway(app, raise_server_exceptions=False, client=client) as gw:
        gw.rt = rt
        yield gw


def other_address(gw: Gateway, host: str) -> TestClient:
    """A second client of the same running app (same event loop) from another address."""
    second = TestClient(gw.app, raise_server_exceptions=False, client=(host, 50001))
    second.portal = gw.portal
    return second


# -- rooms -------------------------------------------------------------------------------------


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def api(gw: TestClient) -> Client:
    """The client library over the in-process app (no retries: the tests see every refusal)."""
    return Client(http=gw, retries=0)


class Room:
    """A match created through the API with its human seats' tokens."""

    def __init__(self, gw: TestClient, created: dict[str, Any]) -> None:
        self.gw = gw
        self.api = api(gw)
        self.match_id: str = created["match_id"]
        self.created = created
        self.tokens: list[str] = [created["token"]]

    @property
    def base(self) -> str:
        return f"/api/matches/{self.match_id}"

    def get_view(self, token: str) -> tuple[int, dict[str, Any]]:
        body = self.api.view(self.match_id, token)
        return body["version"], body["view"]

    def seat_tokens(self) -> dict[int, str]:
        """Current seat -> token (the ace draw may have moved players)."""
        out = {}
        for token in self.tokens:
            _, view = self.get_view(token)
            out[view["seat"]] = token
        return out

    def summary(self) -> dict[str, Any]:
        return self.api.summary(self.match_id)

    def command(self, token: str, body: Any, **kw: Any) -> Any:
        return self.gw.post(self.base + "/commands", headers=bearer(token), json=body, **kw)

    def mover(self) -> tuple[str, int, dict[str, Any]] | None:
        """The token, version and view of the human whose decision the match waits for."""
        for token in self.tokens:
            version, view = self.get_view(token)
            if view["legal"]:
                return token, version, view
        return None

    def step(self, rng: random.Random | None = None, *, wait_s: float = 10.0
             ) -> dict[str, Any] | None:
        """Make the next human decision (a random legal one), waiting for bots; returns the
        answer's view, or None once the match is over."""
        deadline = time.monotonic() + wait_s
        while True:
            found = self.mover()
            if found is not None:
                break
            _, view = self.get_view(self.tokens[0])
            if view["phase"] == "match_over":
                return None
            if time.monotonic() > deadline:
                raise AssertionError(f"nobody moves: {view}")
            time.sleep(0.01)
        token, version, view = found
        choice = (rng or random).choice(view["legal"])
        return self.api.command(self.match_id, token, command_for(view, choice, version))[
            "view"]

    def play_to(self, phase: str, rng: random.Random | None = None, limit: int = 2000) -> None:
        """Play random legal moves until the summary's phase is ``phase``."""
        for _ in range(limit):
            if self.summary()["phase"] == phase:
                return
            if self.step(rng) is None and phase != "match_over":
                raise AssertionError("the match ended first")
        raise AssertionError(f"never reached {phase}")


def finish(gw: Gateway, match_id: str, rng: random.Random | None = None,
           phase: str = "match_over", limit: int = 5000) -> None:
    """Play random legal moves straight through the match service (fast: no HTTP) until the
    match reaches ``phase`` (the talon game's discards and draws too); bot seats are played the
    same way."""
    rng = rng or random.Random()
    service = gw.rt.service
    for _ in range(limit):
        loaded = service.load(match_id)
        state = loaded.state
        if state.phase == phase or (phase != "match_over" and state.phase == "match_over"):
            return
        seat = service.next_actor(state)
        if seat is None:
            time.sleep(0.005)
            continue
        command = choose(state, seat, rng)
        with contextlib.suppress(HokmError):  # a bot may have moved first
            service.handle(match_id, seat, command, version=loaded.version)
    raise AssertionError(f"never reached {phase} in {limit} steps: at version {loaded.version} "
                         f"({state.phase}) it waits for seat {seat}")


def command_for(view: dict[str, Any], choice: str, version: int | None = None,
                command_id: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = (
        {"type": "choose_trump", "suit": choice} if view["phase"] == "choosing_trump"
        else {"type": "play", "card": choice}
    )
    if version is not None:
        body["version"] = version
    if command_id is not None:
        body["id"] = command_id
    return body


def create(gw: TestClient, **body: Any) -> dict[str, Any]:
    """Create a match through the client library.  Unless the test names a
    ``disconnect_timeout``, the room never gets stand-ins (0): a human seat counts as away from
    the moment it is given, and the shared gateway's worker would otherwise play out, in the
    background of later tests, every room a test left with seats nobody connected to.  Nor a
    turn limit unless it names a ``turn_timeout`` (0): a test reading a seat's frames one by one
    gets the frames it is about, not a ``turn_limit`` besides (tests/gateway/test_turn_limit.py
    is about that one)."""
    body.setdefault("disconnect_timeout", 0)
    body.setdefault("turn_timeout", 0)
    return api(gw).create(**body)


def room(gw: TestClient, *, fill: bool = True, **body: Any) -> Room:
    """Create a match and (``fill``) join every other human seat."""
    created = create(gw, **body)
    out = Room(gw, created)
    if fill:
        layout = body.get("seats") or SEATS4
        for i in range(layout.count("human") - 1):
            out.tokens.append(out.api.join(out.match_id, name=f"P{i + 2}")["token"])
    return out


def deck(seed: int) -> list[str]:
    cards = list(NAMES)
    random.Random(seed).shuffle(cards)
    return cards


def stacked_room(gw: TestClient, seed: int = 1, **body: Any) -> Room:
    """A full four-human room with a known first deck and seat 0 as the first Hakem; seats stay
    as joined, so ``tokens[i]`` is seat ``i``."""
    return room(gw, first_hakem=0, decks=[deck(seed)], **body)


# -- WebSockets --------------------------------------------------------------------------------


def recv(ws: WebSocketTestSession, timeout: float = 5.0) -> dict[str, Any]:
    """The next JSON frame (``WebSocketDisconnect`` if the server closed)."""

    async def get() -> Any:
        with anyio.fail_after(timeout):
            return await ws._send_rx.receive()

    message = ws.portal.call(get)
    ws._raise_on_close(message)
    if message.get("text") is None:
        raise AssertionError(f"not a text frame: {message}")
    return json.loads(message["text"])  # type: ignore[no-any-return]


def refused_socket(client: TestClient, url: str) -> tuple[dict[str, Any], int]:
    """A socket the server refuses at ``url``: its one frame (the error) and its close code (a
    second frame instead fails the test)."""
    from starlette.websockets import WebSocketDisconnect

    with client.websocket_connect(url) as ws:
        frame = recv(ws)
        try:
            extra = recv(ws)
        except WebSocketDisconnect as closed:
            return frame, closed.code
    raise AssertionError(f"the socket was not closed after {frame}: {extra}")


def recv_until(ws: WebSocketTestSession, pred: Any, timeout: float = 5.0) -> dict[str, Any]:
    """The first frame that satisfies ``pred`` (the frames before it are dropped); an
    AssertionError naming the frames that came instead once ``timeout`` seconds have passed."""
    deadline = time.monotonic() + timeout
    skipped: list[dict[str, Any]] = []
    while True:
        left = deadline - time.monotonic()
        try:
            if left <= 0:
                raise TimeoutError
            frame = recv(ws, left)
        except TimeoutError:
            kinds = [(f.get("type"), f.get("version")) for f in skipped]
            raise AssertionError(
                f"no matching frame within {timeout} s; {len(skipped)} other frame(s) came "
                f"(type, version): {kinds[-10:]}; the last: {skipped[-1] if skipped else None}"
            ) from None
        if pred(frame):
            return frame
        skipped.append(frame)


def pending(ws: WebSocketTestSession) -> list[dict[str, Any]]:
    """Frames already waiting (without blocking)."""
    out = []

    async def drain() -> None:
        while True:
            try:
                message = ws._send_rx.receive_nowait()
            except anyio.WouldBlock:
                return
            out.append(message)

    ws.portal.call(drain)
    return [json.loads(m["text"]) if m.get("text") is not None else m for m in out]




# -- the server-side truth ---------------------------------------------------------------------


def hidden_from(state: Any, seat: int | None) -> set[str]:
    """The cards ``seat`` may not know in ``state``: every card of the round's deck that is not
    in its own hand and was not played this round (other hands and undealt cards alike)."""
    deck_cards = {NAMES[c] for c in state.deal.deck}
    own = set(names_of_mask(state.hands[seat])) if seat is not None else set()
    played = set(names_of_mask(state.played))
    return deck_cards - own - played


REDIS_DB = 9
"""The real-Redis tests of the gateway use this database (and flush only it)."""


def redis_url() -> str:
    return redis_db_url(REDIS_DB)
