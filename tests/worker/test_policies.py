"""Every policy is legal, deterministic given its generator, and fair by construction."""

from __future__ import annotations

from collections.abc import Iterable

import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Rules
from engine.cards import names_of_mask
from engine.deal import FIRST_PACKET
from engine.state import CHOOSING_TRUMP, State
from worker.policies import LEVELS, POLICIES, Policy, SearchConfig, SearchPolicy, policy_for

from .helpers import Spy, Table, random_deck, reach, rules_strategy

QUICK_SEARCH = SearchConfig(samples=6, min_samples=2, batch=2, work=3000, trump_samples=4)
QUICK_POINTS = SearchConfig(samples=6, min_samples=2, batch=2, work=3000, response_cards=13,
                            points=True)
"""The search playing for points (the match score is one more input: the spies cover it)."""
QUICK_LOOKAHEAD = SearchConfig(samples=6, min_samples=2, batch=2, work=3000, points=True,
                               chain_thin=2, chain_burn=4, lookahead=4, lookahead_samples=3,
                               lookahead_cards=8)
"""The search with its next card decided on fresh deals (``lookahead.py``): the knowledge it
builds for a later decision is one more input the spies cover."""


def quick_policies() -> list[Policy]:
    """Every policy, the search ones with small budgets (the real budgets are for the arena)."""
    return [policy_for("random"), policy_for("heuristic"), policy_for("easy"),
            SearchPolicy(QUICK_SEARCH), SearchPolicy(QUICK_SEARCH.__class__(
                samples=4, min_samples=2, work=2000, rollout="rule", infer=False)),
            SearchPolicy(QUICK_POINTS, "points"), SearchPolicy(QUICK_LOOKAHEAD, "lookahead")]


def test_names_and_levels() -> None:
    for name in [*POLICIES, *LEVELS]:
        p = policy_for(name)
        assert isinstance(p, Policy)
        assert isinstance(p.name, str)
    with pytest.raises(ValueError):
        policy_for("grandmaster")


@settings(max_examples=40, deadline=None)
@given(rules=rules_strategy, seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 50),
       rounds=st.integers(1, 2))
def test_every_policy_is_legal_on_reachable_views(rules: Rules, seed: int, steps: int,
                                                  rounds: int) -> None:
    table = reach(rules, seed, steps, rounds)
    if not table.live:
        return
    seat = table.state.turn
    assert seat is not None
    view, history = table.view(seat), table.histories[seat]
    for policy in quick_policies():
        choice = policy.choose(view, history, random.Random(seed))
        assert choice in view["legal"], (policy.name, choice, view["legal"])
        # deterministic given its generator: the duplicate arena depends on it
        assert policy.choose(view, history, random.Random(seed)) == choice


@settings(max_examples=6, deadline=None)
@given(rules=rules_strategy, seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 50))
def test_levels_are_legal(rules: Rules, seed: int, steps: int) -> None:
    """The real levels, budgets included (few examples: ``hard`` takes tens of ms a call)."""
    table = reach(rules, seed, steps)
    if not table.live:
        return
    seat = table.state.turn
    assert seat is not None
    for level in LEVELS:
        choice = policy_for(level).choose(table.view(seat), table.histories[seat],
                                          random.Random(seed))
        assert choice in table.view(seat)["legal"]


# -- fairness -----------------------------------------------------------------------------------


def strings(value: Any) -> Iterator[str]:
    """Every string anywhere in a JSON-like value (keys included)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from strings(k)
            yield from strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from strings(v)


def hidden_from(state: State, seat: int) -> set[str]:
    """The cards ``seat`` may not know now: other seats' hands and any undealt card."""
    mask = 0
    for other, hand in enumerate(state.hands):
        if other != seat:
            mask |= hand
    if state.phase == CHOOSING_TRUMP:  # only the Hakem's first five are dealt
        mask |= ((1 << 52) - 1) & ~state.hands[state.hakem or 0]
    return set(names_of_mask(mask))


@settings(max_examples=12, deadline=None)
@given(rules=rules_strategy, seed=st.integers(0, 2**32 - 1))
def test_no_hidden_card_reaches_a_policy(rules: Rules, seed: int) -> None:
    """Play two rounds with spies at every seat.  At each call, no card another seat holds (or
    still undealt) appears anywhere in the view, and no history entry shows a card that was
    hidden from the seat when that event happened."""
    rng = random.Random(seed)
    table = Table(rules, hakem=rng.randrange(4))
    # per history index: the cards hidden from each seat just after that event
    hidden_after: list[list[set[str]]] = []

    def sync() -> None:
        while len(hidden_after) < len(table.log):
            hidden_after.append([hidden_from(table.state, s) for s in range(4)])

    sync()
    policies = quick_policies()
    spies = [Spy(policies[(seed + s) % len(policies)]) for s in range(4)]
    for _ in range(2):
        if table.state.phase not in ("waiting", "round_over"):
            break
        table.deal(random_deck(rng))
        sync()
        while table.live:
            seat = table.state.turn
            assert seat is not None
            spy = spies[seat]
            n = len(spy.calls)
            choice = spy.choose(table.view(seat), table.histories[seat], rng)
            view, history = spy.calls[n]
            hidden = hidden_from(table.state, seat)
            assert not hidden & set(strings(view))
            if view["phase"] == CHOOSING_TRUMP:
                assert len(view["hand"]) == FIRST_PACKET  # the Hakem sees its five only
            for i, event in enumerate(history):
                assert not hidden_after[i][seat] & set(strings(event)), event
            table.act(choice)
            sync()
    assert sum(len(s.calls) for s in spies) > 20


