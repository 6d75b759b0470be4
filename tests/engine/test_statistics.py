"""Uniform random play (a uniformly random legal card, a random trump) must show the statistics of
the bare reference loop (../shared/bench/bare_round.py): about 10.96 tricks a round and a 7-0
sweep in about 1.7% of rounds.

Reference values from 1,000,000 rounds of the bare loop: mean 10.9772 tricks (standard error
0.0016, standard deviation 1.574) and 7-0 in 1.7203% of rounds (standard error 0.013%).  The
bounds are five standard errors of this test's own sample (plus the reference's), so a correct
engine fails with probability below one in a million, while a bias of a few percent fails.
"""

from __future__ import annotations

import math
import random

from engine import NAMES, ChooseTrump, DealRound, PlayCard, decide, evolve
from engine.cards import cards_of
from engine.events import RoundEnded
from engine.views import legal_mask

from .helpers import Match

REF_MEAN, REF_MEAN_SE = 10.9772, 0.0016
REF_SWEEP, REF_SWEEP_SE = 0.017203, 0.00013
ROUNDS = 30_000


def random_rounds(n: int, seed: int) -> tuple[list[int], int]:
    rng = random.Random(seed)
    base = Match(first_hakem=0).state
    names = list(NAMES)
    tricks: list[int] = []
    sweeps = 0
    for _ in range(n):
        rng.shuffle(names)
        state = base
        for event in decide(state, None, DealRound(tuple(names))):
            state = evolve(state, event)
        for event in decide(state, 0, ChooseTrump("SHDC"[rng.randrange(4)])):
            state = evolve(state, event)
        while state.phase == "playing":
            seat = state.turn
            assert seat is not None
            legal = cards_of(legal_mask(state, seat))
            for event in decide(state, seat, PlayCard(NAMES[legal[rng.randrange(len(legal))]])):
                state = evolve(state, event)
                if isinstance(event, RoundEnded) and min(event.tricks) == 0:
                    sweeps += 1
        tricks.append(state.tricks_played)
    return tricks, sweeps


def test_uniform_random_play_statistics() -> None:
    tricks, sweeps = random_rounds(ROUNDS, seed=2024)
    n = len(tricks)
    mean = sum(tricks) / n
    sd = math.sqrt(sum((t - mean) ** 2 for t in tricks) / (n - 1))
    assert 1.4 < sd < 1.75
    assert abs(mean - REF_MEAN) < 5 * math.hypot(sd / math.sqrt(n), REF_MEAN_SE), mean
    rate = sweeps / n
    se = math.sqrt(REF_SWEEP * (1 - REF_SWEEP) / n)
    assert abs(rate - REF_SWEEP) < 5 * math.hypot(se, REF_SWEEP_SE), rate
    assert set(tricks) <= set(range(7, 14))
