"""The request keys of creates and joins on the embedded server survive its restart
(``services/store/journal.py``: ``remembered``): a client retrying a create or a join after a
restart (a 503, a lost reply) gets the match or the seat it got, and nothing new is stored; a
remembered answer keeps its exact expiry, and one past it is not brought back by the replay."""

from __future__ import annotations

import time
from pathlib import Path
from collections.abc import Callable
from typing import Any

import fakeredis
import pytest

from services.matches import MatchService
from services.quotas import Quotas, RetryLater
from services.store import journal, keys
from services.store.journal import DataFolder
from services.store.redis_streams import RedisStore

CREATE_KEY = "create-key-0123456789"
JOIN_KEY = "join-key-0123456789ab"
SEATS = ["human", "human", "bot:easy", "bot:easy"]
RULES = {"teams": "as_seated"}
"""(No ace draw: it may move the players once both humans are seated, and a retry answers the
seat the player has now.)"""


def everything(server: Any) -> dict[bytes, Any]:
    """Every key of the server's database 0 with its type and expiry (what "nothing new
    stored" compares)."""
    client = fakeredis.FakeRedis(server=server)
    return {k: (client.type(k), client.pexpiretime(k)) for k in sorted(client.scan_iter())}


def test_a_create_and_a_join_retried_after_a_restart_get_the_same_match_and_seat(
        tmp_path: Path) -> None:
    server = fakeredis.FakeServer()
    data = DataFolder.open(tmp_path, server)
    service = MatchService(RedisStore(fakeredis.FakeRedis(server=server)))
    created = service.create(name="Ann", seats=SEATS, rules=RULES, key=CREATE_KEY)
    match_id = created["match_id"]
    joined = service.join(match_id, "Bob", key=JOIN_KEY)
    client = fakeredis.FakeRedis(server=server)
    remembered = sorted(k for k in client.scan_iter() if b":join:" in k or b":create:" in k)
    assert len(remembered) == 3  # the create, the creator's seat (a join) and the join
    expiries = {k: client.pexpiretime(k) for k in remembered}
    assert all(e > time.time() * 1000 for e in expiries.values())
    data.close()  # the embedded server stops (or is killed: every frame is written already)

    again = fakeredis.FakeServer()
    reopened = DataFolder.open(tmp_path, again)
    try:
        restored = fakeredis.FakeRedis(server=again)
        # the same answers with their exact expiries (absolute, not restarted)
        assert {k: restored.pexpiretime(k) for k in remembered} == expiries
        before = everything(again)
        retry = MatchService(RedisStore(restored))
        assert retry.create(name="Ann", seats=SEATS, rules=RULES, key=CREATE_KEY) == created
        assert retry.join(match_id, "Bob", key=JOIN_KEY) == joined
        assert everything(again) == before  # no second match, seat or token
    finally:
        reopened.close()


def test_a_remembered_answer_past_its_expiry_is_not_replayed(tmp_path: Path) -> None:
    server = fakeredis.FakeServer()
    data = DataFolder.open(tmp_path, server)
    store = RedisStore(fakeredis.FakeRedis(server=server))
    assert store.remember(None, "gone", "m-old", 0.2) == "m-old"
    assert store.remember("m1", "kept", "seat", 600) == "seat"
    kept = keys.join_request("m1", "kept").encode()
    expiry = fakeredis.FakeRedis(server=server).pexpiretime(kept)
    data.close()
    gone = keys.create_request("gone").encode()
    deadline = time.time() + 10  # the first answer's expiry passes while the server is down
    while journal.load(tmp_path).dbs[0].get(gone) is not None and time.time() < deadline:
        time.sleep(0.05)

    again = fakeredis.FakeServer()
    reopened = DataFolder.open(tmp_path, again)
    try:
        restored = fakeredis.FakeRedis(server=again)
        assert restored.get(gone) is None
        assert restored.get(kept) == b"seat" and restored.pexpiretime(kept) == expiry
        # the compaction kept the live one with its expiry and dropped the lapsed one
        compacted = [c for _, frame in journal.read(tmp_path / journal.JOURNAL).frames
                     for c in frame]
        assert compacted == [[0, b"set", kept, b"seat"], [0, b"pexpireat", kept,
                                                          b"%d" % expiry]]
        # a new answer for the lapsed request is kept (not the old one come back)
        assert RedisStore(restored).remember(None, "gone", "m-new", 600) == "m-new"
    finally:
        reopened.close()


def test_set_is_journaled_on_request_keys_only(tmp_path: Path) -> None:
    server = fakeredis.FakeServer()
    data = DataFolder.open(tmp_path, server)
    try:
        client = fakeredis.FakeRedis(server=server)
        key = keys.join_request("m1", "r").encode()
        assert client.set(key, "a", nx=True, px=60_000)
        assert not client.set(key, "b", nx=True, px=60_000)  # kept: the same state again
        client.set(key, "c")  # a plain SET drops the expiry
        client.set("elsewhere", "x", ex=5)  # not persisted: not journaled
        frames = [c for _, frame in journal.read(tmp_path / journal.JOURNAL).frames
                  for c in frame]
        assert [c[1] for c in frames] == [b"set", b"pexpireat", b"set", b"pexpireat",
                                          b"set", b"persist"]
        assert frames[4] == [0, b"set", key, b"c"]
        replayed = fakeredis.FakeServer()
        journal.replay(journal.read(tmp_path / journal.JOURNAL).frames, replayed)
        other = fakeredis.FakeRedis(server=replayed)
        assert other.get(key) == b"c" and other.pexpiretime(key) == -1
        assert other.get("elsewhere") is None
    finally:
        data.close()


