"""The worked examples of rules.md, each driven through decide + evolve with stacked decks."""

from __future__ import annotations

import pytest

from engine import ChooseTrump, DealRound, PlayCard, view_for
from engine.events import CardPlayed, MatchEnded, RoundEnded, RoundStarted, TrickWon

from .helpers import Match, deck_for, planned, suit_cards, sweep_deck, sweeper


def ended(events: list[object]) -> RoundEnded:
    found = [e for e in events if isinstance(e, RoundEnded)]
    assert len(found) == 1
    return found[0]


# -- 000/003: trump hearts, clubs led, a player void in clubs trumps with the 2 of hearts ------

@pytest.mark.parametrize(("lead", "last"), [("KC", "AC"), ("AC", "KC")])
def test_000_003_two_of_hearts_beats_the_clubs(lead: str, last: str) -> None:
    m = Match()
    # seat 2 holds no club: the 2 of hearts and twelve spades
    m.deal(deck_for({0: [lead, "AH", "QH", "9H", "4D"], 1: ["3C"], 2: ["2H", *suit_cards("S")[:12]],
                     3: [last]}))
    m.trump("H")
    events = m.play(lead, "3C", "2H", last)
    assert events[-1] == TrickWon(2, 1)
    assert m.state.tricks == (1, 0)
    assert m.state.leader == m.state.turn == 2
    last_trick = view_for(m.state, 1)["last_trick"]
    assert last_trick == {"cards": [{"seat": 0, "card": lead}, {"seat": 1, "card": "3C"},
                                    {"seat": 2, "card": "2H"}, {"seat": 3, "card": last}],
                          "winner": 2}


# -- 003: the Hakem's first five, C trumps the clubs, a player holding a club may not ---------

def test_003_hakem_names_trump_from_five_and_c_trumps() -> None:
    m = Match()
    first_five = ["AH", "QH", "9H", "KC", "4D"]
    # C (seat 2) is void in clubs; B and D hold clubs.
    m.deal(deck_for({0: first_five, 1: ["3C"], 2: ["2H", *suit_cards("S")[:12]], 3: ["AC"]}))
    view = view_for(m.state, 0)
    assert view["phase"] == "choosing_trump"
    assert sorted(view["hand"]) == sorted(first_five)
    assert view["hand_counts"] == [5, 0, 0, 0]
    assert view["legal"] == ["S", "H", "D", "C"]
    m.trump("H")
    assert m.play("KC", "3C", "2H", "AC")[-1] == TrickWon(2, 1)


def test_003_a_player_holding_a_club_cannot_play_the_two_of_hearts() -> None:
    m = Match()
    m.deal(deck_for({0: ["AH", "QH", "9H", "KC", "4D"], 1: ["3C", "2H"], 3: ["AC"]}))
    m.trump("H")
    m.play("KC")
    assert m.refused(1, PlayCard("2H")) == "must_follow_suit"
    assert m.play("3C") == [CardPlayed(1, "3C")]


# -- 001: trump spades, 5H led, a player void in hearts trumps with the 7 of spades -----------

def test_001_seven_of_spades_beats_the_hearts() -> None:
    m = Match()
    m.deal(deck_for({0: ["5H"], 1: ["7S", *suit_cards("D")[:12]], 2: ["JH"], 3: ["AH"]}))
    m.trump("S")
    events = m.play("5H", "7S", "JH", "AH")
    assert events[-1] == TrickWon(1, 1)
    assert m.state.tricks == (0, 1)


# -- 001 scoring: 7-6 is 1-0, a kot makes 3-0, a Hakem koti 3-3 -------------------------------

def test_001_scoring_sequence() -> None:
    m = Match(first_hakem=0)
    # Round 1: the Hakem holds seven top spades and six low hearts, the opponent to his right
    # six low spades and seven high hearts; seats 2 and 3 hold only diamonds and clubs.
    hakem_hand = ["AS", "KS", "QS", "JS", "TS", "9S", "8S", "2H", "3H", "4H", "5H", "6H", "7H"]
    opp_hand = ["7S", "6S", "5S", "4S", "3S", "2S", "8H", "9H", "TH", "JH", "QH", "KH", "AH"]
    plan = planned({
        0: ["2H", "3H", "4H", "5H", "6H", "7H", "8S", "AS", "KS", "QS", "JS", "TS", "9S"],
        1: ["8H", "9H", "TH", "JH", "QH", "KH", "AH", "2S", "3S", "4S", "5S", "6S", "7S"],
    })
    events = m.round(deck_for({0: hakem_hand, 1: opp_hand}), "S", plan)
    winners = [e.seat for e in events if isinstance(e, TrickWon)]
    assert winners == [1] * 6 + [0] * 7  # the Hakem's seventh trick is the thirteenth
    assert ended(events) == RoundEnded(0, 1, "normal", (7, 6))
    assert m.state.match.score == (1, 0)
    assert m.state.match.next_hakem == 0

    # Round 2: the Hakem holds every trump: kot.
    m.deal(sweep_deck(0, hakem=0))
    assert m.log[-1] == RoundStarted(2, 0, 3, tuple(sweep_deck(0, hakem=0)), True)
    m.trump("S")
    events = m.play_round(sweeper(0))
    assert ended(events) == RoundEnded(0, 2, "kot", (7, 0))
    assert m.state.match.score == (3, 0)
    assert m.state.match.next_hakem == 0

    # Round 3: the opponent to the Hakem's right holds every trump: Hakem koti.
    m.deal(sweep_deck(1, hakem=0))
    assert (m.state.hakem, m.state.deal.dealer) == (0, 3)
    m.trump("S")
    events = m.play_round(sweeper(1))
    assert ended(events) == RoundEnded(1, 3, "hakem_koti", (0, 7))
    assert m.state.match.score == (3, 3)
    assert m.state.phase == "round_over"

    # The old Hakem deals, the player to his right is the new Hakem.
    m.deal(sweep_deck(1, hakem=1))
    started = m.log[-1]
    assert isinstance(started, RoundStarted)
    assert (started.round, started.hakem, started.dealer) == (4, 1, 0)


