"""A socket that opens on the seat whose turn runs a limit is told the limit once.

The hub marks the seat present before the socket's first view, and the presence change has the
hub look at the turn (``TurnLimits.look``): a task sees to the deadline and tells every started
socket of the seat.  The socket then starts and ``opened`` saw to the deadline again for it
alone, so when the first task ended after the socket started, it was told twice (QA: every
socket opened on the acting seat got two ``turn_limit`` frames; api.md says one).  These tests
drive ``TurnLimits`` with the tasks run in the order each case needs (no clock, no sleep)."""

from __future__ import annotations

import json
from collections.abc import Coroutine
from types import SimpleNamespace
from typing import Any

import fakeredis
import fakeredis.aioredis

from services.gateway.turnlimit import TurnLimits
from services.matches import MatchService
from services.store.memory import MemoryStore
from tests.conftest import run_async


class Harness:
    """A match waiting for its first Hakem (seat 0, a human; seat 1 another human, so the
    room's limit applies), ``TurnLimits`` over it, and the tasks it spawned, not yet run."""

    def __init__(self) -> None:
        self.service = MatchService(MemoryStore(), allow_stacked=True)
        created = self.service.create(seats=["human", "human", "bot:easy", "bot:easy"],
                                      rules={"teams": "as_seated"}, first_hakem=0, name="A")
        self.match_id = created["match_id"]
        self.service.join(self.match_id, "B", 1)
        self.loaded = self.service.load(self.match_id)
        assert self.service.next_actor(self.loaded.state) == 0
        self.subs: list[Any] = []
        self.tasks: list[Coroutine[Any, Any, None]] = []
        self.client = fakeredis.aioredis.FakeRedis(server=fakeredis.FakeServer())
        self.limits = self.gateway()

    def gateway(self) -> TurnLimits:
        """The turn limits of one more gateway (its own sockets) on the same store."""
        subs: list[Any] = []
        limits = TurnLimits(lambda: self.client, self.service, lambda _: self.loaded,
                            lambda _: subs, self.tasks.append)
        self.subs = subs
        return limits

    def socket(self, seat: int | None) -> Any:
        """A socket (not started) of the gateway made last."""
        sub = SimpleNamespace(match_id=self.match_id, seat=seat, started=False, frames=[],
                              limit_told=None)
        sub.send = sub.frames.append
        self.subs.append(sub)
        return sub

    async def run_tasks(self) -> None:
        while self.tasks:
            await self.tasks.pop(0)

    async def seen_to(self) -> Any:
        """A started socket of seat 0 whose turn was seen to (the deadline set), told once."""
        sub = self.socket(0)
        sub.started = True
        self.limits.look(self.match_id, self.loaded)
        await self.run_tasks()
        assert len(limits_told(sub)) == 1
        return sub


def limits_told(sub: Any) -> list[dict[str, Any]]:
    return [f for f in map(json.loads, sub.frames) if f["type"] == "turn_limit"]


def test_a_socket_opened_while_the_turn_is_being_seen_to_is_told_once() -> None:
    async def main() -> None:
        h = Harness()
        sub = h.socket(0)
        h.limits.look(h.match_id, h.loaded)  # the presence change, before the first view
        sub.started = True
        h.limits.opened(sub, h.loaded)
        await h.run_tasks()  # the look's task ends after the socket started
        told = limits_told(sub)
        assert len(told) == 1, told
        assert told[0]["seat"] == 0 and told[0]["version"] == h.loaded.version

    run_async(main())


def test_a_socket_opened_after_the_turn_was_seen_to_is_told_too() -> None:
    async def main() -> None:
        h = Harness()
        first = await h.seen_to()
        late, watcher = h.socket(0), h.socket(None)  # a second tab of the seat, a spectator
        for sub in (late, watcher):
            sub.started = True
            h.limits.opened(sub, h.loaded)
        await h.run_tasks()
        assert len(limits_told(late)) == 1 and len(limits_told(watcher)) == 1
        assert len(limits_told(first)) == 1  # the first tab is not told again

    run_async(main())


def test_a_socket_not_started_when_the_stores_note_came_is_told_at_its_start() -> None:
    """Two gateways: A sets the turn's deadline (a socket of the seat there) and its note
    reaches B while B's socket of the seat is not started yet, so the note tells only B's
    spectator; when the seat's socket starts, B sees to the turn, finds the deadline it
    learned from the note and must still tell that socket (it took the deadline for told)."""
    async def main() -> None:
        h = Harness()
        on_a = await h.seen_to()
        b = h.gateway()
        watcher = h.socket(None)
        watcher.started = True
        on_b = h.socket(0)  # on B: subscribed, its first view not queued yet
        await b.changed(h.match_id)  # A's note of the deadline
        assert limits_told(on_b) == [] and len(limits_told(watcher)) == 1
        on_b.started = True
        b.opened(on_b, h.loaded)
        await h.run_tasks()
        told = limits_told(on_b)
        assert len(told) == 1 and told[0]["seat"] == 0, told
        await b.changed(h.match_id)  # the note heard again (another ask of the same turn)
        assert [len(limits_told(sub)) for sub in (on_a, on_b, watcher)] == [1, 1, 1]

    run_async(main())
