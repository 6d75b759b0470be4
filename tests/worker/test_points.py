"""What round outcomes are worth in the match (``worker.policies.points``)."""

from __future__ import annotations

from worker.policies.points import match_chance, utilities


def test_match_chance_is_a_probability_rising_with_ones_score() -> None:
    assert match_chance(7, 3, False, 7) == 1.0
    assert match_chance(3, 8, True, 7) == 0.0
    for hakem in (True, False):
        for theirs in range(7):
            chances = [match_chance(m, theirs, hakem, 7) for m in range(8)]
            assert all(0.0 <= c <= 1.0 for c in chances)
            assert chances == sorted(chances)
    # the two sides' chances add up to one, and the Hakem role is worth something
    assert abs(match_chance(2, 4, True, 7) + match_chance(4, 2, False, 7) - 1.0) < 1e-12
    assert match_chance(0, 0, True, 7) > 0.5 > match_chance(0, 0, False, 7)


def test_utilities_order_the_outcomes() -> None:
    for mine in range(7):
        for theirs in range(7):
            for hakem in (True, False):
                win, sweep, loss, swept = utilities((mine, theirs), 7, hakem)
                assert (win, loss) == (1.0, 0.0)
                assert sweep >= win and swept <= loss


def test_a_round_that_decides_the_match_is_played_for_the_round() -> None:
    # at 6 a win ends the match: a kot is worth no more than a plain win
    win, sweep, _, _ = utilities((6, 2), 7, True)
    assert sweep == win
    # at 0-6 any loss ends the match: being swept costs no more than losing
    _, _, loss, swept = utilities((0, 6), 7, False)
    assert swept == loss
    # early in a match a Hakem koti (3 points) is worth more than a kot (2)
    assert utilities((0, 0), 7, False)[1] > utilities((0, 0), 7, True)[1] > 1.0


def test_points_only_without_the_match() -> None:
    assert utilities((0, 0), 7, True, match=False) == (1.0, 1.5, 0.0, -1.0)
    assert utilities((0, 0), 7, False, match=False) == (1.0, 2.0, 0.0, -0.5)
