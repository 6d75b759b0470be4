"""Players opening one invite link at the same moment (a QA finding): a join that names no
seat takes the first open one, and when another join takes that seat between its look and its
write it takes the next open one, so a burst of joiners fills every seat and only the ones too
many hear ``match_full``.  A seating command's races are answered with what api.md lists
(``seat_taken``), never ``stale_version``, which is for moves sent for a version."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from engine import commitment_of
from engine.errors import HokmError, MatchFull, SeatTaken
from engine.events import MatchCreated
from services.matches import MatchService
from services.store import keys
from services.store.redis_streams import RedisStore
from tests.conftest import real_redis_client

DB = 13


@pytest.fixture
def store() -> RedisStore:
    client = real_redis_client(DB)
    client.flushdb()
    return RedisStore(client)


def _before_first_commit(service: MatchService, step: Callable[[], Any]) -> list[Any]:
    """Run ``step`` (another gateway's write) right before ``service``'s next append: the race
    of two writers, made to happen every time."""
    done: list[Any] = []
    commit = service.commit

    def racing(match_id: str, prepared: Any) -> Any:
        if not done:
            done.append(step())
        return commit(match_id, prepared)

    service.commit = racing  # type: ignore[method-assign]
    return done


def test_a_join_that_loses_its_seat_takes_the_next_open_one(store: RedisStore) -> None:
    a, b = MatchService(store), MatchService(store)  # two gateways, each with its cache
    match_id = a.create(name="Ann")["match_id"]  # seat 0; 1, 2 and 3 are open
    other = _before_first_commit(a, lambda: b.join(match_id, "Bob"))
    joined = a.join(match_id, "Cy")
    assert other[0]["seat"] == 1  # the other join took the first open seat first
    assert joined["seat"] == 2  # before: 409 stale_version "(seat_taken)"
    seats = a.load(match_id).state.match.seats
    assert [s.name if s else None for s in seats] == ["Ann", "Bob", "Cy", None]
    assert a.authenticate(match_id, joined["token"])[0] == 2


def test_a_seat_asked_for_or_given_to_a_bot_in_a_race_is_seat_taken(store: RedisStore) -> None:
    a, b = MatchService(store), MatchService(store)
    created = a.create(name="Ann")
    match_id, token = created["match_id"], created["token"]
    _before_first_commit(a, lambda: b.join(match_id, "Bob", seat=2))
    with pytest.raises(SeatTaken):  # before: stale_version
        a.give_to_bot(match_id, token, 2, "easy")
    _before_first_commit(b, lambda: a.give_to_bot(match_id, token, 3, "easy"))
    with pytest.raises(SeatTaken):
        b.join(match_id, "Cy", seat=3)
    version = a.load(match_id).version
    seats = a.load(match_id).state.match.seats
    assert [s.name if s else None for s in seats][1:] == [None, "Bob", "Shirin"]
    assert len(store.get_meta(match_id, "tokens")) == 2  # Ann's and Bob's: Cy's went away
    assert a.load(match_id).version == version


def _names(service: MatchService, match_id: str) -> list[str | None]:
    return [s.name if s else None for s in service.load(match_id).state.match.seats]


def test_a_bot_seated_in_a_race_with_a_join_under_its_name_takes_another(
        store: RedisStore) -> None:
    """A bot given seat 2 (it would be "Kian") right before the write of a join as "Kian":
    the join looks again and renames the bot, rather than sit beside a bot of its name."""
    a, b = MatchService(store), MatchService(store)
    created = a.create(name="Ann")
    match_id, token = created["match_id"], created["token"]
    _before_first_commit(a, lambda: b.give_to_bot(match_id, token, 2, "easy"))
    assert a.join(match_id, "Kian", seat=1)["seat"] == 1
    names = _names(a, match_id)
    assert names[1] == "Kian" and names[2] not in (None, "Kian")  # before: "Kian" twice


def test_a_join_in_a_race_with_a_bot_under_its_name_keeps_it(store: RedisStore) -> None:
    """The other way round: a join as "Kian" right before the write of the bot given seat 2:
    the bot is named from the match it is written into, not the one it was asked of."""
    a, b = MatchService(store), MatchService(store)
    created = a.create(name="Ann")
    match_id, token = created["match_id"], created["token"]
    _before_first_commit(a, lambda: b.join(match_id, "Kian", seat=1))
    a.give_to_bot(match_id, token, 2, "easy")
    names = _names(a, match_id)
    assert names[1] == "Kian" and names[2] not in (None, "Kian")  # before: "Kian" twice


def test_a_burst_of_joiners_fills_every_open_seat(store: RedisStore) -> None:
    """Eight threads on four services join five rooms at once: every open seat is filled, each
    by one joiner, and every other joiner hears ``match_full``."""
    services = [MatchService(store) for _ in range(4)]
    rooms = [services[0].create(name="Host")["match_id"] for _ in range(5)]
    outcomes: dict[str, list[Any]] = {room: [] for room in rooms}
    lock = threading.Lock()
    start = threading.Barrier(8)

    def joiner(n: int) -> None:
        service = services[n % 4]
        start.wait(timeout=30)
        for room in rooms:
            try:
                result: Any = service.join(room, f"P{n}")["player"]
            except HokmError as refusal:
                result = refusal
            with lock:
                outcomes[room].append(result)

    threads = [threading.Thread(target=joiner, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
        assert not thread.is_alive()
    for room in rooms:
        joined = {r for r in outcomes[room] if isinstance(r, str)}
        refused = [r for r in outcomes[room] if not isinstance(r, str)]
        assert len(joined) == 3, outcomes[room]  # before: as few as one
        assert all(isinstance(r, MatchFull) for r in refused), refused
        # the fourth seat taken starts the match, whose ace draw may move everyone
        seats = services[0].load(room).state.match.seats
        assert {s.player for s in seats if s is not None and s.name != "Host"} == joined


KEY = "race-key-0123456789abcdef"


def test_tries_of_one_keyed_join_at_once_end_with_one_seat(store: RedisStore) -> None:
    """Two tries of one join (a client's retry while its first try still runs, on another
    gateway): the other try seats the player right before this one's write; this one is
    refused its second seat by the engine and answers that seat, with the same token."""
    a, b = MatchService(store), MatchService(store)
    match_id = a.create(name="Ann")["match_id"]
    other = _before_first_commit(a, lambda: b.join(match_id, "Bob", key=KEY))
    joined = a.join(match_id, "Bob", key=KEY)
    assert other[0] == joined and joined["seat"] == 1
    players = [s.player if s else None for s in a.load(match_id).state.match.seats]
    assert players.count(joined["player"]) == 1 and players[2:] == [None, None]
    assert a.authenticate(match_id, joined["token"])[0] == 1


def test_tries_of_one_keyed_create_at_once_make_one_match(store: RedisStore) -> None:
    """The same for a create: the other try makes the whole match right before this one's
    ``CreateMatch``; this one finds it and answers it.  The deck secret is the one both tries
    committed to (set once)."""
    a, b = MatchService(store), MatchService(store)
    bots = ["human", "bot:easy", "bot:easy", "bot:easy"]
    rules = {"teams": "as_seated"}  # the ace draw moves nobody: both answers name seat 0
    other = _before_first_commit(a, lambda: b.create(name="Ann", seats=bots, rules=rules,
                                                     key=KEY))
    created = a.create(name="Ann", seats=bots, rules=rules, key=KEY)
    assert other[0] == created and created["seat"] == 0
    match_id = created["match_id"]
    assert store.client.keys(keys.log("*")) == [keys.log(match_id).encode()]
    first = store.read(match_id)[0].events[0]
    assert isinstance(first, MatchCreated)
    assert first.commitment == commitment_of(store.get_meta_field(match_id, "meta", "secret"))
    state = a.load(match_id).state
    assert [s.player if s else None for s in state.match.seats].count(created["player"]) == 1
    assert state.phase != "waiting"  # every seat taken once: the match went on
