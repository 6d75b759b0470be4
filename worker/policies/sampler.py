"""Sampling the hidden hands consistently with what one seat knows (fast card space).

A sample gives each other seat exactly its public card count, only cards the seat has not seen,
and never a card of a suit that seat has shown void in (by not following, or under
``must_trump`` by not trumping).  Cards whose holder is constrained are placed first, one by one,
each to a seat chosen in proportion to its free places among the seats that keep the rest
feasible (Hall's condition over the three seats, checked exactly); the unconstrained cards are
then shuffled into the free places.  Without voids this is a uniform deal.

When the seat is not the Hakem, a sample is accepted with the likelihood that the Hakem would have
named this trump holding that many trumps among its 13 cards (``TRUMP_LIKELIHOOD``): the chance
that a random five of them hold ``j`` trumps (hypergeometric) times the chance a Hakem names a
suit holding ``j`` of its five, measured once from the heuristic's trump choice on 200,000 random
fives ``(0, 0.028, 0.539, 0.973, 1, 1)``.  This is how the Hakem's first-five knowledge enters.

``walk`` is the search's Markov chain over such deals (Metropolis, under that trump likelihood
times the plays' likelihood of ``inference.PlayModel``): it swaps a card between two hands or
passes a card of each of three hands on to the next, so every deal the knowledge allows is
reachable.
"""

from __future__ import annotations

import random

from .fast import BLOCK, TRUMP, bits
from .inference import PlayModel
from .knowledge import FastKnowledge

TRUMP_LIKELIHOOD = (0.02, 0.02, 0.084, 0.199, 0.338, 0.486, 0.628, 0.755, 0.857, 0.931, 0.976,
                    0.997, 1.0, 1.0)
"""P(the Hakem names suit X | X has k of its 13 cards), k = 0..13 (floored at 0.02)."""

_SUBSETS = tuple(range(1, 8))
_SUBTYPES = tuple(tuple(t for t in range(1, 8) if t & s == t) for s in range(8))


def _feasible(count: list[int], cap: list[int]) -> bool:
    """Hall's condition: the cards that must go to a set of seats fit in their free places."""
    for s in _SUBSETS:
        need = 0
        for t in _SUBTYPES[s]:
            need += count[t]
        free = (cap[0] if s & 1 else 0) + (cap[1] if s & 2 else 0) + (cap[2] if s & 4 else 0)
        if need > free:
            return False
    return True


def _feasible_for(count: list[int], cap: list[int], seat: int, kind: int) -> bool:
    """Hall's condition for the seat sets that contain ``seat`` but not all of ``kind``."""
    bit = 1 << seat
    for s in _SUBSETS:
        if s & bit and kind & ~s:
            need = 0
            for t in _SUBTYPES[s]:
                need += count[t]
            free = (cap[0] if s & 1 else 0) + (cap[1] if s & 2 else 0) + (cap[2] if s & 4 else 0)
            if need > free:
                return False
    return True


