"""Cards in the notation of the API (`AS`, `TH`, `2C`) and their compact integer form.

A card is an int ``suit * 13 + rank`` with suits ``S H D C`` -> 0..3 and ranks ``2..A`` -> 0..12,
so ``1 << card`` is its bit in a hand mask.  Text is used at every boundary (commands, events,
views); ints and bit masks are used inside the engine because they are fast.
"""

from __future__ import annotations

from collections.abc import Iterable

SUITS = "SHDC"
RANKS = "23456789TJQKA"
N_CARDS = 52

NAMES: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
"""NAMES[card] is the text of a card; the order is the canonical (unshuffled) deck."""

CARD_INDEX: dict[str, int] = {name: i for i, name in enumerate(NAMES)}
SUIT_INDEX: dict[str, int] = {s: i for i, s in enumerate(SUITS)}

BITS: tuple[int, ...] = tuple(1 << c for c in range(N_CARDS))
"""BITS[card] == 1 << card."""
SUIT_MASKS: tuple[int, ...] = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))
FULL_DECK_MASK = (1 << N_CARDS) - 1

# Display order of suits in a sorted hand: alternating colours (spades, hearts, clubs, diamonds).
_DISPLAY_SUIT = (0, 1, 3, 2)


def parse_card(text: str) -> int:
    """The card for ``text`` (``"QH"``); raises ``ValueError`` for anything else."""
    try:
        return CARD_INDEX[text]
    except (KeyError, TypeError):
        raise ValueError(f"{text!r} is not a card (rank then suit, e.g. 'QH' or 'TS')") from None


def parse_suit(text: str) -> int:
    """The suit index for ``"S" | "H" | "D" | "C"``; raises ``ValueError`` otherwise."""
    try:
        return SUIT_INDEX[text]
    except (KeyError, TypeError):
        raise ValueError(f"{text!r} is not a suit (one of S H D C)") from None


def suit_of(card: int) -> int:
    return card // 13


def rank_of(card: int) -> int:
    return card % 13


def mask_of(cards: Iterable[int]) -> int:
    """The bit mask of a collection of cards."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def _suit_table(suit: int) -> tuple[tuple[int, ...], ...]:
    # each pattern from the one without its lowest card (half the time of testing 13 bits of
    # every pattern: every process that imports the engine builds these)
    base = 13 * suit
    table: list[tuple[int, ...]] = [()] * (1 << 13)
    for m in range(1, 1 << 13):
        low = m & -m
        table[m] = (base + low.bit_length() - 1, *table[m ^ low])
    return tuple(table)


# The cards of every 13-bit suit pattern, per suit: four lookups list any hand (the hot path of
# legal-move generation in bots and benchmarks).
_SUIT_CARDS = tuple(_suit_table(s) for s in range(4))
_S0, _S1, _S2, _S3 = _SUIT_CARDS


def cards_of(mask: int) -> tuple[int, ...]:
    """The cards of a bit mask, lowest first."""
    # Halves first: a legal mask is often one suit, and skipping an empty half saves two lookups
    # and a concatenation (10% on the masks of random play).
    low = mask & 67108863  # spades and hearts
    high = mask >> 26  # diamonds and clubs
    if not high:
        return _S0[low & 8191] + _S1[low >> 13]
    if not low:
        return _S2[high & 8191] + _S3[high >> 13]
    return _S0[low & 8191] + _S1[low >> 13] + _S2[high & 8191] + _S3[high >> 13]


def sort_key(card: int) -> tuple[int, int]:
    """Key for showing a hand: by suit (S H C D), highest rank first."""
    return (_DISPLAY_SUIT[card // 13], -(card % 13))


def names_of_mask(mask: int) -> list[str]:
    """The sorted card names of a hand mask, as a view shows them."""
    return [NAMES[c] for c in sorted(cards_of(mask), key=sort_key)]
