"""The policy contract shared by every bot.

A policy is a pure function of what one seat has witnessed plus its own random generator:

``choose(view, history, rng) -> str``

* ``view`` is exactly ``engine.view_for(state, seat, version)`` for the bot's seat;
* ``history`` is that seat's redacted events of the match so far (``engine.redact_event`` of
  every event, in order, each with the state just before it);
* ``rng`` is the policy's own ``random.Random``; a policy draws randomness from nowhere else.

It returns a suit letter (``S H D C``) when ``view["phase"] == "choosing_trump"`` (the seat is the
Hakem and sees its five cards only), in the two-player talon game ``keep`` or ``discard`` while
``drawing`` and, while ``discarding``, ``view["talon"]["discard"]`` distinct cards of
``view["legal"]`` (the hand) as names joined by single spaces (``"2C 7D 9H"``), and otherwise a
card name from ``view["legal"]``.  :func:`is_legal` checks an answer, :func:`command_for` turns
it into the engine's command.  It is fair
by construction: it never receives, and so can never reconstruct, another seat's hidden cards.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from engine.commands import ChooseTrump, Command, Discard, DrawTalon, PlayCard
from engine.state import CHOOSING_TRUMP, DISCARDING, DRAWING

View = Mapping[str, Any]
History = Sequence[Mapping[str, Any]]


@runtime_checkable
class Policy(Protocol):
    """A bot's decision rule (see the module docstring for the contract)."""

    name: str

    def choose(self, view: View, history: History, rng: random.Random) -> str:
        """The seat's choice now: a suit letter as Hakem naming trump, else a legal card."""
        ...


def is_legal(view: View, choice: str) -> bool:
    """Whether ``choice`` is a decision the seat may make in ``view``: one of ``view["legal"]``,
    or, discarding in the talon game, ``view["talon"]["discard"]`` distinct cards of it joined
    by single spaces (the form every policy answers with there)."""
    legal = view.get("legal") or []
    if view.get("phase") != "discarding":
        return choice in legal
    cards = choice.split(" ")
    count = int((view.get("talon") or {}).get("discard") or 0)
    return len(cards) == count > 0 and len(set(cards)) == count and all(c in legal for c in cards)


def command_for(phase: str, choice: str) -> Command:
    """The engine command of a policy's ``choice`` in ``phase`` (the forms of :func:`is_legal`)."""
    if phase == CHOOSING_TRUMP:
        return ChooseTrump(choice)
    if phase == DISCARDING:
        return Discard(tuple(choice.split(" ")))
    if phase == DRAWING:
        return DrawTalon(choice == "keep")
    return PlayCard(choice)
