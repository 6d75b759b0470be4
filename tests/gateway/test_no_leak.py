"""No leak: record every frame and every HTTP answer sent to one seat across whole matches (house
rule variants, bots included, moves over HTTP and over the WebSocket, hints, events, replays
and reconnects) and find no card of another seat's hidden hand, nor of the undealt deck, before
the match is over.  The truth comes from the server side: the match's stream, folded."""

from __future__ import annotations

import random
import re
import time
from dataclasses import dataclass, field
from typing import Any

import pytest

from engine import State, evolve
from services.matches import MatchService

from .helpers import Gateway, bearer, command_for, hidden_from, pending, recv

CARD = re.compile(r"(?<![A-Za-z0-9])[AKQJT2-9][SHDC](?![A-Za-z0-9])")
PUBLIC_PATHS = (
    re.compile(r"^(view\.)?trick\.\d+\.card$"),
    re.compile(r"^(view\.)?last_trick\.cards\.\d+\.card$"),
    re.compile(r"^(view\.)?draw\.\d+\.card$"),
)
"""Cards that are public when shown: on the table, in the last trick, turned in the ace draw."""
PUBLIC_EVENTS = {"card_played": ("card",), "hakem_drawn": ("draw",)}


@dataclass
class Seen:
    """What the spy received: (version it reflects, where, the payload)."""

    items: list[tuple[int, str, Any]] = field(default_factory=list)

    def add(self, version: int, where: str, payload: Any) -> None:
        self.items.append((version, where, payload))


def cards_in(node: Any, path: str = "") -> list[tuple[str, str]]:
    """Every card name in ``node`` (also inside longer strings), with its path."""
    out: list[tuple[str, str]] = []
    if isinstance(node, dict):
        for key, value in node.items():
            out.extend(cards_in(value, f"{path}.{key}" if path else str(key)))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out.extend(cards_in(value, f"{path}.{i}" if path else str(i)))
    elif isinstance(node, str):
        out.extend((path, card) for card in CARD.findall(node))
    return out


def public(path: str) -> bool:
    return any(p.match(path) for p in PUBLIC_PATHS)


def event_cards(event: dict[str, Any]) -> list[tuple[str, str]]:
    """The cards of a redacted event outside its public fields."""
    skip = PUBLIC_EVENTS.get(event.get("type", ""), ())
    return [(p, c) for p, c in cards_in(event) if p.split(".", 1)[0] not in skip]


def truth(gw: Gateway, match_id: str, player: str) -> dict[int, tuple[State, int | None]]:
    """The state after every version and the spy's seat then."""
    state = State()
    out = {0: (state, None)}
    for record in gw.rt.store.read(match_id):
        for event in record.events:
            state = evolve(state, event)
        out[record.version] = (state, MatchService.seat_of_player(state, player))
    return out


def check(gw: Gateway, match_id: str, player: str, tokens: list[str], spy_token: str,
          seen: Seen) -> int:
    states = truth(gw, match_id, player)
    others = [t for t in tokens if t != spy_token]
    checked = 0
    for version, where, payload in seen.items:
        text = repr(payload)
        for token in others:
            assert token not in text, f"another seat's token in {where}"
        state, seat = states[min(version, max(states))]
        if state.phase == "match_over":
            continue  # the end of the match reveals everything, for audit
        hidden = hidden_from(state, seat)
        records = _records(payload)
        if records is not None:  # events: each against the record it belongs to
            for record in records:
                rstate, rseat = states[record["version"]]
                if rstate.phase == "match_over":
                    continue
                rhidden = hidden_from(rstate, rseat)
                for event in record["events"]:
                    leaks = [(p, c) for p, c in event_cards(event) if c in rhidden]
                    assert not leaks, f"{where} v{record['version']}: {leaks} in {event}"
            payload = {k: v for k, v in payload.items()
                       if k not in ("events", "records")} if isinstance(payload, dict) else {}
        leaks = [(p, c) for p, c in cards_in(payload) if c in hidden and not public(p)]
        assert not leaks, f"{where} at v{version} (seat {seat}): {leaks}"
        view = payload.get("view") if isinstance(payload, dict) else None
        if isinstance(view, dict) and view.get("phase") != "match_over":
            assert view.get("hands") is None and view.get("dealt") is None, where
        checked += 1
    return checked


def _records(payload: Any) -> list[dict[str, Any]] | None:
    if not isinstance(payload, dict):
        return None
    if payload.get("type") == "missed":
        return payload["records"]  # type: ignore[no-any-return]
    if isinstance(payload.get("events"), list) and payload["events"] and isinstance(
            payload["events"][0], dict) and "events" in payload["events"][0]:
        return payload["events"]  # type: ignore[no-any-return]
    return None


