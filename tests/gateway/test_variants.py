"""The two- and three-player games over the HTTP and WebSocket API (issue 13): each variant is
created, joined by its invite link, played to the end by human seats (stacked first deals),
followed by a seat's socket (reconnecting with ``since``) and a spectator's, replayed; the
talon game's commands (``discard``, ``draw_talon``) are parsed with clear codes and take the
fast path like ``play``.  No-leak: everything a seat or a spectator receives, over a whole match
of each variant, names no card it may not know (another hand, the other player's discards and
seen talon cards, the talon, the simple game's 26 unused cards), checked against the server's
own stream."""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlparse

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import WebSocketTestSession

from engine import NAMES, State, evolve, view_for
from engine.cards import names_of_mask
from engine.events import CardsDiscarded, MatchEnded, RoundStarted, TalonDrawn
from engine.state import DRAWING, MATCH_OVER
from services.gateway.api import Api
from services.gateway.viewtext import view_texts
from services.pipeline import Loaded
from services.matches import MatchService
from services.store.memory import MemoryStore
from tests.services.test_variant_rooms import VARIANT_RULES, choose, open_room, play_out

from .helpers import Gateway, bearer, deck, pending, recv, recv_until, wait_for
from .test_no_leak import cards_in, event_cards, public
from .test_openapi import answer_schema, check

BODIES: dict[str, dict[str, Any]] = {
    "simple": {"players": 2},
    "talon": {"players": 2, "rules": {"two_player": "talon"}, "first_hakem": 1},
    "three": {"rules": {"players": 3, "satat": True}},
}
"""A room of each variant: players beside or inside the rules, the first Hakem drawn (simple:
the high-card draw; three: the first ace) or fixed; every first deal stacked."""


def command_for(view: dict[str, Any], rng: random.Random, version: int | None = None,
                command_id: str | None = None) -> dict[str, Any]:
    """A random legal command of the viewer in the API's JSON, for any phase."""
    legal, phase = view["legal"], view["phase"]
    body: dict[str, Any]
    if phase == "choosing_trump":
        body = {"type": "choose_trump", "suit": rng.choice(legal)}
    elif phase == "discarding":
        body = {"type": "discard", "cards": rng.sample(legal, view["talon"]["discard"])}
    elif phase == "drawing":
        body = {"type": "draw_talon", "choice": rng.choice(legal)}
    else:
        body = {"type": "play", "card": rng.choice(legal)}
    if version is not None:
        body["version"] = version
    if command_id is not None:
        body["id"] = command_id
    return body


class Truth:
    """The server's own record of a match, folded: the state after every version and what each
    seat knows then beyond its hand (its own discards and the talon cards it saw)."""

    def __init__(self, records: Iterable[Any]) -> None:
        state = State()
        self.states: dict[int, State] = {0: state}
        self.known: dict[int, list[set[str]]] = {0: []}
        known: list[set[str]] = []
        for record in records:
            for event in record.events:
                if isinstance(event, RoundStarted):
                    known = [set() for _ in range(state.rules.players)]
                elif isinstance(event, CardsDiscarded):
                    known[event.seat] |= set(event.cards)
                elif isinstance(event, TalonDrawn):
                    known[event.seat] |= {event.kept, event.discarded}
                state = evolve(state, event)
            self.states[record.version] = state
            self.known[record.version] = [set(k) for k in known]

    def hidden(self, version: int, seat: int | None) -> set[str]:
        """The cards ``seat`` (None: a spectator) may not know at ``version``: every card of
        the deal's deck but its hand, its own knowledge, the cards played and the removed 2."""
        state = self.states[min(version, max(self.states))]
        if state.phase == MATCH_OVER or not state.deal.deck:
            return set()
        out = {NAMES[c] for c in state.deal.deck}
        out -= {NAMES[c] for c in state.rules.variant.removed}
        out -= set(names_of_mask(state.played))
        if seat is not None:
            out -= set(names_of_mask(state.hands[seat]))
            out -= self.known[version][seat]
            if state.phase == DRAWING and state.turn == seat:  # it looks at the top card
                out.discard(NAMES[state.deal.deck[state.deal.talon]])
        return out


