"""``heuristic``: sound table play from what the seat has seen, with a reason for each choice.

Contract: ``HeuristicPolicy().choose(view, history, rng)`` returns a suit letter when the seat
names trump and otherwise a card of ``view["legal"]``.  It reads only the view and the seat's
redacted history (through :func:`knowledge.knowledge`) and is deterministic (the ``rng`` is
unused), which the duplicate arena relies on.  ``decide(k)`` also returns why, a
:class:`~worker.policies.reasons.Reason` (a code and its arguments; ``reasons.py`` makes the
English), which the hints for learners show.

The card play is :func:`play`, a function of plain values in the fast card space (``fast.py``:
a block per effective suit, trump highest): the seat's hand, its legal cards, the cards it has not
seen, the voids every seat has shown and the open trick.  The search policy's playouts call the
same function for every seat of a sampled deal, each with only what that seat would know.

* trump: the suit of the five with the best length-and-honours score (the 2 of hearts counts as a
  trump of every suit under ``satat``);
* leading: draw trumps with the top trump (or when long in trumps), cash a side master the
  opponents are not known to ruff, give the partner a ruff in a suit it showed void, else lead low
  from the longest side suit;
* following: let a partner's winner stand and play low; else win as cheaply as holds up against
  the opponent still to play (estimated from the unseen cards and shown voids), trump when void,
  else play low or discard the lowest card of the weakest side suit.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from engine.cards import NAMES, SUITS
from engine.state import TRUMP_TABLES

from .fast import BLOCK, FAST_TABLES, TRUMP, TRUMP_BASE, trick_winner_index
from .knowledge import Knowledge, fast_knowledge, knowledge, mask_of_names, rules_of
from .reasons import Reason, card_reason, forced_trump

_RANK_POINTS = {12: 4.0, 11: 3.0, 10: 2.0, 9: 1.0, 8: 0.5}
"""Honour points by rank index (A K Q J T)."""
_HOLD = (1.0, 2 / 3, 4 / 9, 8 / 27, 16 / 81) + (0.0,) * 12
"""Chance that none of ``k`` higher unseen cards sits with one given opponent."""
_B0, _B1, _B2, _B3 = BLOCK


def trump_scores(hand: int, satat: bool) -> list[float]:
    """Per suit, how good that suit is as trump for ``hand`` (the Hakem's five cards): three
    points a card plus honour points."""
    scores = []
    for suit in range(4):
        table = TRUMP_TABLES[(suit, satat)]
        m = hand & table.suit_masks[suit]
        score = 0.0
        for c in range(52):
            if m >> c & 1:
                score += 3.0 + (5.0 if table.power[c] == 113 else _RANK_POINTS.get(c % 13, 0.0))
        scores.append(score)
    return scores


def choose_trump(hand: int, satat: bool) -> tuple[int, Reason]:
    """The trump suit for the Hakem's five cards, and why (``trump_choice``)."""
    scores = trump_scores(hand, satat)
    best = max(range(4), key=lambda s: (scores[s], -s))
    n = (hand & TRUMP_TABLES[(best, satat)].suit_masks[best]).bit_count()
    return best, Reason("trump_choice", {"suit": SUITS[best], "count": n})


def _low(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def _higher(unseen: int, card: int) -> int:
    """How many unseen cards of ``card``'s block outrank it."""
    return (unseen & BLOCK[card >> 4] & ~((2 << card) - 1)).bit_count()


def hold_chance(card: int, led_block: int, unseen: int, opp_voids: int) -> float:
    """Rough chance that ``card``, now winning a trick led in ``led_block``, is not beaten by the
    one opponent still to play, whose shown voids (block bits) are ``opp_voids``."""
    may_trump = not opp_voids & 8 and unseen & TRUMP
    if card >= TRUMP_BASE:
        higher = _higher(unseen, card)
        if not higher or not may_trump:
            return 1.0
        if led_block != 3 and not opp_voids >> led_block & 1 and unseen & BLOCK[led_block]:
            return 0.9  # the opponent would first have to be void in the led suit
        return _HOLD[higher]
    led = unseen & BLOCK[led_block]
    if opp_voids >> led_block & 1 or not led:
        return 0.0 if may_trump else 1.0
    chance = _HOLD[_higher(unseen, card)]
    if may_trump and led.bit_count() <= 2:
        chance *= 0.6  # few cards of the suit left: the opponent may be void and ruff
    return chance


def _discard(legal: int, unseen: int) -> int:
    """The lowest card of the weakest side suit (sparing masters), else the lowest card."""
    side = legal & ~TRUMP
    if not side:
        return _low(legal)
    best, best_key = -1, 99.0
    for block in (_B0, _B1, _B2):
        m = side & block
        if not m:
            continue
        low = _low(m)
        top = m.bit_length() - 1
        n = m.bit_count()
        key = (top & 15) / 2 + n * 0.5 + (low & 15) / 100
        if not unseen & block & ~((2 << top) - 1):
            key += 10.0  # the suit holds a master
        if key < best_key:
            best, best_key = low, key
    return best


def _lead(hand: int, unseen: int, voids: Sequence[int], seat: int) -> tuple[int, str]:
    o1 = voids[(seat + 1) & 3]
    o2 = voids[(seat + 3) & 3]
    pv = voids[(seat + 2) & 3]
    trumps = hand & TRUMP
    unseen_trumps = unseen & TRUMP
    opps_may_trump = bool(unseen_trumps) and not (o1 & o2 & 8)
    if trumps and opps_may_trump:
        top = trumps.bit_length() - 1
        if not unseen & TRUMP & ~((2 << top) - 1):
            return top, "draw_top"
        n = trumps.bit_count()
        if n >= 4 and n > unseen_trumps.bit_count():
            return _low(trumps), "draw_long"
    best, best_left = -1, -1
    ruff_b = -1
    long_low, long_len = -1, 0
    pv_ruffs = not pv & 8 and unseen_trumps
    for b in (0, 1, 2):
        block = BLOCK[b]
        m = hand & block
        if not m:
            continue
        n = m.bit_count()
        if n > long_len:
            long_low, long_len = (m & -m).bit_length() - 1, n
        if ruff_b < 0 and pv_ruffs and pv >> b & 1 and not o1 >> b & 1 and not o2 >> b & 1:
            ruff_b = b
        top = m.bit_length() - 1
        left = unseen & block
        if left & ~((2 << top) - 1):
            continue  # not a master
        if unseen_trumps and ((o1 >> b & 1 and not o1 & 8) or (o2 >> b & 1 and not o2 & 8)):
            continue  # an opponent has shown it can ruff
        n_left = left.bit_count()
        if n_left < 2 and opps_may_trump:
            continue
        if n_left > best_left:
            best, best_left = top, n_left
    if best >= 0:
        return best, "cash"
    if ruff_b >= 0:
        return _low(hand & BLOCK[ruff_b]), "partner_ruff"
    if long_low >= 0:
        return long_low, "lead_long"
    return _low(hand), "lead_trump"


def play(hand: int, legal: int, unseen: int, voids: Sequence[int], trick: Sequence[int],
         leader: int, seat: int) -> tuple[int, str]:
    """The heuristic's card (fast card space) and a reason code (``reasons.CARD_CODES``).

    ``unseen`` are the cards the seat has not seen (held by the others), ``voids[s]`` the block
    bits seat ``s`` has shown void in, ``trick`` the cards of the open trick in play order,
    led by ``leader``."""
    if legal & (legal - 1) == 0:
        return _low(legal), "only"
    if not trick:
        return _lead(legal, unseen, voids, seat)
    led_block = trick[0] >> 4
    led_mask = BLOCK[led_block]
    best = trick[0]
    bi = 0
    n = len(trick)
    for i in range(1, n):
        c = trick[i]
        if c > best and (c >= TRUMP_BASE or c >> 4 == led_block):
            best = c
            bi = i
    best_seat = leader + bi
    opp_voids = voids[(seat + 1) & 3] if n < 3 else -1
    follow = legal & led_mask
    if (best_seat - seat) & 3 == 2 and (
            opp_voids < 0 or hold_chance(best, led_block, unseen, opp_voids) >= 0.6):
        if follow:
            return _low(follow), "partner_wins"
        return _discard(legal, unseen), "partner_wins_discard"
    above = legal & ~((2 << best) - 1)
    if not follow:
        above &= TRUMP
    elif best >= TRUMP_BASE and led_block != 3:
        above = 0
    if above:
        if opp_voids < 0:
            c = _low(above)
            return c, ("ruff" if c >= TRUMP_BASE and led_block != 3 else "win_last")
        need = 0.5 if n == 2 else 0.75
        m = above
        while m:
            low = m & -m
            c = low.bit_length() - 1
            if hold_chance(c, led_block, unseen, opp_voids) >= need:
                return c, ("ruff" if c >= TRUMP_BASE and led_block != 3 else "win")
            m ^= low
    if follow:
        return _low(follow), "duck"
    return _discard(legal, unseen), "discard"


SIGNAL_REASONS = ("partner_wins", "partner_wins_discard", "duck", "discard")
"""The reasons of :func:`play` that make a play "free" for the partners' signals: following low
or throwing a card when the seat does not try to win the trick."""
SIGNAL_RANK = 9
"""A signal's high card is below a jack (fast rank 9)."""


def _second_run(m: int, in_play: int) -> int:
    """The lowest card of ``m`` (one suit of the seat's cards) that a card still in play outside
    ``m`` separates from ``m``'s lowest card (so a play the others can tell from the lowest), or
    -1."""
    low = _low(m)
    others = in_play & ~m
    rest = m ^ (1 << low)
    while rest:
        bit = rest & -rest
        c = bit.bit_length() - 1
        if others & (bit - 1) & ~((2 << low) - 1):
            return c
        rest ^= bit
    return -1


def signal_card(mode: int, hand: int, legal: int, unseen: int, trick: Sequence[int],
                choice: int, reason: str) -> int:
    """The partners' public signal (``SearchConfig.signal``): the card the convention prescribes
    when the heuristic's play (``choice``, ``reason`` from :func:`play` on the same position)
    is free, else -1.  ``unseen`` are the cards the seat has not seen, ``trick`` the open
    trick's cards (fast cards).

    Free: the seat follows low or throws a card (``SIGNAL_REASONS``) and does not trump.  Then
    (``mode`` 1, count): in the suit of the heuristic's card, with an odd number of cards of it
    in hand the lowest, with an even number the lowest card that is not equivalent to the
    lowest (the next higher card with an unplayed card of another hand between), when that card
    is below a jack, is not the highest card of the suit still in play and does not beat the
    trick's winner (else the lowest).  ``mode`` 2: the same when following suit; throwing, the
    lowest card of the longest side suit (ties: the lower block) unless it is the highest of
    its suit in play (then the heuristic's card).  ``mode`` 3: ``mode`` 2, and leading low from
    the longest side suit (``lead_long``) by the count rule too."""
    if not trick:
        if mode >= 3 and reason == "lead_long":
            return _count_card(legal & BLOCK[choice >> 4], hand, unseen, trick, -1)
        return -1
    if reason not in SIGNAL_REASONS:
        return -1
    led_block = trick[0] >> 4
    if choice >= TRUMP_BASE and led_block != 3:
        return -1  # trumping (or under-trumping): not free
    block = choice >> 4
    if mode >= 2 and block != led_block:
        best_b, best_n = -1, 0
        for b in (0, 1, 2):
            n = (legal & BLOCK[b]).bit_count()
            if n > best_n:
                best_b, best_n = b, n
        if best_b < 0:
            return choice
        c = _low(legal & BLOCK[best_b])
        return c if _higher(unseen, c) else choice
    return _count_card(legal & BLOCK[block], hand, unseen, trick, led_block)


def _count_card(m: int, hand: int, unseen: int, trick: Sequence[int], led_block: int) -> int:
    """The count rule of :func:`signal_card` on ``m``, the seat's cards of one suit (the trick
    led in ``led_block``, -1 when the seat leads)."""
    low = _low(m)
    if m.bit_count() & 1:
        return low
    in_play = unseen | hand
    for t in trick:
        in_play |= 1 << t
    c = _second_run(m, in_play)
    if c < 0 or c & 15 >= SIGNAL_RANK or not _higher(unseen, c):
        return low
    if not trick:
        return c
    best = trick[trick_winner_index(list(trick))]
    if c > best and (c >= TRUMP_BASE or c >> 4 == led_block):
        return low  # it would win the trick
    return c


def block_suits(block_of_suit: Sequence[int]) -> list[str]:
    """The suit letter of each fast block (the card space's ``block_of_suit`` turned around)."""
    letters = [""] * 4
    for suit, block in enumerate(block_of_suit):
        letters[block] = SUITS[suit]
    return letters


def decide(k: Knowledge) -> tuple[str, Reason]:
    """The heuristic's choice (a suit letter or a card name) for ``k``, and why."""
    if k.phase == "choosing_trump":
        suit, reason = choose_trump(k.hand, k.rules.satat)
        return SUITS[suit], reason
    f = fast_knowledge(k)
    assert k.trump is not None
    ft = FAST_TABLES[(k.trump, k.rules.satat)]
    legal = f.legal or f.hand
    trick = [c for _, c in f.trick]
    leader = f.trick[0][0] if f.trick else k.seat
    card, key = play(f.hand, legal, f.unseen, f.voids, trick, leader, k.seat)
    if not legal >> card & 1:  # never happens; a guard for the contract
        card = _low(legal)
    letters = block_suits(ft.block_of_suit)
    block = card >> 4
    led = f.trick[0][1] >> 4 if f.trick else block
    name = NAMES[ft.to_engine[card]]
    key = forced_trump(key, k.rules.must_trump, card >= TRUMP_BASE, bool(f.hand & ~TRUMP))
    return name, card_reason(key, name, letters[block], letters[led])


class HeuristicPolicy:
    """The ``heuristic`` policy (deterministic)."""

    name = "heuristic"

    def choose(self, view: Mapping[str, Any], history: Sequence[Mapping[str, Any]],
               rng: random.Random) -> str:
        if view.get("phase") == "choosing_trump":
            suit, _ = choose_trump(mask_of_names(view.get("hand") or []), rules_of(view).satat)
            return SUITS[suit]
        return decide(knowledge(view, history))[0]
