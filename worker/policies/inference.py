"""How plausible the plays seen this round are in a sampled deal (fast card space).

The behaviour model is the heuristic (``heuristic.play``) run for each other seat on what that
seat knew at the time: its own hand in the sampled deal, the cards played before and the voids
shown before.  A play the model would also have made (or an equivalent card: nothing still in
play ranks between them) keeps the sample's weight; any other play multiplies it by ``miss``.
So a deal in which an opponent would have cashed the ace it "holds" becomes unlikely once it did
not.  Only public plays and the seat's own knowledge are used: the same reasoning is open to a
human at the table.
"""

from __future__ import annotations

from collections.abc import Sequence

from .fast import BLOCK, FAST_TABLES, TRUMP_BASE
from .fast import legal as legal_cards
from .heuristic import play
from .knowledge import FastKnowledge


class PlayModel:
    """Scores sampled deals by the plays observed so far this round."""

    __slots__ = ("plays", "played_by", "me", "miss", "partner_miss", "must_trump", "active",
                 "floor")

    def __init__(self, f: FastKnowledge, miss: float = 0.2, partner_miss: float | None = None
                 ) -> None:
        k = f.k
        assert k.trump is not None
        ft = FAST_TABLES[(k.trump, k.rules.satat)]
        self.plays = [(s, ft.to_fast[c]) for s, c in k.plays]
        self.played_by = [ft.mask_to_fast(m) for m in k.played_by]
        self.me = k.seat
        self.miss = miss
        self.partner_miss = miss if partner_miss is None else partner_miss
        """The factor for the partner's plays (a partner may not play like the model)."""
        self.must_trump = k.rules.must_trump
        self.active = k.history_complete and any(s != k.seat for s, _ in self.plays)
        self.floor = miss ** 3
        """Below this the replay stops: the deal is already implausible."""

    def weight(self, hands_now: Sequence[int]) -> float:
        """The likelihood factor of the observed plays if the hands now are ``hands_now``."""
        if not self.active:
            return 1.0
        hands = [hands_now[s] | self.played_by[s] for s in range(4)]
        voids = [0, 0, 0, 0]
        trick: list[int] = []
        leader = self.plays[0][0] if self.plays else 0
        weight = 1.0
        me, must_trump = self.me, self.must_trump
        partner = (me + 2) & 3
        for seat, card in self.plays:
            hand = hands[seat]
            led = trick[0] >> 4 if trick else -1
            legal = legal_cards(hand, trick, must_trump)
            if seat != me and legal & (legal - 1):
                miss = self.partner_miss if seat == partner else self.miss
                in_play = hands[0] | hands[1] | hands[2] | hands[3]
                choice = play(hand, legal, in_play ^ hand, voids, trick, leader, seat)[0]
                if choice != card:
                    if choice >> 4 != card >> 4:
                        weight *= miss
                    else:
                        lo, hi = (choice, card) if choice < card else (card, choice)
                        between = BLOCK[lo >> 4] & ((1 << hi) - 1) & ~((2 << lo) - 1)
                        for c in trick:
                            in_play |= 1 << c
                        if between & in_play & ~hand:
                            weight *= miss
                    if weight < self.floor:
                        return weight
            if led >= 0 and card >> 4 != led:
                voids[seat] |= 1 << led
                if must_trump and card < TRUMP_BASE:
                    voids[seat] |= 8
            hands[seat] = hand ^ (1 << card)
            if not trick:
                leader = seat
            trick.append(card)
            if len(trick) == 4:
                trick = []
        return weight