def play_and_record(gw: Gateway, body: dict[str, Any], seed: int) -> tuple[int, int]:
    """Play one match to its end; returns (items checked, records in the match)."""
    rng = random.Random(seed)
    created = gw.post("/api/matches", json=body).json()
    match_id, spy_token, player = created["match_id"], created["token"], created["player"]
    base = f"/api/matches/{match_id}"
    seen = Seen()
    tokens = [spy_token]
    for _ in range(body.get("seats", ["human"] * 4).count("human") - 1):
        tokens.append(gw.post(base + "/join", json={"name": "Other"}).json()["token"])
    service = gw.rt.service
    hint_since = 0

    def over() -> bool:
        return service.load(match_id).state.phase == "match_over"

    def spy_get(path: str, **params: Any) -> Any:
        answer = gw.get(base + path, params=params, headers=bearer(spy_token))
        version = gw.version(match_id)
        # an answer given once the match is over may show everything (its context: the end)
        seen.add(version if over() or path != "/view" else answer.json()["version"],
                 f"GET {path} {params}", answer.json())
        return answer

    ws = gw.websocket_connect(f"{base}/ws?token={spy_token}")
    ws.__enter__()
    try:
        latest: dict[str, Any] = recv(ws)
        seen.add(latest["version"], "ws first", latest)
        moves = 0
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            for frame in pending(ws):
                version = frame.get("version", latest.get("version", 0))
                seen.add(version if frame["type"] != "missed" else frame["version"], "ws",
                         frame)
                if frame["type"] == "view":
                    latest = frame
            loaded = service.load(match_id)
            state = loaded.state
            if state.phase == "match_over" and state.match.secret is not None:
                break
            seat = service.next_actor(state)
            if seat is None or state.match.seats[seat].bot is not None:  # type: ignore[union-attr]
                time.sleep(0.002)
                continue
            occupant = state.match.seats[seat]
            assert occupant is not None
            if occupant.player == player:
                if latest["version"] < loaded.version:
                    latest = recv(ws)
                    seen.add(latest["version"], "ws", latest)
                    continue
                view = latest["view"]
                if rng.random() < 0.3:
                    spy_get("/hint", since=hint_since)
                    if rng.random() < 0.3:
                        hint_since = loaded.version
                choice = rng.choice(view["legal"])
                if moves % 2:
                    ws.send_json(command_for(view, choice, loaded.version, f"m{moves}"))
                else:
                    answer = gw.post(base + "/commands", headers=bearer(spy_token),
                                     json=command_for(view, choice, loaded.version))
                    seen.add(answer.json().get("version", loaded.version), "POST /commands",
                             answer.json())
                moves += 1
                if rng.random() < 0.15:
                    spy_get("/view")
                if rng.random() < 0.1:
                    spy_get("/events", since=rng.randrange(0, loaded.version + 1))
                if rng.random() < 0.05:
                    step = rng.randrange(0, loaded.version + 1)
                    answer = gw.get(base + "/replay", params={"step": step},
                                    headers=bearer(spy_token))
                    if answer.status_code == 200:
                        seen.add(gw.version(match_id) if over() else step,
                                 f"GET /replay {step}", answer.json())
                if rng.random() < 0.03:  # reconnect, catching up with since
                    ws.__exit__(None, None, None)
                    ws = gw.websocket_connect(
                        f"{base}/ws?token={spy_token}&since={max(0, loaded.version - 30)}")
                    ws.__enter__()
                    latest = recv(ws)
                    seen.add(latest["version"], "ws reconnect", latest)
                continue
            token = next(t for t in tokens if gw.get(base + "/view", headers=bearer(t))
                         .json()["view"]["seat"] == seat)
            view = gw.get(base + "/view", headers=bearer(token)).json()["view"]
            if view["version"] != loaded.version or not view["legal"]:
                continue
            gw.post(base + "/commands", headers=bearer(token),
                    json=command_for(view, rng.choice(view["legal"]), loaded.version))
        else:
            loaded = service.load(match_id)
            raise AssertionError(f"the match did not end in time: {loaded.state!r} at "
                                 f"v{loaded.version}, seats {loaded.state.match.seats}, "
                                 f"spy saw v{latest.get('version')}")
        for frame in pending(ws):
            seen.add(frame.get("version", 0), "ws", frame)
    finally:
        ws.__exit__(None, None, None)
    spy_get("/events", since=0)
    seen.add(gw.version(match_id), "summary", gw.get(base).json())
    return check(gw, match_id, player, tokens, spy_token, seen), gw.version(match_id)


@pytest.mark.parametrize("body", [
    {"seats": ["human", "bot:easy", "bot:easy", "bot:easy"]},
    {"seats": ["bot:easy", "human", "human", "bot:easy"],
     "rules": {"deal": "5-3-3-2", "must_trump": True, "satat": True}},
    {"rules": {"teams": "as_seated", "double_sar": True}},
    {"seats": ["human", "human", "bot:easy", "human"], "rules": {"bavney": True}},
])
def test_no_card_of_another_seat_reaches_a_seat(gw: Gateway, body: dict[str, Any]) -> None:
    checked, versions = play_and_record(gw, body, seed=len(repr(body)))
    assert versions > 100 and checked > versions  # whole matches, every frame looked at
