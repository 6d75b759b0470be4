"""The N-seat path of the bots (``worker.policies.nseat``): what a seat knows in the games of
two and three players (its own discards and the talon cards it passed are in no other hand, the
simple game's unused cards are nowhere, the removed 2 of clubs is out of play), sampled deals
that respect it, and the talon game's decisions on constructed hands."""

from __future__ import annotations

import random
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import CARD_INDEX, NAMES
from engine.rules import Rules
from worker.policies import nseat
from worker.policies.fast import bits

from .helpers import GameTable, game_rules, random_deck

FULL = (1 << 52) - 1


def mask(names: list[str]) -> int:
    return sum(1 << CARD_INDEX[n] for n in names)


def to_play(game: str, seed: int, cards: int, **extra: object) -> GameTable:
    """A table of ``game`` whose random decisions have gone on until the seat to play holds
    ``cards`` cards or fewer (the round still going)."""
    rng = random.Random(seed)
    while True:
        table = GameTable(game_rules(game, **extra), hakem=rng.randrange(2 if game != "three"
                                                                         else 3))
        table.deal(random_deck(rng))
        while table.live and not (table.state.phase == "playing"
                                  and table.state.hands[table.actor].bit_count() <= cards):
            table.act(table.random_move(rng))
        if table.live:
            return table


@settings(max_examples=30, deadline=None)
@given(game=st.sampled_from(["simple", "talon", "three"]), seed=st.integers(0, 2**32 - 1),
       cards=st.integers(1, 13))
def test_the_seat_knows_what_it_saw_and_samples_respect_it(game: str, seed: int,
                                                           cards: int) -> None:
    table = to_play(game, seed, cards)
    state = table.state
    me = table.actor
    s = nseat.seen(table.view(me), table.histories[me])
    others = [o for o in range(state.rules.players) if o != me]
    own_discards = state.deal.discards[me] if state.deal.discards else 0
    removed = mask([NAMES[c] for c in state.rules.variant.removed])
    assert s.hand == state.hands[me]
    assert s.out == own_discards | removed
    # every card of another hand is one the seat cannot place; its own discards never are
    for o in others:
        assert state.hands[o] & ~s.pool == 0
    assert s.pool & (own_discards | removed | s.hand | s.played) == 0
    held = sum(state.hands[o].bit_count() for o in others)
    nowhere = s.pool.bit_count() - held
    if game == "three":
        assert nowhere == 0 and s.pool & removed == 0
    elif game == "simple":
        assert nowhere == 26  # the unused cards: unknown, in no hand
    else:  # the other seat's discards
        assert nowhere == (state.deal.discards[others[0]]).bit_count() > 0
    f = nseat.to_fast(s)
    rng = random.Random(seed)
    for _ in range(5):
        hands = nseat.sample(f, rng)
        assert hands[me] == f.hand
        union = 0
        for o in others:
            assert hands[o] & ~f.pool == 0  # only cards the seat cannot place
            assert hands[o].bit_count() == state.hands[o].bit_count()
            for b in range(4):  # a shown void holds (the true deal is one such deal)
                if f.voids[o] >> b & 1:
                    assert not hands[o] & (0xFFFF << (16 * b))
            assert not union & hands[o]
            union |= hands[o]
    for _ in range(3):  # the look-ahead deal of the dead ends, from the start: the same rules
        hands = nseat.placed(f, bits(f.pool), rng)
        assert hands is not None  # the true deal keeps every void
        assert hands[me] == f.hand
        for o in others:
            assert hands[o] & ~f.pool == 0
            assert hands[o].bit_count() == state.hands[o].bit_count()
            for b in range(4):
                if f.voids[o] >> b & 1:
                    assert not hands[o] & (0xFFFF << (16 * b))


