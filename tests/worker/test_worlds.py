"""The fusion-free best response over a set of deals (``worker.policies.worlds``)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Rules
from worker.policies import SearchConfig, SearchPolicy
from worker.policies.fast import FastState, voids_after, winner_decided
from worker.policies.response import Response
from worker.policies.worlds import Worlds

from .helpers import legal_rounds
from .test_response import _options, _position, plain_rules


def _deals(rules: Rules, seed: int, cards: int, count: int
           ) -> tuple[int, list[int], list[FastState]] | None:
    """A late engine position (the seat to move, the voids it has seen) and ``count`` deals
    that it cannot tell apart from it: the true one first, then the other hands' cards dealt
    again at random with the same counts (the deals may repeat)."""
    position = _position(rules, seed, cards)
    if position is None:
        return None
    me, voids, true = position
    rng = random.Random(seed)
    others = [s for s in range(4) if s != me]
    pool = [c for s in others for c in range(64) if true.hands[s] >> c & 1]
    out = [true]
    for _ in range(count - 1):
        rng.shuffle(pool)
        fs = true.copy()
        at = 0
        for s in others:
            n = true.hands[s].bit_count()
            fs.hands[s] = sum(1 << c for c in pool[at:at + n])
            at += n
        out.append(fs)
    return me, voids, out


def _worlds(me: int, rules: Rules, deals: list[FastState], voids: list[int], depth: int
            ) -> tuple[int, list[Response]]:
    first = deals[0]
    team = me & 1
    responders = [Response(me, rules.must_trump, False) for _ in deals]
    search = Worlds(me, rules.must_trump, responders, depth)
    won = search.wins([d.hands[:] for d in deals], first.trick[:], first.leader,
                      first.tricks[team], first.tricks[1 - team], voids[:])
    return won, responders


def _plans(deals: list[FastState], idx: list[int], me: int, voids: list[int]) -> set[int]:
    """Brute force: the set of deals won (a bit mask) by every plan of seat ``me`` that
    chooses its cards from the cards it has seen, the others playing the heuristic."""
    first = deals[idx[0]]
    decided = winner_decided(first)
    if decided is not None:
        return {sum(1 << w for w in idx) if decided == me & 1 else 0}
    seat = first.turn
    groups: dict[int, list[int]] = {}
    if seat == me:
        out: set[int] = set()
        for c in _options(first, me, False, voids, True):
            out |= _after(deals, idx, seat, c, me, voids)
        return out
    for w in idx:
        c = _options(deals[w], me, False, voids, True)[0]
        groups.setdefault(c, []).append(w)
    masks = {0}
    for c, g in groups.items():
        masks = {a | b for a in masks for b in _after(deals, g, seat, c, me, voids)}
    return masks


def _after(deals: list[FastState], idx: list[int], seat: int, c: int, me: int,
           voids: list[int]) -> set[int]:
    v = voids_after(voids, seat, deals[idx[0]].trick, c, deals[idx[0]].rules.must_trump)
    moved = list(deals)
    for w in idx:
        moved[w] = deals[w].copy()
        moved[w].play(c)
    return _plans(moved, idx, me, v)


@settings(max_examples=80, deadline=None)
@given(rules=plain_rules, seed=st.integers(0, 2**32 - 1), cards=st.integers(2, 3),
       count=st.integers(1, 6))
def test_worlds_equal_the_best_plan_found_by_brute_force(rules: Rules, seed: int, cards: int,
                                                         count: int) -> None:
    """With no depth limit, the deals won are those of the best plan that decides from what the
    seat sees (brute force over every such plan), and never more than the per-deal best
    response wins (which plans seeing each deal)."""
    made = _deals(rules, seed, cards, count)
    if made is None:
        return
    me, voids, deals = made
    won, _ = _worlds(me, rules, deals, voids, depth=99)
    best = max(_plans(deals, list(range(len(deals))), me, voids[:]), key=int.bit_count)
    assert won.bit_count() == best.bit_count()
    apart, _ = _worlds(me, rules, deals, voids, depth=0)
    assert won.bit_count() <= apart.bit_count()


@settings(max_examples=60, deadline=None)
@given(rules=plain_rules, seed=st.integers(0, 2**32 - 1), cards=st.integers(2, 7),
       count=st.integers(1, 12))
def test_depth_zero_is_the_per_deal_response_and_depth_only_lowers_it(rules: Rules, seed: int,
                                                                      cards: int,
                                                                      count: int) -> None:
    """Depth 0 is the per-deal best response deal by deal; each fusion-free decision more can
    only take deals away (one card for several deals is no better than one for each); one
    deal alone is the per-deal response at any depth."""
    made = _deals(rules, seed, cards, count)
    if made is None:
        return
    me, voids, deals = made
    apart, _ = _worlds(me, rules, deals, voids, depth=0)
    for w, d in enumerate(deals):
        assert bool(apart >> w & 1) == Response(me, rules.must_trump, False).wins(d.copy(),
                                                                                 voids[:])
    last = apart
    for depth in (1, 2, 3):
        won, _ = _worlds(me, rules, deals, voids, depth)
        assert won.bit_count() <= last.bit_count()
        last = won
    alone, _ = _worlds(me, rules, deals[:1], voids, depth=3)
    assert alone == apart & 1


def test_a_guess_the_seat_cannot_see_is_not_counted_twice() -> None:
    """Where the seat must guess which opponent holds a card, the deals show the same plays up
    to the guess and the per-deal response counts every one of them as won; the fusion-free
    count is lower in some of a fixed sample of three-card endings (so the search is not the
    per-deal response under another name)."""
    lower = 0
    for seed in range(60):
        rules = Rules()
        made = _deals(rules, seed, 3, 6)
        if made is None:
            continue
        me, voids, deals = made
        won, _ = _worlds(me, rules, deals, voids, depth=99)
        apart, _ = _worlds(me, rules, deals, voids, depth=0)
        lower += won.bit_count() < apart.bit_count()
    assert lower > 0


def test_search_with_fusion_free_decisions_plays_legal_cards_deterministically() -> None:
    """Whole rounds with both fusion-free modes on (the best response's and the playouts'):
    every choice legal, and the same generator gives the same choices."""
    config = SearchConfig(samples=16, batch=8, min_samples=8, work=40000, worlds=2,
                          worlds_playout=1, chain_thin=3, miss=0.05, partner_miss=0.5,
                          points=True)
    runs = [legal_rounds(SearchPolicy(config), 2, random.Random(9), random.Random(3))
            for _ in range(2)]
    assert runs[0] == runs[1]
