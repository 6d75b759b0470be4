"""Every HTTP endpoint of docs/api.md on the embedded gateway (fakeredis, in-process bots)."""

from __future__ import annotations

import random
import unicodedata

import pytest

from engine.cards import NAMES
from engine.deal import owner_offsets
from services.audit import check

from .helpers import (
    Gateway, Room, bearer, command_for, create, deck, finish, gateway, room, stacked_room,
    wait_for,
)


def deck_of_hands(hands: list[list[str]], hakem: int = 0) -> list[str]:
    """The 5-4-4 deck that deals ``hands[seat]`` to each seat with ``hakem`` as Hakem (the
    inverse of engine/deal.py: each seat's cards in the order given)."""
    assert sorted(c for hand in hands for c in hand) == sorted(NAMES)
    left = [list(hand) for hand in hands]
    return [left[(hakem + offset) % 4].pop(0) for offset in owner_offsets("5-4-4")]


def match_keys(gw: Gateway) -> set[bytes]:
    """The keys of every match's log and side data."""
    client = gw.rt.client
    return set(client.keys("hokm:{*}:log")) | set(client.keys("hokm:{*}:meta"))


# -- create ------------------------------------------------------------------------------------


def test_invite_links_point_where_the_operator_says() -> None:
    """Without ``HOKM_PUBLIC_URL`` an invite link is made from the request's ``Host`` (which a
    proxy may rewrite to its upstream's name: a QA finding); with it, from the setting, what
    ever ``Host`` says."""
    from .helpers import gateway

    body = {"seats": ["human"] * 4}
    with gateway() as gw:
        made = gw.post("/api/matches", json=body, headers={"Host": "upstream:8000"}).json()
        assert made["invite_url"] == f"http://upstream:8000/m/{made['match_id']}"
    with gateway(public_url="https://hokm.example") as gw:
        made = gw.post("/api/matches", json=body, headers={"Host": "evil.example"}).json()
        assert made["invite_url"] == f"https://hokm.example/m/{made['match_id']}"


def test_create_defaults_four_humans(gw: Gateway) -> None:
    created = create(gw, name="Alice")
    assert set(created) >= {"match_id", "seat", "token", "invite_url", "player"}
    assert created["seat"] == 0
    assert created["invite_url"].endswith(f"/m/{created['match_id']}")
    assert len(created["token"]) >= 22  # at least 128 random bits, url-safe base64
    summary = gw.get(f"/api/matches/{created['match_id']}").json()
    assert summary["phase"] == "waiting"
    assert [s["empty"] for s in summary["seats"]] == [False, True, True, True]
    assert summary["seats"][0]["name"] == "Alice"
    # only a hash of the token is stored
    raw = gw.rt.client.hgetall(f"hokm:{{{created['match_id']}}}:tokens")
    assert created["token"].encode() not in raw and created["token"].encode() not in raw.values()


@pytest.mark.parametrize("layout, creator", [
    (["human", "bot:easy", "bot:medium", "bot:hard"], 0),
    (["bot:easy", "human", "bot:easy", "human"], 1),
    (["bot:medium", "bot:medium", "bot:medium", "human"], 3),
])
def test_create_seat_layouts(gw: Gateway, layout: list[str], creator: int) -> None:
    created = create(gw, seats=layout, rules={"target": 7, "teams": "as_seated"})
    assert created["seat"] == creator
    seats = gw.get(f"/api/matches/{created['match_id']}").json()["seats"]
    for kind, seat in zip(layout, seats, strict=True):
        if kind.startswith("bot:"):
            assert seat["bot"] == kind[4:] and not seat["empty"]
    assert seats[creator]["bot"] is None and not seats[creator]["empty"]
    # with the ace draw the creator may be moved: the answer names the seat after the draw
    created = create(gw, seats=layout)
    view = gw.get(f"/api/matches/{created['match_id']}/view",
                  headers=bearer(created["token"])).json()["view"]
    assert view["seat"] == created["seat"]


@pytest.mark.parametrize("rules", [
    {"target": 10}, {"target": "2x7"}, {"deal": "5-3-3-2"}, {"teams": "as_seated"},
    {"must_trump": True, "satat": True}, {"bavney": True}, {"double_sar": True},
])
def test_create_house_rules(gw: Gateway, rules: dict[str, object]) -> None:
    created = create(gw, rules=rules)
    summary = gw.get(f"/api/matches/{created['match_id']}").json()
    for name, value in rules.items():
        assert summary["rules"][name] == value
    if rules.get("target") == "2x7":
        assert summary["sets"] == [0, 0]


