"""The card masks' tables (``engine/cards.py``, built at import by every process, each pattern
from a smaller one): what they list must be exactly the bits of a mask, lowest first."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engine.cards import FULL_DECK_MASK, N_CARDS, cards_of, mask_of


@given(st.integers(min_value=0, max_value=FULL_DECK_MASK))
def test_cards_of_lists_the_bits_of_a_mask_lowest_first(mask: int) -> None:
    cards = cards_of(mask)
    assert cards == tuple(c for c in range(N_CARDS) if mask >> c & 1)
    assert mask_of(cards) == mask


def test_every_pattern_of_one_suit() -> None:
    for suit in range(4):
        for pattern in range(1 << 13):
            assert cards_of(pattern << (13 * suit)) == tuple(
                13 * suit + r for r in range(13) if pattern >> r & 1)
