"""Small builders shared by the engine tests."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import pytest

from engine import (
    ChooseTrump, Command, CreateMatch, DealRound, Event, HokmError, PlayCard, Rules, State,
    TakeSeat, commitment_of, decide, evolve,
)
from engine.cards import NAMES, RANKS, cards_of
from engine.views import legal_mask

SECRET = "5e" * 32

Chooser = Callable[[State, int, list[str]], str]
"""Picks the card a seat plays from its legal cards (in canonical order, lowest first)."""


class Match:
    """A match driven through decide + evolve, keeping the event log."""

    def __init__(self, rules: Rules | None = None, first_hakem: int | None = 0) -> None:
        self.state = State()
        self.log: list[Event] = []
        rules = rules or Rules()
        self.run(None, CreateMatch("t", rules, commitment_of(SECRET), first_hakem))
        for seat in range(rules.players):
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

    def refused(self, seat: int | None, command: Command) -> str:
        """The error code ``decide`` answers (the state is unchanged)."""
        before = self.state.snapshot()
        with pytest.raises(HokmError) as info:
            decide(self.state, seat, command)
        assert self.state.snapshot() == before
        return info.value.code

    def play_round(self, choose: Chooser) -> list[Event]:
        """Play until the round is over, each seat taking ``choose(state, seat, legal)``."""
        out: list[Event] = []
        while self.state.phase == "playing":
            seat = self.state.turn
            assert seat is not None
            card = choose(self.state, seat, legal_cards(self.state, seat))
            out.extend(self.run(seat, PlayCard(card)))
        return out

    def round(self, deck: Sequence[str], trump: str, choose: Chooser) -> list[Event]:
        self.deal(deck)
        self.trump(trump)
        return self.play_round(choose)


def legal_cards(state: State, seat: int) -> list[str]:
    """The legal cards of ``seat`` in canonical order (lowest first within S H D C)."""
    return [NAMES[c] for c in cards_of(legal_mask(state, seat))]


def rank(card: str) -> int:
    return RANKS.index(card[0])


def suit_cards(suit: str) -> list[str]:
    """The 13 cards of a suit, highest first."""
    return [r + suit for r in reversed(RANKS)]


def lowest(state: State, seat: int, legal: list[str]) -> str:
    return min(legal, key=rank)


def planned(plan: dict[int, Iterable[str]], default: Chooser = lowest) -> Chooser:
    """Seats in ``plan`` play their listed cards in order; the others (and exhausted plans)
    play ``default``."""
    queues = {seat: list(cards) for seat, cards in plan.items()}

    def choose(state: State, seat: int, legal: list[str]) -> str:
        queue = queues.get(seat)
        if queue:
            return queue.pop(0)
        return default(state, seat, legal)

    return choose


def preferring(prefs: dict[int, Iterable[str]], default: Chooser = lowest) -> Chooser:
    """Seats in ``prefs`` play the first of their listed cards that is legal and leads or
    follows the suit led (never as a discard), else ``default``."""
    lists = {seat: list(cards) for seat, cards in prefs.items()}

    def choose(state: State, seat: int, legal: list[str]) -> str:
        led = NAMES[state.trick[0][1]][1] if state.trick else None
        for card in lists.get(seat, ()):
            if card in legal and (led is None or card[1] == led):
                return card
        return default(state, seat, legal)

    return choose


def sweeper(seat: int, trump: str = "S") -> Chooser:
    """``seat`` plays its highest trump whenever it may, everyone else the lowest legal card."""

    def choose(state: State, s: int, legal: list[str]) -> str:
        if s == seat:
            trumps = [c for c in legal if c[1] == trump]
            if trumps:
                return max(trumps, key=rank)
        return lowest(state, s, legal)

    return choose


def sweep_deck(seat: int, hakem: int, trump: str = "S", deal: str = "5-4-4") -> list[str]:
    """A deck that gives ``seat`` all 13 cards of ``trump`` when ``hakem`` is Hakem."""
    return deck_for({seat: suit_cards(trump)}, hakem=hakem, deal=deal)


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