class Sampler:
    """Deals the unseen cards of one decision; build once, call ``sample`` per deal."""

    __slots__ = ("f", "others", "cap", "constrained", "free_cards", "ok", "weigh_trump",
                 "hakem_played_trumps", "hakem_index", "hakem_seat")

    def __init__(self, f: FastKnowledge, weigh_trump: bool = True) -> None:
        k = f.k
        self.f = f
        self.others = [s for s in range(4) if s != k.seat]
        self.cap = [k.counts[s] for s in self.others]
        unseen = f.unseen
        # allowed-seat type of each unseen card: bit i for others[i]
        allowed = []
        for s in self.others:
            m = unseen
            for b in range(4):
                if f.voids[s] >> b & 1:
                    m &= ~BLOCK[b]
            allowed.append(m)
        constrained: list[tuple[int, int]] = []
        free_cards: list[int] = []
        count = [0] * 8
        for c in bits(unseen):
            t = (allowed[0] >> c & 1) | (allowed[1] >> c & 1) << 1 | (allowed[2] >> c & 1) << 2
            count[t] += 1
            if t == 7:
                free_cards.append(c)
            else:
                constrained.append((c, t))
        self.ok = (count[0] == 0 and sum(self.cap) == len(constrained) + len(free_cards)
                   and _feasible(count, self.cap))
        if not self.ok:  # inconsistent knowledge (a partial history): ignore the voids
            constrained = []
            free_cards = bits(unseen)
        self.constrained = constrained
        self.free_cards = free_cards
        self.weigh_trump = weigh_trump and k.hakem != k.seat
        self.hakem_index = self.others.index(k.hakem) if self.weigh_trump else -1
        self.hakem_seat = k.hakem if self.weigh_trump else -1
        """The Hakem's seat when its trump choice weighs the deals (``trump_weight``), else
        -1."""
        self.hakem_played_trumps = (f.played & TRUMP & _played_by_fast(f, k.hakem)).bit_count() \
            if self.weigh_trump else 0

    def _deal(self, rng: random.Random) -> list[int]:
        cap = self.cap[:]
        hands = [0, 0, 0]
        if self.constrained:
            count = [0] * 8
            for _, t in self.constrained:
                count[t] += 1
            order = self.constrained[:]
            rng.shuffle(order)
            # the most constrained (one possible seat) first
            order.sort(key=lambda ct: ct[1] not in (1, 2, 4))
            for c, t in order:
                count[t] -= 1
                options = []
                total = 0
                for i in range(3):
                    if t >> i & 1 and cap[i] > 0:
                        if t == 1 << i:
                            ok = True  # a card only seat i may hold: it goes there
                        else:
                            # placing c with seat i can only break Hall's condition for the sets
                            # holding i but not all of t: {i} and {i, j} for j outside t
                            cap[i] -= 1
                            ok = _feasible_for(count, cap, i, t)
                            cap[i] += 1
                        if ok:
                            options.append(i)
                            total += cap[i]
                if not options:  # cannot happen when the start was feasible
                    options = [i for i in range(3) if cap[i] > 0]
                    total = sum(cap[i] for i in options)
                r = rng.randrange(total) if total > 1 else 0
                pick = options[-1]
                for i in options:
                    r -= cap[i]
                    if r < 0:
                        pick = i
                        break
                hands[pick] |= 1 << c
                cap[pick] -= 1
        # a uniform split of the free cards: sort them by random keys (C-level work)
        free = self.free_cards
        rand = rng.random
        keys = [rand() for _ in free]
        perm = sorted(range(len(free)), key=keys.__getitem__)
        pos = 0
        for i in range(3):
            m = 0
            for j in perm[pos:pos + cap[i]]:
                m |= 1 << free[j]
            hands[i] |= m
            pos += cap[i]
        return hands

    def trump_weight(self, hands: list[int]) -> float:
        """The likelihood of the Hakem's trump choice in a sampled deal (1.0 for our own)."""
        if not self.weigh_trump:
            return 1.0
        hakem = self.others[self.hakem_index]
        k = (hands[hakem] & TRUMP).bit_count() + self.hakem_played_trumps
        return TRUMP_LIKELIHOOD[min(k, 13)]

    def sample(self, rng: random.Random, tries: int = 12) -> list[int]:
        """Every seat's hand (fast masks by seat; the own hand as known).  Unless ``tries`` is 0,
        a deal is redrawn (at most ``tries`` times) with the chance its trump weight falls
        short of 1."""
        f = self.f
        hands3 = self._deal(rng)
        if self.weigh_trump:
            for _ in range(tries):
                k = (hands3[self.hakem_index] & TRUMP).bit_count() + self.hakem_played_trumps
                if rng.random() < TRUMP_LIKELIHOOD[min(k, 13)]:
                    break
                hands3 = self._deal(rng)
        out = [0, 0, 0, 0]
        out[f.k.seat] = f.hand
        for i, s in enumerate(self.others):
            out[s] = hands3[i]
        return out


_PAIRS = ((0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1))
"""The ordered pairs of three seats (indices into ``others``)."""


