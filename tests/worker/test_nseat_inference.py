"""Inference from the plays in the games of two and three players
(``worker.policies.nseat_inference``): a play's weight is judged on what the player's own view
held when it played (checked against those views, taken from the table), so the true deal of
heuristic players weighs 1, and deals drawn by weight follow the counts and voids."""

from __future__ import annotations

import random
from itertools import pairwise
from typing import Any
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import CARD_INDEX
from engine.state import TRUMP_TABLES
from worker.policies import nseat, nseat_inference
from worker.policies.fast import BLOCK
from worker.policies.nseat_inference import PlayModel, draw, trump_likelihood
from worker.policies.sampler import TRUMP_LIKELIHOOD

from .helpers import GameTable, game_rules, random_deck

MISS = 0.5

games = st.sampled_from([("simple", {}), ("simple", {"must_trump": True}),
                         ("simple", {"double_sar": True}), ("three", {}),
                         ("three", {"satat": True}), ("three", {"must_trump": True})])
"""The games whose seats' views hold only the public plays beside their hands (in the talon
game a seat's own discards are out of its view, which no sampled deal can name)."""


def heuristic_move(table: GameTable) -> str:
    me = table.actor
    return nseat.decide(nseat.seen(table.view(me), table.histories[me]))[0]


def deviates(table: GameTable, card: str) -> bool:
    """Whether ``card``, about to be played by the seat to play, is a play the heuristic on that
    seat's own view would not make: another card, not forced, and not equivalent (a card of the
    same suit with nothing still in play ranking between them)."""
    me = table.actor
    f = nseat.to_fast(nseat.seen(table.view(me), table.histories[me]))
    if f.legal & (f.legal - 1) == 0:
        return False
    chosen = f.ft.to_fast[CARD_INDEX[heuristic_move(table)]]
    played = f.ft.to_fast[CARD_INDEX[card]]
    if chosen == played:
        return False
    if chosen >> 4 != played >> 4:
        return True
    lo, hi = min(chosen, played), max(chosen, played)
    between = BLOCK[lo >> 4] & ((1 << hi) - 1) & ~((2 << lo) - 1)
    in_play = f.pool | f.hand
    for c in f.trick:
        in_play |= 1 << c
    return bool(between & in_play & ~f.hand)


@settings(max_examples=80, deadline=None)
@given(game=games, seed=st.integers(0, 2**32 - 1), cards=st.integers(1, 12),
       heuristic=st.booleans())
def test_the_true_deal_weighs_the_plays_as_the_players_views_judge_them(
        game: tuple[str, dict[str, Any]], seed: int, cards: int, heuristic: bool) -> None:
    """Play a round (every seat the heuristic, or every seat at random) until a seat holds
    ``cards`` cards; the true deal's weight is then ``miss`` for each play of another seat that
    the heuristic on that seat's view at the time would not have made (at most four a seat: a
    factor stops below ``miss ** 3``).  With heuristic players it is exactly 1."""
    name, extra = game
    rules = game_rules(name, **extra)
    rng = random.Random(seed)
    table = GameTable(rules, hakem=rng.randrange(rules.players))
    table.deal(random_deck(rng))
    misses = [0] * rules.players
    while table.live and not (table.state.phase == "playing"
                              and table.state.hands[table.actor].bit_count() <= cards):
        move = heuristic_move(table) if heuristic else table.random_move(rng)
        if table.state.phase == "playing" and deviates(table, move):
            misses[table.actor] += 1
        table.act(move)
    if not table.live:  # the round ended first
        return
    me = table.actor
    f = nseat.to_fast(nseat.seen(table.view(me), table.histories[me]))
    hands = [f.ft.mask_to_fast(h) for h in table.state.hands]
    model = PlayModel(f, MISS)
    expected = model.trump_factor(hands)
    for seat, k in enumerate(misses):
        if seat != me:
            expected *= MISS ** min(k, 4)
    assert model.weight(hands) == expected
    if heuristic:  # every play is the model's: only the trump choice weighs
        assert model.weight(hands) == model.trump_factor(hands)


