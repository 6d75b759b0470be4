"""The duplicate arena: fair by construction (self-play scores exactly 0.5) and discriminating."""

from __future__ import annotations

import io
import random
from typing import Any

import pytest

from hokm.cli import main as hokm
from worker import arena
from worker.arena import RoundRecord
from worker.policies import POLICIES, SearchConfig, SearchPolicy


@pytest.mark.parametrize("name", ["heuristic", "random"])
def test_a_policy_against_itself_scores_exactly_one_half(name: str) -> None:
    out = io.StringIO()
    figures = arena.arena(name, name, 12, seed=3, out=out, progress=False)
    assert figures["a_round_rate"] == 0.5
    assert figures["ci_low"] == figures["ci_high"] == 0.5
    assert "RESULT a_round_rate=0.5000 ci_low=0.5000 ci_high=0.5000" in out.getvalue()


def test_search_against_itself_scores_exactly_one_half(monkeypatch: pytest.MonkeyPatch) -> None:
    quick = SearchConfig(samples=4, min_samples=2, batch=2, work=2000)
    monkeypatch.setitem(POLICIES, "quick", lambda: SearchPolicy(quick, "quick"))
    results = list(arena.run_deals("quick", "quick", 2, seed=9))
    assert [r.score for r in results] == [0.5, 0.5]


def test_heuristic_beats_random() -> None:
    figures = arena.arena("heuristic", "random", 30, seed=11, out=io.StringIO(),
                          progress=False)
    assert figures["a_round_rate"] > 0.65 and figures["ci_low"] > 0.5


def test_copies_swap_sides_and_hakem_rotates() -> None:
    results = list(arena.run_deals("heuristic", "random", 4, seed=2))
    for r in results:
        assert [rec.a_team for rec in r.rounds] == [0, 1]
        assert {rec.hakem_team for rec in r.rounds} == {r.deal % 2}
    assert arena.deck_for_deal(2, 0) == arena.deck_for_deal(2, 0) != arena.deck_for_deal(2, 1)


def test_parallel_jobs_give_the_same_results() -> None:
    serial = [r.score for r in arena.run_deals("heuristic", "random", 4, seed=5)]
    parallel = [r.score for r in arena.run_deals("heuristic", "random", 4, seed=5, jobs=2)]
    assert serial == parallel


def test_statistics() -> None:
    assert arena.paired_interval([0.5, 0.5, 0.5]) == (0.5, 0.5, 0.5)
    mean, low, high = arena.paired_interval([1.0, 0.5, 0.5, 0.0, 1.0])
    assert mean == 0.6 and low < 0.6 < high
    assert arena.percentile([3.0, 1.0, 2.0, 4.0], 0.5) == 2.0
    assert arena.percentile([], 0.95) == 0.0
    # A always wins with 1 point: every simulated match is A's; never: none is
    wins = [RoundRecord(0, 0, h, 0, 1, "normal", (7, 0)) for h in (0, 1)]
    losses = [RoundRecord(0, 0, h, 1, 1, "normal", (0, 7)) for h in (0, 1)]
    assert arena.estimate_match_rate(wins, matches=50) == 1.0
    assert arena.estimate_match_rate(losses, matches=50) == 0.0
    mixed = wins + losses
    assert 0.3 < arena.estimate_match_rate(mixed, matches=2000, seed=random.randrange(9)) < 0.7


def test_cli(capsys: pytest.CaptureFixture[str]) -> None:
    assert hokm(["arena", "heuristic", "random", "--deals", "2", "--seed", "4",
                 "--rules", '{"satat": true}']) == 0
    captured = capsys.readouterr()
    last = captured.out.strip().splitlines()[-1]
    assert last.startswith("RESULT a_round_rate=") and " a_ms_p95=" in last
    assert "2/2 deals" in captured.err  # the progress bar
    assert hokm(["arena", "heuristic", "nobody"]) == 2


# -- the games of two and three players -------------------------------------------------------

GAME_RULES: list[dict[str, Any]] = [
    {"players": 2}, {"players": 2, "two_player": "talon"}, {"players": 3}]


@pytest.mark.parametrize("rules", GAME_RULES)
def test_every_game_against_itself_scores_exactly_one_half(rules: dict[str, Any]) -> None:
    out = io.StringIO()
    figures = arena.arena("heuristic", "heuristic", 10, seed=3, rules=rules, out=out,
                          progress=False)
    assert figures["a_round_rate"] == 0.5 and figures["ci_low"] == figures["ci_high"] == 0.5
    # the match estimate is simulated for two sides only, and never printed as nan
    text = out.getvalue()
    assert "nan" not in text.split("RESULT")[0]
    assert ("not estimated" in text) == (rules["players"] == 3)


def test_the_copies_of_a_deal_in_each_game() -> None:
    """Two players: A at each seat once; three: A alone and B alone at each seat (six copies,
    A's seats of every copy listed); four: the two teams."""
    from engine import Rules

    assert arena.copies(Rules()) == [(0, 2), (1, 3)]
    assert arena.copies(Rules.from_dict({"players": 2})) == [(0,), (1,)]
    assert arena.copies(Rules.from_dict({"players": 3})) == [(0,), (1, 2), (1,), (0, 2), (2,),
                                                             (0, 1)]
    (result,) = arena.run_deals("heuristic", "random", 1, seed=4, rules={"players": 3})
    assert len(result.rounds) == 6 and {r.hakem_team for r in result.rounds} == {0}
    assert [r.sides_of_a for r in result.rounds] == arena.copies(Rules.from_dict({"players": 3}))


def test_heuristic_beats_random_in_the_talon_game() -> None:
    figures = arena.arena("heuristic", "random", 20, seed=11, rules=GAME_RULES[1],
                          out=io.StringIO(), progress=False)
    assert figures["ci_low"] > 0.5


def test_cli_games(capsys: pytest.CaptureFixture[str]) -> None:
    assert hokm(["arena", "heuristic", "random", "--deals", "2", "--players", "2",
                 "--two-player", "talon", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert '"two_player": "talon"' in out and out.strip().splitlines()[-1].startswith("RESULT")
    assert hokm(["arena", "heuristic", "random", "--players", "4", "--two-player",
                 "talon"]) == 2  # refused clearly: a two-player game needs two players
