"""Hints for learners (rules.md, "Hints for learners"): a suggestion and a short reason.

``hint(view, rng) -> {"suggestion", "reason", "reason_code", "reason_args"}``.  A hint uses
only the player's own hand and the open trick, plus the public facts needed to read them (phase,
trump, the legal choices, the house rules, and the player's own seat so it can tell its
partner's cards in the trick).  :func:`reduced_view` keeps exactly those fields of the seat's
view; nothing else (no history, no counts, no earlier tricks) reaches the policy, so a hint never
draws on the player's memory of the round, let alone on hidden cards.  The advice is the
``heuristic`` policy's, whose every choice comes with a reason (``policies/reasons.py``): the
English sentence ``reason``, and for clients in other languages its stable code ``reason_code``
and the arguments the sentence is filled with, ``reason_args`` (cards and suits as the API
spells them, numbers, lists of cards).  Counting how many hints a player may still get is the
gateway's business.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from .policies import nseat
from .policies.base import is_legal
from .policies.heuristic import decide
from .policies.knowledge import knowledge

HINT_FIELDS = ("seat", "phase", "hand", "trick", "trump", "legal", "rules", "players",
               "removed", "talon")
"""The only fields of a view a hint reads (``players``, ``removed`` and ``talon`` for the games
of two and three players: the talon part holds only what the seat sees, its own discards and
the top card it looks at)."""


def reduced_view(view: Mapping[str, Any]) -> dict[str, Any]:
    """The part of ``view`` a hint may use (see the module docstring)."""
    return {name: view.get(name) for name in HINT_FIELDS}


def hint(view: Mapping[str, Any], rng: random.Random | None = None) -> dict[str, Any]:
    """A suggestion for the seat's decision now: a suit letter when naming trump as Hakem, in
    the talon game the cards to lay aside (names joined by spaces) or ``keep`` / ``discard``,
    otherwise a card of ``view["legal"]``; and why: one English sentence, its code and
    arguments (the module docstring).  Raises ``ValueError``
    when the view holds no decision for its seat.  ``rng`` is accepted for the policy contract;
    the advice is deterministic."""
    small = reduced_view(view)
    if small["phase"] not in ("choosing_trump", "discarding", "drawing", "playing") \
            or not small["legal"] or small["seat"] is None:
        raise ValueError("there is no decision to hint at: it is not this seat's turn")
    if nseat.is_small(small):
        suggestion, reason = nseat.decide(nseat.seen(small, []))
    else:
        suggestion, reason = decide(knowledge(small, []))
    if not is_legal(small, suggestion):  # the contract of the policy; kept explicit here
        raise AssertionError(f"hint {suggestion!r} is not legal")
    return {"suggestion": suggestion, "reason": reason.english, "reason_code": reason.code,
            "reason_args": reason.plain()}
