"""Hints use only the player's own hand and the open trick, and explain themselves."""

from __future__ import annotations

from collections.abc import Iterable

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Rules
from tests.engine.helpers import deck_for
from worker.hints import HINT_FIELDS, hint, reduced_view

from .helpers import Table, reach, rules_strategy


@settings(max_examples=40, deadline=None)
@given(rules=rules_strategy, seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 50))
def test_a_hint_is_legal_explained_and_blind_to_everything_else(rules: Rules, seed: int,
                                                                 steps: int) -> None:
    table = reach(rules, seed, steps)
    if not table.live:
        return
    seat = table.state.turn
    assert seat is not None
    view = table.view(seat)
    advice = hint(view, random.Random(seed))
    assert advice["suggestion"] in view["legal"]
    assert isinstance(advice["reason"], str) and advice["reason"].endswith(".")
    assert "{" not in advice["reason"]
    # only the hint fields matter: change or drop everything else and the hint is the same
    scrambled = {k: (v if k in HINT_FIELDS else None) for k, v in view.items()}
    scrambled["hands"] = [["AS"] * 13] * 4
    assert hint(scrambled, random.Random(0)) == advice
    assert set(reduced_view(view)) == set(HINT_FIELDS)


def test_partner_winning_hint() -> None:
    hands: dict[int, Iterable[str]] = {0: ["AS", "KS", "QS", "JS", "AH"], 1: ["3H", "2C"],
                                       2: ["KH", "9H", "4H", "2D"]}
    table = Table(Rules(), hakem=0)
    table.deal(tuple(deck_for(hands, hakem=0)))
    table.act("S")
    table.act("AH")
    table.act("3H")
    advice = hint(table.view(2))
    assert advice == {"suggestion": "4H",
                      "reason": "Your partner is already winning this trick: play low.",
                      "reason_code": "partner_wins", "reason_args": {}}


def test_trump_hint_uses_the_five_cards() -> None:
    hands: dict[int, Iterable[str]] = {1: ["AH", "QH", "9H", "KC", "4D"]}
    table = Table(Rules(), hakem=1)
    table.deal(tuple(deck_for(hands, hakem=1)))
    advice = hint(table.view(1))
    assert advice["suggestion"] == "H" and "Hearts" in advice["reason"]


def test_no_hint_out_of_turn() -> None:
    table = reach(Rules(), 3, 10)
    seat = table.state.turn
    assert seat is not None
    with pytest.raises(ValueError):
        hint(table.view((seat + 1) % 4))
