"""The Hokm rules engine: pure, standard library only, no clock, no global random.

``decide(state, seat, command) -> events`` validates; ``evolve(state, event) -> state`` trusts;
``replay(events)`` folds ``evolve``; ``view_for(state, seat, version)`` is the only way match data
leaves the server.  Randomness enters as data (decks in commands and events), derived from a
committed secret (``engine.fairness``).
"""

from .cards import CARD_INDEX, NAMES, SUITS, cards_of, mask_of, names_of_mask, parse_card
from .commands import (
    ChooseTrump, Command, CreateMatch, DealRound, DrawAces, LeaveSeat, PlayCard, RevealSecret,
    TakeSeat,
)
from .decide import decide
from .errors import HokmError
from .events import EVENT_TYPES, Event
from .evolve import evolve, replay
from .fairness import commitment_of, derive_deck, verify
from .plain import from_plain, to_plain
from .rules import Rules
from .state import State, pending_system_action
from .views import (
    PER_SEAT, STEADY, legal_choices, legal_mask, play_keys, redact_event, same_basis, seat_basis,
    seat_keys, shows_all, steady_basis, steady_keys, view_for,
)

__all__ = [
    "CARD_INDEX", "NAMES", "SUITS", "cards_of", "mask_of", "names_of_mask", "parse_card",
    "ChooseTrump", "Command", "CreateMatch", "DealRound", "DrawAces", "LeaveSeat", "PlayCard",
    "RevealSecret", "TakeSeat", "decide", "HokmError", "EVENT_TYPES", "Event", "evolve", "replay",
    "commitment_of", "derive_deck", "verify", "from_plain", "to_plain", "Rules", "State",
    "pending_system_action", "legal_choices", "legal_mask", "redact_event", "view_for",
    "seat_keys", "same_basis", "PER_SEAT", "STEADY", "seat_basis", "steady_basis", "steady_keys",
    "play_keys", "shows_all",
]
