"""``easy``: a beginner's game that a learner can beat, yet never silly.

Contract: as every policy (``base.py``).  It looks only at its own hand, the open trick and the
trump (no memory of played cards, no partner signals), and draws its occasional slip from
``rng``:

* trump: the suit with the most cards among the five (ties to the higher cards);
* leading: an ace when it has one, else the highest card of its longest side suit (a beginner
  plays its winners out early and often gives away tricks);
* following: it takes the trick with its lowest card that beats the winning card, even when its
  partner is already winning it; otherwise it plays its lowest card (trumping only when it can
  win, and discarding its lowest side card);
* with chance ``slip`` it plays a random legal card instead;
* the talon game (two players): it discards as the heuristic does (``nseat.discard_choice``)
  and keeps or discards the talon's top card as the heuristic does, but for a slip.

Its card play reads no seat arithmetic, so it plays the games of two and three players as is.
"""

from __future__ import annotations

import random

from engine.cards import SUITS

from . import nseat
from .base import History, View
from .fast import BLOCK, FAST_TABLES, TRUMP
from .knowledge import knowledge, mask_of_names, rules_of


class EasyPolicy:
    """The ``easy`` level."""

    name = "easy"

    def __init__(self, slip: float = 0.15) -> None:
        self.slip = slip

    def choose(self, view: View, history: History, rng: random.Random) -> str:
        legal_names: list[str] = list(view.get("legal") or [])
        if not legal_names:
            raise ValueError("no legal choice in this view: it is not this seat's turn")
        if view.get("phase") == "choosing_trump":
            hand = mask_of_names(view.get("hand") or [])
            satat = rules_of(view).satat
            counts = []
            for suit in range(4):
                m = hand & FAST_TABLES[(suit, satat)].engine.suit_masks[suit]
                counts.append((m.bit_count(), m))
            return str(SUITS[max(range(4), key=lambda s: counts[s])])
        if view.get("phase") in ("discarding", "drawing"):  # the talon game: the heuristic's
            if view.get("phase") == "drawing" and rng.random() < self.slip:
                return legal_names[rng.randrange(len(legal_names))]
            return nseat.decide(nseat.seen(view, []))[0]
        if rng.random() < self.slip:
            return legal_names[rng.randrange(len(legal_names))]
        # the own hand and the open trick only: no history
        k = knowledge({name: view.get(name) for name in
                       ("seat", "phase", "hand", "trick", "trump", "legal", "rules")}, [])
        assert k.trump is not None
        ft = FAST_TABLES[(k.trump, k.rules.satat)]
        legal = ft.mask_to_fast(k.legal)
        trick = [ft.to_fast[c] for _, c in k.trick]
        card = _easy_card(legal, trick)
        return next(n for n in legal_names if ft.to_fast[mask_of_names([n]).bit_length() - 1]
                    == card)


def _low(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def _easy_card(legal: int, trick: list[int]) -> int:
    if not trick:
        aces = [b for b in range(4) if legal & BLOCK[b] and (legal & BLOCK[b]).bit_length() - 1
                == b * 16 + 12]
        if aces:
            return aces[0] * 16 + 12
        suits = [legal & BLOCK[b] for b in range(3) if legal & BLOCK[b]]
        longest = max(suits, key=lambda m: m.bit_count()) if suits else legal
        return longest.bit_length() - 1
    follow, above = nseat.beating(legal, trick)
    if above:
        return _low(above)
    if follow:
        return _low(follow)
    side = legal & ~TRUMP
    return _low(side) if side else _low(legal)
