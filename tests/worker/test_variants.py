"""The bots in the games of two and three players (issue 13): every policy and every level makes
a legal decision in every phase of every variant (trump, the talon game's discard and
keep-or-discard, card play), the bot job's command fits the decision, and hints work."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Rules
from engine.cards import CARD_INDEX, names_of_mask
from engine.commands import ChooseTrump, Discard, DrawTalon, PlayCard
from engine.events import CardPlayed
from worker.hints import hint
from worker.policies.base import command_for
from worker.policies import LEVELS, Policy, SearchConfig, SearchPolicy, policy_for
from worker.policies.base import is_legal
from tests.engine.test_hidden_info import cards_in

from .helpers import GAMES, GameTable, Spy, game_rules, game_rules_strategy, random_deck, reach_game

FULL = (1 << 52) - 1
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


# -- fairness ---------------------------------------------------------------------------------


def known_to(table: GameTable, seat: int, played: int) -> int:
    """The cards ``seat`` may know now: its hand, its own discards (the talon game: the cards
    it laid aside and the talon cards it saw and passed), the talon's top card while it looks
    at it, the cards played this round (``played``) and the removed cards (public)."""
    state = table.state
    mask = state.hands[seat] | played | sum(1 << c for c in state.rules.variant.removed)
    if state.deal.discards:
        mask |= state.deal.discards[seat]
    if state.phase == "drawing" and state.turn == seat:
        mask |= 1 << state.deal.deck[state.deal.talon]
    return mask


@settings(max_examples=9, deadline=None)
@given(rules=game_rules_strategy, seed=st.integers(0, 2**32 - 1))
def test_no_hidden_card_reaches_a_policy(rules: Rules, seed: int) -> None:
    """Two rounds of a variant with spies at every seat.  At each call, no card the seat may not
    know appears anywhere in its view: another hand, the other seat's discards, the talon
    (but the top card it looks at), the simple game's 26 unused cards, an undealt card; and no
    history entry shows a card that was hidden from the seat just after that event."""
    rng = random.Random(seed)
    n = rules.players
    table = GameTable(rules, hakem=rng.randrange(n))
    played = 0
    hidden_after: list[list[set[str]]] = []

    def sync() -> None:
        while len(hidden_after) < len(table.log):
            hidden_after.append([set(names_of_mask(FULL & ~known_to(table, s, played)))
                                 for s in range(n)])

    sync()
    policies = quick_policies()
    spies = [Spy(policies[(seed + s) % len(policies)]) for s in range(n)]
    phases: set[str] = set()
    for _ in range(2):
        if table.state.phase not in ("waiting", "round_over"):
            break
        played = 0
        table.deal(random_deck(rng))
        sync()
        while table.live:
            seat = table.actor
            spy = spies[seat]
            choice = spy.choose(table.view(seat), table.histories[seat], rng)
            view, history = spy.calls[-1]
            phases.add(view["phase"])
            hidden = set(names_of_mask(FULL & ~known_to(table, seat, played)))
            assert not hidden & cards_in(view), (view["phase"], hidden & cards_in(view))
            for i, seen in enumerate(history):
                assert not hidden_after[i][seat] & cards_in(seen), seen
            for event in table.act(choice):
                if isinstance(event, CardPlayed):
                    played |= 1 << CARD_INDEX[event.card]
            sync()
    assert "playing" in phases
    assert rules.two_player != "talon" or {"discarding", "drawing"} <= phases
