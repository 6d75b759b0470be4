"""Rooms for the two- and three-player games (issue 13) through the match service: created with
the variant's rules and seats, joined, played to the end by human seats (seeded decisions, and
stacked decks whose dealing and drawing order is checked against docs/api.md), rebuilt from the
store at every version exactly as played live, and caught up by a second service from an
older version.  Every house-rule combination the engine accepts opens a room; the others, and
seat layouts of the wrong length, are refused with a clear code."""

from __future__ import annotations

import io
import itertools
import random
from dataclasses import replace
from typing import Any

import pytest

from engine import NAMES, ChooseTrump, PlayCard, Rules, legal_choices, view_for
from engine.commands import Command, Discard, DrawTalon
from engine import evolve
from engine.cards import names_of_mask
from engine.errors import BadRules, HokmError
from engine.events import CardsDiscarded, MatchEnded, RoundEnded, RoundStarted, TalonDrawn
from engine.state import CHOOSING_TRUMP, DISCARDING, DRAWING, MATCH_OVER, State
from engine.variants import VARIANTS
from services.audit import (
    card_text, check, command_for, describe, export_lines, read_export,
)
from services.matches import MatchService
from services.store.codec import decode, encode
from services.store.memory import MemoryStore
from services.store.port import Record
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


def random_to_end(service: MatchService, match_id: str, rng: random.Random) -> State:
    """Every seat's decisions drawn from ``rng`` (``choose``) until the match is over; the
    state at the end."""
    while (state := (loaded := service.load(match_id)).state).phase != MATCH_OVER:
        seat = service.next_actor(state)
        assert seat is not None
        service.handle(match_id, seat, choose(state, seat, rng), version=loaded.version)
    return state


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


class Scheduled:
    """A bot scheduler that records what it is asked to schedule: (seat, version, phase)."""

    def __init__(self, service: list[MatchService]) -> None:
        self.service = service
        self.calls: list[tuple[int, int, str]] = []

    def schedule(self, match_id: str, seat: int, version: int, *,
                 bots_only: bool = False, humans: tuple[int, ...] = ()) -> None:
        phase = self.service[0].load(match_id, fresh=False).state.phase
        self.calls.append((seat, version, phase))


def test_a_bot_is_scheduled_for_its_talon_decisions() -> None:
    """The bot Hakem of a talon room is asked for trump, its discard and its draws (the phases
    ``discarding`` and ``drawing`` are decisions like a card)."""
    holder: list[MatchService] = []
    scheduler = Scheduled(holder)
    service = MatchService(MemoryStore(), scheduler=scheduler, allow_stacked=True)
    holder.append(service)
    deck = random.Random(8).sample(NAMES, 52)
    created = service.create(name="A", rules=VARIANT_RULES["talon"], seats=["human", "bot:easy"],
                             first_hakem=1, decks=[deck])
    match_id = created["match_id"]
    assert [(s, p) for s, _, p in scheduler.calls] == [(1, CHOOSING_TRUMP)]
    service.handle(match_id, 1, ChooseTrump("C"))
    assert scheduler.calls[-1][::2] == (1, DISCARDING)
    service.handle(match_id, 1, Discard(tuple(deck[:3])))
    service.handle(match_id, 0, Discard(tuple(deck[5:7])))
    assert scheduler.calls[-1][::2] == (1, DRAWING)
    service.handle(match_id, 1, DrawTalon(True))
    service.handle(match_id, 0, DrawTalon(False))
    assert scheduler.calls[-1] == (1, service.load(match_id).version, DRAWING)


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
    from services.store.codec import apply_payloads, sealed
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


# -- audit: hokm replay, export and verify of each variant ---------------------------------------

AUDIT_DB = 13
"""The real-Redis database of the CLI test below (flushed by it alone)."""


def finished(game: str, seed: int = 1, store: Any = None) -> tuple[MatchService, str]:
    service = MatchService(store if store is not None else MemoryStore())
    match_id, tokens = open_room(service, VARIANT_RULES[game])
    play_out(service, match_id, tokens, random.Random(seed), {})
    return service, match_id


def relinked(records: list[Record], version: int, change: Any) -> list[Record]:
    """``records`` with record ``version`` changed and every link after it rebuilt (what an
    attacker rewriting the whole stream could do: the chain then holds)."""
    out, prev = [], b""
    for record in records:
        if record.version == version:
            record = change(record)
        record = replace(record, prev=prev)
        decoded = decode(record.version, encode(record))
        out.append(decoded)
        prev = decoded.digest
    return out


@pytest.mark.parametrize("game", sorted(VARIANT_RULES))
def test_each_variant_verifies_exports_and_replays(game: str) -> None:
    service, match_id = finished(game)
    records = service.store.read(match_id)
    assert check(records) == []
    state = State()
    for record in records:
        assert command_for(record, state) is not None, record.events[0]
        for event in record.events:
            state = evolve(state, event)
    back = read_export(io.StringIO("\n".join(export_lines(records)) + "\n"))
    assert back == records and check(back) == []
    lines = list(describe(records, seat=0))
    assert any("MATCH OVER" in line for line in lines)
    # a live match (its log before the end): only the seat's own talon cards, none in public
    live = list(itertools.takewhile(
        lambda r: not any(isinstance(e, MatchEnded) for e in r.events), records))
    live_seat = list(describe(live, seat=0))
    live_public = list(describe(live, seat=None, step=live[-3].version))
    if game == "talon":
        own = [line for line in live_seat if "lays 3 cards aside: " in line
               or "lays 2 cards aside: " in line]
        assert own and all("seat 0" in line for line in own)
        assert all("seat 0" in line for line in live_seat if "talon: keeps" in line)
        assert any("draws from the talon: keeps" in line for line in live_seat)
        assert not [line for line in live_public if "aside:" in line or "keeps" in line]
        assert not [line for line in live_public if "holds:" in line]
    assert not [line for line in lines if "team" in line]  # no teams outside the four-player game


