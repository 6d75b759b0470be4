"""Rules.from_dict validates untrusted house rules; to_dict is its canonical inverse."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from engine import Rules
from engine.errors import BadRules

ALL = [
    {"target": target, "deal": deal, "teams": teams, "must_trump": mt, "satat": sa,
     "bavney": bv, "double_sar": ds}
    for target, deal, teams, mt, sa, bv, ds in itertools.product(
        (7, 10, "2x7"), ("5-4-4", "5-3-3-2"), ("ace_draw", "as_seated"), *[(False, True)] * 4)
    if not (bv and ds)
]


def test_defaults_are_the_standard_game() -> None:
    assert Rules.from_dict(None) == Rules.from_dict({}) == Rules()
    r = Rules()
    assert (r.players, r.target, r.sets, r.deal, r.teams) == (4, 7, 1, "5-4-4", "ace_draw")
    assert not (r.must_trump or r.satat or r.bavney or r.double_sar)


@pytest.mark.parametrize("data", ALL)
def test_round_trip(data: dict[str, Any]) -> None:
    rules = Rules.from_dict(data)
    assert rules.to_dict() == {"players": 4, **data}
    assert Rules.from_dict(rules.to_dict()) == rules


def test_targets() -> None:
    assert (Rules.from_dict({"target": 10}).target, Rules.from_dict({"target": 10}).sets) == (10, 1)
    two_sets = Rules.from_dict({"target": "2x7"})
    assert (two_sets.target, two_sets.sets) == (7, 2)
    assert Rules.from_dict({"target": "2x7", "sets": 2}) == two_sets
    assert Rules.from_dict({"target": 7, "sets": 1}) == Rules()


@pytest.mark.parametrize("data", [
    # unknown names
    {"trump_first": True}, {"Satat": True}, {1: True},
    # ill-typed or out of range
    [], "standard", 7, {"players": 5}, {"players": "4"},
    {"players": True}, {"target": 8}, {"target": "7"}, {"target": True}, {"target": 7.0},
    {"target": [7]}, {"target": {"a": 1}}, {"target": None}, {"sets": 3}, {"sets": "2"},
    {"deal": "5-5-3"}, {"deal": ["5-4-4"]}, {"deal": None}, {"teams": "random"}, {"teams": 1},
    {"must_trump": 1}, {"satat": "yes"}, {"bavney": None}, {"double_sar": 0},
    # contradictory
    {"target": 10, "sets": 2}, {"target": "2x7", "sets": 1}, {"sets": 2},
    {"bavney": True, "double_sar": True},
])
def test_refused_with_bad_rules(data: Any) -> None:
    with pytest.raises(BadRules) as info:
        Rules.from_dict(data)
    assert info.value.code == "bad_rules"
    assert info.value.to_dict()["code"] == "bad_rules"
