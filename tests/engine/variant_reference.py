"""The reference model of ``reference.py`` extended to the two- and three-player games, written
from docs/rules-decisions.md ("The variants") with plain lists and card names: seats play
alone (a side is a seat), the three-player deck loses the 2 of clubs, the simple two-player
game deals 26 cards and draws the first Hakem by the higher card, a 6-6-5 split ends a
three-player round without a winner, and the winner of a round becomes Hakem."""

from __future__ import annotations

from engine import Rules
from engine.events import (
    CardPlayed, CardsDiscarded, Event, HakemDrawn, RoundEnded, TalonDrawn, TrickWon,
)

from .reference import ORDER, RANKS, RefMatch, mask

PACKETS = {"5-4-4": [5, 4, 4], "5-3-3-2": [5, 3, 3, 2], "5-4-4-4": [5, 4, 4, 4], "talon": [5]}
"""Packet sizes dealt to every seat in turn (the talon game: five each, the rest is the talon)."""
REMOVED = {3: {"2C"}}
"""Cards out of play by number of players."""


def variant_deal(deck: tuple[str, ...], hakem: int, players: int, deal: str) -> list[set[str]]:
    """Each packet size to every seat in turn from the Hakem, over the deck without the removed
    cards; whatever is left is dealt to nobody."""
    cards = [c for c in deck if c not in REMOVED.get(players, set())]
    hands: list[set[str]] = [set() for _ in range(players)]
    for size in PACKETS[deal]:
        for k in range(players):
            for _ in range(size):
                hands[(hakem + k) % players].add(cards.pop(0))
    return hands


def variant_draw(deck: tuple[str, ...], players: int, high_card: bool) -> HakemDrawn:
    """Two players (simple): a card to each until the ranks differ, the higher is Hakem.
    Three, and the talon game: cards in turn until the first ace."""
    draw: list[tuple[int, str]] = []
    if high_card:
        for i in range(0, 52, 2):
            a, b = deck[i], deck[i + 1]
            draw += [(0, a), (1, b)]
            if a[0] != b[0]:
                return HakemDrawn(tuple(draw), int(RANKS.index(b[0]) > RANKS.index(a[0])),
                                  None, None)
        return HakemDrawn(tuple(draw), 0, None, None)
    for i, card in enumerate(deck):
        draw.append((i % players, card))
        if card.startswith("A"):
            return HakemDrawn(tuple(draw), i % players, None, None)
    raise AssertionError("a deck has aces")