def limited(quotas: Quotas, now: float) -> Callable[[Any], MatchService]:
    """A match service on a fakeredis server with ``quotas``, its clock stopped at ``now``."""
    def service(server: Any) -> MatchService:
        return MatchService(RedisStore(fakeredis.FakeRedis(server=server)), quotas=quotas,
                            clock=lambda: now)
    return service


def test_the_create_quota_survives_a_restart(tmp_path: Path) -> None:
    """The creates counted for an address in the current window are journaled (``counted``)
    with their exact expiry: a restart does not give the address its quota back (a QA
    finding: the counters were not journaled)."""
    now = time.time()  # one fixed window for the whole test, whatever the clock does
    quotas = Quotas(creates_per_window=2)
    service = limited(quotas, now)
    server = fakeredis.FakeServer()
    data = DataFolder.open(tmp_path, server)
    first = service(server)
    for _ in range(2):
        first.create(seats=SEATS, owner="addr")
    with pytest.raises(RetryLater):
        first.create(seats=SEATS, owner="addr")
    counter = keys.counter("create", "addr", int(now // quotas.create_window_s)).encode()
    client = fakeredis.FakeRedis(server=server)
    assert client.get(counter) == b"3"
    expiry = client.pexpiretime(counter)
    assert expiry > now * 1000
    data.close()

    again = fakeredis.FakeServer()
    reopened = DataFolder.open(tmp_path, again)
    try:
        restored = fakeredis.FakeRedis(server=again)
        assert restored.get(counter) == b"3" and restored.pexpiretime(counter) == expiry
        with pytest.raises(RetryLater):
            service(again).create(seats=SEATS, owner="addr")
        service(again).create(seats=SEATS, owner="another address")  # its own quota
    finally:
        reopened.close()


def test_incr_is_journaled_on_counters_only(tmp_path: Path) -> None:
    """An ``INCR`` is journaled as the count it left (a replay never counts twice), and
    refused on match data like ``SET``."""
    server = fakeredis.FakeServer()
    data = DataFolder.open(tmp_path, server)
    try:
        client = fakeredis.FakeRedis(server=server)
        counter = keys.counter("create", "a", 7).encode()
        assert client.incr(counter) == 1 and client.incr(counter) == 2
        client.expire(counter, 60)
        with pytest.raises(Exception, match="not journaled"):
            client.incr(keys.meta("m1"))
        frames = [c for _, frame in journal.read(tmp_path / journal.JOURNAL).frames
                  for c in frame]
        assert [c[1] for c in frames] == [b"set", b"persist", b"set", b"persist",
                                          b"pexpireat"]
        assert frames[2] == [0, b"set", counter, b"2"]
        replayed = fakeredis.FakeServer()
        journal.replay(journal.read(tmp_path / journal.JOURNAL).frames, replayed)
        other = fakeredis.FakeRedis(server=replayed)
        assert other.get(counter) == b"2"
        assert other.pexpiretime(counter) == client.pexpiretime(counter)
    finally:
        data.close()


def test_the_bots_only_slots_survive_a_restart(tmp_path: Path) -> None:
    """The slots of bots-only matches still playing are journaled (``slotted``): a restart
    does not let an address start more of them than its quota (they were not journaled: a
    "Left" item of session 27)."""
    service = limited(Quotas(bot_matches=5, bot_matches_per_owner=1), time.time())
    bots = ["bot:easy"] * 4
    server = fakeredis.FakeServer()
    data = DataFolder.open(tmp_path, server)
    first = service(server)
    held = first.create(seats=bots, owner="addr")["match_id"]
    with pytest.raises(RetryLater):
        first.create(seats=bots, owner="addr")
    client = fakeredis.FakeRedis(server=server)
    slots = {k: client.zrange(k, 0, -1, withscores=True)
             for k in (keys.slots("bots-only").encode(), keys.slots("bots-only", "addr").encode())}
    assert all(v == [(held.encode(), pytest.approx(v[0][1]))] for v in slots.values()), slots
    data.close()

    again = fakeredis.FakeServer()
    reopened = DataFolder.open(tmp_path, again)
    try:
        restored = fakeredis.FakeRedis(server=again)
        assert {k: restored.zrange(k, 0, -1, withscores=True) for k in slots} == slots
        with pytest.raises(RetryLater):
            service(again).create(seats=bots, owner="addr")
        # another address still has its own
        assert service(again).create(seats=bots, owner="other")["match_id"]
    finally:
        reopened.close()
