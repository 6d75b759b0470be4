"""Who receives which card of a shuffled deck (api.md, "Stacked decks").

Counting seats from the round's Hakem ``h`` in playing order: ``deck[0:5]`` to ``h``; the next
three packets of five to ``h+1``, ``h+2``, ``h+3``; then packets of four in the order
``h..h+3`` twice (``5-4-4``), or packets of 3, 3, 2 (``5-3-3-2``).  The Hakem's first five cards
are dealt alone (``RoundStarted``); the rest only once trump is named (``TrumpChosen``).

The other variants (``engine.variants``) deal the same way from their *playing deck*, the deck
without the variant's removed cards (three players: the 2 of clubs), in its order: five to each
seat from the Hakem, then the packets of the ``deal`` rule to each seat from the Hakem
(``5-4-4-4`` for three: 5 + 4 + 4 + 4 = 17 each).  The two-player simple game deals 26 cards
(5, 5, then 4-4 or 3-3-2 packets alternately from the Hakem); the other 26 (``deck[26:]``) are
dealt to nobody.
"""

from __future__ import annotations

from functools import cache
from operator import itemgetter

from .cards import BITS
from .rules import Rules

FIRST_PACKET = 5


@cache
def owner_offsets(deal: str, players: int = 4, hand_size: int = 13) -> tuple[int, ...]:
    """For each (playing) deck position dealt, the receiving seat's offset from the Hakem."""
    packets = tuple(int(size) for size in deal.split("-")[1:])
    out: list[int] = []
    for size in (FIRST_PACKET, *packets):
        for offset in range(players):
            out.extend([offset] * size)
    if len(out) != hand_size * players:
        raise ValueError(f"deal {deal!r} does not give {hand_size} cards to each of "
                         f"{players} players")
    return tuple(out)


def play_deck(deck: tuple[int, ...], rules: Rules) -> tuple[int, ...]:
    """The cards of ``deck`` in play, in order: without the variant's removed cards."""
    removed = rules.variant.removed
    if not removed:
        return deck
    return tuple(c for c in deck if c not in removed)


def hakem_five(deck: tuple[int, ...], rules: Rules) -> tuple[int, ...]:
    """The Hakem's first five cards (dealt alone, before trump)."""
    return play_deck(deck, rules)[:FIRST_PACKET]


def deal_hands(deck: tuple[int, ...], hakem: int, rules: Rules) -> list[int]:
    """Every seat's hand (a mask) once trump is named, in any variant."""
    n = rules.players
    if n == 4:
        return split_deck(deck, hakem, rules.deal, 4)
    if rules.deal == "talon":  # five each; the rest is the talon
        hands = [0] * n
        for k in range(n):
            for card in deck[FIRST_PACKET * k:FIRST_PACKET * (k + 1)]:
                hands[(hakem + k) % n] |= 1 << card
        return hands
    offsets = owner_offsets(rules.deal, n, rules.variant.hand_size)
    hands = [0] * n
    # zip stops at the last card dealt: the rest of the deck is dealt to nobody
    for card, offset in zip(play_deck(deck, rules), offsets, strict=False):
        hands[(hakem + offset) % n] |= 1 << card
    return hands


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
