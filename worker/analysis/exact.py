"""Double-dummy outcomes (every hand known) from the boolean solver of the race to seven.

``Judge(rules, team).outcome(state)`` answers, for ``team`` and a position in the fast model
(``worker.policies.fast``), what best play by all four seats gives: ``Outcome(tricks, wins,
kot)``.  ``wins``: the side counts seven tricks first; ``kot``: it does so while the other side
has none (a kot or a Hakem koti: a sweep); ``tricks``: the most counted tricks the side is sure
of before the round ends (7 when it wins, else at most 6, the count the other side's seventh
trick leaves it with).  Each is the value of its own question under best play, so ``kot``
implies ``wins`` implies ``tricks == 7``.

How: ``worker.policies.solver.Solver`` answers one question, "does the side count seven before
the others do?".  A head start turns it into any threshold: "does the side count ``k`` before the
others count seven?" is the race to seven with ``7 - k`` tricks given to the side, and "does it
count seven before the others count one?" is the race with six given to the others.  The
solver's cuts stay exact under a head start (the counts are only compared with seven, and
``left``, the tricks still to play, comes from the cards; the sure trumps are taken from the
tricks left to the other side, whoever reaches seven first).  The transposition table is keyed
by the counts too (a head start never meets a plain race's key: the hands fix the tricks left,
and the counts' sum differs), so one solver per side serves every question of a whole round.
``tricks`` is found by bisection on ``k``.

A budget: with ``nodes`` > 0 a question that needs more solver nodes stops there.  What the
questions answered before it still holds (``bounded``: the round won for sure and only the kot
open, or the tricks between two counts), and the alternative is shown as one playout of the rule
policy with every hand visible (``worker.policies.playout.playout``) kept within those bounds;
``Judged.exact`` says which.  In pure Python a full
13-card deal can take the solver seconds to a minute, so the first tricks of a round are where
the budget bites (``bench/analysis.py`` measures it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.rules import Rules
from worker.policies.fast import FastState
from worker.policies.playout import playout
from worker.policies.solver import Solver, SolverLimit

WIN = 7
SWEEP_KINDS = frozenset({"kot", "hakem_koti", "bavney"})
"""Round kinds in which the winner took every trick."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """One alternative's double-dummy result for one side (see the module docstring)."""

    tricks: int
    wins: bool
    kot: bool

    def rank(self) -> tuple[bool, bool, int]:
        """The order of ``best``: wins, then kot, then tricks."""
        return self.wins, self.kot, self.tricks


@dataclass(frozen=True, slots=True)
class Judged:
    """One alternative judged: best play gives at least ``low`` and at most ``high`` (in the
    order of ``Outcome.rank``; the same when every question was answered), and ``outcome`` is
    what the analysis shows: the exact outcome, else a playout's kept within the bounds."""

    outcome: Outcome
    low: Outcome
    high: Outcome

    @property
    def exact(self) -> bool:
        return self.low == self.high

    @staticmethod
    def of(low: Outcome, high: Outcome, estimate: Callable[[], Outcome]) -> Judged:
        """The judgement with these bounds, ``estimate`` called only when they differ."""
        if low == high:
            return Judged(low, low, high)
        shown = estimate()
        if shown.rank() < low.rank():
            shown = low
        elif shown.rank() > high.rank():
            shown = high
        return Judged(shown, low, high)


def settled(bounds: tuple[Outcome, Outcome]) -> Outcome:
    """The outcome the bounds pin down; ``SolverLimit`` when a question stopped short."""
    low, high = bounds
    if low != high:
        raise SolverLimit
    return low


def bounded(mine: int, clean: bool, win: int, reaches: Callable[[int], bool],
            sweeps: Callable[[], bool]) -> tuple[Outcome, Outcome]:
    """The bounds of a side's outcome that its questions settle before one stops at the budget
    (``SolverLimit``): equal once all are answered.  ``mine``: the tricks the side counts now;
    ``clean``: no other side counts one (a sweep is still open); ``win``: the tricks that win;
    ``reaches(k)``: does the side count ``k`` before another side counts ``win``; ``sweeps()``:
    does it count ``win`` while the others count none.  The questions are asked in the order
    that settles most first: the round, then the sweep, then the tricks by bisection."""
    low, high = Outcome(mine, False, False), Outcome(win, True, clean)
    try:
        if reaches(win):
            low = Outcome(win, True, False)
            if clean and sweeps():
                low = high
            else:
                high = low
            return low, high
        lo, hi = mine, win - 1
        low, high = Outcome(lo, False, False), Outcome(hi, False, False)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if reaches(mid):
                lo = mid
            else:
                hi = mid - 1
            low, high = Outcome(lo, False, False), Outcome(hi, False, False)
    except SolverLimit:
        pass
    return low, high


class Judge:
    """The double-dummy questions of one round for one side (``team``: 0 or 1); ``nodes``:
    the most solver nodes per question (0: no limit)."""

    def __init__(self, rules: Rules, team: int, nodes: int = 0) -> None:
        self.team = team
        self.solver = Solver(team, rules.must_trump, rules.double_sar, nodes, sure=True)
        self.nodes = 0
        """Solver nodes searched so far, every question together (the cost)."""

    def _race(self, state: FastState, head_mine: int, head_theirs: int) -> bool:
        """The race to seven from ``state`` with these head starts added to the counts;
        ``SolverLimit`` past the budget."""
        st = state
        if head_mine or head_theirs:
            st = state.copy()
            st.tricks[self.team] += head_mine
            st.tricks[1 - self.team] += head_theirs
        solver = self.solver
        solver.nodes = 0
        try:
            return solver.wins(st)
        finally:
            self.nodes += solver.nodes

    def judge(self, state: FastState) -> Judged:
        """The side's outcome from ``state``, exact or (past the budget) bounded."""
        low, high = self.bounds(state)
        return Judged.of(low, high, lambda: self._playout(state))

    def _playout(self, state: FastState) -> Outcome:
        """The rule policy's playout from ``state``, every hand visible."""
        st = state.copy()
        won = playout(st) == self.team
        mine, theirs = st.tricks[self.team], st.tricks[1 - self.team]
        return Outcome(min(mine, WIN), won, won and theirs == 0)

    def reaches(self, state: FastState, k: int) -> bool:
        """Does the side count ``k`` tricks (1..7) before the other side counts seven?"""
        mine = state.tricks[self.team]
        if k <= mine:
            return True
        return self._race(state, WIN - k, 0)

    def outcome(self, state: FastState) -> Outcome:
        """The side's double-dummy result from ``state`` (a round over or going on);
        ``SolverLimit`` past the budget."""
        return settled(self.bounds(state))

    def bounds(self, state: FastState) -> tuple[Outcome, Outcome]:
        """``bounded``'s bounds of the side's result from ``state``."""
        team = self.team
        if state.result is not None:
            winner, _, kind = state.result
            won = winner == team
            done = Outcome(min(state.tricks[team], WIN), won, won and kind in SWEEP_KINDS)
            return done, done
        return bounded(state.tricks[team], state.tricks[1 - team] == 0, WIN,
                       lambda k: self.reaches(state, k), lambda: self._race(state, 0, WIN - 1))
