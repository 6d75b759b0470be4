"""System steps: the commands nobody sends, which a match needs to go on by itself.

``engine.pending_system_action(state)`` says what a match waits for (``draw``: the ace draw,
``deal``: the next round's deck, ``reveal``: the deck secret at the end); ``system_command``
builds that command from the match's side data (its secret, and any stacked decks of a test or a
tournament).  Randomness enters here and only here, as data: every deck is derived from the
secret (docs/fairness.md).
"""

from __future__ import annotations

import json

from engine import Command, DealRound, DrawAces, RevealSecret, State, derive_deck
from engine.fairness import DRAW_LABEL, round_label

from .errors import NotFound
from .store.port import EventStore


def system_command(store: EventStore, match_id: str, state: State, action: str) -> Command:
    """The command of the system step ``action`` that ``state`` waits for."""
    secret = store.get_meta_field(match_id, "meta", "secret")
    if secret is None:
        raise NotFound("the match's secret is missing")
    if action == "draw":
        return DrawAces(derive_deck(secret, DRAW_LABEL))
    if action == "deal":
        n = state.deal.round_no + 1
        decks = json.loads(store.get_meta_field(match_id, "meta", "decks") or "[]")
        if n <= len(decks):
            return DealRound(tuple(decks[n - 1]), stacked=True)
        return DealRound(derive_deck(secret, round_label(n)))
    return RevealSecret(secret)