class RefVariant(RefMatch):
    def __init__(self, rules: Rules, first_hakem: int | None) -> None:
        super().__init__(rules, first_hakem)
        self.n = rules.players
        self.hand_size = 17 if self.n == 3 else 13
        self.score = [0] * self.n
        self.sets = [0] * self.n
        self.players = [f"p{i}" for i in range(self.n)]
        self.talon = rules.deal == "talon"

    def drawn(self, deck: tuple[str, ...]) -> HakemDrawn:
        event = variant_draw(deck, self.n, self.n == 2 and not self.talon)
        self.next_hakem = event.hakem
        return event

    def start_round(self, deck: tuple[str, ...]) -> None:
        if max(self.score) >= self.rules.target:
            self.score = [0] * self.n
        super().start_round(deck)  # the four-player bookkeeping, corrected below
        n = self.n
        self.dealer = (self.hakem - 1) % n
        self.full = variant_deal(deck, self.hakem, n, self.rules.deal)
        five = [c for c in deck if c not in REMOVED.get(n, set())][:5]
        self.hands = [set(five) if s == self.hakem else set() for s in range(n)]
        self.masks = [mask(h) for h in self.hands]
        self.tricks = [0] * n
        self.discards: list[set[str]] = [set() for _ in range(n)]
        self.top = 0  # the talon's top card in the deck (the talon game, once discarded)

    # -- the talon game (001, docs/rules-decisions.md) ---------------------------------------

    def discard(self, seat: int, cards: list[str]) -> list[Event]:
        """The Hakem lays 3 aside, then the other player 2; then the Hakem draws first."""
        assert seat == self.turn and set(cards) <= self.hands[seat]
        assert len(set(cards)) == (3 if seat == self.hakem else 2)
        self.hands[seat] -= set(cards)
        self.discards[seat] |= set(cards)
        if seat == self.hakem:
            self.turn = 1 - seat
        else:
            self.turn, self.top = self.hakem, 10
        self.masks = [mask(h) for h in self.hands]
        return [CardsDiscarded(seat, tuple(sorted(cards, key=ORDER.__getitem__)))]

    def draw(self, seat: int, keep: bool) -> list[Event]:
        """Look at the top card: keep it and discard the next, or discard it and keep the
        next; turns alternate until the talon is empty, and the Hakem leads."""
        assert seat == self.turn
        first, second = self.deck[self.top], self.deck[self.top + 1]
        kept, gone = (first, second) if keep else (second, first)
        self.hands[seat].add(kept)
        self.discards[seat].add(gone)
        self.top += 2
        self.turn = self.hakem if self.top == 52 else 1 - seat
        self.masks = [mask(h) for h in self.hands]
        self._legal = None
        if self.top == 52:
            self.full = [set(h) for h in self.hands]
        return [TalonDrawn(seat, kept, gone)]

    def play(self, seat: int, card: str) -> list[Event]:
        assert self.code_for(seat, card) is None
        self._legal = None
        self.hands[seat].discard(card)
        self.masks[seat] = mask(self.hands[seat])
        self.played_cards.add(card)
        self.played_mask = mask(self.played_cards)
        self.trick.append((seat, card))
        if len(self.trick) < self.n:
            self.turn = (seat + 1) % self.n
            return [CardPlayed(seat, card)]
        led = self.suit(self.trick[0][1])
        best = max(self.trick, key=lambda played: self.power(played[1], led))[0]
        self.trick, self.turn = [], best
        self.played_tricks += 1
        previous = self.tricks.copy()
        last = self.played_tricks == self.hand_size
        if self.rules.double_sar and not (self.run == best or last):
            gained, self.pile, self.run = 0, self.pile + 1, best
        elif self.rules.double_sar:
            gained, self.pile, self.run = self.pile + 1, 0, None
        else:
            gained = 1
        self.tricks[best] += gained
        out: list[Event] = [CardPlayed(seat, card), TrickWon(best, gained)]
        ended = self.variant_outcome(previous)
        if ended is not None:
            self.end_round(*ended, out)
        return out

    def end_round(self, winner: int | None, points: int, kind: str, out: list[Event]) -> None:
        self.turn = None
        self.result = RoundEnded(winner, points, kind, tuple(self.tricks))
        out.append(self.result)
        if winner is None:  # nobody at 7: the seat after the Hakem is Hakem
            self.next_hakem = (self.hakem + 1) % self.n
        else:
            self.score[winner] += points
            self.next_hakem = winner  # the Hakem if it won: the winner, playing alone
            self.settle(winner, out)

    def variant_outcome(self, previous: list[int]) -> tuple[int | None, int, str] | None:
        at_seven = [s for s in range(self.n) if self.tricks[s] >= 7]
        if not at_seven:
            return (None, 0, "no_winner") if self.played_tricks == self.hand_size else None
        w = at_seven[0]
        rest = sum(self.tricks) - self.tricks[w]
        sweep = (w, 2, "kot") if w == self.hakem else (w, 3, "hakem_koti")
        if rest == 0:
            if self.rules.bavney:
                return (w, 3, "bavney") if self.played_tricks == self.hand_size else None
            return sweep
        if self.rules.bavney and previous[w] >= 7 and sum(previous) == previous[w]:
            return sweep
        return (w, 1, "normal")