@pytest.mark.parametrize("body, code", [
    ({"rules": {"target": 8}}, "bad_rules"),
    ({"rules": {"bavney": True, "double_sar": True}}, "bad_rules"),
    ({"rules": {"nope": 1}}, "bad_rules"),
    ({"rules": {"must_trump": "yes"}}, "bad_rules"),
    ({"rules": []}, "bad_request"),
    ({"seats": ["human"] * 3}, "bad_request"),
    ({"seats": ["human", "bot:genius", "human", "human"]}, "bad_request"),
    ({"seats": "human"}, "bad_request"),
    ({"players": 5}, "bad_rules"),
    ({"players": "4"}, "bad_request"),
    ({"name": 7}, "bad_request"),
    ({"name": ""}, "bad_request"),
    ({"name": "x" * 41}, "bad_request"),
    ({"disconnect_timeout": -1}, "bad_request"),
    ({"disconnect_timeout": "soon"}, "bad_request"),
    ({"turn_timeout": -1}, "bad_request"),
    ({"turn_timeout": 3601}, "bad_request"),
    ({"turn_timeout": 0.001}, "bad_request"),  # (a stand-in's table at full speed: a floor)
    ({"turn_timeout": 0.999}, "bad_request"),
    ({"turn_timeout": "soon"}, "bad_request"),
    ({"turn_timeout": None}, "bad_request"),
    ({"colour": "red"}, "bad_request"),
])
def test_create_refusals(gw: Gateway, body: dict[str, object], code: str) -> None:
    before = match_keys(gw)
    r = gw.post("/api/matches", json=body)
    assert r.status_code == 400, r.text
    assert r.json()["error"]["code"] == code
    assert match_keys(gw) == before  # nothing was stored


def test_stacked_decks_are_refused_by_default() -> None:
    with gateway(worker=False, allow_stacked_decks=False) as plain:
        for body in ({"first_hakem": 0}, {"decks": [deck(1)]}):
            r = plain.post("/api/matches", json=body)
            assert r.status_code == 400 and r.json()["error"]["code"] == "bad_request", r.text
        assert match_keys(plain) == set()


def test_stacked_decks_deal_as_documented(gw: Gateway) -> None:
    cards = deck(7)
    r = room(gw, first_hakem=2, decks=[cards])
    seats = r.seat_tokens()
    assert sorted(seats) == [0, 1, 2, 3]  # first_hakem skips the ace draw: seats stay as joined
    _, view = r.get_view(seats[2])
    assert view["hakem"] == 2 and view["phase"] == "choosing_trump"
    assert sorted(view["hand"]) == sorted(cards[0:5])
    gw.post(r.base + "/commands", headers=bearer(seats[2]), json={"type": "choose_trump",
                                                                  "suit": "S"})
    for offset, seat in enumerate((2, 3, 0, 1)):
        _, view = r.get_view(seats[seat])
        expected = cards[5 * offset:5 * offset + 5] if offset else cards[0:5]
        expected = list(expected) + cards[20 + 4 * offset:24 + 4 * offset] \
            + cards[36 + 4 * offset:40 + 4 * offset]
        assert sorted(view["hand"]) == sorted(expected)


@pytest.mark.parametrize("body", [
    {"decks": [["AS"] * 52]}, {"decks": "AS"}, {"decks": [list(NAMES)[:51]]},
    {"first_hakem": 4}, {"first_hakem": "0"},
])
def test_bad_stacked_decks(gw: Gateway, body: dict[str, object]) -> None:
    r = gw.post("/api/matches", json=body)
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_request", r.text


# -- join --------------------------------------------------------------------------------------


def test_join_first_open_or_named_seat(gw: Gateway) -> None:
    created = create(gw)
    base = f"/api/matches/{created['match_id']}"
    r = gw.post(base + "/join", json={"name": "Bob", "seat": 2})
    assert r.status_code == 200 and r.json()["seat"] == 2
    assert set(r.json()) >= {"seat", "token", "player"}
    r = gw.post(base + "/join", json={"name": "Cy"})
    assert r.json()["seat"] == 1
    r = gw.post(base + "/join", json={"name": "Dee", "seat": 2})
    assert r.status_code == 409 and r.json()["error"]["code"] == "seat_taken"
    r = gw.post(base + "/join", json={})
    assert r.status_code == 200 and r.json()["seat"] in (0, 1, 2, 3)
    r = gw.post(base + "/join", json={"name": "Eve"})
    assert r.status_code == 409 and r.json()["error"]["code"] == "match_full"
    assert gw.get(base).json()["phase"] in ("choosing_trump", "waiting")