def leaks(truth: Truth, seat: int | None, version: int, payload: Any) -> list[Any]:
    """The cards in ``payload`` (a view, an answer or a frame that reflects ``version``) that
    ``seat`` may not know; events are checked against the record they belong to."""
    found: list[Any] = []
    if isinstance(payload, dict):
        records = payload.get("records") if payload.get("type") == "missed" else (
            payload.get("events") if payload.get("events") and isinstance(
                payload["events"][0], dict) and "events" in payload["events"][0] else None)
        for record in records or ():
            hidden = truth.hidden(record["version"], seat)
            for event in record["events"]:
                found += [(record["version"], p, c) for p, c in event_cards(event)
                          if c in hidden]
        if records is not None:
            payload = {k: v for k, v in payload.items() if k not in ("records", "events")}
        elif "step" in payload:  # a replay: its events are those of record ``step``
            hidden = truth.hidden(payload["step"], seat)
            for event in payload.get("events", ()):
                found += [(payload["step"], p, c) for p, c in event_cards(event)
                          if c in hidden]
            payload = {k: v for k, v in payload.items() if k != "events"}
    hidden = truth.hidden(version, seat)
    found += [(version, p, c) for p, c in cards_in(payload) if c in hidden and not public(p)]
    return found


def invite(gw: Gateway, created: dict[str, Any], name: str) -> dict[str, Any]:
    """Join by the invite link alone (its path names the match)."""
    path = urlparse(created["invite_url"]).path
    assert path.startswith("/m/")
    answer = gw.post(f"/api/matches/{path.removeprefix('/m/')}/join", json={"name": name})
    assert answer.status_code == 200, answer.text
    return answer.json()  # type: ignore[no-any-return]


