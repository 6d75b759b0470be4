"""The State value and the trump tables: copies, equality, the packed hands, trick winners."""

from __future__ import annotations

import itertools
import random

import pytest

from engine import NAMES, PlayCard, State, decide, evolve, replay
from engine.state import TRUMP_TABLES, pack

from .helpers import Match, deck_for, legal_cards


def dealt_match() -> Match:
    m = Match()
    m.deal(list(NAMES))
    m.trump("S")
    return m


def test_clone_is_equal_and_independent() -> None:
    state = dealt_match().state
    copy = state.clone()
    assert copy == state and copy is not state
    assert copy.snapshot() == state.snapshot()
    copy.turn = 3
    assert copy != state and state.turn == 0
    assert state.replace(turn=3) == copy
    with pytest.raises(TypeError):
        hash(state)


def test_hands_are_packed_per_seat() -> None:
    state = dealt_match().state
    hands = state.hands
    assert len(hands) == 4 and all(h.bit_count() == 13 for h in hands)
    assert [state.hand(s) for s in range(4)] == list(hands)
    assert pack(hands) == state.held
    assert state.replace(hands=hands) == state
    swapped = state.replace(hands=(hands[1], hands[0], hands[2], hands[3]))
    assert swapped.hands[0] == hands[1] and swapped.held != state.held


def test_played_is_dealt_minus_held() -> None:
    m = dealt_match()
    assert m.state.played == 0
    first = legal_cards(m.state, 0)[0]
    m.play(first)
    assert m.state.played == 1 << NAMES.index(first)
    assert State().played == 0


def test_evolve_returns_a_new_state_and_leaves_the_old_one() -> None:
    m = dealt_match()
    rng = random.Random(5)
    while m.state.phase == "playing":
        seat = m.state.turn
        assert seat is not None
        legal = legal_cards(m.state, seat)
        before = m.state
        snap = before.snapshot()
        hands = before.hands
        for event in decide(before, seat, PlayCard(legal[rng.randrange(len(legal))])):
            after = evolve(m.state, event)
            assert after is not m.state
            m.state = after
            m.log.append(event)
        assert before.snapshot() == snap and before.hands == hands
    assert replay(m.log) == m.state


TWO_HEARTS = 13


def strength(card: int, led: int, trump: int, satat: bool) -> int:
    """rules.md 8 by hand: the highest trump, else the highest card of the suit led."""
    if satat and card == TWO_HEARTS:
        return 1000
    if card // 13 == trump:
        return 100 + card % 13
    return card % 13 if card // 13 == led else -1


@pytest.mark.parametrize(("trump", "satat"), list(itertools.product(range(4), (False, True))))
def test_winner_with_matches_winner(trump: int, satat: bool) -> None:
    table = TRUMP_TABLES[(trump, satat)]
    rng = random.Random(trump * 2 + satat)
    for _ in range(500):
        cards = rng.sample(range(52), 4)
        leader = rng.randrange(4)
        trick = tuple(((leader + k) % 4, c) for k, c in enumerate(cards))
        assert table.winner_with(trick[:3], *trick[3]) == table.winner(trick)
        led = trump if satat and cards[0] == TWO_HEARTS else cards[0] // 13
        best = max(trick, key=lambda sc: strength(sc[1], led, trump, satat))
        assert table.winner(trick) == best[0]


def test_follow_masks() -> None:
    table = TRUMP_TABLES[(0, True)]  # spades trump, satat
    assert table.follow[NAMES.index("2H")] == table.suit_masks[0]  # the 2H leads a trump
    assert not table.follow[NAMES.index("AH")] >> NAMES.index("2H") & 1
    assert bin(table.follow[NAMES.index("AH")]).count("1") == 12


def test_deck_for_deals_the_wanted_hands() -> None:
    m = Match()
    m.deal(deck_for({2: ["AS", "KS"]}))
    m.trump("H")
    assert m.state.hand(2) >> NAMES.index("AS") & 1 and m.state.hand(2) >> NAMES.index("KS") & 1