def test_join_refusals(gw: Gateway) -> None:
    r = gw.post("/api/matches/0123456789abcdef/join", json={"name": "Bob"})
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
    created = create(gw)
    base = f"/api/matches/{created['match_id']}"
    for body in ({"seat": 9}, {"seat": "1"}, {"name": ["x"]}, {"seat": -1}, {"name": " "}):
        version = gw.version(created["match_id"])
        r = gw.post(base + "/join", json=body)
        assert r.status_code == 400, (body, r.text)
        assert gw.version(created["match_id"]) == version


def test_first_round_starts_when_every_seat_is_taken(gw: Gateway) -> None:
    r = room(gw, fill=False)
    for _ in range(3):
        assert r.summary()["phase"] == "waiting"
        r.tokens.append(gw.post(r.base + "/join", json={"name": "X"}).json()["token"])
    assert r.summary()["phase"] == "choosing_trump"
    assert r.summary()["round"] == 1


# -- summary, view, commands -------------------------------------------------------------------


def test_summary_and_view(gw: Gateway) -> None:
    r = stacked_room(gw)
    summary = r.summary()
    assert set(summary) >= {"match_id", "players", "phase", "version", "score", "rules",
                            "seats", "round", "winner"}
    assert all(set(s) >= {"name", "bot", "connected", "empty"} for s in summary["seats"])
    version, view = r.get_view(r.tokens[1])
    assert version == summary["version"] == view["version"]
    for key in ("match_id", "version", "seat", "players", "phase", "round", "hakem", "dealer",
                "trump", "hand", "hand_counts", "trick", "leader", "turn", "tricks", "score",
                "target", "legal", "last_trick", "seats", "result"):
        assert key in view
    assert view["seat"] == 1 and view["hand"] == [] and view["hands"] is None
    assert gw.get("/api/matches/ffffffffffffffff").status_code == 404
    assert gw.get("/api/matches/ffffffffffffffff/view",
                  headers=bearer(r.tokens[0])).status_code in (401, 404)


def test_commands_over_http(gw: Gateway) -> None:
    r = stacked_room(gw)
    version, _ = r.get_view(r.tokens[0])
    answer = r.command(r.tokens[0], {"type": "choose_trump", "suit": "H", "version": version})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["version"] == version + 1 and body["view"]["trump"] == "H"
    assert len(body["view"]["hand"]) == 13
    card = body["view"]["legal"][0]
    answer = r.command(r.tokens[0], {"type": "play", "card": card})  # no version: applied
    assert answer.status_code == 200
    assert answer.json()["view"]["trick"] == [{"seat": 0, "card": card}]


def test_idempotent_retry(gw: Gateway) -> None:
    r = stacked_room(gw)
    version, _ = r.get_view(r.tokens[0])
    body = {"type": "choose_trump", "suit": "S", "version": version, "id": "c-1"}
    first = r.command(r.tokens[0], body)
    again = r.command(r.tokens[0], body)
    assert first.status_code == again.status_code == 200
    assert first.json()["version"] == again.json()["version"] == version + 1
    assert gw.version(r.match_id) == version + 1  # applied once
    # the same id from another player is another command
    _, view1 = r.get_view(r.tokens[1])
    assert view1["turn"] == 0
    # a retry after the match moved on still gets the original answer
    card = first.json()["view"]["legal"][0]
    played = r.command(r.tokens[0], {"type": "play", "card": card, "id": "c-2"})
    assert played.status_code == 200
    retry = r.command(r.tokens[0], body)
    assert retry.status_code == 200 and retry.json()["version"] == version + 1
    assert retry.json()["view"]["trick"] == []
    assert gw.version(r.match_id) == version + 2


@pytest.mark.parametrize("mutate, code, status", [
    (lambda v, view: {"type": "play", "card": view["hand"][0], "version": v}, "wrong_phase",
     409),
    (lambda v, view: {"type": "choose_trump", "suit": "H", "version": v - 1}, "stale_version",
     409),
    (lambda v, view: {"type": "choose_trump", "suit": "X", "version": v}, "bad_request", 400),
    (lambda v, view: {"type": "choose_trump", "suit": "H", "version": "7"}, "bad_request", 400),
    (lambda v, view: {"type": "choose_trump", "suit": "H", "version": -1}, "bad_request", 400),
    (lambda v, view: {"type": "choose_trump", "suit": "H", "id": ""}, "bad_request", 400),
    (lambda v, view: {"type": "choose_trump", "suit": "H", "id": "x" * 65}, "bad_request", 400),
    (lambda v, view: {"type": "choose_trump", "suit": "H", "extra": 1}, "bad_request", 400),
    (lambda v, view: {"type": "resign"}, "bad_request", 400),
    (lambda v, view: {"card": "AS"}, "bad_request", 400),
    (lambda v, view: {"type": "play", "card": 12}, "bad_request", 400),
])
def test_refused_commands_do_not_change_the_match(gw: Gateway, mutate: object, code: str,
                                                   status: int) -> None:
    r = stacked_room(gw)
    version, view = r.get_view(r.tokens[0])
    answer = r.command(r.tokens[0], mutate(version, view))  # type: ignore[operator]
    assert answer.status_code == status, answer.text
    assert answer.json()["error"]["code"] == code
    assert gw.version(r.match_id) == version