@pytest.mark.parametrize("game", sorted(BODIES))
def test_each_variant_is_played_over_the_api_and_nothing_leaks(gw: Gateway, game: str) -> None:
    """Seat 0 (the spy) follows its socket and moves over it and over HTTP; the others move over
    HTTP; a spectator follows its own socket.  Every frame and answer fits the OpenAPI document
    and leaks nothing; a reconnect with ``since`` gets the missed records as ``/events`` gives
    them; a replay of a step shows the view the spy had at that version."""
    doc = openapi_document()
    rng = random.Random(f"variant-{game}")
    body = {**BODIES[game], "decks": [deck(len(game))], "name": "Spy"}
    players = BODIES[game].get("players") or BODIES[game]["rules"]["players"]
    answer = gw.post("/api/matches", json=body)
    assert answer.status_code == 201, answer.text
    created = answer.json()
    check(doc, answer_schema(doc, "/api/matches", "post", "201"), created)
    match_id, spy = created["match_id"], created["token"]
    base = f"/api/matches/{match_id}"
    tokens = {0: spy}
    for i in range(1, players):
        joined = invite(gw, created, f"P{i}")
        assert joined["seat"] == i
        tokens[i] = joined["token"]
    assert gw.post(base + "/join", json={"name": "late"}).json()["error"]["code"] == \
        "match_full"
    summary = gw.get(base).json()
    check(doc, answer_schema(doc, "/api/matches/{match_id}", "get"), summary)
    assert summary["players"] == players and len(summary["seats"]) == players

    seen: list[tuple[int | None, int, str, Any]] = []  # (seat, version, where, payload)
    live: dict[int, dict[str, Any]] = {}  # the spy's view at each version, as sent live
    watched: dict[int, dict[str, Any]] = {}  # the spectator's

    def note(seat: int | None, where: str, frame: dict[str, Any]) -> None:
        seen.append((seat, frame.get("version", 0), where, frame))
        if frame.get("type") == "view":
            (live if seat == 0 else watched)[frame["version"]] = frame["view"]

    def drain(ws: WebSocketTestSession, seat: int | None, where: str) -> None:
        for frame in pending(ws):
            note(seat, where, frame)

    def await_view(ws: WebSocketTestSession, seat: int | None, version: int) -> None:
        """Receive (and note) frames until the view of ``version`` or a later one."""
        while True:
            frame = recv(ws)
            note(seat, "ws", frame)
            if frame["type"] == "view" and frame["version"] >= version:
                return

    replayed = reconnected = moves = 0
    ws = gw.websocket_connect(f"{base}/ws?token={spy}").__enter__()
    watcher = gw.websocket_connect(f"{base}/ws").__enter__()
    try:
        note(0, "ws first", recv(ws))
        note(None, "spectator first", recv(watcher))
        for _ in range(5000):
            drain(ws, 0, "ws")
            drain(watcher, None, "spectator")
            loaded = wait_for(lambda: settled(gw, match_id), what="a decision or the end")
            state = loaded.state
            if state.phase == MATCH_OVER:
                break
            seat = gw.rt.service.next_actor(state)
            assert seat is not None
            if seat == 0:
                if max(live) < loaded.version:  # the newest view is on its way
                    await_view(ws, 0, loaded.version)
                    continue
                command = command_for(live[max(live)], rng, loaded.version, f"m{moves}")
                if moves % 2:
                    ws.send_json(command)
                    await_view(ws, 0, loaded.version + 1)
                else:
                    answer = gw.post(base + "/commands", headers=bearer(spy), json=command)
                    assert answer.status_code == 200, answer.text
                    seen.append((0, answer.json()["version"], "POST", answer.json()))
                moves += 1
            elif rng.random() < 0.4:  # another seat, over HTTP (deciding from its view)
                view = view_for(state, seat, loaded.version)
                answer = gw.post(base + "/commands", headers=bearer(tokens[seat]),
                                 json=command_for(view, rng, loaded.version))
                assert answer.status_code == 200, answer.text
                seen.append((seat, answer.json()["version"], "POST", answer.json()))
                if rng.random() < 0.2:
                    check(doc, answer_schema(doc, base_path("/commands"), "post"),
                          answer.json())
            else:  # or straight through the service, as another gateway would (faster)
                gw.rt.service.handle(match_id, seat, choose(state, seat, rng),
                                     version=loaded.version)
            if rng.random() < 0.05:  # a replay of a step the spy saw live
                step = rng.choice(sorted(live))
                replay = gw.get(base + "/replay", params={"step": step},
                                headers=bearer(spy)).json()
                check(doc, answer_schema(doc, base_path("/replay"), "get"), replay)
                # (the move just made may have ended the match: a replay of a finished match
                # is everyone's, every hand shown, and no longer the spy's view)
                if gw.state(match_id).phase != MATCH_OVER:
                    seen.append((0, step, "replay", replay))
                    assert without_presence(replay["view"]) == without_presence(live[step]), \
                        step
                    replayed += 1
            if rng.random() < 0.04:
                since = max(0, loaded.version - 12)
                events = gw.get(base + "/events", params={"since": since},
                                headers=bearer(spy)).json()
                check(doc, answer_schema(doc, base_path("/events"), "get"), events)
                seen.append((0, events["version"], "events", events))
                spectated = gw.get(base + "/events", params={"since": since}).json()
                seen.append((None, spectated["version"], "events", spectated))
            if rng.random() < 0.03:  # reconnect, catching up with since
                drain(ws, 0, "ws")
                ws.__exit__(None, None, None)
                since = max(0, gw.version(match_id) - 10)
                ws = gw.websocket_connect(f"{base}/ws?token={spy}&since={since}").__enter__()
                first = recv(ws)
                note(0, "ws reconnect", first)
                missed = recv_until(ws, lambda f: f["type"] == "missed")
                note(0, "missed", missed)
                assert not missed["resync"] and missed["version"] == first["version"]
                events = gw.get(base + "/events", params={"since": since},
                                headers=bearer(spy)).json()
                assert missed["records"] == [r for r in events["events"]
                                             if r["version"] <= missed["version"]]
                assert [r["version"] for r in missed["records"]] == list(
                    range(since + 1, missed["version"] + 1))
                reconnected += 1
        else:
            raise AssertionError("the match did not end")
        end = gw.version(match_id)
        drain(ws, 0, "ws")
        drain(watcher, None, "spectator")
        if max(live) < end:
            await_view(ws, 0, end)
        if max(watched) < end:
            await_view(watcher, None, end)
    finally:
        ws.__exit__(None, None, None)
        watcher.__exit__(None, None, None)
    assert live[end]["phase"] == MATCH_OVER and live[end]["hands"] is not None
    assert watched[end]["phase"] == MATCH_OVER and watched[end]["seat"] is None

    truth = Truth(gw.rt.store.read(match_id))
    state = truth.states[max(truth.states)]
    assert state.phase == MATCH_OVER and max(state.match.score) >= state.rules.target
    assert state.rules.variant.name == game
    kinds = {e.TYPE for r in gw.rt.store.read(match_id) for e in r.events}
    assert ("talon_drawn" in kinds) == (game == "talon")
    checked = 0
    for seat, version, where, payload in seen:
        found = leaks(truth, seat, version, payload)
        assert not found, f"{game} {where} seat {seat} v{version}: {found[:5]}"
        checked += 1
    assert checked > 100 and len(watched) > 50
    assert replayed and reconnected and moves > 20


