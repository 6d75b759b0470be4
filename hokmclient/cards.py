"""Cards as the API writes them (``QH``: rank then suit) and as a terminal shows them (``Q♥``).

Contract: :func:`parse_card` accepts what a person types (``qh``, ``10h``, ``Q♥``, ``th``) and
returns the API's code or None; :func:`card_text` is the inverse for display (``TD`` ->
``10♦``), the notation ``hokm replay`` and ``hokm demo`` use.
"""

from __future__ import annotations

RANKS = "AKQJT98765432"
"""Ranks, highest first."""
SUITS = "SHDC"
"""Suits in the order the API sorts a hand (spades, hearts, clubs, diamonds is the server's
hand order; this is the order of ``legal`` for the Hakem)."""
SUIT_SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_NAME = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
RED = frozenset("HD")
_FROM_SYMBOL = {v: k for k, v in SUIT_SYMBOL.items()}


def suit_of(card: str) -> str:
    """The suit letter of a card code (``QH`` -> ``H``)."""
    return card[1]


def rank_of(card: str) -> int:
    """The rank of a card as a number, higher is stronger (A=14 ... 2=2)."""
    return 14 - RANKS.index(card[0])


def card_text(card: str) -> str:
    """``TD`` -> ``10♦``, ``QS`` -> ``Q♠``."""
    rank = "10" if card[0] == "T" else card[0]
    return rank + SUIT_SYMBOL[card[1]]


def parse_card(text: str) -> str | None:
    """The card code a person typed, or None: ``qh``, ``QH``, ``10h``, ``Q♥``, ``T♥``."""
    t = text.strip().upper()
    if len(t) < 2:
        return None
    rank, suit = t[:-1], t[-1]
    suit = _FROM_SYMBOL.get(text.strip()[-1], suit)
    rank = "T" if rank == "10" else rank
    if len(rank) != 1 or rank not in RANKS or suit not in SUITS:
        return None
    return rank + suit


def parse_suit(text: str) -> str | None:
    """The suit letter a person typed (``h``, ``H``, ``♥``, ``hearts``), or None."""
    t = text.strip()
    if t in _FROM_SYMBOL:
        return _FROM_SYMBOL[t]
    t = t.upper()
    if len(t) == 1 and t in SUITS:
        return t
    for letter, name in SUIT_NAME.items():
        if t.lower() == name:
            return letter
    return None
