"""Playouts of a sampled deal for the search policy, to the point where the round's winner is
certain, in the fast card space of :mod:`worker.policies.fast`.

* ``heuristic_playout`` (what ``search`` uses): every seat plays ``heuristic.play`` on what it
  would know in that deal: its own hand, the cards played, the voids shown.  Without
  ``double_sar`` a tight loop on local variables (the first side to count seven tricks wins);
  the tests check it against the general loop on ``FastState.play``, itself checked against the
  engine.
* ``playout`` and ``choose``: a perfect-information rule policy that sees every hand of the
  deal: it cashes masters the opponents cannot ruff, draws trumps when its side is longer, lets a
  partner's safe winner stand, wins as cheaply as it safely can, and otherwise plays low or
  discards its lowest side card.  ``choose`` also orders the exact solver's moves.
"""

from __future__ import annotations

from .fast import BLOCK, TRUMP, TRUMP_BASE, FastState, winner_decided
from .fast import legal as legal_cards
from .fast import trick_winner_index

_B0, _B1, _B2, _B3 = BLOCK


def _top(mask: int) -> int:
    return mask.bit_length() - 1


def _low(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def _can_beat(hand: int, led_mask: int, best: int) -> bool:
    """Could ``hand`` beat ``best`` in a trick led in ``led_mask`` (following if it must)?"""
    follow = hand & led_mask
    if follow:
        return follow.bit_length() - 1 > best
    return (hand & TRUMP).bit_length() - 1 > best


def _discard(hand: int) -> int:
    """The card to throw away: the lowest-ranked side card, else the lowest trump."""
    side = hand & ~TRUMP
    if not side:
        return _low(hand)
    best = -1
    best_rank = 99
    for block in (_B0, _B1, _B2):
        m = side & block
        if m:
            c = _low(m)
            r = c & 15
            if r < best_rank:
                best, best_rank = c, r
    return best


def _lead(hands: list[int], seat: int) -> int:
    hand = hands[seat]
    opp1 = hands[(seat + 1) & 3]
    opp2 = hands[(seat + 3) & 3]
    partner = hands[(seat + 2) & 3]
    rest = hand | opp1 | opp2 | partner
    opps = opp1 | opp2
    opp_trumps = opps & TRUMP
    # cash a side-suit master the opponents cannot ruff
    for block in (_B0, _B1, _B2):
        mine = hand & block
        if mine:
            top = mine.bit_length() - 1
            if top == _top(rest & block) and (opps & block or not opp_trumps):
                if (opp1 & block or not opp1 & TRUMP) and (opp2 & block or not opp2 & TRUMP):
                    return top
    trumps = hand & TRUMP
    if trumps and opp_trumps:
        top = trumps.bit_length() - 1
        if top == _top(rest & TRUMP) and (
                (trumps | partner & TRUMP).bit_count() >= opp_trumps.bit_count()):
            return top  # draw trumps
    # lead low towards a partner's master
    for block in (_B0, _B1, _B2):
        mine = hand & block
        if mine and partner & block and _top(partner & block) == _top(rest & block):
            if (opp1 & block or not opp1 & TRUMP) and (opp2 & block or not opp2 & TRUMP):
                return _low(mine)
    # otherwise low from the longest side suit
    best = -1
    best_len = 0
    for block in (_B0, _B1, _B2):
        mine = hand & block
        n = mine.bit_count()
        if n > best_len:
            best, best_len = _low(mine), n
    if best >= 0:
        return best
    return _low(hand)


def choose(hands: list[int], trick: list[int], leader: int, seat: int, must_trump: bool) -> int:
    """The rule policy's card for ``seat`` (fast cards; every hand visible)."""
    if not trick:
        return _lead(hands, seat)
    hand = hands[seat]
    led_block = trick[0] >> 4
    led_mask = BLOCK[led_block]
    follow = hand & led_mask
    legal = legal_cards(hand, trick, must_trump)
    if legal & (legal - 1) == 0:
        return _low(legal)
    bi = trick_winner_index(trick)
    best = trick[bi]
    n = len(trick)
    win_seat = (leader + bi) & 3
    # the only opponent still to play after a follower is the next seat (unless we are last)
    opp_next = hands[(seat + 1) & 3] if n < 3 else 0
    if (win_seat ^ seat) == 2:
        if not (opp_next and _can_beat(opp_next, led_mask, best)):
            return _low(follow) if follow else _discard(legal)
    # cheapest card that wins and cannot be overtaken by the opponents still to play
    above = legal & ~((2 << best) - 1)
    if not follow:
        above &= TRUMP
    elif best >= TRUMP_BASE and led_block != 3:
        above = 0
    while above:
        low = above & -above
        c = low.bit_length() - 1
        if not (opp_next and _can_beat(opp_next, led_mask, c)):
            return c
        above ^= low
    if follow:
        return _low(follow)
    return _discard(legal)


def playout(state: FastState) -> int:
    """Play ``state`` (changed in place) with the rule policy until the round's winner is
    certain; return the winning team."""
    must_trump = state.rules.must_trump
    hands = state.hands
    while True:
        decided = winner_decided(state)
        if decided is not None:
            return decided
        card = choose(hands, state.trick, state.leader, state.turn, must_trump)
        state.play(card)
        hands = state.hands


def heuristic_playout(state: FastState, voids: list[int], stop: int = 0) -> int:
    """Play ``state`` (changed in place) with the imperfect-information heuristic for every seat,
    each seeing only its own hand, the cards played and the voids shown (``voids``, block bits
    per seat, updated in place); return the winning team once it is certain.

    With ``stop > 0`` (not with ``double_sar``) the playout also stops at the first trick start
    where every hand holds at most ``stop`` cards and returns -1, ``state`` then being that
    position (for the search to finish the deal another way)."""
    from .heuristic import play

    if state.rules.double_sar:
        return _heuristic_playout_general(state, voids)
    decided = winner_decided(state)
    if decided is not None:
        return decided
    if stop > 0 and not state.trick and state.hands[state.leader].bit_count() <= stop:
        return -1
    # the first side to count seven tricks wins: a tight loop on local variables
    must_trump = state.rules.must_trump
    hands = state.hands
    trick = state.trick
    leader = state.leader
    seat = state.turn
    tricks = state.tricks
    t0, t1 = tricks[0], tricks[1]
    sum_before = t0 + t1
    while True:
        hand = hands[seat]
        led = trick[0] >> 4 if trick else -1
        legal = legal_cards(hand, trick, must_trump)
        if legal & (legal - 1) == 0:
            card = legal.bit_length() - 1
        else:
            unseen = (hands[0] | hands[1] | hands[2] | hands[3]) ^ hand
            card = play(hand, legal, unseen, voids, trick, leader, seat)[0]
        if led >= 0 and card >> 4 != led:
            voids[seat] |= 1 << led
            if must_trump and card < TRUMP_BASE:
                voids[seat] |= 8
        hands[seat] = hand ^ (1 << card)
        trick.append(card)
        if len(trick) < 4:
            seat = (seat + 1) & 3
            continue
        leader = seat = (leader + trick_winner_index(trick)) & 3
        trick = []
        if seat & 1:
            t1 += 1
            if t1 >= 7:
                tricks[0], tricks[1] = t0, t1
                return 1
        else:
            t0 += 1
            if t0 >= 7:
                tricks[0], tricks[1] = t0, t1
                return 0
        if stop > 0 and hands[seat].bit_count() <= stop:
            tricks[0], tricks[1] = t0, t1
            state.played += t0 + t1 - sum_before
            state.trick = trick
            state.leader = state.turn = seat
            return -1


def _heuristic_playout_general(state: FastState, voids: list[int]) -> int:
    from .heuristic import play

    must_trump = state.rules.must_trump
    while True:
        decided = winner_decided(state)
        if decided is not None:
            return decided
        seat = state.turn
        hands = state.hands
        hand = hands[seat]
        trick = state.trick
        legal = legal_cards(hand, trick, must_trump)
        if legal & (legal - 1) == 0:
            card = legal.bit_length() - 1
        else:
            unseen = (hands[0] | hands[1] | hands[2] | hands[3]) ^ hand
            card = play(hand, legal, unseen, voids, trick, state.leader, seat)[0]
        if trick:
            led = trick[0] >> 4
            if card >> 4 != led:
                voids[seat] |= 1 << led
                if must_trump and card < TRUMP_BASE:
                    voids[seat] |= 8
        state.play(card)
