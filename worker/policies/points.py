"""What a round's outcome is worth in the match: the search's utilities for playing for points.

A round ends in one of four ways for a side: it wins (1 point), it wins seven tricks to none (a
kot as the Hakem's side: 2 points; a Hakem koti as the defenders: 3), it loses (the others score
1), or it loses seven to none (the others score 2 or 3).  What each is worth depends on the match
score: a round that decides the match is worth the same however it is won.  ``utilities`` values
each outcome by the side's chance of winning the match from the score it leaves, under a simple
model of rounds (``RoundModel``: how often the Hakem's side wins, and how often by a sweep,
rough figures of the arena), and the Hakem role passing as the rules say (the
winning side holds or takes it).  Only public facts are read: the score, the target and who is
Hakem, which every player at the table sees.

The values are rescaled so that a plain loss is 0 and a plain win 1 (a sweep above 1, being swept
below 0): the search's racing and ties keep the scale of the round-win rate.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True, slots=True)
class RoundModel:
    """How rounds go, from the Hakem's side's point of view (fractions of rounds)."""

    hakem_wins: float = 0.62
    """The Hakem's side wins the round (kots included)."""
    kot: float = 0.03
    """The Hakem's side takes seven tricks to none."""
    koti: float = 0.01
    """The defenders take seven tricks to none."""


MODEL = RoundModel()
"""Rough figures of the arena (``bench/bots_arena/README.md``): the heuristic's side wins about
0.62 of its rounds as Hakem, about 0.03 by a kot, and the defenders about 0.01 by a Hakem koti."""


@lru_cache(maxsize=4096)
def match_chance(mine: int, theirs: int, hakem: bool, target: int,
                 model: RoundModel = MODEL) -> float:
    """The side's chance of winning the match at score ``mine`` to ``theirs``, the side being
    the Hakem's when ``hakem``, first to ``target`` points."""
    if mine >= target:
        return 1.0
    if theirs >= target:
        return 0.0
    h_win = model.hakem_wins - model.kot
    h_lose = 1.0 - model.hakem_wins - model.koti
    if hakem:
        return (model.kot * match_chance(mine + 2, theirs, True, target, model)
                + h_win * match_chance(mine + 1, theirs, True, target, model)
                + h_lose * match_chance(mine, theirs + 1, False, target, model)
                + model.koti * match_chance(mine, theirs + 3, False, target, model))
    return 1.0 - match_chance(theirs, mine, True, target, model)


def utilities(score: tuple[int, int], target: int, hakem: bool, match: bool = True
              ) -> tuple[float, float, float, float]:
    """``(win, sweep, loss, swept)``: what the side's four round outcomes are worth, a plain
    loss 0 and a plain win 1.  ``score`` is (the side's points, the others'), ``hakem`` whether
    the side is the Hakem's.  ``match=False`` counts points only (a sweep 2 or 3 points)."""
    mine, theirs = score
    sweep_pts, swept_pts = (2, 3) if hakem else (3, 2)
    if not match:
        # points: win +1, sweep +sweep_pts, loss -1, swept -swept_pts, scaled to loss 0, win 1
        return 1.0, (sweep_pts + 1) / 2, 0.0, (1 - swept_pts) / 2
    win = match_chance(mine + 1, theirs, True, target)
    sweep = match_chance(mine + sweep_pts, theirs, True, target)
    loss = match_chance(mine, theirs + 1, False, target)
    swept = match_chance(mine, theirs + swept_pts, False, target)
    span = win - loss
    if span <= 1e-9:
        return utilities(score, target, hakem, match=False)
    return 1.0, (sweep - loss) / span, 0.0, (swept - loss) / span


__all__ = ["MODEL", "RoundModel", "match_chance", "utilities"]
