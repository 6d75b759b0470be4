"""House rule ``must_trump``: a player void in the led suit must trump if able."""

from __future__ import annotations

from engine import PlayCard, Rules

from .helpers import Match, deck_for, legal_cards, suit_cards

HANDS = {
    0: ["2H", "AS"],
    1: ["3S", "4S", *suit_cards("D")[:11]],  # void in hearts, holds trumps
    2: ["5H", "5S", "3D"],  # holds a heart
}


def started(rules: dict[str, bool]) -> Match:
    m = Match(Rules.from_dict(rules))
    m.deal(deck_for(HANDS))
    m.trump("S")
    m.play("2H")
    return m


def test_void_player_holding_trumps_must_trump() -> None:
    m = started({"must_trump": True})
    assert legal_cards(m.state, 1) == ["3S", "4S"]
    assert m.refused(1, PlayCard("AD")) == "must_trump"
    m.play("3S")
    # a player holding the led suit must still follow it, even when trumping would be allowed
    assert m.refused(2, PlayCard("5S")) == "must_follow_suit"
    assert m.refused(2, PlayCard("3D")) == "must_follow_suit"
    m.play("5H")


def test_void_player_without_trumps_plays_anything() -> None:
    hands = {0: ["2H"], 1: [*suit_cards("D")]}
    m = Match(Rules.from_dict({"must_trump": True}))
    m.deal(deck_for(hands))
    m.trump("S")
    m.play("2H")
    assert sorted(legal_cards(m.state, 1)) == sorted(suit_cards("D"))
    m.play("AD")


def test_standard_game_has_no_obligation_to_trump() -> None:
    m = started({})
    assert len(legal_cards(m.state, 1)) == 13
    m.play("AD")  # void in hearts, holding trumps, discarding is allowed (rules.md 7)
