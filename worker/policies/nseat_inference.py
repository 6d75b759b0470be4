"""How plausible the plays seen this round are in a sampled deal of the games of two and three
players, and deals drawn in proportion to it (fast card space of ``nseat.Fast``).

The four-player search weighs its deals by the plays seen (``inference.py``); this is the same
reasoning for :mod:`worker.policies.nseat`.  The behaviour model is :func:`nseat.play` run for
each other seat on what that seat could see when it played, as :func:`nseat.model_play` gives
it in the search's own playouts: its hand in the sampled deal (the cards it still holds and
those it played from then on), the open trick, the voids shown before, the cards not yet played
that it did not hold and their share in the other hands.  A play the model would also have made
(or an equivalent card: no card still in play ranks between them) keeps the deal's weight; any
other play multiplies it by ``miss``.  So a deal in which the opponent would have cashed the ace
it "holds" becomes unlikely once it did not.  Only public plays and the seat's own knowledge are
used: the same reasoning is open to a human at the table.

:func:`draw` samples ``oversample`` times the deals asked for (``nseat.sample``: counts and
voids) and keeps as many by weight (sampling importance resampling), so a search that averages
over the deals it is given plans on deals about as plausible as the plays make them.
"""

from __future__ import annotations

import random
from math import comb

from .fast import TRUMP, legal, same_play, voids_after
from .nseat import Fast, play, sample

FIVE_CHOICE = (0.0, 0.028, 0.539, 0.973, 1.0, 1.0)
"""P(the heuristic names a suit | that suit has ``j`` of its five first cards), j = 0..5: the
measurement behind ``sampler.TRUMP_LIKELIHOOD`` (200,000 random fives)."""
TRUMP_GAMES = {"simple": 13, "three": 17}
"""The games whose Hakem names trump from the first five of the hand it plays, by hand size (in
the talon game the hand is drawn after the choice and may lose those five)."""
WEIGH_TRUMP = False
"""Whether a deal's weight includes the Hakem's trump choice (:func:`trump_likelihood`).  Off:
measured with ``hard`` against the heuristic (session 14) it moved the round rate by +0.001 and
-0.006 (simple game, seeds 1 and 2, 400 deals) and -0.008 (three players, 200 deals), within
the noise; the plays say more about the Hakem's hand than its choice from five cards."""


def trump_likelihood(hand_size: int) -> tuple[float, ...]:
    """P(the Hakem names suit X | X has ``k`` of its ``hand_size`` cards), k = 0..hand_size:
    the chance that a random five of them hold ``j`` of X (hypergeometric) times
    :data:`FIVE_CHOICE`, floored at 0.02 like ``sampler.TRUMP_LIKELIHOOD`` (which this gives
    for 13 cards)."""
    out = []
    for k in range(hand_size + 1):
        p = sum(comb(k, j) * comb(hand_size - k, 5 - j) * FIVE_CHOICE[j]
                for j in range(min(k, 5) + 1) if 5 - j <= hand_size - k) / comb(hand_size, 5)
        out.append(max(0.02, p))
    return tuple(out)


_TRUMP_TABLES = {game: trump_likelihood(size) for game, size in TRUMP_GAMES.items()}


