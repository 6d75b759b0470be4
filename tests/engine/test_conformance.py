"""Random-playout conformance: over a thousand complete seeded matches in CI (more with
``HOKM_CONFORMANCE_MATCHES``), house rules included, checked step by step against the
independent reference model (see ``playout.py``)."""

from __future__ import annotations

import os
from collections import Counter

import pytest

from engine import Rules

from .playout import Outcome, play_match

SINGLE_RULES = [
    {}, {"target": 10}, {"target": "2x7"}, {"deal": "5-3-3-2"}, {"teams": "as_seated"},
    {"must_trump": True}, {"satat": True}, {"bavney": True}, {"double_sar": True},
]
KINDS = {"normal", "kot", "hakem_koti", "bavney"}


def checked(seed: int, **kwargs: object) -> Outcome:
    try:
        return play_match(seed, **kwargs)  # type: ignore[arg-type]
    except AssertionError as error:
        error.add_note(f"playout seed {seed}, {kwargs}")
        raise


def check_round_results(outcomes: list[Outcome], rules: Rules) -> Counter[str]:
    kinds: Counter[str] = Counter()
    for out in outcomes:
        for result, played in zip(out.rounds, out.tricks_per_round, strict=True):
            kinds[result.kind] += 1
            assert result.kind in KINDS
            assert max(result.tricks) >= 7 and min(result.tricks) <= 6
            assert 7 <= played <= 13
            if not rules.bavney and not rules.double_sar:
                assert max(result.tricks) == 7 and sum(result.tricks) == played
            if result.kind == "bavney":
                assert sorted(result.tricks) == [0, 13] and result.points == 3
        score = out.state.match.score
        winner = out.state.match.winner
        assert winner is not None and score[winner] >= rules.target
        assert score[1 - winner] < rules.target
        if rules.sets > 1:
            assert out.state.match.sets[winner] == 2
    return kinds


@pytest.mark.parametrize("rules", SINGLE_RULES,
                         ids=lambda r: "-".join(f"{k}={v}" for k, v in r.items()) or "std")
def test_each_house_rule_alone(rules: dict[str, object]) -> None:
    parsed = Rules.from_dict(rules)
    outcomes = [checked(1000 + seed, rules=parsed, first_hakem=None if seed % 2 else seed % 4)
                for seed in range(40)]
    kinds = check_round_results(outcomes, parsed)
    assert kinds["normal"] > 0 and kinds["kot"] + kinds["hakem_koti"] > 0


COMBINATION_MATCHES = int(os.environ.get("HOKM_CONFORMANCE_MATCHES", "1000"))
"""Matches of the random-combinations run, over ``CHUNKS`` tests (``HOKM_CONFORMANCE_MATCHES``
for a longer run: CI runs 1,000, a minute of one core less than the 2,000 it ran before)."""
CHUNKS = 10


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_rule_combinations(chunk: int) -> None:
    """Matches with random house rules and first Hakem (refusals tried at a fifth of the
    steps; the other tests try them at every step)."""
    for seed in range(chunk, COMBINATION_MATCHES, CHUNKS):
        out = checked(seed, refusals=0.2)
        check_round_results([out], out.state.rules)


@pytest.mark.parametrize("seed", range(4))
def test_every_card_of_every_seat_at_every_step(seed: int) -> None:
    out = checked(50_000 + seed, exhaustive=True)
    assert out.checked_refusals > 1000
