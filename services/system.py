"""System steps: the commands nobody sends, which a match needs to go on by itself.

``engine.pending_system_action(state)`` says what a match waits for (``draw``: the ace draw,
``deal``: the next round's deck, ``reveal``: the deck secret at the end); ``system_command``
builds that command from the match's side data (its secret, and any stacked decks of a test or a
tournament).  Randomness enters here and only here, as data: every deck is derived from the
secret (docs/fairness.md).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from engine import Command, DealRound, DrawAces, RevealSecret, State, derive_deck
from engine.fairness import DRAW_LABEL, round_label

from .errors import NotFound
from .store.port import EventStore


@dataclass(frozen=True, slots=True)
class SideData:
    """A match's side data that system steps read: its secret and any stacked decks.  Both are
    written once, when the match is created, so a process may keep them
    (``MatchService.sides``)."""

    secret: str
    decks: tuple[tuple[str, ...], ...] = ()


def read_side(store: EventStore, match_id: str) -> SideData:
    """The match's side data from the store (``NotFound`` without a secret)."""
    secret = store.get_meta_field(match_id, "meta", "secret")
    if secret is None:
        raise NotFound("the match's secret is missing")
    decks = json.loads(store.get_meta_field(match_id, "meta", "decks") or "[]")
    return SideData(secret, tuple(tuple(deck) for deck in decks))


def command_of(side: SideData, state: State, action: str) -> Command:
    """The command of the system step ``action`` that ``state`` waits for."""
    if action == "draw":
        return DrawAces(derive_deck(side.secret, DRAW_LABEL))
    if action == "deal":
        n = state.deal.round_no + 1
        if n <= len(side.decks):
            return DealRound(side.decks[n - 1], stacked=True)
        return DealRound(derive_deck(side.secret, round_label(n)))
    return RevealSecret(side.secret)


def system_command(store: EventStore, match_id: str, state: State, action: str) -> Command:
    """The command of the system step ``action`` that ``state`` waits for (side data read from
    the store)."""
    return command_of(read_side(store, match_id), state, action)