# -- 003 scoring: 7-2 is 1 point, not a kot; opponents on 5 with the first seven reach 8 -------

def test_003_seven_two_is_one_point_not_a_kot() -> None:
    m = Match(first_hakem=0)
    hands = {
        0: ["AS", "KS", "QS", "JS", "TS", "9S", "8S", "2H", "3H", "2C", "3C", "4C", "5C"],
        1: ["AH", "KH", "AD", "KD", "QD", "JD", "TD", "9D", "8D", "7D", "6D", "5D", "4D"],
        2: ["7S", "6S", "5S", "4S", "3S", "2S", "4H", "5H", "6H", "7H", "8H", "9H", "TH"],
        3: ["QH", "JH", "3D", "2D", "6C", "7C", "8C", "9C", "TC", "JC", "QC", "KC", "AC"],
    }
    plan = planned({
        0: ["2H", "3H", "8S", "AS", "KS", "QS", "JS", "TS", "9S"],
        1: ["AH", "KH", "AD"],
        2: ["4H", "5H", "6H", "7S", "6S", "5S", "4S", "3S", "2S"],
        3: ["QH", "JH", "2D"],
    })
    events = m.round(deck_for(hands), "S", plan)
    assert [e.seat for e in events if isinstance(e, TrickWon)] == [1, 1] + [0] * 7
    assert ended(events) == RoundEnded(0, 1, "normal", (7, 2))
    assert m.state.match.result is not None and m.state.match.result.kind == "normal"
    assert m.state.match.score == (1, 0)


def test_003_opponents_on_five_take_the_first_seven_and_win_the_match() -> None:
    m = Match(first_hakem=1)
    # Round 1 (Hakem 1): seat 2 holds every trump: Hakem koti, 3 to team 0.
    events = m.round(sweep_deck(2, hakem=1), "S", sweeper(2))
    assert ended(events) == RoundEnded(0, 3, "hakem_koti", (7, 0))
    # Round 2 (Hakem 2, dealt by the old Hakem 1): kot, team 0 on 5.
    m.deal(sweep_deck(2, hakem=2))
    assert (m.state.hakem, m.state.deal.dealer) == (2, 1)
    m.trump("S")
    assert ended(m.play_round(sweeper(2))) == RoundEnded(0, 2, "kot", (7, 0))
    # Round 3 (Hakem 2 again, same dealer): the Hakem wins his ace of hearts, then loses 7.
    deck = deck_for({3: [*suit_cards("S")[:12], "2H"], 2: ["AH", "2S"]}, hakem=2)
    m.deal(deck)
    assert (m.state.hakem, m.state.deal.dealer) == (2, 1)
    m.trump("S")
    events = m.play_round(planned({2: ["AH", "2S"]}, sweeper(3)))
    assert ended(events) == RoundEnded(1, 1, "normal", (1, 7))
    assert m.state.match.score == (5, 1)
    # Round 4 (Hakem 3): the opponents, on 5, take the first seven: 3 points, 8, match over.
    m.deal(sweep_deck(0, hakem=3))
    assert (m.state.hakem, m.state.deal.dealer) == (3, 2)
    m.trump("S")
    events = m.play_round(sweeper(0))
    assert ended(events) == RoundEnded(0, 3, "hakem_koti", (7, 0))
    assert events[-1] == MatchEnded(0, (8, 1))
    assert m.state.phase == "match_over"
    assert m.state.match.winner == 0
    assert m.state.match.score == (8, 1)  # overshooting the target is normal
    assert m.refused(None, DealRound(tuple(deck))) == "match_over"
    assert m.refused(3, ChooseTrump("S")) == "match_over"
    assert m.refused(3, PlayCard("AS")) == "match_over"


# -- succession -------------------------------------------------------------------------------

@pytest.mark.parametrize("hakem", range(4))
@pytest.mark.parametrize("hakem_side_wins", [True, False])
def test_succession_and_dealer(hakem: int, hakem_side_wins: bool) -> None:
    m = Match(first_hakem=hakem)
    winner_seat = hakem if hakem_side_wins else (hakem + 1) % 4
    m.deal(sweep_deck(winner_seat, hakem=hakem))
    started = m.log[-1]
    assert isinstance(started, RoundStarted)
    assert (started.hakem, started.dealer) == (hakem, (hakem - 1) % 4)
    assert view_for(m.state, None)["dealer"] == (hakem - 1) % 4
    m.trump("S")
    m.play_round(sweeper(winner_seat))
    m.deal(sweep_deck(0, hakem=0))  # the deck's content does not matter here
    started = m.log[-1]
    assert isinstance(started, RoundStarted)
    expected = hakem if hakem_side_wins else (hakem + 1) % 4
    assert (started.round, started.hakem, started.dealer) == (2, expected, (expected - 1) % 4)
    if not hakem_side_wins:
        assert started.dealer == hakem  # the old Hakem deals
