"""Concurrency proof on the real Redis: 10 writer processes x 100 conflicting commands on the
same matches.  Exactly one command is applied per version, and every log replays to a valid
state (chain, rules and deals all check out)."""

from __future__ import annotations

import multiprocessing
import random

import pytest
import redis

from engine import ChooseTrump, PlayCard, legal_choices
from engine.errors import HokmError
from services.audit import check
from services.matches import MatchService
from services.store.redis_streams import RedisStore
from tests.conftest import real_redis_client, redis_db_url

DB = 6
WRITERS = 10
COMMANDS = 100


def writer(index: int, url: str, match_ids: list[str], out: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    service = MatchService(RedisStore(redis.Redis.from_url(url)))  # its own cache: a gateway
    rng = random.Random(index)
    applied: list[tuple[str, int, str]] = []
    refused = 0
    for n in range(COMMANDS):
        match_id = rng.choice(match_ids)
        loaded = service.load(match_id, fresh=rng.random() < 0.5)  # often stale on purpose
        state = loaded.state
        if state.turn is None:
            refused += 1
            continue
        choice = rng.choice(legal_choices(state, state.turn) or ["AS"])
        command = ChooseTrump(choice) if state.phase == "choosing_trump" else PlayCard(choice)
        command_id = f"w{index}-{n}"
        try:
            outcome = service.handle(match_id, state.turn, command, command_id=command_id)
        except HokmError:
            refused += 1
            continue
        applied.append((match_id, outcome.version, command_id))
    out.put((applied, refused))


@pytest.mark.redis
@pytest.mark.slow
def test_ten_writers_one_command_per_version() -> None:
    client = real_redis_client(DB)
    client.flushdb()
    service = MatchService(RedisStore(client))
    match_ids = []
    for _ in range(3):
        created = service.create(name="A", rules={"target": 10})
        for i in range(3):
            service.join(created["match_id"], f"P{i}")
        match_ids.append(created["match_id"])
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    procs = [ctx.Process(target=writer, args=(i, redis_db_url(DB), match_ids, out))
             for i in range(WRITERS)]
    for p in procs:
        p.start()
    results = [out.get(timeout=240) for _ in procs]
    for p in procs:
        p.join(timeout=30)
        assert p.exitcode == 0
    applied = [a for batch, _ in results for a in batch]
    assert len(applied) + sum(r for _, r in results) == WRITERS * COMMANDS
    assert len(applied) > WRITERS * COMMANDS // 4  # the test did provoke real work
    claimed = {(m, v) for m, v, _ in applied}
    assert len(claimed) == len(applied)  # no two writers were told they applied one version
    for match_id in match_ids:
        records = service.store.read(match_id)
        assert check(records) == []  # chain, rules (and deals once over) all hold
        by_version = {r.version: r.command_id for r in records}
        for m, version, command_id in applied:
            if m == match_id:
                assert by_version[version] == command_id  # the record is the one acknowledged
    client.flushdb()
