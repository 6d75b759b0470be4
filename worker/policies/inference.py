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

from .fast import FAST_TABLES, TRUMP_BASE, same_play
from .fast import legal as legal_cards
from .heuristic import play, signal_card
from .knowledge import FastKnowledge


class PlayModel:
    """Scores sampled deals by the plays observed so far this round.

    The likelihood factors by seat: a seat's play depends on its own hand and on public things
    only (the open trick, the voids shown, the cards not yet played), so the factor of each
    other seat is a function of its hand alone (``seat_factor``), kept per hand for the
    decision.  A Markov step that swaps a card between two hands recomputes those two factors
    only; the third is remembered."""

    __slots__ = ("plays", "played_by", "me", "miss", "partner_miss", "must_trump", "active",
                 "floor", "contexts", "memo", "signal", "signal_miss")

    def __init__(self, f: FastKnowledge, miss: float = 0.2, partner_miss: float | None = None,
                 signal: int = 0, signal_miss: float = 0.15) -> None:
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
        self.signal = signal
        """The partners' signalling convention (``heuristic.signal_card``'s ``mode``; 0: none):
        in a free situation the partner's predicted card is the convention's."""
        self.signal_miss = signal_miss
        """With ``signal``: the factor of a partner's free play that is not the convention's
        card."""
        self.active = k.history_complete and any(s != k.seat for s, _ in self.plays)
        self.floor = miss ** 3
        """Below this a seat's factor is not refined further: the deal is already
        implausible."""
        self.contexts: list[list[_Context]] = [[], [], [], []]
        """Per seat, the public situation of each of its plays (not the seat's own)."""
        self.memo: list[dict[int, float]] = [{}, {}, {}, {}]
        """Per seat, ``seat_factor`` by hand."""
        later = self.played_by[:]  # per seat, the cards it plays from this play on
        unplayed = f.unseen | f.hand
        for m in self.played_by:
            unplayed |= m
        voids = [0, 0, 0, 0]
        trick: list[int] = []
        leader = self.plays[0][0] if self.plays else 0
        partner = (self.me + 2) & 3
        for seat, card in self.plays:
            if not trick:
                leader = seat
            if seat != self.me:
                factor = self.partner_miss if seat == partner else self.miss
                self.contexts[seat].append(_Context(trick[:], leader, voids[:], unplayed,
                                                    card, later[seat], factor,
                                                    signal > 0 and seat == partner))
            led = trick[0] >> 4 if trick else -1
            if led >= 0 and card >> 4 != led:
                voids[seat] |= 1 << led
                if self.must_trump and card < TRUMP_BASE:
                    voids[seat] |= 8
            later[seat] ^= 1 << card
            unplayed ^= 1 << card
            trick.append(card)
            if len(trick) == 4:
                trick = []

    def seat_factor(self, seat: int, hand_now: int) -> float:
        """The likelihood factor of ``seat``'s plays if it holds ``hand_now`` now: ``miss`` (or
        ``partner_miss``) for each play the model would not have made, down to ``floor``."""
        memo = self.memo[seat]
        known = memo.get(hand_now)
        if known is not None:
            return known
        weight = 1.0
        must_trump = self.must_trump
        for ctx in self.contexts[seat]:
            hand = hand_now | ctx.later
            trick = ctx.trick
            legal = legal_cards(hand, trick, must_trump)
            if legal & (legal - 1) == 0:
                continue
            card = ctx.card
            unseen = ctx.unplayed ^ hand
            choice, reason = play(hand, legal, unseen, ctx.voids, trick, ctx.leader, seat)
            miss = ctx.miss
            if ctx.signal:
                sig = signal_card(self.signal, hand, legal, unseen, trick, choice, reason)
                if sig >= 0:
                    # mode 3: a play of another suit is read as a plain deviation
                    if self.signal < 3 or card >> 4 == sig >> 4:
                        miss = self.signal_miss
                    choice = sig
            if same_play(choice, card, trick, ctx.unplayed, hand):
                continue
            weight *= miss
            if weight < self.floor:
                break
        memo[hand_now] = weight
        return weight

    def weight(self, hands_now: Sequence[int]) -> float:
        """The likelihood factor of the observed plays if the hands now are ``hands_now``: the
        product of the other seats' factors, in seat order."""
        if not self.active:
            return 1.0
        weight = 1.0
        for seat in range(4):
            if seat != self.me:
                weight *= self.seat_factor(seat, hands_now[seat])
        return weight


class _Context:
    """What was public when a seat made one play: the open trick, its leader, the voids shown,
    the cards not yet played (the open trick's cards excluded), the card played, the cards the
    seat played from then on (that one included), the factor of a play the model would not
    make, and whether the seat is the partner reading its signals."""

    __slots__ = ("trick", "leader", "voids", "unplayed", "card", "later", "miss", "signal")

    def __init__(self, trick: list[int], leader: int, voids: list[int], unplayed: int,
                 card: int, later: int, miss: float, signal: bool = False) -> None:
        self.trick = trick
        self.leader = leader
        self.voids = voids
        self.unplayed = unplayed
        self.card = card
        self.later = later
        self.miss = miss
        self.signal = signal