def settled(gw: Gateway, match_id: str) -> Loaded | None:
    """The match once it waits for a seat's decision or is over with its secret revealed
    (None while a system step that follows a command is still being made)."""
    loaded = gw.rt.service.load(match_id)
    state = loaded.state
    if state.phase == MATCH_OVER:
        return loaded if state.match.secret is not None else None
    return loaded if gw.rt.service.next_actor(state) is not None else None


def openapi_document() -> dict[str, Any]:
    from services.gateway import openapi

    return openapi.document()


def base_path(tail: str) -> str:
    return "/api/matches/{match_id}" + tail


def without_presence(view: dict[str, Any]) -> dict[str, Any]:
    """A view without who is connected (a replay knows nothing of presence)."""
    return {**view, "seats": [{**s, "connected": None} for s in view["seats"]]}


def talon_room(gw: Gateway, seed: int = 3) -> tuple[str, dict[int, str], list[str]]:
    """A talon room with seat 1 the Hakem and a stacked first deck; its match id, the tokens by
    seat and the deck."""
    cards = deck(seed)
    created = gw.post("/api/matches", json={**BODIES["talon"], "decks": [cards]}).json()
    joined = invite(gw, created, "Other")
    return created["match_id"], {0: created["token"], 1: joined["token"]}, cards


def post(gw: Gateway, match_id: str, token: str, body: Any) -> Any:
    return gw.post(f"/api/matches/{match_id}/commands", headers=bearer(token), json=body)


@pytest.mark.parametrize(("body", "code"), [
    ({"type": "discard"}, "bad_request"),
    ({"type": "discard", "cards": "2C 3D 4H"}, "bad_request"),
    ({"type": "discard", "cards": [1, 2, 3]}, "bad_request"),
    ({"type": "discard", "cards": ["2C"] * 14}, "bad_request"),
    ({"type": "discard", "cards": ["2C", "3D"], "card": "4H"}, "bad_request"),
    ({"type": "discard", "cards": ["XX", "3D", "4H"]}, "bad_request"),
    ({"type": "discard", "cards": ["AS", "AS", "AS"]}, "bad_request"),
    ({"type": "discard", "cards": ["AS"]}, "bad_request"),  # the Hakem lays aside 3
    ({"type": "draw_talon"}, "bad_request"),
    ({"type": "draw_talon", "choice": "maybe"}, "bad_request"),
    ({"type": "draw_talon", "choice": ["keep"]}, "bad_request"),
    ({"type": "draw_talon", "choice": True}, "bad_request"),
    ({"type": "draw_talon", "choice": "keep", "keep": True}, "bad_request"),
    ({"type": "draw_talon", "choice": "keep"}, "wrong_phase"),
    ({"type": "discard", "cards": ["2C", "3D", "4H"], "version": -1}, "bad_request"),
    ({"type": "fold"}, "bad_request"),
])
def test_malformed_talon_commands_get_clear_codes(gw: Gateway, body: dict[str, Any],
                                                  code: str) -> None:
    match_id, tokens, _ = talon_room(gw)
    assert post(gw, match_id, tokens[1], {"type": "choose_trump", "suit": "S"}).status_code \
        == 200
    before = gw.version(match_id)
    answer = post(gw, match_id, tokens[1], body)
    assert answer.status_code in (400, 409), answer.text
    assert answer.json()["error"]["code"] == code and answer.json()["error"]["message"]
    assert gw.version(match_id) == before  # nothing was stored
    if body.get("cards") and body.get("cards") != ["AS"]:
        return
    with gw.websocket_connect(f"/api/matches/{match_id}/ws?token={tokens[1]}") as ws:
        recv(ws)
        ws.send_text(json.dumps({**body, "id": "w1"}))
        frame = recv_until(ws, lambda f: f["type"] == "error")
        assert frame["code"] == code and frame["id"] == "w1"


