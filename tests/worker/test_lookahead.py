"""The lookahead's knowledge of a later decision is the one the seat will rebuild there, and a
search with the lookahead plays legal cards, deterministically."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import NAMES, Rules
from engine.cards import cards_of
from engine.state import PLAYING
from engine.views import legal_mask
from worker.policies import SearchConfig, SearchPolicy
from worker.policies.fast import FastState, mask_of, voids_after
from worker.policies.knowledge import FastKnowledge, advance, fast_knowledge, knowledge
from worker.policies.lookahead import lookahead
from worker.policies.response import Response
from worker.policies.solver import representatives

from .helpers import fast_state, late, reach, rules_strategy

FIELDS = ("hand", "legal", "trick", "leader", "counts", "tricks", "tricks_played", "played",
          "played_by", "voids", "discards", "plays", "history_complete")


@settings(max_examples=80, deadline=None)
@given(rules=rules_strategy.filter(lambda r: not r.double_sar), seed=st.integers(0, 2**32 - 1),
       steps=st.integers(1, 40), more=st.integers(1, 9))
def test_advance_is_the_knowledge_rebuilt_after_the_plays(rules: Rules, seed: int, steps: int,
                                                          more: int) -> None:
    """From any seat's knowledge, ``advance`` by the next cards played (any seats, across
    tricks) equals the knowledge that seat rebuilds from its view and history afterwards."""
    table = reach(rules, seed, steps)
    if table.state.phase != PLAYING:
        return
    rng = random.Random(seed)
    watcher = rng.randrange(4)
    before = knowledge(table.view(watcher), table.histories[watcher])
    plays = []
    for _ in range(more):
        seat = table.state.turn
        assert seat is not None
        if sum(h.bit_count() for h in table.state.hands) <= 4:
            break  # keep the round open: its last trick would end it
        legal = cards_of(legal_mask(table.state, seat))
        card = legal[rng.randrange(len(legal))]
        table.act(NAMES[card])
        if table.state.phase != PLAYING:
            return  # the round was decided: nothing left to know
        plays.append((seat, card))
    after = knowledge(table.view(watcher), table.histories[watcher])
    got = advance(before, plays)
    for name in FIELDS:
        assert getattr(got, name) == getattr(after, name), name


LOOK = SearchConfig(samples=24, batch=24, race=0, chain_thin=4, chain_burn=20, miss=0.02,
                    partner_miss=0.5, points=True, lookahead=8, lookahead_samples=6,
                    lookahead_cards=8)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), cards=st.integers(3, 8))
def test_the_lookahead_search_plays_a_legal_card_deterministically(seed: int,
                                                                   cards: int) -> None:
    """A search with the lookahead, in late positions it applies to, plays one of the legal
    cards, and the same card given the same generator."""
    table = late(Rules(), seed, cards)
    if table is None:
        return
    seat = table.state.turn
    assert seat is not None
    view, history = table.view(seat), table.histories[seat]
    policy = SearchPolicy(LOOK)
    first = policy.choose(view, history, random.Random(seed))
    assert first in view["legal"]
    assert policy.choose(view, history, random.Random(seed)) == first


@settings(max_examples=600, deadline=None)
@given(rules=rules_strategy.filter(lambda r: not r.double_sar), seed=st.integers(0, 2**32 - 1),
       cards=st.integers(3, 8))
def test_deciding_the_next_card_seeing_the_deal_is_the_best_response(rules: Rules, seed: int,
                                                                     cards: int) -> None:
    """On one root deal, with a next-decision search that sees that deal (the seat's best
    response for each of its next cards), the lookahead's value of every candidate is the best
    response's own: the plays it simulates, the knowledge it builds and the information sets
    it groups are the ones the best response walks through."""
    table = late(rules, seed, cards)
    if table is None:
        return
    seat = table.state.turn
    assert seat is not None
    f = fast_knowledge(knowledge(table.view(seat), table.histories[seat]))
    deal = fast_state(table).hands
    must_trump = rules.must_trump
    trick = [c for _, c in f.trick]
    in_play = f.unseen | f.hand | mask_of(trick)
    candidates = representatives(f.legal, in_play)
    shown = [voids_after(f.voids, seat, trick, c, must_trump) for c in candidates]

    def on_the_deal(f2: FastKnowledge, nexts: list[int], rng: random.Random
                    ) -> tuple[list[float], list[float] | None]:
        k2 = f2.k
        hands = [h & ~f2.played for h in deal]
        leader = f2.trick[0][0] if f2.trick else k2.leader
        scores = []
        for c in nexts:
            st = FastState(hands[:], [x for _, x in f2.trick], leader, list(k2.tricks),
                           k2.tricks_played, k2.hakem % 2, rules)
            after = voids_after(f2.voids, seat, st.trick, c, must_trump)
            st.play(c)
            scores.append(float(Response(seat, must_trump, False).wins(st, after)))
        return scores, None

    def finish(st: FastState, voids: list[int]) -> float:
        return float(Response(seat, must_trump, False).wins(st, voids))

    got, _ = lookahead(f, [deal], candidates, shown, None, on_the_deal, finish, 0.02,
                       random.Random(seed))
    want = []
    for c, voids in zip(candidates, shown, strict=True):
        st = fast_state(table)
        st.play(c)
        want.append(float(Response(seat, must_trump, False).wins(st, voids)))
    assert got == want