def test_tight_voids_are_kept_where_the_plain_draw_runs_into_dead_ends() -> None:
    """Seat 1 has shown no hearts and seat 2 nothing: the four spades must all go to seat 1,
    which the plain draw (each card to a seat by its need) rarely does, so its twenty tries
    often all end (before the look-ahead deal the voids were then ignored)."""
    spades, hearts, hand = ["AS", "KS", "QS", "JS"], ["AH", "KH", "QH", "JH"], ["2C", "3C"]
    s = nseat.Seen(seat=0, rules=Rules.from_dict({"players": 3}), phase="playing", hakem=0,
                   trump="SHDC".index("D"), hand=mask(hand), legal=mask(hand), trick=[],
                   leader=0, counts=[2, 4, 4], tricks=[0, 0, 0],
                   out=FULL & ~mask(spades + hearts + hand), voids=[0, 1 << "SHDC".index("H"), 0])
    f = nseat.to_fast(s)
    rng = random.Random(5)
    for _ in range(200):
        hands = nseat.sample(f, rng)
        assert hands[1] == f.ft.mask_to_fast(mask(spades))
        assert hands[2] == f.ft.mask_to_fast(mask(hearts))
    # and no deal at all keeps a void the counts cannot allow: the voids give way, the counts
    # hold (a history that misses plays)
    both = nseat.to_fast(replace(s, voids=[0, 1 << "SHDC".index("H"), 1 << "SHDC".index("H")]))
    assert nseat.placed(both, bits(both.pool), rng) is None
    hands = nseat.sample(both, rng)
    assert [hands[o].bit_count() for o in (1, 2)] == [4, 4]


def seen_for(hand: list[str], trump: str, **fields: object) -> nseat.Seen:
    rules = Rules.from_dict({"players": 2, "two_player": "talon"})
    base: dict[str, object] = dict(
        seat=0, rules=rules, phase="drawing", hakem=0, trump="SHDC".index(trump),
        hand=mask(hand), legal=0, trick=[], leader=0, counts=[len(hand), len(hand)],
        tricks=[0, 0], out=0, voids=[0, 0])
    base.update(fields)
    return nseat.Seen(**base)  # type: ignore[arg-type]


def test_keeps_a_trump_and_passes_a_small_side_card() -> None:
    hand = ["AS", "7S", "KH", "9D"]
    assert nseat.keep_choice(seen_for(hand, "S", top=CARD_INDEX["QS"]))[0] == "keep"
    assert nseat.keep_choice(seen_for(hand, "S", top=CARD_INDEX["AC"]))[0] == "keep"
    assert nseat.keep_choice(seen_for(hand, "S", top=CARD_INDEX["2C"]))[0] == "discard"
    assert nseat.keep_choice(seen_for(hand, "S", top=CARD_INDEX["3H"]))[0] == "discard"


def test_discards_keep_the_trumps_and_the_honours() -> None:
    s = seen_for(["2S", "AH", "3D", "4C", "9C"], "S", phase="discarding", to_discard=3)
    assert nseat.discard_choice(s) == ["3D", "4C", "9C"]
    s = seen_for(["KS", "QS", "JS", "2H", "AD"], "S", phase="discarding", to_discard=2)
    assert nseat.discard_choice(s) == ["2H", "AD"]  # a trump before any side card, even an ace


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 3), st.booleans(), st.randoms(use_true_random=False))
def test_keeping_compares_the_top_card_with_the_pools_mean_value(trump: int, satat: bool,
                                                                  rng: random.Random) -> None:
    """``keeps`` reads the pool's mean card value in popcounts: it decides exactly as the mean
    of ``_card_value`` over the pool's cards, one by one, would."""
    from worker.policies.fast import FAST_TABLES, bits

    ft = FAST_TABLES[(trump, satat)]
    cards = list(range(52))
    rng.shuffle(cards)
    size, pool_size = rng.randrange(0, 14), rng.randrange(0, 38)
    hand = ft.mask_to_fast(sum(1 << c for c in cards[:size]))
    pool = ft.mask_to_fast(sum(1 << c for c in cards[size:size + pool_size]))
    top = ft.to_fast[cards[51]]
    values = [nseat._card_value(c, hand) for c in bits(pool)]
    mean = sum(values) / len(values) if values else 0.0
    assert nseat.keeps(hand, top, pool) == (nseat._card_value(top, hand) >= mean)