def test_talon_refusals_by_the_engine(gw: Gateway) -> None:
    match_id, tokens, cards = talon_room(gw, seed=4)
    hakem, other = tokens[1], tokens[0]
    assert post(gw, match_id, hakem, {"type": "discard", "cards": cards[:3]}).json()[
        "error"]["code"] == "wrong_phase"  # trump first
    post(gw, match_id, hakem, {"type": "choose_trump", "suit": "H"})
    cases = [
        (other, {"type": "discard", "cards": cards[5:7]}, "not_your_turn"),
        (hakem, {"type": "discard", "cards": [*cards[:2], cards[7]]}, "illegal_card"),
        (hakem, {"type": "discard", "cards": cards[:2]}, "bad_request"),
        (hakem, {"type": "play", "card": cards[0]}, "wrong_phase"),
    ]
    for token, body, code in cases:
        answer = post(gw, match_id, token, body)
        assert answer.json()["error"]["code"] == code, (body, answer.text)
    assert post(gw, match_id, hakem, {"type": "discard", "cards": cards[:3]}).status_code == 200
    answer = post(gw, match_id, other, {"type": "discard", "cards": cards[5:7], "version": 1})
    assert answer.json()["error"]["code"] == "stale_version"
    view = post(gw, match_id, other, {"type": "discard", "cards": cards[5:7]}).json()["view"]
    assert view["phase"] == "drawing" and view["legal"] == [] and view["talon"]["top"] is None
    hakem_view = gw.get(f"/api/matches/{match_id}/view", headers=bearer(hakem)).json()["view"]
    assert hakem_view["legal"] == ["keep", "discard"] and hakem_view["talon"]["top"] == cards[10]
    assert post(gw, match_id, other, {"type": "draw_talon", "choice": "keep"}).json()[
        "error"]["code"] == "not_your_turn"
    kept = post(gw, match_id, hakem, {"type": "draw_talon", "choice": "discard", "id": "d1"})
    assert cards[11] in kept.json()["view"]["hand"] and cards[10] not in kept.json()["view"][
        "hand"]
    again = post(gw, match_id, hakem, {"type": "draw_talon", "choice": "discard", "id": "d1"})
    assert again.status_code == 200 and again.json()["version"] == kept.json()["version"]


def test_talon_commands_take_the_fast_path(gw: Gateway, monkeypatch: pytest.MonkeyPatch
                                           ) -> None:
    """Once the player is known and the match cached, a discard and a draw are appended on the
    event loop, as a card is: the service's ``handle`` (the thread path) is not called."""
    match_id, tokens, cards = talon_room(gw, seed=5)
    post(gw, match_id, tokens[1], {"type": "choose_trump", "suit": "D"})
    calls: list[Any] = []
    service = gw.rt.service
    real = service.handle

    def counted(*args: Any, **kw: Any) -> Any:
        calls.append(kw.get("player"))
        return real(*args, **kw)

    monkeypatch.setattr(service, "handle", counted)
    for token, body in ((tokens[1], {"type": "discard", "cards": cards[:3]}),
                        (tokens[0], {"type": "discard", "cards": cards[5:7]}),
                        (tokens[1], {"type": "draw_talon", "choice": "keep"}),
                        (tokens[0], {"type": "draw_talon", "choice": "discard"})):
        assert post(gw, match_id, token, body).status_code == 200
    # the thread path ran once: for seat 0's first command (its token's player is learnt then)
    assert calls == [service.authenticate(match_id, tokens[0])[1]]
    assert gw.rt.service.load(match_id).state.phase == DRAWING


@pytest.mark.parametrize(("body", "code"), [
    ({"players": 2, "rules": {"players": 3}}, "bad_request"),
    ({"players": "2"}, "bad_request"),
    ({"players": 5}, "bad_rules"),
    ({"players": 3, "rules": {"bavney": True}}, "bad_rules"),
    ({"players": 2, "rules": {"teams": "as_seated"}}, "bad_rules"),
    ({"players": 2, "rules": {"two_player": "talon", "deal": "5-4-4"}}, "bad_rules"),
    ({"players": 4, "rules": {"two_player": "simple"}}, "bad_rules"),
    ({"players": 2, "first_hakem": 2}, "bad_request"),
    ({"players": 3, "seats": ["human"] * 4}, "bad_request"),
    ({"rules": {"players": 2}, "seats": ["human", "bot:nobody"]}, "bad_request"),
])
def test_variant_rooms_refused_clearly(gw: Gateway, body: dict[str, Any], code: str) -> None:
    answer = gw.post("/api/matches", json=body)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["code"] == code and answer.json()["error"]["message"]


