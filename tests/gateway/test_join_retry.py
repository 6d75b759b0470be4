"""A create or a join answered ``503 unavailable`` after its seat was stored (the answer lost,
a replica's wait failed, the step after it failed) is safe to retry with its request key ``id``:
the retry gets the same match, seat, player and a token that works, and nothing is taken twice
(docs/api.md, *HTTP*).  Without a key nothing changes; a bad key is ``400 bad_request`` with
nothing stored; a key belongs to one match.  On the real Redis: the defect lived between the
store's answer and the client."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis

from engine.events import HakemDrawn, RoundStarted, SeatTaken
from engine.state import NEW, WAITING
from hokmclient import Client
from services.store import keys
from services.store.codec import decode
from services.store.port import Record, StoreUnavailable
from tests.cluster_fixture import Cluster
from tests.conftest import real_redis_client

from .helpers import REDIS_DB, Gateway, bearer, gateway, redis_url

KEY = "retry-key-0123456789abcdef"
BOTS = ["human", "bot:easy", "bot:easy", "bot:easy"]
"""Seat 0 a human, so no bots-only slot is asked for (the quotas are off anyway)."""


@pytest.fixture(scope="module")
def real() -> Iterator[tuple[Gateway, redis.Redis]]:
    """One gateway (no bot worker) on the real Redis, its test database flushed before and
    after."""
    client = real_redis_client(REDIS_DB)
    client.flushdb()
    try:
        with gateway(redis_url=redis_url(), worker=False) as gw:
            assert gw.rt.service.store is gw.rt.store
            yield gw, client
    finally:
        client.flushdb()


def lose_answer(gw: Gateway, monkeypatch: pytest.MonkeyPatch,
                when: Callable[[Record], bool]) -> list[Record]:
    """Once: the first record appended that ``when`` picks is stored, and its append raises
    as if the store's answer were lost on the way back.  Returns the records so hit."""
    store = gw.rt.store
    real_append = store.append_sealed
    hit: list[Record] = []

    def append_sealed(match_id: str, version: int, payload: bytes) -> None:
        real_append(match_id, version, payload)
        record = decode(version, payload)
        if not hit and when(record):
            hit.append(record)
            raise StoreUnavailable("the connection broke before the answer came")

    monkeypatch.setattr(store, "append_sealed", append_sealed)
    return hit


def human_seated(record: Record) -> bool:
    return any(isinstance(e, SeatTaken) and e.bot is None for e in record.events)


def dealt_or_drawn(record: Record) -> bool:
    """The system step after the last seat: the ace draw (or the deal, if none)."""
    return any(isinstance(e, (HakemDrawn, RoundStarted)) for e in record.events)


FAILURES = {"the seat's answer lost": human_seated, "the step after the seat failed":
            dealt_or_drawn}


def seats_of(gw: Gateway, match_id: str) -> list[str | None]:
    return [o.player if o is not None else None for o in gw.state(match_id).match.seats]


def logs(client: Any) -> set[str]:
    """The logs of every match in the store."""
    return {k.decode() for k in client.scan_iter(match=keys.log("*"))}


def token_entries(client: Any, match_id: str) -> dict[bytes, bytes]:
    return client.hgetall(keys.tokens(match_id))  # type: ignore[no-any-return]


def viewed_seat(gw: Gateway, match_id: str, token: str) -> int:
    view = gw.get(f"/api/matches/{match_id}/view", headers=bearer(token))
    assert view.status_code == 200, view.text
    return view.json()["view"]["seat"]  # type: ignore[no-any-return]


def new_match(gw: Gateway, seats: list[str] | None = None) -> dict[str, Any]:
    seats = seats or ["human"] * 4
    created = gw.post("/api/matches", json={"seats": seats, "players": len(seats),
                                            "disconnect_timeout": 0, "turn_timeout": 0,
                                            # the ace draw moves nobody: seats stay as taken
                                            "rules": {"teams": "as_seated"}
                                            if len(seats) == 4 else {}})
    assert created.status_code == 201, created.text
    return created.json()  # type: ignore[no-any-return]


