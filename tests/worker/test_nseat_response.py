"""The seat's best response to heuristic opponents in the games of two and three players
(``nseat.BestResponse``) and the search that scores by it (``nseat.score_cards``): exact against
an exhaustive max, never below the heuristic's own line, its node cap and its work counted, and
whole rounds of the ``hard`` level legal and deterministic."""

from __future__ import annotations

import random
import threading
from dataclasses import replace
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import CARD_INDEX
from engine.decide import round_outcome
from engine.rules import Rules
from worker.policies import nseat, policy_for
from worker.policies.base import is_legal
from worker.policies.nseat_inference import PlayModel
from worker.policies.fast import bits, legal, mask_of, trick_winner_index, voids_after
from worker.policies.solver import SolverLimit, representatives

from .helpers import GameTable, game_rules, random_deck

game_and_rules = st.sampled_from([
    ("simple", {}), ("simple", {"must_trump": True}), ("simple", {"bavney": True}),
    ("simple", {"double_sar": True}), ("simple", {"satat": True}),
    ("talon", {}), ("talon", {"bavney": True}), ("talon", {"double_sar": True}),
    ("talon", {"must_trump": True, "satat": True}),
    ("three", {}), ("three", {"must_trump": True}), ("three", {"satat": True}),
])
"""A game and house rules it accepts (``bavney`` and ``double_sar`` only with two players)."""


def ending(game: str, extra: dict[str, Any], seed: int, cards: int,
           sweeping: bool = False) -> GameTable:
    """A table of ``game`` played at random until no hand holds more than ``cards`` cards, the
    round still going (a new deal when it ended first); with ``sweeping``, one where the seat
    to play has taken every trick so far (the others have none)."""
    rng = random.Random(seed)
    while True:
        rules = game_rules(game, **extra)
        table = GameTable(rules, hakem=rng.randrange(rules.players))
        table.deal(random_deck(rng))
        while table.live and not (table.state.phase == "playing"
                                  and max(h.bit_count() for h in table.state.hands) <= cards):
            table.act(table.random_move(rng))
        if not table.live:
            continue
        tricks = table.state.tricks
        if not sweeping or 0 < tricks[rules.side_of[table.actor]] == sum(tricks):
            return table


def seat_fast(table: GameTable) -> nseat.Fast:
    me = table.actor
    return nseat.to_fast(nseat.seen(table.view(me), table.histories[me]))


def true_hands(table: GameTable, f: nseat.Fast) -> list[int]:
    """The deal as it is (fast masks), one of the deals the seat could sample."""
    return [f.ft.mask_to_fast(h) for h in table.state.hands]


def brute(f: nseat.Fast, hands: list[int], first: int, equivalent: bool = False) -> float:
    """An exhaustive max over the seat's legal cards (every one, or with ``equivalent`` one of
    each run of cards that no card in the hands or the trick separates; no table, no cut), the
    other seats playing ``nseat.play`` on what :func:`nseat.rollout` gives them; written apart
    from the search, from the rules of ``rollout``."""
    s = f.s
    rules: Rules = s.rules
    n = s.n
    side_of = rules.side_of
    hakem_side = side_of[s.hakem]
    live = f.pool | f.hand

    def go(hands: list[int], trick: list[int], leader: int, turn: int, card: int,
           tricks: list[int], played: int, pile: int, run: int | None, voids: list[int],
           live: int) -> float:
        voids = voids_after(voids, turn, trick, card, rules.must_trump)
        hands = hands[:]
        hands[turn] ^= 1 << card
        live &= ~(1 << card)
        trick = [*trick, card]
        if len(trick) == n:
            winner = (leader + trick_winner_index(trick)) % n
            side = side_of[winner]
            played += 1
            tricks = tricks[:]
            result = None
            if not rules.double_sar:
                tricks[side] += 1
                result = round_outcome(rules, hakem_side, tricks, side, played)
            elif run == side or played == rules.hand_size:
                tricks[side] += pile + 1
                pile, run = 0, None
                result = round_outcome(rules, hakem_side, tricks, side, played)
            else:
                pile, run = pile + 1, side
            if result is not None or played >= rules.hand_size:
                return nseat._utility(result, side_of[s.seat])
            trick = []
            leader = turn = winner
        else:
            turn = (turn + 1) % n
        h = hands[turn]
        options = legal(h, trick, rules.must_trump)
        assert options
        if turn == s.seat:
            cards = bits(options)
            if equivalent:
                in_play = mask_of(trick)
                for other in hands:
                    in_play |= other
                cards = representatives(options, in_play)
            return max(go(hands, trick, leader, turn, c, tricks, played, pile, run, voids, live)
                       for c in cards)
        c = nseat.model_play(hands, turn, options, live, voids, trick, n)
        return go(hands, trick, leader, turn, c, tricks, played, pile, run, voids, live)

    return go(hands, f.trick, s.leader, s.seat, first, s.tricks, nseat._tricks_done(s), s.pile,
              s.run_team, f.voids, live)


