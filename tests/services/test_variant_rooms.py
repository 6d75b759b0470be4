"""Rooms for the two- and three-player games (issue 13) through the match service: created with
the variant's rules and seats, joined, played to the end by human seats (seeded decisions, and
stacked decks whose dealing and drawing order is checked against docs/api.md), rebuilt from the
store at every version exactly as played live, and caught up by a second service from an
older version.  Every house-rule combination the engine accepts opens a room; the others, and
seat layouts of the wrong length, are refused with a clear code."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from engine import NAMES, ChooseTrump, PlayCard, Rules, legal_choices, view_for
from engine.commands import Command, Discard, DrawTalon
from engine.errors import BadRules, HokmError
from engine.events import CardsDiscarded, RoundEnded, TalonDrawn
from engine.state import CHOOSING_TRUMP, DISCARDING, DRAWING, MATCH_OVER, State
from engine.variants import VARIANTS
from services.matches import MatchService
from services.store.memory import MemoryStore
from tests.engine.test_hidden_info import cards_in

VARIANT_RULES: dict[str, dict[str, Any]] = {
    "simple": {"players": 2},
    "talon": {"players": 2, "two_player": "talon"},
    "three": {"players": 3},
}


def open_room(service: MatchService, rules: dict[str, Any], **kw: Any) -> tuple[str, list[str]]:
    """A room of ``rules`` with a human in every seat; the match id and the seats' tokens."""
    created = service.create(name="P0", rules=rules, **kw)
    match_id = created["match_id"]
    assert created["seat"] == 0
    n = rules["players"]
    tokens = [created["token"]] + [service.join(match_id, f"P{i}")["token"]
                                   for i in range(1, n)]
    return match_id, tokens


def choose(state: State, seat: int, rng: random.Random) -> Command:
    """A legal decision of ``seat`` in any phase, drawn from ``rng``."""
    legal = legal_choices(state, seat)
    if state.phase == CHOOSING_TRUMP:
        return ChooseTrump(rng.choice(legal))
    if state.phase == DISCARDING:
        return Discard(tuple(rng.sample(legal, 3 if seat == state.hakem else 2)))
    if state.phase == DRAWING:
        assert legal == ["keep", "discard"]
        return DrawTalon(rng.choice(legal) == "keep")
    return PlayCard(rng.choice(legal))


def play_out(service: MatchService, match_id: str, tokens: list[str], rng: random.Random,
             live: dict[int, State], *, until: int | None = None) -> None:
    """Play seeded decisions of the seats (looked up by token) until the match is over (or its
    version reaches ``until``), keeping the state after every version in ``live``."""
    seat_of = {service.authenticate(match_id, t)[0]: t for t in tokens}
    assert sorted(seat_of) == list(range(len(tokens)))
    loaded = service.load(match_id)
    live[loaded.version] = loaded.state
    while loaded.state.phase != MATCH_OVER and (until is None or loaded.version < until):
        seat = loaded.state.turn
        assert seat is not None and seat in seat_of, loaded.state.phase
        out = service.handle(match_id, seat, choose(loaded.state, seat, rng),
                             version=loaded.version)
        live[out.version] = out.state
        assert out.latest is not None
        for version in range(out.version + 1, out.latest.version + 1):  # the system steps
            live[version] = service.state_at(match_id, version)
        loaded = out.latest


@pytest.mark.parametrize("game", sorted(VARIANT_RULES))
def test_each_variant_is_played_to_its_end_and_rebuilt_as_it_was_played(game: str) -> None:
    store = MemoryStore()
    service = MatchService(store)
    rules = VARIANT_RULES[game]
    match_id, tokens = open_room(service, rules)
    first = service.load(match_id).state
    assert first.rules == Rules.from_dict(rules)
    assert first.rules.variant is VARIANTS[game]
    assert first.phase == CHOOSING_TRUMP  # every seat taken: the Hakem drawn, the deal begun
    with pytest.raises(HokmError) as full:
        service.join(match_id, "late")
    assert full.value.code == "match_full"

    rng = random.Random(f"rooms-{game}")
    live: dict[int, State] = {}
    play_out(service, match_id, tokens, rng, live, until=first_version(service, match_id) + 40)
    follower = MatchService(store)  # another process, which saw the match at this version
    behind = follower.load(match_id)
    play_out(service, match_id, tokens, rng, live)

    final = service.load(match_id)
    state = final.state
    assert state.phase == MATCH_OVER and state.match.secret is not None
    assert max(state.match.score) >= state.rules.target
    assert len(state.match.score) == len(VARIANTS[game].sides)
    events = [e for r in store.read(match_id) for e in r.events]
    talon_events = [e for e in events if isinstance(e, (CardsDiscarded, TalonDrawn))]
    assert bool(talon_events) == (game == "talon")
    ends = [e for e in events if isinstance(e, RoundEnded)]
    assert ends and all(len(e.tricks) == rules["players"] for e in ends)

    caught_up = follower.load(match_id)  # reads only the records after ``behind``
    assert behind.version < caught_up.version == final.version
    assert caught_up.state == state
    assert sorted(live) == list(range(first_version(service, match_id), final.version + 1))
    for version in range(1, final.version + 1, 7):
        if version not in live:
            continue
        rebuilt = service.state_at(match_id, version)
        assert rebuilt == live[version], version
        for seat in (*range(rules["players"]), None):
            assert view_for(rebuilt, seat, version) == view_for(live[version], seat, version)