def test_turn_and_card_refusals(gw: Gateway) -> None:
    # every fourth card of the canonical deck to each seat: every seat holds every suit, so
    # seat 1 can follow seat 0's lead and also holds cards that may not follow it
    hands = [[c for i, c in enumerate(NAMES) if i % 4 == seat] for seat in range(4)]
    r = room(gw, first_hakem=0, decks=[deck_of_hands(hands)])
    version, _ = r.get_view(r.tokens[0])
    # another seat names trump: not its decision
    answer = r.command(r.tokens[1], {"type": "choose_trump", "suit": "H"})
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "not_your_turn"
    r.command(r.tokens[0], {"type": "choose_trump", "suit": "H"})
    version, view0 = r.get_view(r.tokens[0])
    _, view1 = r.get_view(r.tokens[1])
    answer = r.command(r.tokens[1], {"type": "play", "card": view1["hand"][0]})
    assert answer.json()["error"]["code"] == "not_your_turn"
    absent = next(c for c in NAMES if c not in view0["hand"])
    answer = r.command(r.tokens[0], {"type": "play", "card": absent})
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "illegal_card"
    answer = r.command(r.tokens[0], {"type": "play", "card": "ZZ"})
    assert answer.status_code == 400
    assert gw.version(r.match_id) == version
    # follow suit: seat 0 leads, seat 1 tries a card of another suit while holding the led suit
    lead = view0["hand"][0]
    r.command(r.tokens[0], {"type": "play", "card": lead})
    version, view1 = r.get_view(r.tokens[1])
    assert any(c[1] == lead[1] for c in view1["hand"])
    wrong = [c for c in view1["hand"] if c not in view1["legal"]]
    assert wrong and all(c[1] != lead[1] for c in wrong)
    answer = r.command(r.tokens[1], {"type": "play", "card": wrong[0]})
    assert answer.status_code == 409
    assert answer.json()["error"]["code"] == "must_follow_suit"
    assert gw.version(r.match_id) == version


def test_must_trump_code(gw: Gateway) -> None:
    """Seat 0 (Hakem, all the hearts) names spades and leads a heart; seat 1 holds no heart but
    spades and diamonds: under must_trump a diamond is refused with ``must_trump``."""
    spades = [r + "S" for r in "AKQJT98765432"]
    diamonds = [r + "D" for r in "AKQJT98765432"]
    hands = [
        [r + "H" for r in "AKQJT98765432"],
        spades[:7] + diamonds[:6],
        spades[7:] + diamonds[6:],
        [r + "C" for r in "AKQJT98765432"],
    ]
    r = room(gw, first_hakem=0, decks=[deck_of_hands(hands)], rules={"must_trump": True})
    assert r.command(r.tokens[0], {"type": "choose_trump", "suit": "S"}).status_code == 200
    _, view1 = r.get_view(r.tokens[1])
    assert sorted(view1["hand"]) == sorted(hands[1])
    assert r.command(r.tokens[0], {"type": "play", "card": "AH"}).status_code == 200
    version, view1 = r.get_view(r.tokens[1])
    assert sorted(view1["legal"]) == sorted(spades[:7])  # void in hearts: trumps only
    answer = r.command(r.tokens[1], {"type": "play", "card": "AD"})
    assert answer.status_code == 409
    assert answer.json()["error"]["code"] == "must_trump"
    assert gw.version(r.match_id) == version
    # the same position without the rule: the diamond is a plain discard
    plain = room(gw, first_hakem=0, decks=[deck_of_hands(hands)])
    plain.command(plain.tokens[0], {"type": "choose_trump", "suit": "S"})
    plain.command(plain.tokens[0], {"type": "play", "card": "AH"})
    assert plain.command(plain.tokens[1], {"type": "play", "card": "AD"}).status_code == 200