@pytest.mark.parametrize("failure", list(FAILURES))
def test_a_join_answered_503_after_its_seat_was_stored_gets_that_seat_on_retry(
        real: tuple[Gateway, redis.Redis], monkeypatch: pytest.MonkeyPatch,
        failure: str) -> None:
    join_retried(*real, monkeypatch, FAILURES[failure])


@pytest.mark.parametrize("seats", [BOTS, ["bot:easy"] * 4], ids=["with a seat", "bots only"])
def test_a_create_answered_503_after_it_was_stored_gets_the_same_match_on_retry(
        real: tuple[Gateway, redis.Redis], monkeypatch: pytest.MonkeyPatch,
        seats: list[str]) -> None:
    create_retried(*real, monkeypatch, seats)


def test_on_a_cluster_a_retried_join_and_create_get_their_seats(
        redis_cluster: Cluster, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same on a Redis Cluster: a join's keys share its match's slot, a create's key is a
    key of its own (the match does not exist yet)."""
    # (the bot queue on a plain Redis: RQ takes no cluster)
    with gateway(redis_url=redis_cluster.url, queue_url=redis_url(), worker=False) as gw:
        join_retried(gw, redis_cluster.client, monkeypatch, human_seated)
        monkeypatch.undo()
        create_retried(gw, redis_cluster.client, monkeypatch, BOTS)


def join_retried(gw: Gateway, client: Any, monkeypatch: pytest.MonkeyPatch,
                 when: Callable[[Record], bool]) -> None:
    """A join whose try ``when`` picks loses its answer; its retry gets the seat it took."""
    # two seats: the join takes the last one, so the ace draw follows it
    match_id = new_match(gw, ["human", "human"])["match_id"]
    url = f"/api/matches/{match_id}/join"
    hit = lose_answer(gw, monkeypatch, when)
    first = gw.post(url, json={"name": "Bob", "id": KEY})
    assert hit and first.status_code == 503, first.text  # the defect's answer
    ghost = seats_of(gw, match_id)[1]
    assert ghost is not None  # the seat is stored: its token never reached the client
    tokens_before = token_entries(client, match_id)

    again = gw.post(url, json={"name": "Bob", "id": KEY})
    assert again.status_code == 200, again.text  # the finding: 400 (no id) or another seat
    joined = again.json()
    assert joined["player"] == ghost and joined["seat"] == 1
    assert viewed_seat(gw, match_id, joined["token"]) == 1  # the token works
    assert seats_of(gw, match_id).count(ghost) == 1
    assert token_entries(client, match_id) == tokens_before  # nothing new stored
    # the steps the first try could not take are taken: the match is dealt
    assert gw.state(match_id).phase not in (NEW, WAITING)
    # once more: the same answer still
    third = gw.post(url, json={"name": "Bob", "id": KEY})
    assert third.status_code == 200 and third.json() == joined


def create_retried(gw: Gateway, client: Any, monkeypatch: pytest.MonkeyPatch,
                   seats: list[str]) -> None:
    """A create with ``seats`` whose last record loses its answer; its retry gets the match it
    made."""
    before = logs(client)
    # the creator's seat (a solo create: the deal after the last bot) is stored, its answer lost
    hit = lose_answer(gw, monkeypatch, human_seated if "human" in seats else dealt_or_drawn)
    body = {"seats": seats, "disconnect_timeout": 0, "turn_timeout": 0,
            "rules": {"teams": "as_seated"},  # the ace draw moves nobody
            "id": f"create-{seats[0].replace(':', '-')}-0123456789"}
    first = gw.post("/api/matches", json=body)
    assert hit and first.status_code == 503, first.text
    stored = logs(client) - before
    assert len(stored) == 1  # the match is there

    again = gw.post("/api/matches", json=body)
    assert again.status_code == 201, again.text
    created = again.json()
    match_id = created["match_id"]
    assert stored == {keys.log(match_id)}
    assert logs(client) - before == stored  # one match, no ghost
    if "human" in seats:
        assert created["seat"] == 0
        assert seats_of(gw, match_id).count(created["player"]) == 1
        assert viewed_seat(gw, match_id, created["token"]) == 0
    else:
        assert created["seat"] is None and created["token"] is None
        assert gw.state(match_id).phase not in (NEW, WAITING)  # dealt on the retry
    assert gw.post("/api/matches", json=body).json() == created


def test_a_create_whose_match_was_only_begun_is_finished_by_its_retry(
        real: tuple[Gateway, redis.Redis], monkeypatch: pytest.MonkeyPatch) -> None:
    """The answer of the ``CreateMatch`` record itself is lost: the retry seats the bots and
    the creator in that match, and the match holds each once."""
    gw, client = real
    before = logs(client)
    hit = lose_answer(gw, monkeypatch, lambda record: record.version == 1)
    body = {"seats": BOTS, "disconnect_timeout": 0, "turn_timeout": 0, "id": "b" * 40,
            "rules": {"teams": "as_seated"}}
    assert gw.post("/api/matches", json=body).status_code == 503
    assert hit and len(gw.state(hit[0].events[0].match_id).match.seats) == 4  # begun
    again = gw.post("/api/matches", json=body)
    assert again.status_code == 201, again.text
    created = again.json()
    assert logs(client) - before == {keys.log(created["match_id"])}
    players = seats_of(gw, created["match_id"])
    assert players[0] == created["player"] and len(set(players)) == 4


def test_a_retry_with_another_key_is_a_new_join(real: tuple[Gateway, redis.Redis]) -> None:
    gw, _ = real
    match_id = new_match(gw)["match_id"]
    url = f"/api/matches/{match_id}/join"
    one = gw.post(url, json={"id": "a" * 16}).json()
    two = gw.post(url, json={"id": "a" * 15 + "b"}).json()
    assert (one["seat"], two["seat"]) == (1, 2)
    assert one["player"] != two["player"] and one["token"] != two["token"]
    # and without a key, every join is a new one, as before
    three = gw.post(url, json={}).json()
    assert three["seat"] == 3


BAD_KEYS = ["short-key", "x" * 65, "has a space in it!", "a/b+c=d" * 3, "é" * 20, "", 12345678,
            ["list-of-a-key-0001"]]


@pytest.mark.parametrize("bad", BAD_KEYS, ids=repr)
def test_a_bad_key_is_refused_and_stores_nothing(real: tuple[Gateway, redis.Redis],
                                                 bad: Any) -> None:
    gw, client = real
    match_id = new_match(gw)["match_id"]
    before = {k: client.type(k) for k in client.scan_iter()}
    seats = seats_of(gw, match_id)
    tokens = token_entries(client, match_id)
    for url, body in (("/api/matches", {"seats": BOTS}),
                      (f"/api/matches/{match_id}/join", {"name": "Eve"})):
        answer = gw.post(url, json={**body, "id": bad})
        assert answer.status_code == 400, (url, answer.text)
        error = answer.json()["error"]
        assert error["code"] == "bad_request" and "request key" in error["message"]
        if isinstance(bad, str) and bad:
            assert bad not in answer.text  # the key is never repeated back
    assert {k: client.type(k) for k in client.scan_iter()} == before
    assert seats_of(gw, match_id) == seats and token_entries(client, match_id) == tokens


def test_a_key_belongs_to_one_match(real: tuple[Gateway, redis.Redis]) -> None:
    gw, _ = real
    a, b = new_match(gw)["match_id"], new_match(gw)["match_id"]
    in_a = gw.post(f"/api/matches/{a}/join", json={"id": KEY}).json()
    in_b = gw.post(f"/api/matches/{b}/join", json={"id": KEY}).json()
    assert in_b["player"] != in_a["player"] and in_b["token"] != in_a["token"]
    assert seats_of(gw, b).count(in_a["player"]) == 0
    refused = gw.get(f"/api/matches/{b}/view", headers=bearer(in_a["token"]))
    assert refused.status_code == 401
    assert viewed_seat(gw, b, in_b["token"]) == in_b["seat"]
    # a create's key is not a join's key of another match either
    created = gw.post("/api/matches", json={"seats": BOTS, "id": KEY,
                                            "disconnect_timeout": 0}).json()
    assert created["match_id"] not in (a, b) and created["player"] not in (
        in_a["player"], in_b["player"])


def test_a_refused_keyed_join_keeps_nothing(real: tuple[Gateway, redis.Redis]) -> None:
    """``409 match_full`` under a key: no token, no remembered answer (a retry, once a seat
    opens, is a join afresh)."""
    gw, client = real
    match_id = new_match(gw, ["human", "bot:easy"])["match_id"]
    tokens = token_entries(client, match_id)
    answer = gw.post(f"/api/matches/{match_id}/join", json={"id": KEY})
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "match_full"
    assert token_entries(client, match_id) == tokens
    assert list(client.scan_iter(match=keys.join_request(match_id, "*"))) == []


def test_neither_the_key_nor_the_token_is_logged_or_stored_in_plain(
        real: tuple[Gateway, redis.Redis], monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    gw, client = real
    key = "never-in-a-log-0123456789"
    with caplog.at_level(logging.DEBUG):
        match_id = new_match(gw)["match_id"]
        lose_answer(gw, monkeypatch, human_seated)
        url = f"/api/matches/{match_id}/join"
        assert gw.post(url, json={"id": key}).status_code == 503
        token = gw.post(url, json={"id": key}).json()["token"]
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "unreachable" in logged  # the outage was logged (the check reads real lines)
    assert key not in logged and token not in logged
    for name in client.scan_iter():
        kind = client.type(name)
        if kind == b"string":
            values = [client.get(name) or b""]
        elif kind == b"hash":
            values = [b for pair in client.hgetall(name).items() for b in pair]
        else:
            continue
        for value in [name, *values]:
            assert key.encode() not in value and token.encode() not in value, name


def test_the_client_library_retries_a_create_and_a_join_with_their_key(
        real: tuple[Gateway, redis.Redis], monkeypatch: pytest.MonkeyPatch) -> None:
    """``hokmclient`` (the terminal client's library) sends a key and retries a ``503``:
    the caller gets the seat the first try took."""
    gw, _ = real
    api = Client(http=gw, retries=3)
    hit = lose_answer(gw, monkeypatch, human_seated)
    created = api.create(seats=["human", "human"], players=2, disconnect_timeout=0, turn_timeout=0)
    assert hit
    match_id = created["match_id"]
    assert seats_of(gw, match_id) == [created["player"], None]
    monkeypatch.undo()
    hit = lose_answer(gw, monkeypatch, human_seated)
    joined = api.join(match_id, name="Bob")
    assert hit and seats_of(gw, match_id) == [created["player"], joined["player"]]
    assert viewed_seat(gw, match_id, joined["token"]) == 1


def test_a_retried_create_counts_once_and_a_refused_one_is_refused_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The create quota counts the try that named the match, not its retries (one match, one
    count); a create refused by the quota forgets its key, so its retry is refused too (it
    cannot pass as the retry of a match that was never made)."""
    with gateway(worker=False, creates_per_window=1) as gw:
        # the first try is counted, then the store fails before the match is written
        store = gw.rt.store
        real_once = store.put_meta_once
        failed: list[str] = []

        def put_meta_once(match_id: str, name: str, key: str, value: str) -> str:
            if not failed:
                failed.append(match_id)
                raise StoreUnavailable("the store went away")
            return real_once(match_id, name, key, value)

        monkeypatch.setattr(store, "put_meta_once", put_meta_once)
        body = {"seats": BOTS, "disconnect_timeout": 0, "id": "quota-key-0123456789"}
        assert gw.post("/api/matches", json=body).status_code == 503 and failed
        assert store.version(failed[0]) == 0  # nothing of the match is stored
        again = gw.post("/api/matches", json=body)
        assert again.status_code == 201, again.text  # not counted a second time
        for _ in range(2):
            refused = gw.post("/api/matches", json={**body, "id": "quota-key-another-one"})
            assert refused.status_code == 429, refused.text
            assert refused.json()["error"]["code"] == "rate_limited"
        assert gw.post("/api/matches", json=body).json() == again.json()
        assert again.json()["match_id"] == failed[0]


def test_a_retry_brings_back_a_token_hash_a_failover_lost(
        real: tuple[Gateway, redis.Redis], monkeypatch: pytest.MonkeyPatch) -> None:
    """With replica acknowledgements the seat's record survives a failover, the token's hash
    (not waited for) may not: the retry stores the same hash again, so its token works."""
    gw, client = real
    match_id = new_match(gw)["match_id"]
    tokens = token_entries(client, match_id)
    lose_answer(gw, monkeypatch, human_seated)
    url = f"/api/matches/{match_id}/join"
    assert gw.post(url, json={"id": KEY}).status_code == 503
    lost = set(token_entries(client, match_id)) - set(tokens)
    assert len(lost) == 1
    client.hdel(keys.tokens(match_id), *lost)
    joined = gw.post(url, json={"id": KEY}).json()
    assert viewed_seat(gw, match_id, joined["token"]) == joined["seat"] == 1
    assert set(token_entries(client, match_id)) - set(tokens) == lost


def version_of(client: Any, match_id: str) -> int:
    return int(client.xlen(keys.log(match_id)))


def left_then_retried(gw: Gateway, client: Any, replace_with: str | None) -> None:
    """A keyed join, then its player leaves (the seat to ``replace_with``, or empty), then the
    join is sent again: ``409 seat_left``, the player not seated again, its token dead, nothing
    stored (a QA finding: the retry seated the player again with the dead token)."""
    match_id = new_match(gw)["match_id"]
    url = f"/api/matches/{match_id}/join"
    body = {"name": "L", "seat": 1, "id": KEY}
    joined = gw.post(url, json=body).json()
    leave = {"replace_with": replace_with} if replace_with else {}
    left = gw.post(f"/api/matches/{match_id}/leave", json=leave, headers=bearer(joined["token"]))
    assert left.status_code == 200, left.text
    seats, tokens = seats_of(gw, match_id), token_entries(client, match_id)
    version = version_of(client, match_id)
    for _ in range(2):  # and again: the key stays refused
        answer = gw.post(url, json=body)
        assert answer.status_code == 409, answer.text
        assert answer.json()["error"]["code"] == "seat_left"
        assert KEY not in answer.text
    assert seats_of(gw, match_id) == seats and joined["player"] not in seats
    assert token_entries(client, match_id) == tokens
    assert version_of(client, match_id) == version
    refused = gw.get(f"/api/matches/{match_id}/view", headers=bearer(joined["token"]))
    assert refused.status_code == 401
    # a new key is a new join: a new player and token
    fresh = gw.post(url, json={"name": "L", "id": "another-key-0123456789"}).json()
    assert fresh["player"] != joined["player"] and fresh["token"] != joined["token"]
    assert viewed_seat(gw, match_id, fresh["token"]) == fresh["seat"]


@pytest.mark.parametrize("replace_with", [None, "bot:easy"], ids=["emptied", "to a bot"])
def test_a_join_retried_after_its_player_left_is_refused(
        real: tuple[Gateway, redis.Redis], replace_with: str | None) -> None:
    left_then_retried(*real, replace_with)


def test_a_create_retried_after_its_creator_left_is_refused(
        real: tuple[Gateway, redis.Redis]) -> None:
    """The create of the QA finding: its creator leaves (seat 0 empty), the create is sent
    again: ``409 seat_left``, no seat, no match, the token dead."""
    gw, client = real
    body = {"seats": BOTS, "name": "A", "disconnect_timeout": 0, "turn_timeout": 0,
            "id": "create-then-leave-0123456789"}
    created = gw.post("/api/matches", json=body).json()
    match_id = created["match_id"]
    left = gw.post(f"/api/matches/{match_id}/leave", json={}, headers=bearer(created["token"]))
    assert left.status_code == 200, left.text
    before, seats = logs(client), seats_of(gw, match_id)
    tokens, version = token_entries(client, match_id), version_of(client, match_id)
    answer = gw.post("/api/matches", json=body)
    assert answer.status_code == 409, answer.text
    assert answer.json()["error"]["code"] == "seat_left"
    # (the ace draw may have moved the creator and a bot: the seat left may be a bot's at first)
    assert logs(client) == before and seats_of(gw, match_id) == seats
    assert created["player"] not in seats and seats.count(None) == 1
    assert token_entries(client, match_id) == tokens
    assert version_of(client, match_id) == version
    refused = gw.get(f"/api/matches/{match_id}/view", headers=bearer(created["token"]))
    assert refused.status_code == 401


def another_body_refused(gw: Gateway, client: Any) -> None:
    """A key sent again with another body is ``400 bad_request``, nothing changed; the same
    body still gets the first answer."""
    key = "another-body-0123456789"
    body: dict[str, Any] = {"seats": BOTS, "name": "Al", "disconnect_timeout": 0,
                            "turn_timeout": 0, "id": key}
    created = gw.post("/api/matches", json=body).json()
    match_id = created["match_id"]
    before, tokens = logs(client), token_entries(client, match_id)
    for other in ({"name": "Other"}, {"rules": {"target": 10}},
                  {"seats": ["human", "human", "bot:easy", "bot:easy"]},
                  {"disconnect_timeout": 30}):
        answer = gw.post("/api/matches", json={**body, **other})
        assert answer.status_code == 400, (other, answer.text)
        error = answer.json()["error"]
        assert error["code"] == "bad_request"
        assert "request key was used for another request" in error["message"]
        assert key not in answer.text
    assert logs(client) == before and token_entries(client, match_id) == tokens
    # the same body in another spelling is the same request
    same = gw.post("/api/matches", json={**body, "players": 4, "disconnect_timeout": 0.0})
    assert same.status_code == 201 and same.json() == created

    join_url = f"/api/matches/{new_match(gw)['match_id']}/join"
    joined = gw.post(join_url, json={"name": "Bob", "id": key}).json()
    assert joined["seat"] == 1
    joined_url_match = join_url.split("/")[3]
    tokens, seats = token_entries(client, joined_url_match), seats_of(gw, joined_url_match)
    for other in ({"name": "Carl"}, {"seat": 3}, {"name": "Bob", "seat": 1}):
        answer = gw.post(join_url, json={"id": key, **other})
        assert answer.status_code == 400, (other, answer.text)
        assert "request key was used for another request" in answer.json()["error"]["message"]
    assert token_entries(client, joined_url_match) == tokens
    assert seats_of(gw, joined_url_match) == seats
    assert gw.post(join_url, json={"name": "Bob", "id": key}).json() == joined


def test_a_key_sent_again_with_another_body_is_refused(
        real: tuple[Gateway, redis.Redis]) -> None:
    another_body_refused(*real)


def test_a_creates_key_in_a_join_of_its_match_is_a_new_join(
        real: tuple[Gateway, redis.Redis]) -> None:
    """A create's key and a join's key are apart: the create's key sent in a join of the
    match it made takes a new seat for a new player (it never gives the creator's seat)."""
    gw, _ = real
    key = "create-key-in-a-join-01234"
    created = gw.post("/api/matches", json={"name": "A", "disconnect_timeout": 0,
                                            "turn_timeout": 0, "id": key}).json()
    match_id = created["match_id"]
    joined = gw.post(f"/api/matches/{match_id}/join", json={"name": "B", "id": key})
    assert joined.status_code == 200, joined.text
    assert joined.json()["seat"] == 1
    assert joined.json()["player"] != created["player"]
    assert joined.json()["token"] != created["token"]
    assert seats_of(gw, match_id)[:2] == [created["player"], joined.json()["player"]]


def test_on_a_cluster_a_left_retry_and_another_body_are_refused(
        redis_cluster: Cluster) -> None:
    with gateway(redis_url=redis_cluster.url, queue_url=redis_url(), worker=False) as gw:
        left_then_retried(gw, redis_cluster.client, "bot:easy")
        another_body_refused(gw, redis_cluster.client)