def first_version(service: MatchService, match_id: str) -> int:
    """The version at which the match first waited for a player (after creation and seating)."""
    records = service.store.read(match_id)
    for record in records:
        state = service.state_at(match_id, record.version)
        if state.phase == CHOOSING_TRUMP:
            return record.version
    raise AssertionError("the match never waited for trump")


def expected_hands(deck: list[str], hakem: int, players: int, packets: tuple[int, ...],
                   removed: tuple[str, ...] = ()) -> list[set[str]]:
    """The dealing order of docs/api.md, written out independently of the engine: from the
    playing deck (without ``removed``), packets of the given sizes to each seat in turn from the
    Hakem (the first packet of five to each, then the deal rule's packets)."""
    cards = iter(c for c in deck if c not in removed)
    hands: list[set[str]] = [set() for _ in range(players)]
    for size in packets:
        for k in range(players):
            hands[(hakem + k) % players] |= {next(cards) for _ in range(size)}
    return hands


@pytest.mark.parametrize(("rules", "packets"), [
    ({"players": 2}, (5, 4, 4)),
    ({"players": 2, "deal": "5-3-3-2"}, (5, 3, 3, 2)),
    ({"players": 3}, (5, 4, 4, 4)),
])
def test_stacked_decks_deal_in_the_documented_order(rules: dict[str, Any],
                                                    packets: tuple[int, ...]) -> None:
    service = MatchService(MemoryStore(), allow_stacked=True)
    deck = random.Random(5).sample(NAMES, 52)
    hakem = rules["players"] - 1
    match_id, _ = open_room(service, rules, first_hakem=hakem, decks=[deck])
    state = service.load(match_id).state
    removed = tuple(NAMES[c] for c in state.rules.variant.removed)
    expected = expected_hands(deck, hakem, rules["players"], packets, removed)
    assert removed == (("2C",) if rules["players"] == 3 else ())
    hakem_view = view_for(state, hakem)
    playing = [c for c in deck if c not in removed]
    assert set(hakem_view["hand"]) == set(playing[:5])  # only the first five before trump
    service.handle(match_id, hakem, ChooseTrump("S"))
    state = service.load(match_id).state
    for seat in range(rules["players"]):
        assert set(view_for(state, seat)["hand"]) == expected[seat]
    if rules["players"] == 2:  # the simple game: deck[26:] is dealt to nobody, shown to nobody
        unused = set(deck[26:])
        assert not unused & set().union(*expected)
        for seat in (0, 1, None):
            assert not unused & cards_in(view_for(state, seat))


def test_the_talon_game_deals_and_draws_in_the_documented_order() -> None:
    """Five to the Hakem (trump), five to the other; the Hakem discards 3, the other 2; then, the
    Hakem first, each turn looks at ``deck[10 + 2t]``: keep it (and discard ``deck[11 + 2t]``)
    or discard it (and keep ``deck[11 + 2t]``)."""
    service = MatchService(MemoryStore(), allow_stacked=True)
    deck = random.Random(6).sample(NAMES, 52)
    hakem, other = 1, 0
    match_id, _ = open_room(service, VARIANT_RULES["talon"], first_hakem=hakem, decks=[deck])
    assert set(view_for(service.load(match_id).state, hakem)["hand"]) == set(deck[:5])
    service.handle(match_id, hakem, ChooseTrump("H"))
    state = service.load(match_id).state
    assert state.phase == DISCARDING and state.turn == hakem
    assert set(view_for(state, other)["hand"]) == set(deck[5:10])
    service.handle(match_id, hakem, Discard(tuple(deck[:3])))
    service.handle(match_id, other, Discard(tuple(deck[5:7])))
    hands = {hakem: set(deck[3:5]), other: set(deck[7:10])}
    rng = random.Random(7)
    for turn in range(21):
        state = service.load(match_id).state
        seat = (hakem, other)[turn % 2]
        assert state.phase == DRAWING and state.turn == seat
        top, below = deck[10 + 2 * turn], deck[11 + 2 * turn]
        talon = view_for(state, seat)["talon"]
        assert talon["top"] == top and talon["left"] == 42 - 2 * turn
        assert view_for(state, 1 - seat)["talon"]["top"] is None
        keep = rng.random() < 0.5
        service.handle(match_id, seat, DrawTalon(keep))
        hands[seat].add(top if keep else below)
    state = service.load(match_id).state
    assert state.phase == "playing" and state.turn == hakem
    for seat in (hakem, other):
        assert set(view_for(state, seat)["hand"]) == hands[seat] and len(hands[seat]) == 13


