"""Double-dummy outcomes for the games of two and three players (every hand known).

``NJudge(rules, seat, nodes).judge(position)`` answers, for the side of ``seat`` (in these
games a side is one seat) and a :class:`Position` in the fast card space of its trump
(``worker.policies.fast``), what best play gives when every other seat plays against it:
``Outcome(tricks, wins, kot)`` with the meanings of :mod:`worker.analysis.exact` (``wins``: the
seat counts seven tricks first; ``kot``: it does so while no other seat counts one; ``tricks``:
the most counted tricks it is sure of before another seat counts seven or the tricks run out, 7
when it wins).

With two players this is the exact value of a two-person zero-sum game.  With three, the two
other seats are taken to play *together* against the mover (the "paranoid" reading of a
three-person game): what the mover can force whatever the others do.  It is what "what was
right in hindsight" can promise in a game where each plays for himself; a seat the others do
not gang up on may do better (the three-player round can even end with nobody at seven).

How: a boolean search per question, "does the seat count ``k`` tricks (and, for a kot, before
any other seat counts one) before another seat counts seven or the tricks run out?", answered
by ``worker.policies.nsolver.NSolver`` (compiled; its docstring gives the search: a table at
trick starts shared by every question of the round, the leader's cashable winners counted, a
question given up once the tricks left cannot make ``k``, equivalent cards once).  The tricks
are counted by ``nsolver.count_trick``, the engine's own rule (``double_sar`` piles,
``bavney``).  ``tricks`` is found by bisection on ``k``.  Past ``nodes`` searched nodes a
question stops (``SolverLimit``): :meth:`NJudge.judge` keeps the bounds the answered questions
give (``exact.bounded``) and shows one playout of the bots' card rule with every seat on its own
view (``nseat.model_play``) within them, ``exact`` False.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.rules import Rules
from worker.policies.fast import legal, trick_winner_index
from worker.policies.nseat import model_play
from worker.policies.nsolver import NSolver, count_trick

from .exact import SWEEP_KINDS, Judged, Outcome, bounded, settled


@dataclass(slots=True)
class Position:
    """A round of two or three players in the fast card space of its trump."""

    rules: Rules
    hakem: int
    hands: list[int]
    """Per seat, the fast mask of its cards."""
    trick: list[int] = field(default_factory=list)
    """The open trick's fast cards in play order (led by ``leader``)."""
    leader: int = 0
    tricks: list[int] = field(default_factory=list)
    """Counted tricks per side."""
    played: int = 0
    """Tricks finished this round."""
    pile: int = 0
    run: int | None = None
    result: tuple[int, int, str] | None = None
    """The round's ``(winner side, points, kind)`` once it is over."""

    @property
    def turn(self) -> int:
        return (self.leader + len(self.trick)) % self.rules.players

    def legal(self) -> int:
        return legal(self.hands[self.turn], self.trick, self.rules.must_trump)

    def over(self) -> bool:
        return self.result is not None or self.played >= self.rules.hand_size

    def play(self, card: int) -> None:
        """Play ``card`` for the seat to move (a legal card; the position must not be over)."""
        rules = self.rules
        seat = self.turn
        self.hands[seat] ^= 1 << card
        self.trick.append(card)
        if len(self.trick) < rules.players:
            return
        winner = (self.leader + trick_winner_index(self.trick)) % rules.players
        self.played += 1
        self.pile, self.run, self.result = count_trick(
            rules, rules.side_of[self.hakem], self.tricks, rules.side_of[winner], self.played,
            self.pile, self.run)
        self.trick = []
        self.leader = winner

    def copy(self) -> Position:
        return Position(self.rules, self.hakem, self.hands[:], self.trick[:], self.leader,
                        self.tricks[:], self.played, self.pile, self.run, self.result)


class NJudge:
    """The double-dummy questions of one round for the side of ``seat``; ``nodes``: the most
    search nodes per question (0: no limit)."""

    def __init__(self, rules: Rules, seat: int, nodes: int = 0) -> None:
        self.rules = rules
        self.side = rules.side_of[seat]
        self.win = rules.variant.tricks_to_win
        self.solver = NSolver(rules, seat, nodes)
        """The search of the questions; its table serves every question of the round."""

    # -- the questions ---------------------------------------------------------------------

    def judge(self, pos: Position) -> Judged:
        """The seat's outcome from ``pos``, exact or (past the budget) bounded."""
        low, high = self.bounds(pos)
        return Judged.of(low, high, lambda: self.playout(pos))

    def outcome(self, pos: Position) -> Outcome:
        """The exact outcome; ``SolverLimit`` past the budget."""
        return settled(self.bounds(pos))

    def bounds(self, pos: Position) -> tuple[Outcome, Outcome]:
        """``exact.bounded``'s bounds of the seat's result from ``pos``."""
        side = self.side
        if pos.over():
            won = pos.result is not None and pos.result[0] == side
            done = Outcome(min(pos.tricks[side], self.win), won,
                           won and pos.result is not None and pos.result[2] in SWEEP_KINDS)
            return done, done
        others = sum(pos.tricks) - pos.tricks[side]
        return bounded(pos.tricks[side], others == 0, self.win,
                       lambda k: self.reaches(pos, k, False),
                       lambda: self.reaches(pos, self.win, True))

    def reaches(self, pos: Position, k: int, sweep: bool) -> bool:
        """Does the side count ``k`` tricks (with ``sweep``: while the others count none)
        before another side counts seven or the tricks run out, whatever the others play?"""
        return self.solver.reaches(pos.hakem, pos.hands, pos.trick, pos.leader, pos.tricks,
                                   pos.played, pos.pile, pos.run, k, sweep)

    @property
    def nodes(self) -> int:
        """Search nodes so far, every question together (the cost)."""
        return self.solver.nodes

    def playout(self, pos: Position) -> Outcome:
        """The round played on from ``pos`` by the bots' card rule, every seat on its own view
        (its hand and the cards still in play; voids are not tracked: every hand is in play)."""
        st = pos.copy()
        while not st.over():
            seat = st.turn
            live = 0
            for h in st.hands:
                live |= h
            options = st.legal()
            st.play(model_play(st.hands, seat, options, live, [0] * self.rules.players,
                               st.trick, self.rules.players))
        side = self.side
        won = st.result is not None and st.result[0] == side
        return Outcome(min(st.tricks[side], self.win), won,
                       won and st.result is not None and st.result[2] in SWEEP_KINDS)