@pytest.mark.parametrize("name", ["random", "heuristic", "search", "easy", "medium", "hard",
                                  "expert"])
def test_hakem_names_trump_from_its_five_cards_only(name: str) -> None:
    """Two deals sharing the Hakem's first five but nothing else give the Hakem identical
    inputs, hence the same trump; the view shows exactly five cards."""
    rng = random.Random(5)
    deck = list(random_deck(rng))
    rest = deck[FIRST_PACKET:]
    rng.shuffle(rest)
    other = deck[:FIRST_PACKET] + rest
    inputs = []
    for d in (deck, other):
        table = Table(Rules(), hakem=2)
        table.deal(tuple(d))
        view, history = table.view(2), table.histories[2]
        assert view["phase"] == CHOOSING_TRUMP and len(view["hand"]) == FIRST_PACKET
        assert view["legal"] == list("SHDC")
        inputs.append((view, history))
    assert inputs[0] == inputs[1]
    policy = SearchPolicy(QUICK_SEARCH) if name == "search" else policy_for(name)
    choices = {policy.choose(v, h, random.Random(1)) for v, h in inputs}
    assert len(choices) == 1 and choices <= set("SHDC")


def _heuristic_card(hands: dict[int, Iterable[str]], plays: list[str]) -> tuple[str, list[str]]:
    """Seat 0 is Hakem with spades trump; after ``plays``, the heuristic's card and the legal."""
    from tests.engine.helpers import deck_for

    table = Table(Rules(), hakem=0)
    table.deal(tuple(deck_for(hands, hakem=0)))
    table.act("S")
    for card in plays:
        table.act(card)
    seat = table.state.turn
    assert seat is not None
    view = table.view(seat)
    return policy_for("heuristic").choose(view, table.histories[seat], random.Random(0)), \
        view["legal"]


def test_heuristic_plays_low_when_the_partner_wins() -> None:
    # seat 0 leads the AH (the top heart), seat 1 follows: seat 2 keeps its KH and plays low
    hands: dict[int, Iterable[str]] = {0: ["AS", "KS", "QS", "JS", "AH"], 1: ["3H", "2C"],
                                       2: ["KH", "9H", "4H", "2D"]}
    card, legal = _heuristic_card(hands, ["AH", "3H"])
    assert legal == ["KH", "9H", "4H"] and card == "4H"


def test_heuristic_wins_as_cheaply_as_it_can_when_last() -> None:
    # seat 2 (an opponent of seat 3) wins with the 9H so far
    hands: dict[int, Iterable[str]] = {0: ["4H", "2S", "3S", "4S", "5S"], 1: ["7H"], 2: ["9H"],
             3: ["KH", "QH", "TH", "2H"]}
    card, _ = _heuristic_card(hands, ["4H", "7H", "9H"])
    assert card == "TH"


def test_heuristic_trumps_when_void_and_the_opponents_win() -> None:
    hands: dict[int, Iterable[str]] = {0: ["AH", "2S", "3S", "4S", "5S"], 1: ["3H"], 2: ["4H"],
             3: ["KS", "7S", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "JC", "QC"]}
    card, _ = _heuristic_card(hands, ["AH", "3H", "4H"])
    assert card == "7S"


def test_the_match_score_reaches_the_bots_from_the_view_only() -> None:
    """The points search reads the match score and target: from the seat's view (public, the
    same for every seat), never from the state.  After a round, the knowledge shows the view's
    score; a view with another score gives another knowledge, whatever the state holds."""
    from worker.policies.knowledge import knowledge

    table = reach(Rules(), 11, 3, rounds=2)
    assert table.live
    seat = table.state.turn
    assert seat is not None
    view = table.view(seat)
    assert sum(table.state.match.score) >= 1  # the first round scored
    k = knowledge(view, table.histories[seat])
    assert k.score == tuple(view["score"]) == tuple(table.state.match.score)
    assert k.target == view["target"] == 7
    for other in range(4):
        assert table.view(other)["score"] == view["score"]
    changed = dict(view, score=[5, 6], target=10)
    k2 = knowledge(changed, table.histories[seat])
    assert k2.score == (5, 6) and k2.target == 10