class PlayModel:
    """Scores sampled deals of ``f`` by the plays of this round.

    The likelihood factors by seat: a seat's play depends on its own hand and on public things
    only, so each other seat's factor is a function of its hand alone (``seat_factor``), kept
    per hand for the decision.  ``active`` is false when nothing can be read (no play of
    another seat, or a view without the round's history): every weight is then 1."""

    __slots__ = ("contexts", "memo", "me", "n", "must_trump", "active", "floor", "hakem",
                 "hakem_trumps", "trump_table")

    def __init__(self, f: Fast, miss: float) -> None:
        s = f.s
        n = s.n
        self.me = s.seat
        self.n = n
        self.must_trump = s.rules.must_trump
        plays = [(seat, f.ft.to_fast[c]) for seat, c in s.plays]
        reads_plays = s.history_complete and any(seat != s.seat for seat, _ in plays)
        table = _TRUMP_TABLES.get(s.rules.variant.name) if WEIGH_TRUMP else None
        self.trump_table: tuple[float, ...] = table or ()
        self.hakem = s.hakem if table and s.hakem != s.seat else -1
        """The Hakem's seat when its trump choice is weighed (another seat's, in a game of
        :data:`TRUMP_GAMES`), else -1."""
        self.hakem_trumps = sum(1 for seat, c in plays if seat == s.hakem and 1 << c & TRUMP)
        """The trumps the Hakem played this round (its hand held them at the choice)."""
        self.active = reads_plays or self.hakem >= 0
        self.floor = miss ** 3
        """Below this a seat's factor is not refined further: the deal is already
        implausible."""
        self.contexts: list[list[_Context]] = [[] for _ in range(n)]
        self.memo: list[dict[int, float]] = [{} for _ in range(n)]
        later = [0] * n  # per seat, the cards it plays from this play on
        for seat, card in plays:
            later[seat] |= 1 << card
        counts = list(s.counts)  # per seat, the cards in its hand before this play
        live = f.pool | f.hand  # the cards not played before this play (nor removed)
        for seat, card in plays:
            counts[seat] += 1
            live |= 1 << card
        voids = [0] * n
        trick: list[int] = []
        leader = plays[0][0] if plays else s.leader
        for seat, card in plays:
            if not trick:
                leader = seat
            if seat != s.seat:
                held = sum(counts) - counts[seat]
                self.contexts[seat].append(_Context(trick[:], leader, voids, live, held, card,
                                                    later[seat], miss))
            voids = voids_after(voids, seat, trick, card, self.must_trump)
            later[seat] ^= 1 << card
            counts[seat] -= 1
            live ^= 1 << card
            trick.append(card)
            if len(trick) == n:
                trick = []

    def seat_factor(self, seat: int, hand_now: int) -> float:
        """The likelihood factor of ``seat``'s plays if it holds ``hand_now`` now: ``miss`` for
        each play the model would not have made, down to ``floor``."""
        memo = self.memo[seat]
        known = memo.get(hand_now)
        if known is not None:
            return known
        weight = 1.0
        for ctx in self.contexts[seat]:
            hand = hand_now | ctx.later
            trick = ctx.trick
            options = legal(hand, trick, self.must_trump)
            if options & (options - 1) == 0:
                continue
            unseen = ctx.live & ~hand
            size = unseen.bit_count()
            share = min(1.0, ctx.held / size) if size else 1.0
            choice = play(hand, options, unseen, share, ctx.voids, trick, seat, self.n)[0]
            if same_play(choice, ctx.card, trick, ctx.live, hand):
                continue
            weight *= ctx.miss
            if weight < self.floor:
                break
        memo[hand_now] = weight
        return weight

    def weight(self, hands: list[int]) -> float:
        """The likelihood of the plays seen if the hands now are ``hands``: the product of the
        other seats' factors."""
        if not self.active:
            return 1.0
        weight = self.trump_factor(hands)
        for seat in range(self.n):
            if seat != self.me:
                weight *= self.seat_factor(seat, hands[seat])
        return weight

    def trump_factor(self, hands: list[int]) -> float:
        """The likelihood of the Hakem's trump choice if the hands now are ``hands`` (1 when it
        is not weighed): by the trumps of its whole hand, those still held and those played."""
        if self.hakem < 0:
            return 1.0
        k = (hands[self.hakem] & TRUMP).bit_count() + self.hakem_trumps
        return self.trump_table[min(k, len(self.trump_table) - 1)]

    @property
    def work(self) -> int:
        """The model's plays to judge for one deal, and the trump choice (its cost, in cards
        played)."""
        if not self.active:
            return 0
        return sum(len(c) for c in self.contexts) + (1 if self.hakem >= 0 else 0)


def draw(f: Fast, rng: random.Random, deals: int, model: PlayModel | None, oversample: int
         ) -> list[list[int]]:
    """``deals`` deals for the search: ``deals * oversample`` from :func:`nseat.sample`, kept
    ``deals`` times by weight (with replacement); the plain samples without a model, when it
    reads nothing, or when every candidate is implausible alike."""
    if model is None or not model.active or oversample <= 1:
        return [sample(f, rng) for _ in range(deals)]
    pool = [sample(f, rng) for _ in range(deals * oversample)]
    weights = [model.weight(hands) for hands in pool]
    if not any(weights):
        return pool[:deals]
    return rng.choices(pool, weights=weights, k=deals)


class _Context:
    """What was public when a seat made one play: the open trick, its leader, the voids shown,
    the cards not yet played (the open trick's excluded), the cards in the other hands, the
    card played, the cards the seat played from then on (that one included), and the factor of
    a play the model would not make."""

    __slots__ = ("trick", "leader", "voids", "live", "held", "card", "later", "miss")

    def __init__(self, trick: list[int], leader: int, voids: list[int], live: int, held: int,
                 card: int, later: int, miss: float) -> None:
        self.trick = trick
        self.leader = leader
        self.voids = voids
        self.live = live
        self.held = held
        self.card = card
        self.later = later
        self.miss = miss
