"""House rule ``target``: 10 points, or two sets of 7 (``"2x7"``)."""

from __future__ import annotations

from engine import DealRound, Rules, view_for
from engine.events import MatchEnded, RoundEnded, SetWon

from .helpers import Match, sweep_deck, sweeper


def kot(m: Match) -> list[object]:
    """One round in which the Hakem (seat 0) holds every trump."""
    return list(m.round(sweep_deck(0, hakem=0), "S", sweeper(0)))


def test_target_ten() -> None:
    m = Match(Rules.from_dict({"target": 10}))
    assert view_for(m.state, 0)["target"] == 10
    for score in (2, 4, 6, 8):  # 8 would win the standard game
        events = kot(m)
        assert not any(isinstance(e, MatchEnded) for e in events)
        assert m.state.match.score == (score, 0)
        assert m.state.phase == "round_over"
    events = kot(m)
    assert events[-1] == MatchEnded(0, (10, 0))
    assert m.state.phase == "match_over"


def test_standard_target_seven() -> None:
    m = Match()
    for _ in range(3):
        kot(m)
    assert m.state.match.score == (6, 0)
    assert kot(m)[-1] == MatchEnded(0, (8, 0))


def test_two_sets_of_seven() -> None:
    m = Match(Rules.from_dict({"target": "2x7"}))
    assert view_for(m.state, 0)["sets"] == [0, 0]
    for _ in range(3):
        kot(m)
    events = kot(m)
    assert events[-2:] == [RoundEnded(0, 2, "kot", (7, 0)), SetWon(0)]
    assert m.state.match.sets == (1, 0)
    assert m.state.match.score == (8, 0)  # shown until the next deal starts a new set
    assert m.state.phase == "round_over"
    m.run(None, DealRound(tuple(sweep_deck(0, hakem=0)), stacked=True))
    assert m.state.match.score == (0, 0)
    assert view_for(m.state, 1)["sets"] == [1, 0]
    m.trump("S")
    m.play_round(sweeper(0))
    assert m.state.match.score == (2, 0)
    for _ in range(2):
        kot(m)
    events = kot(m)
    assert events[-3:] == [RoundEnded(0, 2, "kot", (7, 0)), SetWon(0), MatchEnded(0, (8, 0))]
    assert m.state.match.sets == (2, 0)
    assert m.state.phase == "match_over"
    assert m.state.match.winner == 0


def test_a_set_each_then_the_decider() -> None:
    m = Match(Rules.from_dict({"target": "2x7"}), first_hakem=1)
    # Hakem 1's side (team 1) takes the first set with four kots
    for _ in range(4):
        m.round(sweep_deck(1, hakem=1), "S", sweeper(1))
    assert m.state.match.sets == (0, 1)
    # then team 0 sweeps as opponents (Hakem koti, 3 points): the Hakem passes to seat 2
    m.round(sweep_deck(2, hakem=1), "S", sweeper(2))
    assert m.state.match.score == (3, 0)
    for _ in range(2):
        m.round(sweep_deck(2, hakem=2), "S", sweeper(2))
    assert m.state.match.sets == (1, 1)
    assert m.state.phase == "round_over"
    m.round(sweep_deck(2, hakem=2), "S", sweeper(2))
    assert m.state.match.score == (2, 0)
    assert m.state.phase == "round_over"