@pytest.mark.parametrize("seat", [None, 1])
def test_the_replay_of_a_finished_talon_match_names_every_talon_card(seat: int | None) -> None:
    """Once the match is over every hand is public (the replay API opens fully): the replay
    names the cards every seat laid aside and every draw's kept and passed card, at the last
    record and at an earlier step."""
    service, match_id = finished("talon", seed=3)
    records = service.store.read(match_id)
    discards = [(r.version, e) for r in records for e in r.events
                if isinstance(e, CardsDiscarded)]
    draws = [(r.version, e) for r in records for e in r.events if isinstance(e, TalonDrawn)]
    assert {e.seat for _, e in discards} == {0, 1} and {e.seat for _, e in draws} == {0, 1}
    lines = list(describe(records, seat=seat))
    for version, discarded in discards:
        cards = " ".join(card_text(c) for c in discarded.cards)
        assert any(line.startswith(f"{version:>4}  ") and line.endswith(f"aside: {cards}")
                   for line in lines), (version, discarded)
    for version, drawn in draws:
        seen = f"talon: keeps {card_text(drawn.kept)}, lays aside {card_text(drawn.discarded)}"
        assert any(line.startswith(f"{version:>4}  ") and line.endswith(seen)
                   for line in lines), (version, drawn)
    step = draws[len(draws) // 2][0]
    early = list(describe(records, seat=seat, step=step))
    assert sum("talon: keeps" in line for line in early) == len(
        [v for v, _ in draws if v <= step])
    assert [line for line in early if "holds:" in line]  # every hand at that step


def test_an_edited_talon_draw_or_discard_is_named() -> None:
    service, match_id = finished("talon", seed=2)
    records = service.store.read(match_id)
    draw = next(r for r in records if isinstance(r.events[0], TalonDrawn) and r.version > 30)
    # keeping a card further down the talon (a swap of kept and discarded would read as the
    # other choice, a legal one: like a different legal card, only the player can tell)
    before = service.state_at(match_id, draw.version - 1)
    further = NAMES[before.deal.deck[before.deal.talon + 2]]
    edited = relinked(records, draw.version, lambda r: replace(r, events=(
        replace(r.events[0], kept=further),)))
    problems = check(edited)
    assert problems and problems[0].version == draw.version
    discard = next(r for r in records if isinstance(r.events[0], CardsDiscarded))
    before = service.state_at(match_id, discard.version - 1)
    seat = discard.events[0].seat  # type: ignore[union-attr]
    other = next(c for c in names_of_mask(before.hands[1 - seat]))
    forged = relinked(records, discard.version, lambda r: replace(r, events=(
        CardsDiscarded(seat, (*r.events[0].cards[1:], other)),)))
    problems = check(forged)
    assert problems and problems[0].version == discard.version


@pytest.mark.parametrize("game", ["talon", "simple"])
def test_a_forged_talon_or_unused_half_fails_the_fairness_check(game: str) -> None:
    """The talon order (``deck[10:]``) and the simple game's unused 26 (``deck[26:]``) are part
    of the derived deck: a deal whose hidden tail was reordered (the chain rebuilt, so only the
    fairness check can tell) is named."""
    service, match_id = finished(game, seed=3)
    records = service.store.read(match_id)
    deal = next(r for r in records if isinstance(r.events[0], RoundStarted)
                and r.version > 10)
    tail = 10 if game == "talon" else 26

    def change(record: Record) -> Record:
        event = record.events[0]
        assert isinstance(event, RoundStarted)
        deck = (*event.deck[:tail], *reversed(event.deck[tail:]))
        return replace(record, events=(replace(event, deck=deck),))

    problems = check(relinked(records, deal.version, change))
    assert any(p.version == deal.version and "deck" in p.message for p in problems), problems


@pytest.mark.redis
def test_the_cli_on_each_variant(tmp_path: Any, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    from hokm.cli import main
    from services.store.redis_streams import RedisStore
    from tests.conftest import real_redis_client, redis_db_url

    client = real_redis_client(AUDIT_DB)
    client.flushdb()
    monkeypatch.setenv("HOKM_REDIS_URL", redis_db_url(AUDIT_DB))
    try:
        for game in sorted(VARIANT_RULES):
            _, match_id = finished(game, seed=4, store=RedisStore(client))
            assert main(["verify", match_id]) == 0
            assert "every deal matches the revealed secret" in capsys.readouterr().out
            out = tmp_path / f"{game}.jsonl"
            assert main(["export", match_id, "-o", str(out)]) == 0
            assert main(["verify", "--file", str(out)]) == 0
            capsys.readouterr()
            assert main(["replay", match_id, "--seat", "1", "--step", "40"]) == 0
            assert "plays" in capsys.readouterr().out
            seats = VARIANT_RULES[game]["players"]
            assert main(["replay", match_id, "--seat", str(seats)]) == 2  # no such seat
            assert f"seats 0 to {seats - 1}" in capsys.readouterr().err
    finally:
        client.flushdb()