def test_match_over_refuses_commands(gw: Gateway) -> None:
    r = stacked_room(gw, seed=5)
    finish(gw, r.match_id, random.Random(5))
    version = gw.version(r.match_id)
    answer = r.command(r.tokens[0], {"type": "play", "card": "AS"})
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "match_over"
    assert gw.version(r.match_id) == version
    summary = r.summary()
    assert summary["winner"] in (0, 1) and summary["phase"] == "match_over"
    # joins are refused too
    answer = gw.post(r.base + "/join", json={"name": "Late"})
    assert answer.status_code == 409


# -- events and replay -------------------------------------------------------------------------


def test_events_since_redacted(gw: Gateway) -> None:
    r = stacked_room(gw, seed=2)
    everyone = gw.get(r.base + "/events").json()
    assert everyone["version"] == gw.version(r.match_id)
    assert [rec["version"] for rec in everyone["events"]] == list(range(1, everyone["version"]
                                                                        + 1))
    types = [e["type"] for rec in everyone["events"] for e in rec["events"]]
    assert "round_started" in types
    started = next(e for rec in everyone["events"] for e in rec["events"]
                   if e["type"] == "round_started")
    assert "deck" not in started and started["hand"] == []
    for rec in everyone["events"]:
        for e in rec["events"]:
            assert "player" not in e
    mine = gw.get(r.base + "/events", params={"since": 3}, headers=bearer(r.tokens[0])).json()
    assert all(rec["version"] > 3 for rec in mine["events"])
    started = next(e for rec in mine["events"] for e in rec["events"]
                   if e["type"] == "round_started")
    assert sorted(started["hand"]) == sorted(deck(2)[:5])
    theirs = gw.get(r.base + "/events", params={"since": 0},
                    headers=bearer(r.tokens[1])).json()
    started = next(e for rec in theirs["events"] for e in rec["events"]
                   if e["type"] == "round_started")
    assert started["hand"] == []
    assert gw.get(r.base + "/events", params={"since": "x"}).status_code == 400
    assert gw.get(r.base + "/events", params={"since": "-1"}).status_code == 400
    assert gw.get(r.base + "/events", headers=bearer("nope")).status_code == 401
    assert gw.get("/api/matches/abcdefabcdef0000/events").status_code == 404
    after = gw.get(r.base + "/events", params={"since": 10_000}).json()
    assert after["events"] == []


def test_replay_before_and_after_the_end(gw: Gateway) -> None:
    r = stacked_room(gw, seed=3)
    # before the end: only with a seat token, and only that seat's view
    assert gw.get(r.base + "/replay").status_code == 401
    mine = gw.get(r.base + "/replay", params={"step": 6}, headers=bearer(r.tokens[0])).json()
    assert mine["step"] == 6 and mine["view"]["seat"] == 0
    assert mine["view"]["hands"] is None and len(mine["view"]["hand"]) == 5
    theirs = gw.get(r.base + "/replay", params={"step": 6}, headers=bearer(r.tokens[2])).json()
    assert theirs["view"]["hand"] == [] and theirs["view"]["hands"] is None
    assert gw.get(r.base + "/replay", params={"step": 10_000},
                  headers=bearer(r.tokens[0])).status_code == 400
    finish(gw, r.match_id, random.Random(3))
    # after: anyone, every hand
    whole = gw.get(r.base + "/replay").json()
    assert whole["step"] == whole["steps"] == gw.version(r.match_id)
    at = gw.get(r.base + "/replay", params={"step": 6}).json()
    assert at["steps"] == whole["steps"]
    assert [len(h) for h in at["view"]["hands"]] == [5, 0, 0, 0]
    assert all(len(h) == 13 for h in at["view"]["dealt"]) or at["view"]["dealt"] is not None
    zero = gw.get(r.base + "/replay", params={"step": 0}).json()
    assert zero["step"] == 0 and zero["events"] == []
    assert zero["view"]["match_id"] == r.match_id == at["view"]["match_id"]  # (it was "")
    assert gw.get(r.base + "/replay", params={"step": "two"}).status_code == 400
    assert gw.get("/api/matches/abcdefabcdef0001/replay").status_code == 404
    # a seat's token says whose replay it is (every hand still shown); another token is nobody's
    seats = [gw.get(r.base + "/replay", params={"step": 6}, headers=bearer(t)).json()
             for t in r.tokens]
    assert [s["view"]["seat"] for s in seats] == [0, 1, 2, 3]
    assert all(s["view"]["hands"] == at["view"]["hands"] for s in seats)
    assert seats[0]["view"]["hand"] == at["view"]["hands"][0]
    assert at["view"]["seat"] is None
    stranger = gw.get(r.base + "/replay", params={"step": 6}, headers=bearer("nope"))
    assert stranger.status_code == 200 and stranger.json()["view"] == at["view"]


