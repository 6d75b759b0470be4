"""The match service: lobby, commands, retries, idempotency, system steps, bot scheduling."""

from __future__ import annotations

import random

import fakeredis
import pytest

from engine import ChooseTrump, PlayCard, legal_choices
from engine.errors import HokmError
from services.errors import BadToken, NotFound, StaleVersion
from services.matches import MatchService
from services.turns import TURN_TIMEOUT_MIN_S
from services.store.memory import MemoryStore
from services.store.redis_streams import RedisStore


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[str, int, int]] = []

    def schedule(self, match_id: str, seat: int, version: int, *,
                 bots_only: bool = False, humans: tuple[int, ...] = ()) -> None:
        self.calls.append((match_id, seat, version))


def four_humans(service: MatchService) -> tuple[str, list[str]]:
    created = service.create(name="A", rules={"teams": "as_seated"})
    match_id = created["match_id"]
    tokens = [created["token"]] + [service.join(match_id, f"P{i}")["token"] for i in range(3)]
    return match_id, tokens


def decision(service: MatchService, match_id: str, rng: random.Random) -> tuple[int, object, int]:
    loaded = service.load(match_id)
    state = loaded.state
    seat = state.turn
    assert seat is not None
    choice = rng.choice(legal_choices(state, seat))
    command = ChooseTrump(choice) if state.phase == "choosing_trump" else PlayCard(choice)
    return seat, command, loaded.version


def test_a_match_runs_to_its_end_with_system_steps() -> None:
    service = MatchService(MemoryStore())
    match_id, _ = four_humans(service)
    rng = random.Random(3)
    while service.load(match_id).state.phase != "match_over":
        seat, command, version = decision(service, match_id, rng)
        out = service.handle(match_id, seat, command, version=version)  # type: ignore[arg-type]
        assert out.version == version + 1
    loaded = service.load(match_id)
    assert max(loaded.state.match.score) >= 7
    assert loaded.state.match.secret is not None  # revealed by the service at the end
    records = service.store.read(match_id)
    assert [r.version for r in records] == list(range(1, loaded.version + 1))


def test_lobby_refusals() -> None:
    service = MatchService(MemoryStore())
    created = service.create(name="A", seats=["human", "human", "bot:hard", "human"])
    match_id = created["match_id"]
    assert created["seat"] == 0
    with pytest.raises(HokmError) as taken:
        service.join(match_id, "B", 2)
    assert taken.value.code == "seat_taken"
    service.join(match_id, "B")
    service.join(match_id, "C")
    with pytest.raises(HokmError) as full:
        service.join(match_id, "D")
    assert full.value.code == "match_full"
    with pytest.raises(NotFound):
        service.join("nope", "X")
    for bad in (["human"] * 3, ["bot:mad"] * 4, ["human", "robot", "human", "human"]):
        with pytest.raises(HokmError) as refused:
            service.create(seats=bad)
        assert refused.value.code == "bad_request"
    with pytest.raises(HokmError) as rules:
        service.create(rules={"jokers": True})
    assert rules.value.code == "bad_rules"
    with pytest.raises(HokmError):
        service.create(decks=[["AS"] * 52])  # stacked decks are off by default


def test_tokens() -> None:
    service = MatchService(MemoryStore())
    match_id, tokens = four_humans(service)
    seat, _, _ = service.authenticate(match_id, tokens[2])
    assert seat == 2
    for bad in (None, "", "x" * 200, "not-a-token"):
        with pytest.raises(BadToken):
            service.authenticate(match_id, bad)
    service.leave(match_id, tokens[2], "bot:easy")
    with pytest.raises(BadToken):
        service.authenticate(match_id, tokens[2])
    assert service.load(match_id).state.match.seats[2].bot == "easy"  # type: ignore[union-attr]


def test_stale_version_and_illegal_commands_change_nothing() -> None:
    service = MatchService(MemoryStore())
    match_id, _ = four_humans(service)
    rng = random.Random(1)
    seat, command, version = decision(service, match_id, rng)
    with pytest.raises(StaleVersion):
        service.handle(match_id, seat, command, version=version - 1)  # type: ignore[arg-type]
    with pytest.raises(HokmError) as turn:
        service.handle(match_id, (seat + 1) % 4, command)  # type: ignore[arg-type]
    assert turn.value.code == "not_your_turn"
    assert service.load(match_id).version == version


def test_a_retried_command_id_is_answered_not_replayed() -> None:
    service = MatchService(MemoryStore())
    match_id, _ = four_humans(service)
    rng = random.Random(2)
    seat, command, version = decision(service, match_id, rng)
    first = service.handle(match_id, seat, command, version=version, command_id="p:1")  # type: ignore[arg-type]
    again = service.handle(match_id, seat, command, version=version, command_id="p:1")  # type: ignore[arg-type]
    assert again.duplicate and again.version == first.version
    assert again.state == first.state
    assert service.load(match_id).version == first.latest.version  # type: ignore[union-attr]


