"""Commands: what someone asks for, in the imperative.  ``decide`` validates every one.

Player commands (``ChooseTrump``, ``PlayCard``) come from a seat.  System commands come from the
match service (``seat=None`` in ``decide``): they carry the randomness (decks) and the lobby facts
(who sits where) as data, so the engine itself stays pure.
"""

from __future__ import annotations

from dataclasses import dataclass

from .rules import Rules


@dataclass(frozen=True, slots=True)
class CreateMatch:
    match_id: str
    rules: Rules
    commitment: str
    """Hash of the secret every deck is derived from (see ``engine.fairness``)."""
    first_hakem: int | None = None
    """A fixed first Hakem (stacked-deck matches): skips the ace draw, seats stay as joined."""


@dataclass(frozen=True, slots=True)
class TakeSeat:
    seat: int
    name: str
    player: str
    """An opaque public id of the occupant (never the secret token)."""
    bot: str | None = None
    """The bot level (``easy``/``medium``/``hard``/policy name) or ``None`` for a human."""
    renames: tuple[tuple[int, str], ...] = ()
    """Bots at the table shown under another name from this record on, ``(seat, name)``: the
    lobby's choice when the newcomer's name reads as a bot's (``SeatRenamed``)."""


@dataclass(frozen=True, slots=True)
class LeaveSeat:
    seat: int
    then: TakeSeat | None = None
    """Who takes the seat in the same record (a bot handed the seat as its player leaves):
    one step, so the seat is never seen empty and nothing changes if either part is refused."""


@dataclass(frozen=True, slots=True)
class DrawAces:
    deck: tuple[str, ...]
    """A shuffled deck turned face up one card per seat to find the Hakem (and partner)."""


@dataclass(frozen=True, slots=True)
class DealRound:
    deck: tuple[str, ...]
    stacked: bool = False
    """True when the deck was given by the room's creator rather than derived from the secret."""


@dataclass(frozen=True, slots=True)
class ChooseTrump:
    suit: str


@dataclass(frozen=True, slots=True)
class PlayCard:
    card: str

    def __init__(self, card: str) -> None:
        # One PlayCard is made per card played, so its construction is on the engine's hot path:
        # setting the slot through its descriptor is a fifth cheaper than the generated frozen
        # __init__ (object.__setattr__).  Still frozen: assignment raises FrozenInstanceError.
        _set_play_card(self, card)


_set_play_card = PlayCard.__dict__["card"].__set__


@dataclass(frozen=True, slots=True)
class Discard:
    """The talon game: lay these cards aside face down (the Hakem 3, the other player 2)."""

    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DrawTalon:
    """The talon game: keep the talon's top card (and discard the next) or discard it (and keep
    the next)."""

    keep: bool


@dataclass(frozen=True, slots=True)
class RevealSecret:
    secret: str


Command = (
    CreateMatch | TakeSeat | LeaveSeat | DrawAces | DealRound | ChooseTrump | PlayCard
    | RevealSecret | Discard | DrawTalon
)
PLAYER_COMMANDS = (ChooseTrump, PlayCard, Discard, DrawTalon)
