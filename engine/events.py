"""Events: facts in the past tense.  ``evolve`` trusts them; only ``decide`` makes them.

Every field is plain data (str, int, bool, None, tuples of those, or ``Rules`` which has a plain
form) so the store can encode any event.  ``TYPE`` is the stable tag used by the codec.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .rules import Rules


@dataclass(frozen=True, slots=True)
class MatchCreated:
    TYPE: ClassVar[str] = "match_created"
    match_id: str
    rules: Rules
    commitment: str
    first_hakem: int | None = None


@dataclass(frozen=True, slots=True)
class SeatTaken:
    TYPE: ClassVar[str] = "seat_taken"
    seat: int
    name: str
    player: str
    bot: str | None = None


@dataclass(frozen=True, slots=True)
class SeatLeft:
    TYPE: ClassVar[str] = "seat_left"
    seat: int


@dataclass(frozen=True, slots=True)
class SeatRenamed:
    """The bot at ``seat`` is shown under ``name`` from now on: a player just took a seat under
    a name that reads as the bot's (``names.reads_as``), and keeps it; the bot takes another,
    in the same record (``TakeSeat.renames``), so a table never shows two of one name."""

    TYPE: ClassVar[str] = "seat_renamed"
    seat: int
    name: str


@dataclass(frozen=True, slots=True)
class HakemDrawn:
    """The ace draw: ``draw`` are the face-up cards in the order turned, ``(seat, card)``.

    ``swap`` is the pair of seats whose occupants exchanged places so the partner sits opposite
    the Hakem (``None`` when no move was needed or teams stay as seated).
    """

    TYPE: ClassVar[str] = "hakem_drawn"
    draw: tuple[tuple[int, str], ...]
    hakem: int
    partner: int | None
    swap: tuple[int, int] | None


@dataclass(frozen=True, slots=True)
class RoundStarted:
    """A new deal.  ``deck`` is hidden information: views never show it."""

    TYPE: ClassVar[str] = "round_started"
    round: int
    hakem: int
    dealer: int
    deck: tuple[str, ...]
    stacked: bool = False


@dataclass(frozen=True, slots=True)
class TrumpChosen:
    """The Hakem named trump; the deal is completed by ``evolve`` from the recorded deck."""

    TYPE: ClassVar[str] = "trump_chosen"
    seat: int
    suit: str


@dataclass(frozen=True, slots=True)
class CardPlayed:
    TYPE: ClassVar[str] = "card_played"
    seat: int
    card: str


@dataclass(frozen=True, slots=True)
class TrickWon:
    """The trick is complete.  ``banked`` is how many tricks now count for the winner's side
    (always 1, except with ``double_sar`` where tricks wait in a pile until a side wins two in a
    row, and the pile goes to the last trick's winner at the end of the deal)."""

    TYPE: ClassVar[str] = "trick_won"
    seat: int
    banked: int = 1


@dataclass(frozen=True, slots=True)
class RoundEnded:
    TYPE: ClassVar[str] = "round_ended"
    winner: int | None
    """The winning team (side); ``None`` only for ``no_winner``."""
    points: int
    kind: str
    """``normal`` | ``kot`` | ``hakem_koti`` | ``bavney`` | ``no_winner`` (three players: every
    trick played and nobody at 7, a 6-6-5 split; nobody scores)."""
    tricks: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SetWon:
    """With target ``2x7``: a team reached 7 points; the points start again from zero."""

    TYPE: ClassVar[str] = "set_won"
    winner: int


@dataclass(frozen=True, slots=True)
class MatchEnded:
    TYPE: ClassVar[str] = "match_ended"
    winner: int
    score: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SecretRevealed:
    """The last event: the secret behind every deck, so anyone can check the deals."""

    TYPE: ClassVar[str] = "secret_revealed"
    secret: str


@dataclass(frozen=True, slots=True)
class CardsDiscarded:
    """The talon game: a seat laid ``cards`` aside face down (hidden from the other seat, which
    learns only how many)."""

    TYPE: ClassVar[str] = "cards_discarded"
    seat: int
    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TalonDrawn:
    """The talon game: a seat took the talon's two top cards, keeping one and discarding the
    other face down (both seen by that seat only)."""

    TYPE: ClassVar[str] = "talon_drawn"
    seat: int
    kept: str
    discarded: str


Event = (
    MatchCreated | SeatTaken | SeatLeft | HakemDrawn | RoundStarted | TrumpChosen | CardPlayed
    | TrickWon | RoundEnded | SetWon | MatchEnded | SecretRevealed | CardsDiscarded | TalonDrawn
    | SeatRenamed
)
EVENT_TYPES: dict[str, type] = {
    cls.TYPE: cls
    for cls in (
        MatchCreated, SeatTaken, SeatLeft, HakemDrawn, RoundStarted, TrumpChosen, CardPlayed,
        TrickWon, RoundEnded, SetWon, MatchEnded, SecretRevealed, CardsDiscarded, TalonDrawn,
        SeatRenamed,
    )
}
"""Tag -> event class, for codecs."""