HOUSE_RULES = {
    "target": (7, 10, "2x7"), "must_trump": (False, True), "satat": (False, True),
    "bavney": (False, True), "double_sar": (False, True),
}


@pytest.mark.parametrize("game", sorted(VARIANT_RULES))
def test_every_house_rule_combination_the_engine_accepts_opens_a_room(game: str) -> None:
    service = MatchService(MemoryStore())
    deals = (*VARIANTS[game].deals, "5-4-4")
    opened = refused = 0
    for values in itertools.product(sorted(set(deals)), *HOUSE_RULES.values()):
        rules = {**VARIANT_RULES[game], **dict(zip(("deal", *HOUSE_RULES), values, strict=True))}
        try:
            expected: Rules | None = Rules.from_dict(rules)
        except BadRules:
            expected = None
        if expected is None:
            with pytest.raises(HokmError) as info:
                service.create(name="A", rules=rules)
            assert info.value.code == "bad_rules" and info.value.message
            refused += 1
        else:
            match_id = service.create(name="A", rules=rules)["match_id"]
            assert service.load(match_id).state.rules == expected
            opened += 1
    assert opened and refused  # both kinds met (e.g. bavney with double_sar is refused)


@pytest.mark.parametrize(("kwargs", "code"), [
    ({"players": 2, "rules": {"players": 2, "teams": "as_seated"}}, "bad_rules"),
    ({"rules": {"players": 3, "bavney": True}}, "bad_rules"),
    ({"rules": {"players": 3, "deal": "5-4-4"}}, "bad_rules"),
    ({"rules": {"players": 2, "two_player": "talon", "deal": "5-4-4"}}, "bad_rules"),
    ({"rules": {"players": 2, "two_player": "poker"}}, "bad_rules"),
    ({"rules": {"players": 3, "two_player": "simple"}}, "bad_rules"),
    ({"players": 5}, "bad_rules"),
    ({"players": 2, "rules": {"players": 3}}, "bad_request"),
    ({"players": 3, "seats": ["human", "bot:easy"]}, "bad_request"),
    ({"players": 2, "seats": ["human", "human", "human", "human"]}, "bad_request"),
])
def test_wrong_variant_requests_are_refused_clearly(kwargs: dict[str, Any], code: str) -> None:
    store = MemoryStore()
    service = MatchService(store)
    with pytest.raises(HokmError) as refused:
        service.create(name="A", **kwargs)
    assert refused.value.code == code and refused.value.message
    assert service.create(name="A", players=2)["seat"] == 0  # the service still opens rooms


@pytest.mark.parametrize("kwargs", [
    {"players": 2}, {"rules": {"players": 2}}, {"players": 3, "rules": {"target": 10}},
    {"rules": {"players": 2, "two_player": "talon"}},
])
def test_players_may_be_given_beside_or_inside_the_rules(kwargs: dict[str, Any]) -> None:
    service = MatchService(MemoryStore())
    match_id = service.create(name="A", **kwargs)["match_id"]
    state = service.load(match_id).state
    players = kwargs.get("players") or kwargs["rules"]["players"]
    assert state.rules.players == players == len(state.match.seats)
    assert state.rules.target == kwargs.get("rules", {}).get("target", 7)


@pytest.mark.parametrize(("players", "game"), [(2, "simple"), (2, "talon"), (3, None)])
def test_a_variant_match_round_trips_through_the_codec(players: int, game: str | None) -> None:
    """The store keeps these matches: every event of a whole match of each variant (their
    rules, the high-card draw, the talon game's discards and draws, a round without a winner)
    encodes and decodes to itself, and the decoded records rebuild the same state."""
    from engine import evolve
    from services.store.codec import apply_payloads, decode, sealed
    from services.store.port import Record
    from tests.engine.test_variants import Driver

    driver = Driver(77 + players, players, views=False, game=game)
    driver.run()
    kinds = {type(e) for e in driver.log}
    assert (CardsDiscarded in kinds and TalonDrawn in kinds) == (game == "talon")
    payloads = []
    for version, event in enumerate(driver.log, start=1):
        record, payload = sealed(Record(version, (event,), None, None, 0, b""))
        assert decode(version, payload) == record
        payloads.append((version, payload))
    rebuilt = apply_payloads(payloads, State(), 0, evolve, {})
    assert rebuilt == driver.state

    void = Record(1, (RoundEnded(None, 0, "no_winner", (6, 6, 5)),), 2, "c", 0, b"")
    assert decode(1, sealed(void)[1]).events == void.events