@settings(max_examples=200, deadline=None)
@given(game=game_and_rules, seed=st.integers(0, 2**32 - 1), cards=st.integers(1, 4))
def test_the_best_response_equals_an_exhaustive_max(game: tuple[str, dict[str, Any]],
                                                    seed: int, cards: int) -> None:
    table = ending(game[0], game[1], seed, cards)
    f = seat_fast(table)
    rng = random.Random(seed)
    for hands in [true_hands(table, f)] + [nseat.sample(f, rng) for _ in range(3)]:
        br = nseat.BestResponse(f, hands)  # one table for every card, as the search uses it
        values = {c: br.value(c) for c in bits(f.legal)}
        assert values == {c: brute(f, hands, c) for c in bits(f.legal)}
        in_play = f.pool | f.hand
        for c in f.trick:
            in_play |= 1 << c
        assert max(values[c] for c in representatives(f.legal, in_play)) == max(values.values())


longer_rules = st.sampled_from([
    ("simple", {}), ("simple", {"bavney": True}), ("simple", {"must_trump": True}),
    ("talon", {}), ("talon", {"bavney": True}), ("three", {}),
])
"""Rules of the longer endings (no ``double_sar``, whose counted tricks lag behind)."""


@settings(max_examples=80, deadline=None)
@given(game=longer_rules, seed=st.integers(0, 2**32 - 1), cards=st.integers(7, 8),
       sweeping=st.booleans())
def test_the_table_and_the_cuts_keep_the_value_in_longer_endings(
        game: tuple[str, dict[str, Any]], seed: int, cards: int, sweeping: bool) -> None:
    """Longer endings, against the exhaustive max over one card of each run of equal cards
    (exact by the test above); in the two-player games half of them where the seat has every
    trick so far, so that a sweep is in sight and the search may stop only at a sweep's worth
    (with three seats 7-0-0 needs longer hands)."""
    table = ending(game[0], game[1], seed, cards, sweeping and game[0] != "three")
    f = seat_fast(table)
    rng = random.Random(seed)
    for hands in [true_hands(table, f), nseat.sample(f, rng)]:
        br = nseat.BestResponse(f, hands)
        for c in bits(f.legal):
            assert br.value(c) == brute(f, hands, c, equivalent=True)


@settings(max_examples=120, deadline=None)
@given(game=game_and_rules, seed=st.integers(0, 2**32 - 1), cards=st.integers(1, 9))
def test_the_best_response_is_never_below_the_heuristics_line(
        game: tuple[str, dict[str, Any]], seed: int, cards: int) -> None:
    table = ending(game[0], game[1], seed, cards)
    f = seat_fast(table)
    h_name, _ = nseat.heuristic_card(f.s)
    h_card = f.ft.to_fast[nseat.CARD_INDEX[h_name]]
    rng = random.Random(seed)
    for hands in [true_hands(table, f)] + [nseat.sample(f, rng) for _ in range(4)]:
        br = nseat.BestResponse(f, hands)
        values = {c: br.value(c) for c in bits(f.legal)}
        for c, v in values.items():  # the heuristic's own line from c is one of the seat's
            assert v >= nseat.rollout(f, hands, c)
        assert max(values.values()) >= nseat.rollout(f, hands, h_card)
        assert values[h_card] >= nseat.rollout(f, hands, h_card)
        assert max(values.values()) <= 1.2  # a Hakem koti or bavney, the best a round gives