# -- hints -------------------------------------------------------------------------------------


def test_hint_limits(gw: Gateway) -> None:
    r = stacked_room(gw, seed=4)
    since, view = r.get_view(r.tokens[0])
    h = gw.get(r.base + "/hint", params={"since": since}, headers=bearer(r.tokens[0]))
    assert h.status_code == 200, h.text
    assert h.json()["suggestion"] in view["legal"] and h.json()["remaining"] == 2
    assert isinstance(h.json()["reason"], str)
    # the additions to v1: the sentence's code and the values it is filled with
    assert isinstance(h.json()["reason_code"], str) and h.json()["reason_code"]
    assert isinstance(h.json()["reason_args"], dict)
    # nothing to decide for seat 1 now
    h = gw.get(r.base + "/hint", params={"since": since}, headers=bearer(r.tokens[1]))
    assert h.status_code == 409 and h.json()["error"]["code"] == "not_your_turn"
    used = 0
    rng = random.Random(4)
    while used < 3:
        version, view = r.get_view(r.tokens[0])
        if view["legal"]:
            h = gw.get(r.base + "/hint", params={"since": since}, headers=bearer(r.tokens[0]))
            assert h.status_code == 200, h.text
            assert h.json()["remaining"] == 2 - used
            assert r.command(r.tokens[0], command_for(view, h.json()["suggestion"],
                                                      version)).status_code == 200
            used += 1
        else:
            assert r.step(rng) is not None, f"the match ended after {used} hints"
    while not r.get_view(r.tokens[0])[1]["legal"]:
        assert r.step(rng) is not None, "the match ended before seat 0's next turn"
    h = gw.get(r.base + "/hint", params={"since": since}, headers=bearer(r.tokens[0]))
    assert h.status_code == 409 and h.json()["error"]["code"] == "hints_exhausted"
    # switching hints on again (a new since) gives three more
    now = gw.version(r.match_id)
    h = gw.get(r.base + "/hint", params={"since": now}, headers=bearer(r.tokens[0]))
    assert h.status_code == 200 and h.json()["remaining"] == 2
    assert gw.get(r.base + "/hint").status_code == 401


# -- leave and bots ----------------------------------------------------------------------------


def test_leave_frees_the_seat(gw: Gateway) -> None:
    r = room(gw, fill=False)
    joined = gw.post(r.base + "/join", json={"name": "Bob"}).json()
    answer = gw.post(r.base + "/leave", headers=bearer(joined["token"]))
    assert answer.status_code == 200
    assert r.summary()["seats"][joined["seat"]]["empty"]
    # the token stops working
    assert gw.get(r.base + "/view", headers=bearer(joined["token"])).status_code == 401
    assert gw.post(r.base + "/leave", headers=bearer(joined["token"])).status_code == 401
    # the seat can be claimed again
    again = gw.post(r.base + "/join", json={"name": "Cy", "seat": joined["seat"]})
    assert again.status_code == 200


def test_leave_to_a_bot_mid_match(gw: Gateway) -> None:
    r = stacked_room(gw, seed=8)
    r.command(r.tokens[0], {"type": "choose_trump", "suit": "D"})
    answer = gw.post(r.base + "/leave", headers=bearer(r.tokens[2]),
                     json={"replace_with": "bot:easy"})
    assert answer.status_code == 200, answer.text
    assert r.summary()["seats"][2]["bot"] == "easy"
    assert gw.get(r.base + "/view", headers=bearer(r.tokens[2])).status_code == 401
    # one record: the seat was never empty, and the log still audits as legal
    handed = gw.get(r.base + "/events").json()["events"][-1]
    assert [e["type"] for e in handed["events"]] == ["seat_left", "seat_taken"], handed
    assert check(gw.rt.service.store.read(r.match_id)) == []
    r.tokens.remove(r.tokens[2])
    rng = random.Random(8)
    for _ in range(12):  # the bot plays its turns
        r.step(rng)
    events = gw.get(r.base + "/events").json()["events"]
    assert any(rec["actor"] == 2 for rec in events)
    bad = gw.post(r.base + "/leave", headers=bearer(r.tokens[1]),
                  json={"replace_with": "bot:genius"})
    assert bad.status_code == 400
    assert not r.summary()["seats"][1]["empty"]


