"""An independent reference model of Hokm for the conformance tests, written from rules.md and
api.md with plain lists, sets and card names (none of the engine's masks or tables).

``RefMatch`` predicts, for every command of a random playout, the exact events the engine must
produce and the error code it must give for any refused card.
"""

from __future__ import annotations

from engine import Rules
from engine.events import (
    CardPlayed, Event, HakemDrawn, MatchEnded, RoundEnded, SetWon, TrickWon,
)

RANKS = "23456789TJQKA"
SUITS = "SHDC"
ORDER = {r + s: i for i, (s, r) in enumerate((s, r) for s in SUITS for r in RANKS)}
"""The canonical order of the cards (spades 2..A, hearts, diamonds, clubs)."""


def mask(cards: set[str] | list[str] | tuple[str, ...]) -> int:
    """The bit mask of some cards: bit ``ORDER[card]``."""
    m = 0
    for c in cards:
        m |= 1 << ORDER[c]
    return m


def ref_deal(deck: list[str] | tuple[str, ...], hakem: int, deal: str) -> list[set[str]]:
    """api.md: fives from the Hakem round the table, then packets of 4, 4 (or 3, 3, 2)."""
    sizes = [5, 4, 4] if deal == "5-4-4" else [5, 3, 3, 2]
    hands: list[set[str]] = [set() for _ in range(4)]
    pos = 0
    for size in sizes:
        for k in range(4):
            hands[(hakem + k) % 4].update(deck[pos:pos + size])
            pos += size
    return hands


def ref_draw(deck: tuple[str, ...], teams: str) -> HakemDrawn:
    """rules.md 3: one card per seat from seat 0 until an ace (Hakem); then, skipping the Hakem,
    until a second ace (partner, who swaps with the player opposite the Hakem)."""
    cards = iter(deck)
    draw: list[tuple[int, str]] = []
    seat = 0
    while True:
        card = next(cards)
        draw.append((seat, card))
        if card[0] == "A":
            hakem = seat
            break
        seat = (seat + 1) % 4
    if teams == "as_seated":
        return HakemDrawn(tuple(draw), hakem, None, None)
    others = [(hakem + k) % 4 for k in (1, 2, 3)]
    k = 0
    while True:
        card = next(cards)
        draw.append((others[k % 3], card))
        if card[0] == "A":
            partner = others[k % 3]
            break
        k += 1
    opposite = (hakem + 2) % 4
    swap = None if partner == opposite else (min(partner, opposite), max(partner, opposite))
    return HakemDrawn(tuple(draw), hakem, partner, swap)


