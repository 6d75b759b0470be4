"""The information-set search of the late cards (``ismcts.py``, issue 15 session 31): on one
deal it finds the best response's wins, it plays legal cards deterministically given the
generator, and its choice depends on the seat's view and history only."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace

import pytest

from engine import NAMES, Rules
from engine.cards import cards_of
from engine.state import PLAYING
from worker.policies import SearchConfig, SearchPolicy
from worker.policies.fast import FAST_TABLES, voids_after
from worker.policies.ismcts import Node, decide, response_leaf, search
from worker.policies.knowledge import fast_knowledge, knowledge
from worker.policies.response import Response
from worker.policies.search import candidate_cards

from .helpers import Table, fast_state, late, random_deck

ISM = SearchConfig(samples=16, race=0, chain_thin=4, chain_burn=20, miss=0.02,
                   partner_miss=0.5, ismcts=120, ismcts_deals=16, ismcts_cards=6)


def _late_decisions(seeds: range, cards: int) -> Iterator[tuple[Table, int]]:
    """The late tables of ``helpers.late`` for ``seeds`` (those still in play) and the seat to
    play in each."""
    for seed in seeds:
        table = late(Rules(), seed, cards)
        if table is not None and table.state.turn is not None:
            yield table, table.state.turn


def test_on_one_deal_the_search_plays_a_card_the_best_response_wins_with() -> None:
    """Given the true deal as its only deal, the tree is a perfect-information tree over the
    seat's cards with the heuristic opponents: whenever some card wins by the best response,
    the most visited card wins too (and its mean is 1 once the tree has settled)."""
    checked = 0
    for table, seat in _late_decisions(range(40), 4):
        f = fast_knowledge(knowledge(table.view(seat), table.histories[seat]))
        truth = fast_state(table)
        candidates = candidate_cards(f)
        if len(candidates) < 2:
            continue
        trick = list(truth.trick)
        wins = []
        for c in candidates:
            st = truth.copy()
            st.play(c)
            voids = voids_after(f.voids, seat, trick, c, f.k.rules.must_trump)
            wins.append(Response(seat, f.k.rules.must_trump, False).wins(st, voids))
        if not any(wins) or all(wins):
            continue
        root = search(f, [truth.hands], candidates, 200, response_leaf(f, 1))
        card, mean = decide(root)
        assert wins[candidates.index(card)], (candidates, wins, root.count)
        assert mean > 0.9
        checked += 1
    assert checked >= 3


def test_the_search_plays_a_legal_card_deterministically() -> None:
    """In late positions, the policy with ``ismcts`` plays one of the legal cards, the same one
    given the same generator."""
    played = 0
    for table, seat in _late_decisions(range(12), 5):
        view, history = table.view(seat), table.histories[seat]
        policy = SearchPolicy(ISM)
        rngs = random.Random(played), random.Random(played)
        first = policy.choose(view, history, rngs[0])
        assert first in view["legal"]
        assert policy.choose(view, history, rngs[1]) == first
        played += 1
    assert played >= 6


def _replay(deck: tuple[str, ...], hakem: int, trump: str, moves: list[str]) -> Table:
    table = Table(Rules(), hakem=hakem)
    table.deal(deck)
    table.act(trump)
    for move in moves:
        table.act(move)
    return table


def test_the_choice_depends_on_the_seat_s_knowledge_only() -> None:
    """Two deals that differ only in two unplayed cards of one suit swapped between two other
    seats, played the same way, give the seat the same view and history, and the search the
    same card: it never reads the true hands."""
    compared = 0
    for seed in range(30):
        rng = random.Random(seed)
        hakem = rng.randrange(4)
        deck = random_deck(rng)
        trump = "SHDC"[rng.randrange(4)]
        table = _replay(deck, hakem, trump, [])
        moves = []
        while table.state.phase == PLAYING and max(h.bit_count()
                                                   for h in table.state.hands) > 5:
            move = table.random_move(rng)
            table.act(move)
            moves.append(move)
        if table.state.phase != PLAYING:
            continue
        seat = table.state.turn
        assert seat is not None
        others = [s for s in range(4) if s != seat]
        pair = None
        for a in others:
            for b in others:
                if a < b:
                    for x in cards_of(table.state.hands[a]):
                        for y in cards_of(table.state.hands[b]):
                            if x // 13 == y // 13 and pair is None:
                                pair = (NAMES[x], NAMES[y])
        if pair is None:
            continue
        swapped = tuple(pair[1] if c == pair[0] else pair[0] if c == pair[1] else c
                        for c in deck)
        other = _replay(swapped, hakem, trump, moves)
        assert other.state.hands != table.state.hands
        view, history = table.view(seat), table.histories[seat]
        assert other.view(seat) == view and other.histories[seat] == history
        policy = SearchPolicy(ISM)
        assert (policy.choose(view, history, random.Random(seed))
                == policy.choose(other.view(seat), other.histories[seat], random.Random(seed)))
        compared += 1
        if compared >= 3:
            break
    assert compared >= 3


def test_the_decision_is_the_most_visited_card_unless_the_preferred_one_ties() -> None:
    """``decide`` plays the most visited card, or the preferred card (the heuristic's) when its
    mean is within ``tie`` of that card's, never one searched too little to have a mean."""
    root = Node([3, 7, 11])
    root.count = [60, 30, 0]
    root.total = [45.0, 22.0, 0.0]  # means 0.75, 0.733, none
    assert decide(root) == (3, 0.75)
    assert decide(root, prefer=7, tie=0.02)[0] == 7
    assert decide(root, prefer=7, tie=0.01)[0] == 3
    assert decide(root, prefer=11, tie=1.0)[0] == 3


def test_with_a_margin_the_tree_decides_only_among_the_search_s_close_cards(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``ismcts_margin`` the search scores the candidates first; the tree is asked among
    those whose round-win rate is within the margin of the best (the search's own card
    preferred), and not at all when one candidate stands alone."""
    asked: list[tuple[list[int], int]] = []

    def tree(self: SearchPolicy, f: object, near: list[int], prefer: int,
             rng: random.Random) -> tuple[int, float]:
        asked.append((near, prefer))
        return near[-1], 0.5

    monkeypatch.setattr(SearchPolicy, "_ismcts", tree)
    config = replace(ISM, ismcts_margin=0.05)
    checked = 0
    for table, seat in _late_decisions(range(40), 5):
        k = knowledge(table.view(seat), table.histories[seat])
        f = fast_knowledge(k)
        assert k.trump is not None
        ft = FAST_TABLES[(k.trump, k.rules.satat)]
        candidates = candidate_cards(f)
        if len(candidates) < 3:
            continue
        # the first two candidates within the margin, the rest far behind
        rates = [0.8, 0.77] + [0.5] * (len(candidates) - 2)
        monkeypatch.setattr(SearchPolicy, "_evaluate",
                            lambda self, f, cands, rng, r=rates: (r[:], r[:]))
        asked.clear()
        card, rate = SearchPolicy(config).card_and_rate(k, random.Random(0))
        assert asked == [(candidates[:2], candidates[0])]  # the search's card is the first
        assert (card, rate) == (NAMES[ft.to_engine[candidates[1]]], 0.5)  # the tree's
        # one candidate alone within the margin: the search's card, no tree
        alone = [0.8] + [0.5] * (len(candidates) - 1)
        monkeypatch.setattr(SearchPolicy, "_evaluate",
                            lambda self, f, cands, rng, r=alone: (r[:], r[:]))
        asked.clear()
        card, rate = SearchPolicy(config).card_and_rate(k, random.Random(0))
        assert asked == [] and (card, rate) == (NAMES[ft.to_engine[candidates[0]]], 0.8)
        checked += 1
        if checked >= 3:
            break
    assert checked >= 3
