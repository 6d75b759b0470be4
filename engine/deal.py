"""Who receives which card of a shuffled deck (api.md, "Stacked decks").

Counting seats from the round's Hakem ``h`` in playing order: ``deck[0:5]`` to ``h``; the next
three packets of five to ``h+1``, ``h+2``, ``h+3``; then packets of four in the order
``h..h+3`` twice (``5-4-4``), or packets of 3, 3, 2 (``5-3-3-2``).  The Hakem's first five cards
are dealt alone (``RoundStarted``); the rest only once trump is named (``TrumpChosen``).
"""

from __future__ import annotations

from functools import cache
from operator import itemgetter

from .cards import BITS

FIRST_PACKET = 5


@cache
def owner_offsets(deal: str, players: int = 4) -> tuple[int, ...]:
    """For each deck position, the receiving seat's offset from the Hakem."""
    packets = (4, 4) if deal == "5-4-4" else (3, 3, 2)
    out: list[int] = []
    for size in (FIRST_PACKET, *packets):
        for offset in range(players):
            out.extend([offset] * size)
    if len(out) != 13 * players:
        raise ValueError(f"deal {deal!r} does not give 13 cards to each of {players} players")
    return tuple(out)


@cache
def _pickers(deal: str, players: int) -> tuple[itemgetter[tuple[int, ...]], ...]:
    offsets = owner_offsets(deal, players)
    return tuple(
        itemgetter(*[i for i, o in enumerate(offsets) if o == k]) for k in range(players)
    )


def split_deck(deck: tuple[int, ...], hakem: int, deal: str, players: int = 4) -> list[int]:
    """The full hands (bit masks by seat) that a deck gives when ``hakem`` is Hakem."""
    hands = [0] * players
    # every card's bit at once (an itemgetter over 52 indexes runs in C, unlike a map), then
    # each seat's positions: distinct powers of two, so their sum is their union
    bits: tuple[int, ...] = itemgetter(*deck)(BITS)
    for offset, pick in enumerate(_pickers(deal, players)):
        hands[(hakem + offset) % players] = sum(pick(bits))
    return hands
