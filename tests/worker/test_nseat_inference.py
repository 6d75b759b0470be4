"""Inference from the plays in the games of two and three players
(``worker.policies.nseat_inference``): a play's weight is judged on what the player's own view
held when it played (checked against those views, taken from the table), so the true deal of
heuristic players weighs 1, and deals drawn by weight follow the counts and voids."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import CARD_INDEX
from worker.policies import nseat
from worker.policies.fast import BLOCK
from worker.policies.nseat_inference import PlayModel, draw

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
    expected = 1.0
    for seat, k in enumerate(misses):
        if seat != me:
            expected *= MISS ** min(k, 4)
    assert model.weight(hands) == expected
    if heuristic:
        assert model.weight(hands) == 1.0


@settings(max_examples=40, deadline=None)
@given(game=games, seed=st.integers(0, 2**32 - 1), cards=st.integers(2, 12))
def test_drawn_deals_hold_the_counts_and_voids(
        game: tuple[str, dict[str, Any]], seed: int, cards: int) -> None:
    """Deals drawn by weight give each other seat its count of cards the seat cannot place and
    none of a suit it showed void in; without inference (``oversample`` 1) they are the plain
    samples of the same random stream, and with it the deals kept are among the candidates that
    stream gives first."""
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
            for block in range(4):
                if f.voids[o] >> block & 1:
                    assert hands[o] & BLOCK[block] == 0
    stream = random.Random(seed)
    candidates = [nseat.sample(f, stream) for _ in range(200 * 4)]
    assert all(hands in candidates for hands in drawn)
