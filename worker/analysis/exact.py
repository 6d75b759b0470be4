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

A budget: with ``nodes`` > 0 a question that needs more solver nodes stops there and the
alternative is judged instead by one playout of the rule policy with every hand visible
(``worker.policies.playout.playout``); ``Judged.exact`` says which.  In pure Python a full
13-card deal can take the solver seconds to a minute, so the first tricks of a round are where
the budget bites (``bench/analysis.py`` measures it).
"""

from __future__ import annotations

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

    def judge(self, state: FastState) -> tuple[Outcome, bool]:
        """``(outcome, exact)``: the exact outcome, or, past the budget, a rule-policy
        playout's (``exact`` False)."""
        try:
            return self.outcome(state), True
        except SolverLimit:
            st = state.copy()
            won = playout(st) == self.team
            mine, theirs = st.tricks[self.team], st.tricks[1 - self.team]
            return Outcome(min(mine, WIN), won, won and theirs == 0), False

    def reaches(self, state: FastState, k: int) -> bool:
        """Does the side count ``k`` tricks (1..7) before the other side counts seven?"""
        mine = state.tricks[self.team]
        if k <= mine:
            return True
        return self._race(state, WIN - k, 0)

    def outcome(self, state: FastState) -> Outcome:
        """The side's double-dummy result from ``state`` (a round over or going on)."""
        team = self.team
        if state.result is not None:
            winner, _, kind = state.result
            won = winner == team
            return Outcome(min(state.tricks[team], WIN), won, won and kind in SWEEP_KINDS)
        if self._race(state, 0, 0):
            kot = state.tricks[1 - team] == 0 and self._race(state, 0, WIN - 1)
            return Outcome(WIN, True, kot)
        low, high = state.tricks[team], WIN - 1  # reached for sure / at best
        while low < high:
            mid = (low + high + 1) // 2
            if self.reaches(state, mid):
                low = mid
            else:
                high = mid - 1
        return Outcome(low, False, False)
