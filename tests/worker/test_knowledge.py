"""What a seat derives from its view and history is true, and samples are consistent with it."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Rules
from engine.state import PLAYING
from worker.policies.fast import BLOCK, FAST_TABLES, bits
from worker.policies.inference import PlayModel
from worker.policies.knowledge import FastKnowledge, fast_knowledge, knowledge
from worker.policies.sampler import Sampler

from .helpers import late, reach, rules_strategy


@settings(max_examples=100, deadline=None)
@given(rules=rules_strategy, seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 50),
       rounds=st.integers(1, 2))
def test_knowledge_is_true(rules: Rules, seed: int, steps: int, rounds: int) -> None:
    table = reach(rules, seed, steps, rounds)
    s = table.state
    if s.phase != PLAYING:
        return
    seat = s.turn
    assert seat is not None and s.table is not None
    k = knowledge(table.view(seat), table.histories[seat])
    assert k.hand == s.hands[seat]
    assert k.trick == list(s.trick) and k.leader == s.leader
    assert k.counts == [h.bit_count() for h in s.hands]
    assert k.tricks == list(s.tricks) and k.tricks_played == s.tricks_played
    assert k.pile == s.pile and k.run_team == s.run_team
    assert k.history_complete
    dealt_not_held = 0
    for d, h in zip(s.deal.dealt, s.hands, strict=True):
        dealt_not_held |= d & ~h
    assert k.played == dealt_not_held
    for other in range(4):
        assert k.played_by[other] == s.deal.dealt[other] & ~s.hands[other]
        for suit in range(4):
            if k.voids[other] >> suit & 1:  # a shown void is a real void
                assert not s.hands[other] & s.table.suit_masks[suit]
    assert [c for _, c in k.plays[len(k.plays) - len(s.trick):]] == [c for _, c in s.trick]
    if s.hakem == seat:
        assert k.first_five.bit_count() == 5 and k.first_five & s.deal.dealt[seat] == k.first_five


@settings(max_examples=100, deadline=None)
@given(rules=rules_strategy, seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 50))
def test_samples_are_consistent_with_the_knowledge(rules: Rules, seed: int, steps: int) -> None:
    table = reach(rules, seed, steps)
    s = table.state
    if s.phase != PLAYING:
        return
    seat = s.turn
    assert seat is not None and s.deal.trump is not None
    k = knowledge(table.view(seat), table.histories[seat])
    f = fast_knowledge(k)
    ft = FAST_TABLES[(s.deal.trump, rules.satat)]
    truth = [ft.mask_to_fast(h) for h in s.hands]
    sampler = Sampler(f)
    assert sampler.ok  # the true deal satisfies every constraint, so one exists
    model = PlayModel(f)
    assert model.weight(truth) > 0
    rng = random.Random(seed)
    for _ in range(5):
        hands = sampler.sample(rng, tries=rng.choice([0, 3]))
        assert hands[seat] == truth[seat]
        assert [h.bit_count() for h in hands] == [h.bit_count() for h in truth]
        union = 0
        for other, h in enumerate(hands):
            assert not union & h
            union |= h
            for block in range(4):
                if f.voids[other] >> block & 1:
                    assert not h & BLOCK[block]
        assert union == f.unseen | f.hand
        assert 0 < model.weight(hands) <= 1 and 0 < sampler.trump_weight(hands) <= 1


def test_a_history_less_view_knows_only_the_open_trick() -> None:
    table = reach(Rules(), 7, 14)
    seat = table.state.turn
    assert seat is not None
    k = knowledge(table.view(seat), [])
    assert not k.history_complete
    assert k.played == sum(1 << c for _, c in table.state.trick)


def _every_deal(f: FastKnowledge, sampler: Sampler) -> list[list[int]]:
    """Every deal of the hidden cards that the counts and shown voids allow."""
    cards = bits(f.unseen)
    out: list[list[int]] = []
    hands = [0, 0, 0, 0]
    hands[f.k.seat] = f.hand
    caps = list(sampler.cap)

    def place(i: int) -> None:
        if i == len(cards):
            out.append(hands[:])
            return
        c = cards[i]
        for j, s in enumerate(sampler.others):
            if caps[j] and not f.voids[s] >> (c >> 4) & 1:
                hands[s] |= 1 << c
                caps[j] -= 1
                place(i + 1)
                hands[s] ^= 1 << c
                caps[j] += 1

    place(0)
    return out


def _swaps_connect(deals: list[list[int]], f: FastKnowledge, others: list[int]) -> bool:
    """Whether swaps of one card between two hands (within the voids) join every deal."""
    index = {tuple(d): i for i, d in enumerate(deals)}
    seen = {0}
    todo = [0]
    while todo:
        d = deals[todo.pop()]
        for a in others:
            for b in others:
                if a >= b:
                    continue
                for x in bits(d[a]):
                    for y in bits(d[b]):
                        if f.voids[b] >> (x >> 4) & 1 or f.voids[a] >> (y >> 4) & 1:
                            continue
                        n = d[:]
                        n[a] = d[a] ^ (1 << x) | (1 << y)
                        n[b] = d[b] ^ (1 << y) | (1 << x)
                        i = index[tuple(n)]
                        if i not in seen:
                            seen.add(i)
                            todo.append(i)
    return len(seen) == len(deals)


@pytest.mark.parametrize("seed", [6, 12, 18])
def test_the_chain_samples_the_likelihood_over_every_allowed_deal(seed: int) -> None:
    """The search's Markov chain (``sampler.walk``) visits the deals the knowledge allows in
    proportion to their likelihood (plays seen and the Hakem's trump): on late positions with
    two cards a hand, every allowed deal enumerated, 60,000 steps land within 0.06 of that
    distribution in total variation.  Seed 12's position has deals that no swap of two cards
    connects (the voids block each one), which only the chain's rotations reach."""
    from worker.policies.sampler import walk

    table = late(Rules(), seed, 2)
    assert table is not None
    seat = table.state.turn
    assert seat is not None
    f = fast_knowledge(knowledge(table.view(seat), table.histories[seat]))
    sampler = Sampler(f)
    model = PlayModel(f, 0.2, 0.5)
    deals = _every_deal(f, sampler)
    weights = [sampler.trump_weight(d) * model.weight(d) for d in deals]
    total = sum(weights)
    if seed == 12:
        assert not _swaps_connect(deals, f, sampler.others)
    rng = random.Random(seed)
    hands = sampler.sample(rng, tries=0)
    w = sampler.trump_weight(hands) * model.weight(hands)
    visits: Counter[tuple[int, ...]] = Counter()
    steps = 60_000
    for _ in range(steps):
        hands, w = walk(hands, w, 1, sampler.others, f.voids, sampler.hakem_seat,
                        sampler.hakem_played_trumps, model, rng)
        visits[tuple(hands)] += 1
    assert sum(visits.values()) == steps and set(visits) <= {tuple(d) for d in deals}
    distance = 0.5 * sum(abs(visits[tuple(d)] / steps - x / total)
                         for d, x in zip(deals, weights, strict=True))
    assert distance < 0.06
