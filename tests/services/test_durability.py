"""Durability: with AOF and ``appendfsync always`` every acknowledged move survives a SIGKILL
of Redis (a private redis-server in a temporary folder, restarted on the same folder)."""

from __future__ import annotations

import random

import pytest
import redis

from engine import ChooseTrump, PlayCard, legal_choices
from services.audit import check
from services.matches import MatchService
from services.store.redis_streams import RedisStore


@pytest.mark.redis
def test_acknowledged_moves_survive_sigkill(private_redis) -> None:  # type: ignore[no-untyped-def]
    server = private_redis("--appendonly", "yes", "--appendfsync", "always")
    server.start()
    service = MatchService(RedisStore(redis.Redis.from_url(server.url)))
    created = service.create(name="A")
    match_id = created["match_id"]
    for i in range(3):
        service.join(match_id, f"P{i}")
    rng = random.Random(4)
    acknowledged: list[tuple[int, str]] = []
    for _ in range(120):
        loaded = service.load(match_id, fresh=False)
        state = loaded.state
        if state.turn is None:
            break
        choice = rng.choice(legal_choices(state, state.turn))
        command = ChooseTrump(choice) if state.phase == "choosing_trump" else PlayCard(choice)
        outcome = service.handle(match_id, state.turn, command, command_id=f"c{len(acknowledged)}")
        acknowledged.append((outcome.version, f"c{len(acknowledged)}"))
    top = service.load(match_id, fresh=False).version
    server.kill()
    server.start()  # same folder: Redis replays its append-only file
    records = RedisStore(redis.Redis.from_url(server.url)).read(match_id)
    assert len(records) == top
    by_version = {r.version: r.command_id for r in records}
    for version, command_id in acknowledged:
        assert by_version[version] == command_id
    assert check(records) == []