@pytest.mark.parametrize(("body", "players", "rules"), [
    ({"players": 2}, 2, {"two_player": "simple", "deal": "5-4-4"}),
    ({"rules": {"players": 2, "two_player": "talon"}}, 2, {"deal": "talon"}),
    ({"players": 3, "rules": {"target": "2x7", "must_trump": True}}, 3,
     {"deal": "5-4-4-4", "target": "2x7", "must_trump": True}),
    ({"players": 2, "rules": {"deal": "5-3-3-2", "bavney": True}}, 2, {"bavney": True}),
])
def test_variant_rooms_are_created_with_their_rules(gw: Gateway, body: dict[str, Any],
                                                    players: int, rules: dict[str, Any]
                                                    ) -> None:
    created = gw.post("/api/matches", json=body).json()
    summary = gw.get(f"/api/matches/{created['match_id']}").json()
    assert summary["players"] == players == len(summary["seats"])
    assert summary["rules"]["players"] == players
    assert rules.items() <= summary["rules"].items()
    assert "teams" not in summary["rules"]


def played(seed: int, game: str) -> tuple[MatchService, str, dict[int, State]]:
    """A whole match of ``game`` played by seeded human seats through a match service (no
    gateway): the service, the match id and the state after every version."""
    service = MatchService(MemoryStore())
    match_id, tokens = open_room(service, VARIANT_RULES[game])
    live: dict[int, State] = {}
    play_out(service, match_id, tokens, random.Random(seed), live)
    return service, match_id, live


def test_view_texts_splice_each_seats_talon_part() -> None:
    """``view_texts`` sends each seat exactly its own view in every phase of a talon match
    (``talon`` differs per seat: the top card, one's own discards)."""
    _, _, live = played(11, "talon")
    fragments: dict[str, tuple[Any, str]] = {}
    talons = 0
    for version, state in sorted(live.items())[:300]:
        texts = view_texts(Loaded(state, version, b""), (0, 1, None), None, fragments)
        for seat, text in texts.items():
            assert json.loads(text) == {"type": "view", "version": version,
                                        "view": view_for(state, seat, version)}
        talons += state.phase in ("discarding", "drawing")
    assert talons > 20


@given(st.integers(0, 10_000), st.sampled_from(sorted(VARIANT_RULES)))
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_redacted_records_never_show_a_hidden_card(seed: int, game: str) -> None:
    """The records ``/events``, ``since`` catch-up and replays are made of, for any seeded match
    of any variant: each seat's and a spectator's redaction of every event names no card they
    may not know at that record (the new events included: a redacted ``cards_discarded`` is a
    count, a redacted ``talon_drawn`` names no card)."""
    service, match_id, _ = played(seed, game)
    records = service.store.read(match_id)
    ended = next(r.version for r in records if any(isinstance(e, MatchEnded) for e in r.events))
    api = Api.__new__(Api)  # only redacted_records, which needs nothing but the service
    api.service = service
    truth = Truth(records)
    talon_seen = 0
    for seat in (*range(VARIANT_RULES[game]["players"]), None):
        _, out = api.redacted_records(match_id, seat, 0, ended - 1)  # the end reveals all
        assert [r["version"] for r in out] == list(range(1, ended))
        for record, stored in zip(out, records, strict=False):
            hidden = truth.hidden(record["version"], seat)
            for event, original in zip(record["events"], stored.events, strict=True):
                assert not [c for _, c in event_cards(event) if c in hidden], (seat, event)
                if isinstance(original, (CardsDiscarded, TalonDrawn)):
                    talon_seen += 1
                    if original.seat != seat:
                        assert not cards_in(event), event
                        if isinstance(original, CardsDiscarded):
                            assert event["cards"] == len(original.cards) in (2, 3)
    assert (talon_seen > 0) == (game == "talon")