@settings(max_examples=40, deadline=None)
@given(game=games, seed=st.integers(0, 2**32 - 1), cards=st.integers(2, 12))
def test_drawn_deals_are_the_samplers_and_hold_the_counts(
        game: tuple[str, dict[str, Any]], seed: int, cards: int) -> None:
    """Deals drawn by weight give each other seat its count of cards the seat cannot place;
    without inference (``oversample`` 1) they are the plain samples of the same random stream,
    and with it the deals kept are among the candidates that stream gives first (so they keep
    the voids shown as ``nseat.sample`` does: ``test_nseat.py``; only where no deal keeps them,
    a history that misses plays, does it ignore them, and a deal in which a seat held the suit
    it did not follow weighs ``miss`` here)."""
    name, extra = game
    rules = game_rules(name, **extra)
    rng = random.Random(seed)
    table = GameTable(rules, hakem=rng.randrange(rules.players))
    table.deal(random_deck(rng))
    while table.live and not (table.state.phase == "playing"
                              and table.state.hands[table.actor].bit_count() <= cards):
        table.act(table.random_move(rng))
    if not table.live:
        return
    me = table.actor
    f = nseat.to_fast(nseat.seen(table.view(me), table.histories[me]))
    model = PlayModel(f, MISS)
    plain = draw(f, random.Random(seed), 6, model, 1)
    again = random.Random(seed)
    assert plain == [nseat.sample(f, again) for _ in range(6)]
    drawn = draw(f, random.Random(seed), 200, model, 4)
    for hands in drawn:
        assert hands[me] == f.hand
        for o in f.s.others:
            assert hands[o] & ~f.pool == 0
            assert hands[o].bit_count() == f.s.counts[o]
    stream = random.Random(seed)
    candidates = [nseat.sample(f, stream) for _ in range(200 * 4)]
    assert all(hands in candidates for hands in drawn)


def test_the_trump_tables_follow_the_four_player_measurement() -> None:
    """13 cards give the four-player sampler's table; every table rises with the trumps held,
    from the floor to 1."""
    assert all(abs(a - b) < 0.0015 for a, b in zip(trump_likelihood(13), TRUMP_LIKELIHOOD,
                                                      strict=True))
    for size in (13, 17):
        table = trump_likelihood(size)
        assert len(table) == size + 1 and table[0] == 0.02 and table[-1] == 1.0
        assert all(a <= b for a, b in pairwise(table))


@settings(max_examples=60, deadline=None)
@given(game=st.sampled_from(["simple", "three", "talon"]), seed=st.integers(0, 2**32 - 1),
       cards=st.integers(1, 12))
def test_the_trump_choice_weighs_the_hakems_whole_trump_holding(game: str, seed: int,
                                                                cards: int) -> None:
    """Another seat's Hakem named trump from the first five of the hand it plays (the simple
    and three-player games): the true deal's trump factor is the table's entry for the trumps
    that hand held, those still in it and those it played; the Hakem itself and the talon game
    (whose hand is drawn after the choice) weigh nothing."""
    rules = game_rules(game)
    rng = random.Random(seed)
    table = GameTable(rules, hakem=rng.randrange(rules.players))
    table.deal(random_deck(rng))
    by_hakem: list[str] = []
    while table.live and not (table.state.phase == "playing"
                              and table.state.hands[table.actor].bit_count() <= cards):
        move = table.random_move(rng)
        if table.state.phase == "playing" and table.actor == table.state.hakem:
            by_hakem.append(move)
        table.act(move)
    if not table.live:
        return
    me = table.actor
    f = nseat.to_fast(nseat.seen(table.view(me), table.histories[me]))
    hands = [f.ft.mask_to_fast(h) for h in table.state.hands]
    with mock.patch.object(nseat_inference, "WEIGH_TRUMP", True):  # whether or not it ships
        factor = PlayModel(f, MISS).trump_factor(hands)
    assert PlayModel(f, MISS).trump_factor(hands) == 1.0 or nseat_inference.WEIGH_TRUMP
    hakem = table.state.hakem
    assert hakem is not None and table.state.deal.trump is not None
    if game == "talon" or me == hakem:
        assert factor == 1.0
        return
    suits = TRUMP_TABLES[(table.state.deal.trump, rules.satat)].eff_suit
    trump = table.state.deal.trump
    held = [c for c in range(52) if table.state.hands[hakem] >> c & 1]
    k = sum(suits[c] == trump for c in held) + sum(suits[CARD_INDEX[c]] == trump
                                                   for c in by_hakem)
    assert factor == trump_likelihood(17 if game == "three" else 13)[k]
