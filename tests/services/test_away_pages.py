"""The watchdog's look at the away set (``services.bots.recover_away``) goes round the whole set
a page at a time: seats that stay away without being due (rooms waiting for players, turns far
off) fill the oldest places for as long as their matches live, and must not hide a seat behind
them whose stand-in is due."""

from __future__ import annotations

from typing import Any

import fakeredis

from services.bots import AWAY_PAGE, recover_away
from services.store import keys


class Scheduled:
    """A scheduler that records what it was asked to schedule."""

    def __init__(self) -> None:
        self.turns: list[tuple[str, int, int]] = []
        self.bots_only: list[bool] = []

    def schedule(self, match_id: str, seat: int, version: int, *,
                 bots_only: bool = False) -> None:
        self.turns.append((match_id, seat, version))
        self.bots_only.append(bots_only)


def test_a_due_seat_behind_a_page_of_seats_not_due_gets_its_stand_in() -> None:
    client: Any = fakeredis.FakeRedis()
    waiting = {f"m{i:04d}:0": float(i) for i in range(AWAY_PAGE * 2 + 7)}  # the oldest
    client.zadd(keys.AWAY, {**waiting, "late:2": 10_000.0})
    scheduler = Scheduled()
    looked: list[str] = []

    def due(match_id: str, seat: int, away_s: float) -> tuple[int, bool] | None:
        looked.append(f"{match_id}:{seat}")
        return (17, True) if match_id == "late" else None

    passes = 0
    while not scheduler.turns:
        passes += 1
        assert passes <= 3, "the due seat was never looked at"
        recover_away(client, scheduler, due, clock=lambda: 20_000.0)  # type: ignore[arg-type]
    assert scheduler.turns == [("late", 2, 17)]
    assert scheduler.bots_only == [True]  # nobody waits: the bots-only queue's
    assert passes == 3 and len(looked) == len(waiting) + 1  # every seat once, none twice
    # and round again from the start
    looked.clear()
    recover_away(client, scheduler, due, clock=lambda: 20_000.0)  # type: ignore[arg-type]
    assert looked[0] == "m0000:0" and len(looked) == AWAY_PAGE


def test_an_away_member_names_its_match_and_seat_back() -> None:
    """``keys.away_member`` and ``keys.away_seat`` are each other's inverse (as Redis answers:
    bytes), whatever the match id holds."""
    for match_id, seat in (("67df63520b1f00f5", 0), ("a:b", 3), ("x", 12)):
        member = keys.away_member(match_id, seat)
        assert keys.away_seat(member) == (match_id, seat)
        assert keys.away_seat(member.encode()) == (match_id, seat)