def walk(hands: list[int], weight: float, steps: int, others: list[int], voids: list[int],
         hakem: int, hakem_played_trumps: int, model: PlayModel, rng: random.Random
         ) -> tuple[list[int], float]:
    """``steps`` Metropolis steps from the deal ``hands`` whose likelihood is ``weight``, over
    the hands of ``others`` (the seats holding the hidden cards, two or three), and the deal
    reached with its likelihood.  A step proposes to swap a random card of one hand with a
    random card of another or, with three hands, a quarter of the time to pass a random card of
    each hand on to the next one (either way round), where the shown voids (``voids``, block
    bits) allow; it is accepted with the likelihood ratio: ``model.weight`` times the Hakem's
    trump likelihood (``Sampler.trump_weight``: ``hakem`` is its seat, or -1 when it does not
    weigh).  The card counts never change.

    Both moves are their own reverse with the same chance, so the chain's deals come from the
    likelihood over every deal the knowledge allows; swaps alone cannot reach them all when
    voids block every swap between two deals (a card of each of three hands must move at
    once), and the rotations can (two deals differ by cards passed between the hands, which
    split into swaps and rotations that each stay within the voids).

    A step draws 60 random bits (two for a rotation), each choice from its own bits (so they
    are independent; a remainder's bias is below one in 2**14); the acceptance draws a
    further number only when the likelihood falls."""
    n = len(others)
    if n < 2:
        return hands, weight
    getrandbits = rng.getrandbits
    for _ in range(steps):
        r = getrandbits(60)
        if n == 3 and r & 3 == 0:
            if r & 4:
                a, b, c = others[0], others[1], others[2]
            else:
                a, b, c = others[0], others[2], others[1]
            ha, hb, hc = hands[a], hands[b], hands[c]
            if not ha or not hb or not hc:
                continue
            x = _nth_bit(ha, (r >> 20 & 0xFFFFF) % ha.bit_count())
            y = _nth_bit(hb, (r >> 40) % hb.bit_count())
            z = _nth_bit(hc, getrandbits(20) % hc.bit_count())
            if voids[b] >> (x >> 4) & 1 or voids[c] >> (y >> 4) & 1 or voids[a] >> (z >> 4) & 1:
                continue
            new = hands[:]
            new[a] = ha ^ (1 << x) | (1 << z)
            new[b] = hb ^ (1 << y) | (1 << x)
            new[c] = hc ^ (1 << z) | (1 << y)
        else:
            if n == 3:
                i, j = _PAIRS[(r >> 2 & 0x3FFFF) % 6]
            else:
                i = r >> 2 & 1
                j = 1 - i
            a, b = others[i], others[j]
            ha, hb = hands[a], hands[b]
            if not ha or not hb:
                continue
            x = _nth_bit(ha, (r >> 20 & 0xFFFFF) % ha.bit_count())
            y = _nth_bit(hb, (r >> 40) % hb.bit_count())
            if voids[b] >> (x >> 4) & 1 or voids[a] >> (y >> 4) & 1:
                continue
            new = hands[:]
            new[a] = ha ^ (1 << x) | (1 << y)
            new[b] = hb ^ (1 << y) | (1 << x)
        w = model.weight(new)
        if hakem >= 0:
            k = (new[hakem] & TRUMP).bit_count() + hakem_played_trumps
            w = TRUMP_LIKELIHOOD[min(k, 13)] * w
        if w >= weight or rng.random() * weight < w:
            hands, weight = new, w
    return hands, weight


def _nth_bit(mask: int, n: int) -> int:
    """The index of the ``n``-th set bit of ``mask`` (from the lowest, 0-based)."""
    for _ in range(n):
        mask &= mask - 1
    return (mask & -mask).bit_length() - 1


def _played_by_fast(f: FastKnowledge, seat: int) -> int:
    from .fast import FAST_TABLES

    k = f.k
    assert k.trump is not None
    return FAST_TABLES[(k.trump, k.rules.satat)].mask_to_fast(k.played_by[seat])
