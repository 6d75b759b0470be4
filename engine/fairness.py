"""Verifiable fairness: every deck of a match is derived from one secret committed at creation.

* ``MatchCreated.commitment`` is ``commitment_of(secret)``; the secret stays with the match service
  until the match ends, when ``SecretRevealed`` publishes it.
* ``derive_deck(secret, label)`` is a documented, portable derivation: a Fisher-Yates shuffle of
  the canonical deck (``engine.cards.NAMES``) driven by SHA-256 in counter mode.  Labels are
  ``"draw"`` for the ace draw and ``"round:<n>"`` for round ``n`` (1-based).
* ``verify(events)`` checks the commitment, the ace draw and every deck that was not stacked, so
  anyone holding the log can confirm that no deal was chosen after the fact.

The engine has no entropy of its own: the service creates the secret (``secrets.token_hex(32)``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .cards import CARD_INDEX, NAMES

COMMIT_PREFIX = b"hokm-commit:v1:"
DECK_PREFIX = b"hokm-deck:v1:"


def commitment_of(secret: str) -> str:
    """SHA-256 (hex) of the secret, domain-separated."""
    return hashlib.sha256(COMMIT_PREFIX + secret.encode()).hexdigest()


def _words(secret: str, label: str) -> Iterator[int]:
    counter = 0
    while True:
        block = hashlib.sha256(
            DECK_PREFIX + secret.encode() + b":" + label.encode() + b":" + str(counter).encode()
        ).digest()
        for i in range(0, 32, 4):
            yield int.from_bytes(block[i:i + 4], "big")
        counter += 1


def derive_deck(secret: str, label: str) -> tuple[str, ...]:
    """The deck for ``label``: for i = 51..1, swap position i with j = uniform(0..i), where each
    uniform draw takes the next 32-bit big-endian word of SHA-256(prefix|secret:label:counter)
    and rejects words >= the largest multiple of (i+1) below 2**32."""
    deck = list(NAMES)
    words = _words(secret, label)
    for i in range(len(deck) - 1, 0, -1):
        bound = i + 1
        limit = (1 << 32) - (1 << 32) % bound
        while True:
            w = next(words)
            if w < limit:
                break
        j = w % bound
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def round_label(round_no: int) -> str:
    return f"round:{round_no}"


DRAW_LABEL = "draw"


@dataclass(frozen=True, slots=True)
class Problem:
    """One failed check of ``verify``: the index of the event (in the flat list) and why."""

    index: int
    message: str


def verify(events: Iterable[object]) -> list[Problem]:
    """Check the deals of a finished match's events against its revealed secret.

    Returns the problems found (empty when every check holds): a missing or wrong secret, an ace
    draw that the secret does not produce, or a non-stacked deck that differs from the derived one.
    """
    from .decide import first_hakem_draw  # local: decide imports this module
    from .events import HakemDrawn, MatchCreated, RoundStarted, SecretRevealed

    log = list(events)
    problems: list[Problem] = []
    created = next((e for e in log if isinstance(e, MatchCreated)), None)
    reveal = next(((i, e) for i, e in enumerate(log) if isinstance(e, SecretRevealed)), None)
    if created is None:
        return [Problem(0, "no match_created event")]
    if reveal is None:
        return [Problem(len(log), "the secret has not been revealed (is the match over?)")]
    secret = reveal[1].secret
    if commitment_of(secret) != created.commitment:
        problems.append(Problem(reveal[0], "the revealed secret does not match the commitment"))
        return problems
    for i, event in enumerate(log):
        if isinstance(event, HakemDrawn):
            rules = created.rules
            cards = tuple(CARD_INDEX[c] for c in derive_deck(secret, DRAW_LABEL))
            expected = first_hakem_draw(cards, rules)
            if expected != event:
                problems.append(Problem(i, "the ace draw is not the one the secret gives"))
        elif isinstance(event, RoundStarted) and not event.stacked:
            if tuple(event.deck) != derive_deck(secret, round_label(event.round)):
                problems.append(Problem(i, f"the deck of round {event.round} is not the one "
                                           "the secret gives"))
    return problems
