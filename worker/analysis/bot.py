"""The search bot's choice and its estimated round-win chance, from one seat's view.

``estimate(policy, view, history, rng) -> (choice, win_chance)``.  ``choice`` is exactly what
``policy.choose(view, history, rng)`` answers for the same arguments (``SearchPolicy``: the
tests compare them on the same seeds); ``win_chance`` is the share of the search's sampled deals
in which the seat's side wins the round with the chosen card: the round-win rate of that
candidate (with ``points``) or its mean score (rounds only), which is what the search compared
to choose.  Like every policy, it reads only the seat's view and its witnessed history.

It is a probability for the mover's own side, never a points value (the ``points`` search
races on ``won_tot``, counted as 0 or 1 per deal); each seat estimates from its own hand, so
two partners can be far apart until the hands show (``bench/analysis_calibration.py``, 48
rounds of ``heuristic`` players: Brier 0.143 against 0.250 for the base rate, the partners'
estimates in the same trick 0.21 apart on average, 0.25 in the first three tricks and 0.13 in
the last four).  The estimate assumes the others play the heuristic: with ``hard`` players the
sure-looking estimates are too sure (0.98 predicted, 0.89 won).

Two decisions the search makes without sampling get a sample of their own: a card that is the
only one up to equivalent cards (``SearchPolicy.card_and_rate``: that card alone, twice, so the
race never drops it), and the Hakem's trump (the heuristic's suit, which ``choose`` names from
the five cards; its chance is the share of heuristic playouts won over deals of the 47 unseen
cards).

The games of two and three players (:func:`estimate_small`): the choice is again exactly the
policy's (its ``nseat`` search); the chance is the share of :data:`SMALL_DEALS` deals drawn from
the seat's knowledge (``nseat.sample``) in which the chosen card, played on by the bots' card
rule for every seat (``nseat.rollout``), wins the round for the seat; the Hakem's trump the same
over deals of the cards it has not seen, the Hakem leading.  In the talon game the trump is named
before the talon changes every hand, so its chance is ``None`` (not estimated).

Measured in the game of two (``bench/analysis_calibration.py --seats 2``, 200 rounds, seed 7,
each estimate paired with the other player's next one): with ``heuristic`` players (4,782
estimates) Brier 0.155 against 0.250 for the base rate, the mover's mean estimate 0.017 under
the outcome, and consecutive estimates 0.047 apart in seat 0's terms, each player's chance as
it sees it *below* its chance as the other sees it; with ``hard`` players (4,764) Brier 0.163,
the mover 0.039 over the outcome and the saw +0.069 (each player's own chance above the other's
view of it; the likely cause: the estimate plays the rest of the round by the bots' card
rule, weaker than ``hard``).
The analysis graph of a match of two draws a saw of about that height; not corrected.  (Session
38's figure of 0.087 paired the rows in seat order, not in play order.)  The four-player
estimate's mean bias on seed 7's 48 rounds: +0.035.
"""

from __future__ import annotations

import random

from engine.cards import CARD_INDEX, SUITS
from worker.policies import nseat
from worker.policies.base import History, View
from worker.policies.fast import FAST_TABLES, FastState, bits
from worker.policies.knowledge import Knowledge, knowledge
from worker.policies.playout import heuristic_playout
from worker.policies.search import SearchPolicy

TRUMP_DEALS = 48
"""Deals of the unseen cards that estimate the chance of the Hakem's suit."""
SMALL_DEALS = 48
"""Deals that estimate a chance in the games of two and three players."""


def estimate(policy: SearchPolicy, view: View, history: History, rng: random.Random
             ) -> tuple[str, float]:
    """The policy's choice for the seat of ``view`` and its side's round-win chance."""
    k = knowledge(view, history)
    if k.phase == "choosing_trump":
        suit = policy.choose_trump(k, rng)
        return SUITS[suit], trump_chance(k, suit, rng)
    return policy.card_and_rate(k, rng)


def trump_chance(k: Knowledge, suit: int, rng: random.Random, deals: int = TRUMP_DEALS
                 ) -> float:
    """The share of heuristic playouts the Hakem's side wins with ``suit`` as trump, over
    ``deals`` deals of the cards the Hakem has not seen (its own five fixed)."""
    five = k.hand
    seat = k.seat
    unseen = [c for c in range(52) if not five >> c & 1]
    ft = FAST_TABLES[(suit, k.rules.satat)]
    team = seat % 2
    won = 0
    for _ in range(deals):
        rng.shuffle(unseen)
        raw = [0, 0, 0, 0]
        raw[seat] = five
        pos = 0
        for off, size in ((0, 8), (1, 13), (2, 13), (3, 13)):
            for c in unseen[pos:pos + size]:
                raw[(seat + off) % 4] |= 1 << c
            pos += size
        st = FastState([ft.mask_to_fast(h) for h in raw], [], seat, [0, 0], 0, team, k.rules)
        won += heuristic_playout(st, [0, 0, 0, 0]) == team
    return won / deals


def estimate_small(policy: SearchPolicy, view: View, history: History, rng: random.Random
                   ) -> tuple[str, float | None]:
    """:func:`estimate` for the games of two and three players (see the module docstring)."""
    choice = policy.choose(view, history, rng)
    s = nseat.seen(view, history)
    if s.phase == "choosing_trump":
        if s.rules.two_player == "talon":
            return choice, None
        return choice, small_trump_chance(s, SUITS.index(choice), rng)
    if s.phase != "playing":
        return choice, None
    f = nseat.to_fast(s)
    card = f.ft.to_fast[CARD_INDEX[choice]]
    won = sum(nseat.rollout(f, nseat.sample(f, rng), card) >= 1.0 for _ in range(SMALL_DEALS))
    return choice, won / SMALL_DEALS


def small_trump_chance(s: nseat.Seen, suit: int, rng: random.Random,
                       deals: int = SMALL_DEALS) -> float:
    """The share of rounds the Hakem wins with ``suit`` as trump, every seat playing the bots'
    card rule, over ``deals`` deals of the cards it has not seen (its own five fixed; in the
    simple game the cards no hand holds stay unused)."""
    rules = s.rules
    n = rules.players
    ft = FAST_TABLES[(suit, rules.satat)]
    me = s.seat
    hand = ft.mask_to_fast(s.hand)
    unseen = bits(ft.mask_to_fast(s.pool))
    won = 0
    for _ in range(deals):
        rng.shuffle(unseen)
        hands = [0] * n
        hands[me] = hand
        pos = 0
        for seat in range(n):
            size = rules.hand_size - hands[seat].bit_count()
            for c in unseen[pos:pos + size]:
                hands[seat] |= 1 << c
            pos += size
        live = 0
        for h in hands:
            live |= h
        first = nseat.model_play(hands, me, hands[me], live, [0] * n, [], n)
        won += nseat.play_on(rules, me, me, hands, [], me, me, first, [0] * n, [0] * n, 0, 0,
                             None, live) >= 1.0
    return won / deals
