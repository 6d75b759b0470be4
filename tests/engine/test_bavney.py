"""House rule ``bavney``: a side holding every trick plays on; 13-0 scores 3 (kind "bavney");
its first lost trick after 7-0 ends the round as the kot (or Hakem koti) already earned."""

from __future__ import annotations

from engine import Rules
from engine.events import RoundEnded, TrickWon

from .helpers import Match, deck_for, planned, preferring, suit_cards, sweep_deck, sweeper

BAVNEY = Rules.from_dict({"bavney": True})


def round_end(events: list[object]) -> tuple[int, RoundEnded]:
    """(tricks played, the RoundEnded event)."""
    done = sum(isinstance(e, TrickWon) for e in events)
    (end,) = [e for e in events if isinstance(e, RoundEnded)]
    return done, end


def test_hakem_takes_all_thirteen() -> None:
    m = Match(BAVNEY)
    events = m.round(sweep_deck(0, hakem=0), "S", sweeper(0))
    assert round_end(events) == (13, RoundEnded(0, 3, "bavney", (13, 0)))
    assert m.state.match.score == (3, 0)


def test_opponents_take_all_thirteen() -> None:
    m = Match(BAVNEY)
    events = m.round(sweep_deck(1, hakem=0), "S", sweeper(1))
    assert round_end(events) == (13, RoundEnded(1, 3, "bavney", (0, 13)))
    assert m.state.match.next_hakem == 1


def test_without_bavney_the_sweep_stops_at_seven() -> None:
    m = Match()
    events = m.round(sweep_deck(0, hakem=0), "S", sweeper(0))
    assert round_end(events) == (7, RoundEnded(0, 2, "kot", (7, 0)))


# The Hakem holds twelve spades and the 2 of hearts; seat 1 holds the 2 of spades (which it must
# give to the first spade lead) and the ace of hearts.
LOSE_LATE = {0: [*suit_cards("S")[:12], "2H"], 1: ["2S", "AH"]}


def test_first_lost_trick_after_seven_nil_is_a_kot() -> None:
    m = Match(BAVNEY)
    plan = planned({0: [*suit_cards("S")[:8], "2H"]}, preferring({1: ["2S", "AH"]}))
    events = m.round(deck_for(LOSE_LATE), "S", plan)
    assert round_end(events) == (9, RoundEnded(0, 2, "kot", (8, 1)))
    assert m.state.match.score == (2, 0)


def test_losing_the_eighth_trick_is_a_kot() -> None:
    m = Match(BAVNEY)
    plan = planned({0: [*suit_cards("S")[:7], "2H"]}, preferring({1: ["2S", "AH"]}))
    events = m.round(deck_for(LOSE_LATE), "S", plan)
    assert round_end(events) == (8, RoundEnded(0, 2, "kot", (7, 1)))


def test_opponents_first_lost_trick_is_a_hakem_koti() -> None:
    # seat 1 (an opponent) wins the first seven with its spades, then leads its 2 of hearts
    hands = {1: [*suit_cards("S")[:12], "2H"], 0: ["2S", "AH"]}
    plan = planned({1: [*suit_cards("S")[:7], "2H"]}, preferring({0: ["2S", "AH"]}))
    m = Match(BAVNEY)
    m.deal(deck_for(hands))
    m.trump("S")
    # the Hakem must lead: he leads the 2 of spades into seat 1's ace
    events = m.play_round(plan)
    assert round_end(events) == (8, RoundEnded(1, 3, "hakem_koti", (1, 7)))


def test_a_seven_one_round_is_normal_under_bavney() -> None:
    # the Hakem loses the first trick, then wins seven: 1 point at 7-1, no play-on
    m = Match(BAVNEY)
    plan = planned({0: ["2H", *suit_cards("S")[:12]]}, preferring({1: ["AH", "2S"]}))
    events = m.round(deck_for({0: ["2H", *suit_cards("S")[:12]], 1: ["AH", "2S"]}), "S", plan)
    assert round_end(events) == (8, RoundEnded(0, 1, "normal", (7, 1)))
