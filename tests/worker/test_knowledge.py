"""What a seat derives from its view and history is true, and samples are consistent with it."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Rules
from engine.state import PLAYING
from worker.policies.fast import BLOCK, FAST_TABLES
from worker.policies.inference import PlayModel
from worker.policies.knowledge import fast_knowledge, knowledge
from worker.policies.sampler import Sampler

from .helpers import reach, rules_strategy


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