class RefMatch:
    def __init__(self, rules: Rules, first_hakem: int | None) -> None:
        self.rules = rules
        self.score = [0, 0]
        self.sets = [0, 0]
        self.next_hakem = first_hakem
        self.round = 0
        self.over = False
        self.players = ["p0", "p1", "p2", "p3"]  # who sits where (names)
        self.result: RoundEnded | None = None

    # -- match level ----------------------------------------------------------------------

    def drawn(self, deck: tuple[str, ...]) -> HakemDrawn:
        event = ref_draw(deck, self.rules.teams)
        if event.swap is not None:
            a, b = event.swap
            self.players[a], self.players[b] = self.players[b], self.players[a]
        self.next_hakem = event.hakem
        return event

    def start_round(self, deck: tuple[str, ...]) -> None:
        assert self.next_hakem is not None and not self.over
        if max(self.score) >= self.rules.target:  # a set was won: a new set starts
            self.score = [0, 0]
        self.round += 1
        self.hakem = self.next_hakem
        self.dealer = (self.hakem - 1) % 4
        self.next_hakem = None
        self.deck = deck
        self.full = ref_deal(deck, self.hakem, self.rules.deal)
        self.hands: list[set[str]] = [set(), set(), set(), set()]
        self.hands[self.hakem] = set(deck[:5])
        self.masks = [mask(h) for h in self.hands]
        """The hands as bit masks (bit i is the i-th card of the canonical order)."""
        self.trump: str | None = None
        self.trick: list[tuple[int, str]] = []
        self.turn: int | None = self.hakem
        self._legal: tuple[set[str], str | None] | None = None
        self.tricks = [0, 0]
        self.pile = 0
        self.run: int | None = None
        self.played_tricks = 0
        self.played_cards: set[str] = set()
        self.played_mask = 0

    def choose_trump(self, suit: str) -> None:
        self.trump = suit
        self.eff = {card: self.suit(card) for card in ORDER}
        self.hands = [set(h) for h in self.full]
        self.masks = [mask(h) for h in self.hands]
        self._legal = None

    # -- cards ----------------------------------------------------------------------------

    def suit(self, card: str) -> str:
        """The suit a card counts in (satat: the 2 of hearts is a trump)."""
        assert self.trump is not None
        if self.rules.satat and card == "2H":
            return self.trump
        return card[1]

    def power(self, card: str, led: str) -> int:
        if self.rules.satat and card == "2H":
            return 1000
        suit = self.suit(card)
        if suit == self.trump:
            return 100 + RANKS.index(card[0])
        if suit == led:
            return RANKS.index(card[0])
        return -1

    def legal_set(self) -> tuple[set[str], str | None]:
        """The cards the seat to play may play, and the code for its other cards."""
        if self._legal is None:
            assert self.turn is not None
            hand = self.hands[self.turn]
            self._legal = (set(hand), None)
            if self.trick:
                eff = self.eff
                led = eff[self.trick[0][1]]
                follow = {c for c in hand if eff[c] == led}
                if follow:
                    self._legal = (follow, "must_follow_suit")
                elif self.rules.must_trump:
                    trumps = {c for c in hand if eff[c] == self.trump}
                    if trumps:
                        self._legal = (trumps, "must_trump")
        return self._legal

    def code_for(self, seat: int, card: str) -> str | None:
        """The error code for ``seat`` playing ``card`` now (None: legal)."""
        if seat != self.turn:
            return "not_your_turn"
        if card not in self.hands[seat]:
            return "illegal_card"
        legal, code = self.legal_set()
        return None if card in legal else code

    def legal(self, seat: int) -> list[str]:
        assert seat == self.turn
        return sorted(self.legal_set()[0], key=ORDER.__getitem__)

    # -- play -----------------------------------------------------------------------------

    def play(self, seat: int, card: str) -> list[Event]:
        """Play a legal card; return the events the engine must produce."""
        assert self.code_for(seat, card) is None
        self._legal = None
        self.hands[seat].remove(card)
        self.masks[seat] ^= 1 << ORDER[card]
        self.played_cards.add(card)
        self.played_mask |= 1 << ORDER[card]
        self.trick.append((seat, card))
        events: list[Event] = [CardPlayed(seat, card)]
        if len(self.trick) < 4:
            self.turn = (seat + 1) % 4
            return events
        led = self.suit(self.trick[0][1])
        winner = max(self.trick, key=lambda sc: self.power(sc[1], led))[0]
        team = winner % 2
        self.trick = []
        self.turn = winner
        self.played_tricks += 1
        before = list(self.tricks)
        if not self.rules.double_sar:
            banked = 1
        elif self.run == team or self.played_tricks == 13:
            banked, self.pile, self.run = self.pile + 1, 0, None
        else:
            banked, self.pile, self.run = 0, self.pile + 1, team
        self.tricks[team] += banked
        events.append(TrickWon(winner, banked))
        outcome = self.outcome(before)
        if outcome is None:
            return events
        self.turn = None
        win, points, kind = outcome
        self.result = RoundEnded(win, points, kind, tuple(self.tricks))
        events.append(self.result)
        self.score[win] += points
        hakem_won = win == self.hakem % 2
        self.next_hakem = self.hakem if hakem_won else (self.hakem + 1) % 4
        self.settle(win, events)
        return events

    def settle(self, win: int, events: list[Event]) -> None:
        """After ``win`` scored: a set won (target "2x7") and the end of the match."""
        if self.score[win] >= self.rules.target:
            if self.rules.sets > 1:
                events.append(SetWon(win))
                self.sets[win] += 1
            if self.sets[win] >= self.rules.sets or self.rules.sets == 1:
                events.append(MatchEnded(win, tuple(self.score)))
                self.over = True
                self.next_hakem = None

    def outcome(self, before: list[int]) -> tuple[int, int, str] | None:
        """rules.md 9 and 10, with the bavney house rule."""
        winners = [t for t in (0, 1) if self.tricks[t] >= 7]
        if not winners:
            return None
        (w,) = winners
        other = self.tricks[1 - w]
        hakem_side = w == self.hakem % 2
        sweep = (w, 2, "kot") if hakem_side else (w, 3, "hakem_koti")
        if other == 0:
            if not self.rules.bavney:
                return sweep
            return (w, 3, "bavney") if self.played_tricks == 13 else None
        if self.rules.bavney and before[w] >= 7 and before[1 - w] == 0:
            return sweep  # the first lost trick after an unbroken 7-0 (or more)
        return (w, 1, "normal")
