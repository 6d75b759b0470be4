"""The games of Hokm for two, three and four players, as values (docs/rules-decisions.md).

A :class:`Variant` says everything that differs between them: the seats, the sides (a tuple of
seat tuples: partners share a side), how many cards a hand holds, how many tricks win a round,
how the first Hakem is found, which cards are out of play and how a deck is dealt.  The engine
reads these instead of constants; ``Rules.variant`` gives the variant of a match.
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import CARD_INDEX


@dataclass(frozen=True, slots=True)
class Variant:
    name: str
    """``partners`` (four players), ``simple`` and ``talon`` (two), ``three``."""
    players: int
    sides: tuple[tuple[int, ...], ...]
    """The sides in the order of ``tricks`` and ``score``; each side is its seats."""
    hand_size: int
    """Cards a hand holds once dealt, and so the tricks of a whole deal."""
    tricks_to_win: int
    first_hakem: str
    """``ace_draw`` (the first ace; with four also the partner's ace) or ``high_card`` (one card
    to each seat in turn, the higher card names the Hakem)."""
    deals: tuple[str, ...]
    """The accepted ``deal`` rules, the default first."""
    removed: tuple[int, ...] = ()
    """Cards taken out of the deck before every deal (public: the same every deal)."""
    unused: int = 0
    """Cards of the deck dealt to nobody (face down, never shown before the match ends)."""

    @property
    def side_of(self) -> tuple[int, ...]:
        """The side of each seat."""
        out = [0] * self.players
        for side, seats in enumerate(self.sides):
            for seat in seats:
                out[seat] = side
        return tuple(out)

    @property
    def partnerships(self) -> bool:
        return any(len(side) > 1 for side in self.sides)


PARTNERS = Variant("partners", 4, ((0, 2), (1, 3)), 13, 7, "ace_draw", ("5-4-4", "5-3-3-2"))
SIMPLE = Variant("simple", 2, ((0,), (1,)), 13, 7, "high_card", ("5-4-4", "5-3-3-2"), unused=26)
TALON = Variant("talon", 2, ((0,), (1,)), 13, 7, "ace_draw", ("talon",))
THREE = Variant("three", 3, ((0,), (1,), (2,)), 17, 7, "ace_draw", ("5-4-4-4",),
                removed=(CARD_INDEX["2C"],))

VARIANTS: dict[str, Variant] = {v.name: v for v in (PARTNERS, SIMPLE, TALON, THREE)}
TWO_PLAYER_GAMES = ("simple", "talon")
"""The values of the ``two_player`` rule (with ``players: 2``), the default first."""


def variant_for(players: int, two_player: str | None) -> Variant:
    if players == 4:
        return PARTNERS
    if players == 3:
        return THREE
    return VARIANTS[two_player or "simple"]
