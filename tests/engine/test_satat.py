"""House rule ``satat``: the 2 of hearts is the highest trump and belongs to the trump suit."""

from __future__ import annotations

import pytest

from engine import PlayCard, Rules
from engine.events import TrickWon

from .helpers import Match, deck_for, legal_cards, suit_cards

SATAT = Rules.from_dict({"satat": True})


def test_two_of_hearts_beats_the_ace_of_trumps() -> None:
    m = Match(SATAT)
    m.deal(deck_for({0: ["AS"], 1: ["2H"], 2: ["KS"], 3: ["QS"]}))
    m.trump("S")
    assert m.play("AS", "2H", "KS", "QS")[-1] == TrickWon(1, 1)


def test_without_satat_the_two_of_hearts_is_a_heart() -> None:
    m = Match()
    m.deal(deck_for({0: ["AS"], 1: ["2H", *suit_cards("C")[:12]], 2: ["KS"], 3: ["QS"]}))
    m.trump("S")
    assert m.play("AS", "2H", "KS", "QS")[-1] == TrickWon(0, 1)


def test_two_of_hearts_is_the_top_heart_when_hearts_are_trump() -> None:
    m = Match(SATAT)
    m.deal(deck_for({0: ["AH"], 1: ["2H"], 2: ["KH"], 3: ["QH"]}))
    m.trump("H")
    assert m.play("AH", "2H", "KH", "QH")[-1] == TrickWon(1, 1)


def test_the_two_of_hearts_does_not_follow_hearts() -> None:
    # seat 1 holds hearts and the 2H: on a heart lead it must play a real heart
    m = Match(SATAT)
    m.deal(deck_for({0: ["AH"], 1: ["2H", "3H", *suit_cards("C")[:11]], 2: ["KH"], 3: ["QH"]}))
    m.trump("S")
    m.play("AH")
    assert legal_cards(m.state, 1) == ["3H"]
    assert m.refused(1, PlayCard("2H")) == "must_follow_suit"
    m.play("3H")


def test_a_player_whose_only_heart_is_the_two_is_void_in_hearts() -> None:
    m = Match(SATAT)
    m.deal(deck_for({0: ["AH"], 1: ["2H", *suit_cards("C")[:12]], 2: ["KH"], 3: ["QH"]}))
    m.trump("S")
    m.play("AH")
    assert len(legal_cards(m.state, 1)) == 13
    # it trumps the ace of hearts
    assert m.play("2H", "KH", "QH")[-1] == TrickWon(1, 1)


@pytest.mark.parametrize("trump", ["S", "D", "C"])
def test_the_two_of_hearts_must_follow_a_trump_lead(trump: str) -> None:
    m = Match(SATAT)
    m.deal(deck_for({0: ["A" + trump], 1: ["2H", *[c for c in suit_cards("H") if c != "2H"]]}))
    m.trump(trump)
    m.play("A" + trump)
    assert legal_cards(m.state, 1) == ["2H"]
    assert m.refused(1, PlayCard("AH")) == "must_follow_suit"
    m.play("2H")


def test_must_trump_counts_the_two_of_hearts_as_a_trump() -> None:
    m = Match(Rules.from_dict({"satat": True, "must_trump": True}))
    m.deal(deck_for({0: ["AD"], 1: ["2H", *suit_cards("C")[:12]]}))
    m.trump("S")
    m.play("AD")
    assert legal_cards(m.state, 1) == ["2H"]
    assert m.refused(1, PlayCard("AC")) == "must_trump"