def test_the_node_cap_raises_and_the_search_then_scores_by_rollouts() -> None:
    table = ending("three", {}, 11, 8)
    f = seat_fast(table)
    candidates = representatives(f.legal, f.pool | f.hand)
    assert len(candidates) > 1
    hands = nseat.sample(f, random.Random(3))
    with pytest.raises(SolverLimit):
        nseat.BestResponse(f, hands, limit=3).value(candidates[0])
    plain = nseat.Budget(deals=6, plays=10**9, min_deals=2)
    capped = replace(plain, response_cards=13, response_nodes=1)
    by_rollouts, deals, work = nseat.score_cards(f, candidates, plain, random.Random(5))
    by_capped, deals2, work2 = nseat.score_cards(f, candidates, capped, random.Random(5))
    assert deals == deals2 == 6
    assert by_capped == by_rollouts  # every deal hit the cap: scored by its playouts
    assert work2 > work  # the playouts and the nodes spent before the cap


@settings(max_examples=40, deadline=None)
@given(game=game_and_rules, seed=st.integers(0, 2**32 - 1), cards=st.integers(2, 8),
       plays=st.integers(1, 3000))
def test_the_search_counts_its_nodes_as_work(game: tuple[str, dict[str, Any]], seed: int,
                                             cards: int, plays: int) -> None:
    table = ending(game[0], game[1], seed, cards)
    f = seat_fast(table)
    in_play = f.pool | f.hand
    for c in f.trick:
        in_play |= 1 << c
    candidates = representatives(f.legal, in_play)
    budget = nseat.Budget(deals=40, plays=plays, min_deals=2, response_cards=8,
                          response_nodes=10**6)  # no deal stopped: each scored by its search
    totals, deals, work = nseat.score_cards(f, candidates, budget, random.Random(seed))
    # the same deals again, by hand: the work is the nodes searched (and no more deals are
    # drawn once it reaches the budget)
    rng = random.Random(seed)
    spent = 0
    expected = [0.0] * len(candidates)
    for i in range(deals):
        assert i < budget.min_deals or spent < plays
        br = nseat.BestResponse(f, nseat.sample(f, rng), budget.response_nodes)
        for j, c in enumerate(candidates):
            expected[j] += br.value(c)
        spent += br.nodes * nseat.NODE_COST
    assert spent == work and totals == expected
    assert deals == budget.deals or (deals >= budget.min_deals and work >= plays)


def play_round(game: str, extra: dict[str, Any], seed: int) -> list[str]:
    """One round of ``game`` with the ``hard`` level (as ``policy_for`` makes it) at every seat,
    every decision asserted legal; the decisions."""
    rng = random.Random(seed)
    rules = game_rules(game, **extra)
    table = GameTable(rules, hakem=rng.randrange(rules.players))
    table.deal(random_deck(rng))
    policies = [policy_for("hard") for _ in range(rules.players)]
    seat_rngs = [random.Random(seed * 10 + s) for s in range(rules.players)]
    choices = []
    while table.live:
        seat = table.actor
        view = table.view(seat)
        choice = policies[seat].choose(view, table.histories[seat], seat_rngs[seat])
        assert is_legal(view, choice), (view, choice)
        choices.append(choice)
        table.act(choice)
    assert table.state.phase in ("round_over", "match_over")
    return choices


