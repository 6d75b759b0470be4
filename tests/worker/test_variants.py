"""The bots in the games of two and three players (issue 13): every policy and every level makes
a legal decision in every phase of every variant (trump, the talon game's discard and
keep-or-discard, card play), the bot job's command fits the decision, and hints work."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Rules
from engine.commands import ChooseTrump, Discard, DrawTalon, PlayCard
from worker.hints import hint
from worker.policies.base import command_for
from worker.policies import LEVELS, Policy, SearchConfig, SearchPolicy, policy_for
from worker.policies.base import is_legal

from .helpers import GAMES, GameTable, game_rules, game_rules_strategy, random_deck, reach_game

QUICK = SearchConfig(samples=6, min_samples=2, batch=2, work=3000)


def quick_policies() -> list[Policy]:
    return [policy_for("random"), policy_for("heuristic"), policy_for("easy"),
            SearchPolicy(QUICK, "quick")]


@settings(max_examples=60, deadline=None)
@given(rules=game_rules_strategy, seed=st.integers(0, 2**32 - 1),
       steps=st.one_of(st.integers(0, 3), st.integers(0, 70)),
       rounds=st.integers(1, 2))
def test_every_policy_is_legal_on_reachable_views(rules: Rules, seed: int, steps: int,
                                                  rounds: int) -> None:
    table = reach_game(rules, seed, steps, rounds)
    if not table.live:
        return
    seat = table.actor
    view, history = table.view(seat), table.histories[seat]
    for policy in quick_policies():
        choice = policy.choose(view, history, random.Random(seed))
        assert is_legal(view, choice), (policy.name, view["phase"], choice, view["legal"])
        assert policy.choose(view, history, random.Random(seed)) == choice  # deterministic
    advice = hint(view)
    assert is_legal(view, advice["suggestion"]) and advice["reason"]


@pytest.mark.parametrize("game", GAMES)
def test_every_level_plays_a_round_in_every_phase(game: str) -> None:
    """A whole round with every level at the table in turn (the real budgets): every decision
    legal and applied, every phase of the variant met."""
    rng = random.Random(GAMES.index(game))
    rules = game_rules(game)
    table = GameTable(rules, hakem=0)
    table.deal(random_deck(rng))
    levels = list(LEVELS)
    phases: set[str] = set()
    turns = 0
    while table.live:
        seat = table.actor
        view = table.view(seat)
        phases.add(view["phase"])
        level = levels[(seat + turns) % len(levels)]
        choice = policy_for(level).choose(view, table.histories[seat], rng)
        assert is_legal(view, choice), (level, view["phase"], choice)
        table.act(choice)
        turns += 1
    expected = {"choosing_trump", "playing"} | ({"discarding", "drawing"} if game == "talon"
                                                else set())
    assert phases == expected
    assert table.state.phase in ("round_over", "match_over")


def test_the_job_builds_the_command_of_each_phase() -> None:
    assert command_for("choosing_trump", "H") == ChooseTrump("H")
    assert command_for("discarding", "2C 7D 9H") == Discard(("2C", "7D", "9H"))
    assert command_for("drawing", "keep") == DrawTalon(True)
    assert command_for("drawing", "discard") == DrawTalon(False)
    assert command_for("playing", "AS") == PlayCard("AS")


def test_is_legal_checks_a_discard() -> None:
    view = {"phase": "discarding", "legal": ["2C", "7D", "9H", "AS", "KS"],
            "talon": {"discard": 3}}
    assert is_legal(view, "2C 7D 9H")
    assert not is_legal(view, "2C 7D")  # too few
    assert not is_legal(view, "2C 2C 7D")  # twice the same
    assert not is_legal(view, "2C 7D QH")  # not in the hand
    assert not is_legal(view, "2C,7D,9H")
    assert is_legal({"phase": "drawing", "legal": ["keep", "discard"]}, "keep")
    assert not is_legal({"phase": "drawing", "legal": ["keep", "discard"]}, "2C")