def test_a_bot_never_takes_the_name_of_a_player_at_the_table(gw: Gateway) -> None:
    """QA: a bot's name was its seat's in ``BOT_NAMES`` whoever sat at the table: a player
    called Kian playing solo met a bot Kian, and a player whose seat the ace draw had moved
    left it to a stand-in named as the bot that sat there before ("Shirin" twice at the table,
    every line naming them ambiguous).  A bot takes a name nobody at the table has."""
    def names(r: Room) -> list[str]:
        return [s["name"] for s in r.summary()["seats"] if not s["empty"]]

    solo = room(gw, seats=["human", "bot:easy", "bot:easy", "bot:easy"], name="kian")
    assert len({n.casefold() for n in names(solo)}) == 4, names(solo)
    # a leave to a bot, the seat's own name taken by another player
    r = stacked_room(gw, seed=8, name="Kian")
    answer = gw.post(r.base + "/leave", headers=bearer(r.tokens[2]),
                     json={"replace_with": "bot:easy"})
    assert answer.status_code == 200, answer.text
    assert r.summary()["seats"][2]["bot"] == "easy"
    assert len(set(names(r))) == 4, names(r)
    # an empty seat given to a bot
    r = room(gw, fill=False, name="Roxana")
    assert gw.post(r.base + "/seats/1/bot", headers=bearer(r.tokens[0]),
                   json={"level": "easy"}).status_code == 200
    assert r.summary()["seats"][1]["bot"] == "easy"
    assert len(set(names(r))) == 2, names(r)


def test_a_bot_never_takes_a_name_that_reads_as_a_players(gw: Gateway) -> None:
    """QA: a player named "ＫＩＡＮ" (the fullwidth letters a phone's keyboard may give) met a
    bot "Kian": unequal in any case, the same name to whoever reads the table.  Names are
    compared as they read (NFKC, then in any case)."""
    solo = room(gw, seats=["human", "bot:easy", "bot:easy", "bot:easy"],
                name="\uff2b\uff29\uff21\uff2e")
    names = [s["name"] for s in solo.summary()["seats"]]
    assert len({unicodedata.normalize("NFKC", n).casefold() for n in names}) == 4, names


def test_a_player_who_joins_under_a_bots_name_keeps_it(gw: Gateway) -> None:
    """The reverse: a player joining as "kian" where a bot is called "Kian" keeps the name
    typed; the bot is shown under another from the join's record on (``seat_renamed``)."""
    r = room(gw, fill=False, seats=["human", "human", "bot:easy", "bot:easy"], name="Ali")
    assert [s["name"] for s in r.summary()["seats"]][2] == "Kian"
    joined = gw.post(r.base + "/join", json={"name": "kian"})
    assert joined.status_code == 200, joined.text
    seats = r.summary()["seats"]
    assert sorted(s["name"] for s in seats) == ["Ali", "Dara", "Shirin", "kian"], seats
    records = gw.get(r.base + "/events", headers=bearer(r.tokens[0])).json()["events"]
    events = [e for record in records for e in record["events"]]
    renamed = [e for e in events if e["type"] == "seat_renamed"]
    assert renamed == [{"type": "seat_renamed", "seat": 2, "name": "Dara"}], renamed


def test_seat_to_a_bot(gw: Gateway) -> None:
    r = room(gw, fill=False)
    token = r.tokens[0]
    answer = gw.post(r.base + "/seats/1/bot", headers=bearer(token), json={"level": "easy"})
    assert answer.status_code == 200 and answer.json() == {"seat": 1, "bot": "easy"}
    assert r.summary()["seats"][1]["bot"] == "easy"
    taken = gw.post(r.base + "/seats/1/bot", headers=bearer(token), json={"level": "easy"})
    assert taken.status_code == 409 and taken.json()["error"]["code"] == "seat_taken"
    for path, body, status in [
        ("/seats/2/bot", {"level": "genius"}, 400),
        ("/seats/2/bot", {"level": 3}, 400),
        ("/seats/9/bot", {"level": "easy"}, 400),
    ]:
        answer = gw.post(r.base + path, headers=bearer(token), json=body)
        assert answer.status_code == status, answer.text
    assert gw.post(r.base + "/seats/2/bot", json={}).status_code == 401
    assert gw.post(r.base + "/seats/2/bot", headers=bearer("x" * 30)).status_code == 401
    assert gw.post(r.base + "/seats/x/bot", headers=bearer(token)).status_code == 400
    gw.post(r.base + "/seats/2/bot", headers=bearer(token), json={})  # default level
    gw.post(r.base + "/seats/3/bot", headers=bearer(token), json={"level": "hard"})
    wait_for(lambda: r.summary()["phase"] != "waiting")


