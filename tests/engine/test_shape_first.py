"""A malformed command is ``bad_request`` in every phase: ``decide`` checks a command's shape
(a card name, a suit, a list of 2 or 3 different card names, a boolean choice) before its phase
and turn, for every player command (docs/api.md: "A malformed command ... is 400 bad_request").
Well-formed commands keep their codes: ``wrong_phase``, ``not_your_turn`` and the rest."""

from __future__ import annotations

from typing import Any

import pytest

from engine import NAMES, ChooseTrump, DealRound, Rules, derive_deck
from engine.commands import Discard, DrawTalon, PlayCard
from engine.fairness import round_label

from .helpers import SECRET, Match, deck_for

BAD_CARDS: list[Any] = ["X", "as", "1S", "", None, 5, ["AS"]]
BAD_SUITS: list[Any] = ["X", "s", "", None, 1, "SH"]
BAD_DISCARDS: list[Any] = [["AS"], ["AS", "KS", "QS", "JS"], ["AS", "AS"], ["AS", "XX"],
                           "AS KS QS", [1, 2, 3], [["AS"], "KS"], []]
BAD_CHOICES: list[Any] = ["keep", 1, None]


def four_player_phases() -> dict[str, Match]:
    """A four-player match in each phase a player command can meet: waiting (before the deal),
    choosing_trump, playing."""
    waiting = Match()
    choosing = Match()
    choosing.deal(deck_for({}))
    playing = Match()
    playing.deal(deck_for({}))
    playing.trump("S")
    return {"waiting": waiting, "choosing_trump": choosing, "playing": playing}


@pytest.mark.parametrize("phase", ["waiting", "choosing_trump", "playing"])
def test_a_malformed_command_is_bad_request_in_every_phase(phase: str) -> None:
    match = four_player_phases()[phase]
    assert match.state.phase == phase
    for seat in range(4):  # the seat to move and the others alike
        for card in BAD_CARDS:
            assert match.refused(seat, PlayCard(card)) == "bad_request", (phase, seat, card)
        for suit in BAD_SUITS:
            assert match.refused(seat, ChooseTrump(suit)) == "bad_request", (phase, seat, suit)
        for cards in BAD_DISCARDS:
            assert match.refused(seat, Discard(cards)) == "bad_request", (phase, seat, cards)
        for keep in BAD_CHOICES:
            assert match.refused(seat, DrawTalon(keep)) == "bad_request", (phase, seat, keep)


def test_well_formed_commands_keep_their_codes() -> None:
    phases = four_player_phases()
    choosing, playing = phases["choosing_trump"], phases["playing"]
    assert phases["waiting"].refused(0, PlayCard("AS")) == "wrong_phase"
    assert choosing.refused(0, PlayCard(NAMES[0])) == "wrong_phase"
    assert choosing.refused(1, ChooseTrump("H")) == "not_your_turn"
    assert playing.refused(0, ChooseTrump("H")) == "wrong_phase"  # the finding: was "X" too
    assert playing.refused(0, Discard(("AS", "KS", "QS"))) == "wrong_phase"
    assert playing.refused(0, DrawTalon(True)) == "wrong_phase"
    held = [c for c in NAMES if playing.state.hands[1] >> NAMES.index(c) & 1]
    assert playing.refused(1, PlayCard(held[0])) == "not_your_turn"


def test_the_talon_games_discard_count_is_checked_at_the_seats_turn() -> None:
    """2 or 3 different card names is the shape; the count a seat owes (the Hakem 3, the other
    player 2) is its own decision's, so a count that fits the other seat is checked after the
    phase and the turn."""
    match = Match(Rules.from_dict({"players": 2, "two_player": "talon"}), 0)
    deck = list(derive_deck(SECRET, round_label(1)))
    match.run(None, DealRound(tuple(deck)))
    assert match.refused(0, Discard(tuple(deck[:3]))) == "wrong_phase"  # trump first
    assert match.refused(0, Discard(("AS",))) == "bad_request"  # malformed: in any phase
    match.trump("H")
    assert match.refused(1, Discard(tuple(deck[5:7]))) == "not_your_turn"
    assert match.refused(0, Discard(tuple(deck[:2]))) == "bad_request"  # the Hakem lays 3
    assert match.refused(0, DrawTalon(True)) == "wrong_phase"
    assert match.refused(0, DrawTalon("keep")) == "bad_request"  # type: ignore[arg-type]
    match.run(0, Discard(tuple(deck[:3])))
    assert match.refused(1, Discard(tuple(deck[5:8]))) == "bad_request"  # the other lays 2
    match.run(1, Discard(tuple(deck[5:7])))
    assert match.state.phase == "drawing"
