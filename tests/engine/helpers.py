"""Small builders shared by the engine tests."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine import (
    ChooseTrump, Command, CreateMatch, DealRound, Event, PlayCard, Rules, State, TakeSeat,
    commitment_of, decide, evolve,
)
from engine.cards import NAMES

SECRET = "5e" * 32


class Match:
    """A match driven through decide + evolve, keeping the event log."""

    def __init__(self, rules: Rules | None = None, first_hakem: int | None = 0) -> None:
        self.state = State()
        self.log: list[Event] = []
        self.run(None, CreateMatch("t", rules or Rules(), commitment_of(SECRET), first_hakem))
        for seat in range(4):
            self.run(None, TakeSeat(seat, f"p{seat}", f"id{seat}"))

    def run(self, seat: int | None, command: Command) -> tuple[Event, ...]:
        events = decide(self.state, seat, command)
        for event in events:
            self.state = evolve(self.state, event)
        self.log.extend(events)
        return events

    def deal(self, deck: Sequence[str]) -> None:
        self.run(None, DealRound(tuple(deck), stacked=True))

    def trump(self, suit: str) -> None:
        assert self.state.hakem is not None
        self.run(self.state.hakem, ChooseTrump(suit))

    def play(self, *cards: str) -> list[Event]:
        out: list[Event] = []
        for card in cards:
            seat = self.state.turn
            out.extend(self.run(seat, PlayCard(card)))
        return out


def deck_for(hands: dict[int, Iterable[str]], hakem: int = 0, deal: str = "5-4-4") -> list[str]:
    """A stacked deck that deals ``hands`` (seat -> up to 13 cards; the rest filled in order)."""
    from engine.deal import owner_offsets

    offsets = owner_offsets(deal)
    wanted = {seat: list(cards) for seat, cards in hands.items()}
    used = {c for cards in wanted.values() for c in cards}
    spare = [c for c in NAMES if c not in used]
    deck: list[str] = []
    for offset in offsets:
        seat = (hakem + offset) % 4
        pool = wanted.get(seat)
        deck.append(pool.pop(0) if pool else spare.pop(0))
    assert sorted(deck) == sorted(NAMES)
    return deck