# -- health, documents, pages ------------------------------------------------------------------


def test_health(gw: Gateway) -> None:
    assert gw.get("/healthz").status_code == 200
    assert gw.get("/readyz").json() == {"ok": True, "store": True, "queue": True}


def test_openapi_document(gw: Gateway) -> None:
    doc = gw.get("/openapi.json").json()
    assert doc["openapi"].startswith("3.")
    paths = doc["paths"]
    for path in ("/api/matches", "/api/matches/{match_id}", "/api/matches/{match_id}/join",
                 "/api/matches/{match_id}/view", "/api/matches/{match_id}/commands",
                 "/api/matches/{match_id}/events", "/api/matches/{match_id}/replay",
                 "/api/matches/{match_id}/hint", "/api/matches/{match_id}/leave",
                 "/api/matches/{match_id}/seats/{seat}/bot", "/healthz", "/readyz"):
        assert path in paths, path

    def refs(node: object) -> list[str]:
        if isinstance(node, dict):
            return [v for k, v in node.items() if k == "$ref"] + [
                r for v in node.values() for r in refs(v)]
        if isinstance(node, list):
            return [r for v in node for r in refs(v)]
        return []

    for ref in refs(doc):
        target: object = doc
        for part in ref.removeprefix("#/").split("/"):
            assert isinstance(target, dict) and part in target, ref
            target = target[part]
    for methods in paths.values():
        for op in methods.values():
            assert op["responses"] and all(code.isdigit() for code in op["responses"])
    page = gw.get("/api")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert "/api/matches/{match_id}/commands" in page.text


@pytest.mark.parametrize("path", ["/", "/m/abc123", "/replay/abc123", "/how-to-play"])
def test_spa_routes(gw: Gateway, path: str) -> None:
    answer = gw.get(path)
    assert answer.status_code == 200 and "text/html" in answer.headers["content-type"]


def test_unknown_paths_and_methods(gw: Gateway) -> None:
    answer = gw.get("/api/nothing")
    assert answer.status_code == 404 and answer.json()["error"]["code"] == "not_found"
    answer = gw.delete("/api/matches")
    # its own code, whose documented status is 405 (the finding: bad_request, a 400 code)
    assert answer.status_code == 405 and answer.json()["error"]["code"] == "method_not_allowed"
    assert answer.headers["Allow"] == "POST"
    assert gw.get("/static/does-not-exist.js").status_code == 404


def test_the_socket_path_asked_without_the_upgrade_says_so(gw: Gateway) -> None:
    """``/ws`` asked as plain HTTP (a client without WebSocket support, a proxy that drops the
    Upgrade header) is a documented path: the finding (a client author's probe) was a ``404
    not_found`` "Not Found", read as a wrong URL, and a POST there a 404 too, not the 405 of a
    path that exists.  Now a ``400 bad_request`` that says to open it as a WebSocket, and a
    ``405`` naming GET for any other method."""
    match_id = create(gw)["match_id"]
    for path in (f"/api/matches/{match_id}/ws", f"/api/matches/{match_id}/ws?since=3",
                 "/api/matches/nope/ws"):
        answer = gw.get(path)
        assert answer.status_code == 400, (path, answer.status_code, answer.text)
        error = answer.json()["error"]
        assert error["code"] == "bad_request" and "WebSocket" in error["message"], error
    answer = gw.post(f"/api/matches/{match_id}/ws", json={"type": "ping"})
    assert answer.status_code == 405 and answer.json()["error"]["code"] == "method_not_allowed"
    assert "GET" in answer.headers["Allow"]
    with gw.websocket_connect(f"/api/matches/{match_id}/ws") as socket:  # still a socket
        assert socket.receive_json()["type"] == "view"


def test_api_answers_are_never_stored_by_a_cache(gw: Gateway) -> None:
    """The finding (a security review): a seat's ``GET /view`` (its hand) had no
    Cache-Control, and the browser kept it in its disk cache after the tab closed."""
    r = stacked_room(gw, seed=31)
    token = r.tokens[0]
    private = [gw.get(r.base + path, headers=bearer(token))
               for path in ("/view", "/hint", "/events", "/replay")]
    for answer in [*private, gw.get(r.base), gw.get("/api/matches/nope"),
                   gw.post("/api/matches", json={"seats": "x"})]:
        assert answer.headers.get("cache-control") == "no-store", (answer.url, answer.headers)
    assert [a.status_code for a in private] == [200] * 4
    assert "no-store" not in gw.get("/").headers.get("cache-control", "")  # pages: no-cache