@pytest.mark.parametrize(("game", "extra"), [
    ("simple", {}), ("simple", {"double_sar": True}), ("talon", {"bavney": True}),
    ("three", {}),
])
def test_hard_rounds_stay_legal_and_deterministic(game: str, extra: dict[str, Any],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    calls = [0]
    weighed = [0]
    value = nseat.BestResponse.value
    weight = PlayModel.weight

    def counted(self: nseat.BestResponse, first: int) -> float:
        calls[0] += 1
        return value(self, first)

    def counted_weight(self: PlayModel, hands: list[int]) -> float:
        weighed[0] += 1
        return weight(self, hands)

    monkeypatch.setattr(nseat.BestResponse, "value", counted)
    monkeypatch.setattr(PlayModel, "weight", counted_weight)
    first = play_round(game, extra, 7)
    assert calls[0] > 0  # the rounds reached the best response
    assert weighed[0] > 0  # and drew deals by the plays seen
    assert play_round(game, extra, 7) == first


def test_budget_of_gives_the_response_and_the_inference_to_hard_and_expert_only(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def budgets() -> dict[str, nseat.Budget]:
        return {level: policy_for(level).small_budget  # type: ignore[attr-defined]
                for level in ("medium", "hard", "expert")}

    shipped = budgets()
    for level in ("hard", "expert"):
        assert shipped[level].response_cards == nseat.RESPONSE_CARDS == 8
        assert shipped[level].oversample == nseat.OVERSAMPLE == 4
        assert shipped[level].miss == nseat.MISS
    monkeypatch.setattr(nseat, "RESPONSE_CARDS", 6)
    monkeypatch.setattr(nseat, "OVERSAMPLE", 2)
    on = budgets()
    assert on["hard"].response_cards == on["expert"].response_cards == 6
    assert on["hard"].oversample == on["expert"].oversample == 2
    # medium stays a plain PIMC
    assert on["medium"].response_cards == 0 and on["medium"].oversample == 1


@settings(max_examples=120, deadline=None)
@given(game=st.sampled_from([("simple", {}), ("simple", {"must_trump": True}),
                             ("simple", {"double_sar": True}), ("three", {}),
                             ("three", {"satat": True})]),
       seed=st.integers(0, 2**32 - 1), cards=st.integers(2, 13))
def test_the_rollout_plays_the_true_deal_as_the_heuristic_does(
        game: tuple[str, dict[str, Any]], seed: int, cards: int) -> None:
    """In the true deal, a rollout from the heuristic's card plays, card for card, the round
    the heuristic plays at the table: the model gives each seat what its own view would (the
    cards it cannot place, the share of them in the other hands), so the opponents the search
    plans against are the ``heuristic`` policy.  (The talon game is left out: there a seat's
    own discards, which no sampled deal can name, are out of its view.)"""
    name, extra = game
    rules = game_rules(name, **extra)
    rng = random.Random(seed)
    table = GameTable(rules, hakem=rng.randrange(rules.players))
    table.deal(random_deck(rng))

    def heuristic_move() -> str:
        me = table.actor
        return nseat.decide(nseat.seen(table.view(me), table.histories[me]))[0]

    while table.live and not (table.state.phase == "playing"
                              and table.state.hands[table.actor].bit_count() <= cards):
        table.act(heuristic_move())
    if not table.live:  # the round ended before (a sweep decided early): nothing to compare
        return
    me = table.actor
    f = seat_fast(table)
    hands = true_hands(table, f)
    first = heuristic_move()
    table.act(first)
    at_table = []
    while table.live:
        card = heuristic_move()
        at_table.append(f.ft.to_fast[CARD_INDEX[card]])
        table.act(card)
    r = table.state.match.result
    assert r is not None
    outcome = None if r.winner is None else (r.winner, r.points, r.kind)
    modelled: list[int] = []
    play = nseat.play
    this = threading.get_ident()

    def recorded(*args: Any) -> tuple[int, str]:
        choice = play(*args)
        # this thread's plays only: the patch is the module's, and a bot thread another test
        # of this process left running may be playing a game of three meanwhile (CI once
        # recorded 277 plays more than the round has)
        if threading.get_ident() == this:
            modelled.append(choice[0])
        return choice

    with mock.patch.object(nseat, "play", recorded):
        value = nseat.rollout(f, hands, f.ft.to_fast[CARD_INDEX[first]])
    assert modelled == at_table
    assert value == nseat._utility(outcome, rules.side_of[me])
