"""Verifiable deals: every deck derives from the secret committed at creation."""

from __future__ import annotations

import hashlib
from dataclasses import replace

import pytest

from engine import NAMES, CreateMatch, Rules, commitment_of, derive_deck, verify
from engine.events import HakemDrawn, MatchCreated, RoundStarted, SecretRevealed
from engine.fairness import Problem

from .helpers import Match
from .playout import play_match


def independent_derive(secret: str, label: str) -> tuple[str, ...]:
    """The derivation as documented in engine/fairness.py, written again from the text."""
    words: list[int] = []
    counter = 0
    deck = list(NAMES)
    for i in range(51, 0, -1):
        n = i + 1
        limit = 2**32 - (2**32 % n)
        while True:
            if not words:
                digest = hashlib.sha256(
                    f"hokm-deck:v1:{secret}:{label}:{counter}".encode()).digest()
                counter += 1
                words = [int.from_bytes(digest[k:k + 4], "big") for k in range(0, 32, 4)]
            w = words.pop(0)
            if w < limit:
                break
        j = w % n
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def test_derive_deck_is_a_deterministic_permutation() -> None:
    for secret in ("", "x", "5e" * 32):
        for label in ("draw", "round:1", "round:2", "round:77"):
            deck = derive_deck(secret, label)
            assert len(deck) == 52 and sorted(deck) == sorted(NAMES)
            assert derive_deck(secret, label) == deck
            assert independent_derive(secret, label) == deck
    assert derive_deck("a", "round:1") != derive_deck("a", "round:2")
    assert derive_deck("a", "round:1") != derive_deck("b", "round:1")


def test_derive_deck_is_pinned() -> None:
    """Old matches must stay verifiable: the derivation may never change silently."""
    deck = derive_deck("0" * 64, "round:1")
    assert deck[:6] == ("2S", "6H", "3S", "6C", "9C", "8S")
    assert hashlib.sha256(",".join(deck).encode()).hexdigest()[:16] == "bdba468a9844b59b"


def test_commitment() -> None:
    assert commitment_of("s") == hashlib.sha256(b"hokm-commit:v1:s").hexdigest()
    assert commitment_of("s") != commitment_of("t")


@pytest.fixture(scope="module")
def log() -> list[object]:
    """A whole match (ace draw, several rounds) played from the decks the secret gives."""
    out = play_match(7, Rules(), None)
    assert sum(isinstance(e, RoundStarted) for e in out.log) >= 3
    return list(out.log)


def test_an_honest_match_verifies(log: list[object]) -> None:
    assert verify(log) == []


def test_a_tampered_deck_is_reported_at_its_index(log: list[object]) -> None:
    rounds = [i for i, e in enumerate(log) if isinstance(e, RoundStarted)]
    for i in rounds[:3]:
        bad = list(log)
        event = bad[i]
        assert isinstance(event, RoundStarted)
        deck = list(event.deck)
        deck[0], deck[51] = deck[51], deck[0]
        bad[i] = replace(event, deck=tuple(deck))
        problems = verify(bad)
        assert [p.index for p in problems] == [i]
        assert f"round {event.round}" in problems[0].message


def test_a_stacked_deck_is_not_checked(log: list[object]) -> None:
    i = next(i for i, e in enumerate(log) if isinstance(e, RoundStarted))
    bad = list(log)
    event = bad[i]
    assert isinstance(event, RoundStarted)
    bad[i] = replace(event, deck=tuple(reversed(event.deck)), stacked=True)
    assert verify(bad) == []


def test_a_tampered_draw_is_reported(log: list[object]) -> None:
    i = next(i for i, e in enumerate(log) if isinstance(e, HakemDrawn))
    event = log[i]
    assert isinstance(event, HakemDrawn)
    for changed in (replace(event, hakem=(event.hakem + 1) % 4),
                    replace(event, draw=event.draw[1:]),
                    replace(event, swap=None if event.swap else (0, 1))):
        bad = list(log)
        bad[i] = changed
        assert verify(bad) == [Problem(i, "the ace draw is not the one the secret gives")]


def test_a_wrong_or_missing_secret_is_reported(log: list[object]) -> None:
    i = next(i for i, e in enumerate(log) if isinstance(e, SecretRevealed))
    bad = list(log)
    bad[i] = SecretRevealed("f" * 64)
    assert [p.index for p in verify(bad)] == [i]
    assert [p.index for p in verify(log[:i])] == [i]
    assert verify(log[1:])[0].index == 0  # no match_created


def test_the_engine_refuses_a_bad_commitment_or_secret() -> None:
    from engine import RevealSecret, State, decide

    with pytest.raises(ValueError) as info:
        decide(State(), None, CreateMatch("m", Rules(), "not hex"))
    assert getattr(info.value, "code", None) == "bad_request"
    m = Match()
    assert m.refused(None, RevealSecret("5e" * 32)) == "wrong_phase"  # not over yet
    created = m.log[0]
    assert isinstance(created, MatchCreated) and created.commitment == commitment_of("5e" * 32)
