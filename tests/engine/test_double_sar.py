"""House rule ``double_sar``: tricks are banked only when a side wins two in a row; the pile
waits through broken runs; at the end of the deal the pile goes to the last trick's winner."""

from __future__ import annotations

from engine import Rules, view_for
from engine.events import RoundEnded, TrickWon

from .helpers import Match, deck_for, planned, suit_cards, sweep_deck, sweeper

DOUBLE_SAR = Rules.from_dict({"double_sar": True})

# Seats 0 and 1 share spades and hearts, seats 2 and 3 hold only diamonds and clubs, so with
# spades or hearts as trump only seats 0 and 1 can win a trick.
D, C = suit_cards("D"), suit_cards("C")


def test_two_in_a_row_banks_and_a_single_win_waits() -> None:
    m = Match(DOUBLE_SAR)
    events = m.round(sweep_deck(0, hakem=0), "S", sweeper(0))
    won = [e for e in events if isinstance(e, TrickWon)]
    # the Hakem wins every trick: banked in pairs, so the 7th trick alone does not end the round
    assert [e.banked for e in won] == [0, 2, 0, 2, 0, 2, 0, 2]
    assert [e.seat for e in won] == [0] * 8
    assert events[-1] == RoundEnded(0, 2, "kot", (8, 0))


def test_a_broken_run_leaves_the_pile_waiting() -> None:
    hands = {
        0: [*suit_cards("S")[:10], "2H", "5H", "6H"],
        1: ["4S", "3S", "2S", "3H", "4H", *suit_cards("H")[:8]],
        2: D, 3: C,
    }
    m = Match(DOUBLE_SAR)
    m.deal(deck_for(hands))
    m.trump("S")
    assert view_for(m.state, 2)["pile"] == 0
    assert m.play("2H", "3H", "AD", "AC")[-1] == TrickWon(1, 0)  # seat 1: one trick waits
    assert (m.state.pile, m.state.tricks, view_for(m.state, 3)["pile"]) == (1, (0, 0), 1)
    assert m.play("4H", "KD", "KC", "5H")[-1] == TrickWon(0, 0)  # the run is broken
    assert (m.state.pile, m.state.tricks) == (2, (0, 0))
    assert m.play("AS", "2S", "QD", "QC")[-1] == TrickWon(0, 3)  # two in a row: the pile
    assert (m.state.pile, m.state.tricks) == (0, (3, 0))
    assert view_for(m.state, None)["pile"] == 0
    assert view_for(m.state, None)["tricks"] == [3, 0]


def test_at_the_end_of_the_deal_the_pile_goes_to_the_last_winner() -> None:
    # The leader loses every trick, so the winners alternate and nothing is ever banked.
    seat0 = ["2S", "5S", "6S", "9S", "TS", "KS", "AS", "4H", "5H", "8H", "9H", "QH", "KH"]
    seat1 = ["3S", "4S", "7S", "8S", "JS", "QS", "2H", "3H", "6H", "7H", "TH", "JH", "AH"]
    plan = planned({
        0: ["2S", "5S", "6S", "9S", "TS", "KS", "AS", "4H", "5H", "8H", "9H", "QH", "KH"],
        1: ["3S", "4S", "7S", "8S", "JS", "QS", "2H", "3H", "6H", "7H", "TH", "JH", "AH"],
    })
    m = Match(DOUBLE_SAR)
    events = m.round(deck_for({0: seat0, 1: seat1, 2: D, 3: C}), "H", plan)
    won = [e for e in events if isinstance(e, TrickWon)]
    assert [e.seat for e in won] == [1, 0] * 6 + [1]
    assert [e.banked for e in won] == [0] * 12 + [13]
    assert events[-1] == RoundEnded(1, 3, "hakem_koti", (0, 13))
    assert m.state.pile == 0