def test_two_gateways_conflict_and_retry() -> None:
    store = RedisStore(fakeredis.FakeRedis())
    one, two = MatchService(store), MatchService(store)
    match_id, _ = four_humans(one)
    two.load(match_id)
    rng = random.Random(5)
    # gateway one moves; gateway two's cache is now behind but its command is still decided
    # on the fresh state after the conflict
    for _ in range(30):
        seat, command, _ = decision(one, match_id, rng)
        one.handle(match_id, seat, command)  # type: ignore[arg-type]
        seat, command, _ = decision(one, match_id, rng)
        two.handle(match_id, seat, command)  # type: ignore[arg-type]
    assert one.load(match_id).version == two.load(match_id).version


def test_a_command_no_longer_legal_after_reload_is_stale() -> None:
    store = MemoryStore()
    one, two = MatchService(store), MatchService(store)
    match_id, _ = four_humans(one)
    rng = random.Random(7)
    while one.load(match_id).state.phase != "playing":
        seat, command, _ = decision(one, match_id, rng)
        one.handle(match_id, seat, command)  # type: ignore[arg-type]
    two.load(match_id)
    seat, command, _ = decision(one, match_id, rng)
    one.handle(match_id, seat, command)  # type: ignore[arg-type]
    # `two` still believes it is `seat`'s turn: the same card again is now stale, not illegal
    with pytest.raises(StaleVersion):
        two.handle(match_id, seat, command)  # type: ignore[arg-type]


def test_bot_turns_are_scheduled() -> None:
    recorder = Recorder()
    service = MatchService(MemoryStore(), scheduler=recorder)
    created = service.create(name="A", seats=["human", "bot:easy", "bot:medium", "bot:hard"],
                             rules={"teams": "as_seated"})
    loaded = service.load(created["match_id"])
    turn = loaded.state.turn
    if turn != 0:
        assert recorder.calls[-1] == (created["match_id"], turn, loaded.version)
    else:
        assert not recorder.calls


def _drop_log(store: object, match_id: str, keep: int = 0) -> None:
    """The match's log expired or was deleted (``keep`` 0), or lost every record after
    ``keep`` (a Redis restarted from an older save)."""
    if isinstance(store, MemoryStore):
        store._logs[match_id] = store._logs[match_id][:keep]
        return
    from services.store import keys
    assert keep == 0
    store.client.delete(keys.log(match_id))  # type: ignore[attr-defined]


@pytest.mark.parametrize("backend", ["memory", "fakeredis"])
def test_a_cached_match_whose_log_is_gone_is_not_found_and_never_written(backend: str) -> None:
    store = MemoryStore() if backend == "memory" else RedisStore(fakeredis.FakeRedis())
    service = MatchService(store)
    match_id, _ = four_humans(service)
    seat, command, version = decision(service, match_id, random.Random(1))  # cached now
    _drop_log(store, match_id)
    with pytest.raises(NotFound):  # the finding: the cached match, as if nothing happened
        service.load(match_id)
    with pytest.raises(NotFound):
        service.handle(match_id, seat, command, version=version)  # type: ignore[arg-type]
    assert store.version(match_id) == 0 and store.read(match_id) == []
    assert service.cached(match_id) is None


def test_a_cached_match_whose_newest_records_were_lost_is_read_again() -> None:
    store = MemoryStore()
    service = MatchService(store)
    match_id, _ = four_humans(service)
    rng = random.Random(2)
    for _ in range(3):
        seat, command, version = decision(service, match_id, rng)
        service.handle(match_id, seat, command, version=version)  # type: ignore[arg-type]
    cached = service.load(match_id)
    _drop_log(store, match_id, keep=cached.version - 2)
    loaded = service.load(match_id)  # the finding: the cached version, two records ahead
    assert loaded.version == cached.version - 2 == store.version(match_id)
    seat, command, version = decision(service, match_id, rng)
    out = service.handle(match_id, seat, command, version=version)  # type: ignore[arg-type]
    assert out.version == version + 1
    assert [r.version for r in store.read(match_id)] == list(range(1, out.version + 1))


@pytest.mark.parametrize("turn_timeout", [0.001, 0.5, 0.999])
def test_a_turn_limit_below_a_second_is_refused_and_nothing_is_made(turn_timeout: float) -> None:
    """Other than 0 (none), a room's turn limit is at least ``TURN_TIMEOUT_MIN_S``: a limit of
    a millisecond handed every present human's turn to a stand-in at once, a table played by
    bots at full speed without a bots-only slot."""
    store = MemoryStore()
    service = MatchService(store)
    with pytest.raises(HokmError) as refused:
        service.create(seats=["human", "human", "bot:easy", "bot:easy"],
                       turn_timeout=turn_timeout)
    assert refused.value.code == "bad_request" and "turn_timeout" in str(refused.value)
    assert store._logs == {} and store._meta == {}  # nothing stored
    for allowed in (0, 1, 1.5, 3600):
        made = service.create(seats=["human", "human", "bot:easy", "bot:easy"],
                              turn_timeout=allowed)
        assert service.room(made["match_id"]).turn_timeout == allowed


def test_a_room_stored_with_a_limit_below_the_floor_runs_at_the_floor() -> None:
    """A room stored before the floor (its meta says 0.001 s) keeps a limit, at the floor."""
    store = MemoryStore()
    made = MatchService(store).create(seats=["human", "human", "bot:easy", "bot:easy"])
    store.put_meta(made["match_id"], "meta", {"turn_timeout": "0.001"})
    assert MatchService(store).room(made["match_id"]).turn_timeout == TURN_TIMEOUT_MIN_S
