"""The best response of one side to opponents who play the heuristic, in one sampled deal.

``Response(team, must_trump).wins(state, voids)`` answers: if every opponent plays
``heuristic.play`` on what it would know (its own hand, the cards played, the voids shown) and
the side ``team`` chooses its cards knowing the deal, can ``team`` win the race to seven?  The
opponents' cards are forced, so the tree branches only at the side's own seats (with
``partner=False`` only at ``me``; the partner then plays the heuristic too): a boolean OR search
with a table at trick starts, equivalent cards tried once and the heuristic's card first, so the
first line searched is the heuristic playout itself; sure trump tricks end the search early.

Why: the search scores a candidate card in a sampled deal.  The exact solver assumes opponents
who see every hand, a heuristic playout assumes a side that never plans; this assumes the
opponents the behaviour model (``inference.py``) already assumes, and a side that plans.
Measured with the clairvoyant probe (``bench/bots_arena/ceiling.py``): scoring cards on the true
deal this way beats the heuristic far more often than the exact solver does.

Only the race to seven without the ``double_sar`` pile (the search falls back otherwise);
``bavney`` does not change who wins.  The table and the sure-trick cut are exact (checked
against a search without them in the tests).  Trying one card of each run of equal cards is
not quite: heuristic opponents count the unseen cards that outrank the trick's best, and the
side's own equal cards are among them, so leading the lowest or the top of a run can differ.
Trying every card costs about 2.2x the nodes at 8 cards; the verdicts differed in none of 480
fixed positions (tests/worker/test_response.py), so the response keeps the approximation.
"""

from __future__ import annotations

from collections.abc import Sequence

from .fast import FastState, legal, mask_of, sure_tricks, trick_winner_index, voids_after
from .heuristic import play
from .solver import SolverLimit, representatives_first

_WIN = 7


class Response:
    """Best response of ``team`` (seat ``me`` and, with ``partner``, its partner) in one deal;
    the table is kept across calls on that deal."""

    __slots__ = ("team", "me", "partner", "must_trump", "memo", "nodes", "limit", "need_mine",
                 "need_theirs")

    def __init__(self, me: int, must_trump: bool, partner: bool = True, limit: int = 0) -> None:
        self.me = me
        self.team = me & 1
        self.partner = partner
        self.must_trump = must_trump
        self.memo: dict[tuple[int, ...], bool] = {}
        self.nodes = 0
        self.limit = limit and max(limit, 60)
        """Raise :class:`~worker.policies.solver.SolverLimit` once this many nodes are searched
        (0: no limit; at least 60, so the first line, the heuristic's own cards, is always
        searched to its end); the table keeps only exact results."""
        self.need_mine = _WIN
        self.need_theirs = _WIN
        """The goal of the search: the side counts ``need_mine`` tricks before the others count
        ``need_theirs`` (7 and 7: the race to seven; see ``sweeps`` and ``escapes``)."""

    def wins(self, state: FastState, voids: Sequence[int]) -> bool:
        """Can the side win from ``state`` (no ``double_sar``), the opponents' voids shown so far
        being ``voids`` (block bits per seat)?"""
        return self._goal(state, voids, _WIN, _WIN)

    def sweeps(self, state: FastState, voids: Sequence[int]) -> bool:
        """Can the side take seven tricks before the others take one (a kot for the Hakem's
        side, a Hakem koti for the defenders; without ``bavney``)?"""
        return self._goal(state, voids, _WIN, 1)

    def escapes(self, state: FastState, voids: Sequence[int]) -> bool:
        """Can the side take a trick before the others count seven (escape their sweep)?"""
        return self._goal(state, voids, 1, _WIN)

    def wins_from(self, hands: list[int], trick: list[int], leader: int, mine: int,
                  theirs: int, voids: list[int]) -> bool:
        """``wins`` from a position given by its parts (``mine``/``theirs``: the side's and the
        others' tricks; no ``double_sar``; the lists are restored before it returns)."""
        if mine >= _WIN and not trick:
            return True
        self.need_mine = _WIN
        self.need_theirs = _WIN
        return self._node(hands, trick, leader, mine, theirs, voids)

    def _goal(self, state: FastState, voids: Sequence[int], need_mine: int, need_theirs: int
              ) -> bool:
        t = state.tricks
        mine, theirs = t[self.team], t[1 - self.team]
        if state.result is not None:
            if state.result[0] == self.team:
                return mine >= need_mine and theirs < need_theirs
            return mine >= need_mine
        self.need_mine = need_mine
        self.need_theirs = need_theirs
        return self._node(list(state.hands), list(state.trick), state.leader, mine, theirs,
                          list(voids))

    def _node(self, hands: list[int], trick: list[int], leader: int, mine: int, theirs: int,
              voids: list[int]) -> bool:
        self.nodes += 1
        if self.nodes >= self.limit > 0:
            raise SolverLimit
        key: tuple[int, ...] = ()
        if not trick:
            need_mine, need_theirs = self.need_mine, self.need_theirs
            if mine >= need_mine:
                return True
            if theirs >= need_theirs:
                return False
            left = hands[leader].bit_count()  # tricks still to play
            if mine + left < need_mine:
                return False
            if theirs + left < need_theirs:
                return True  # the others cannot reach theirs, so the side reaches seven
            # sure tricks count however anyone plays, the heuristic opponents included: the
            # others surely winning the race defeats a goal that needs the side to win it, the
            # side surely winning it reaches a goal that winning it implies
            sure_mine, sure_theirs = sure_tricks(hands, self.team)
            if need_mine == _WIN and theirs + sure_theirs >= _WIN:
                return False
            if need_theirs == _WIN and mine + sure_mine >= _WIN:
                return True
            key = (hands[0], hands[1], hands[2], hands[3], leader, mine, voids[0], voids[1],
                   voids[2], voids[3], need_mine * 8 + need_theirs)
            hit = self.memo.get(key)
            if hit is not None:
                return hit
        seat = (leader + len(trick)) & 3
        hand = hands[seat]
        allowed = legal(hand, trick, self.must_trump)
        if allowed & (allowed - 1) == 0:
            moves = [allowed.bit_length() - 1]
        else:
            unseen = (hands[0] | hands[1] | hands[2] | hands[3]) ^ hand
            first = play(hand, allowed, unseen, voids, trick, leader, seat)[0]
            if seat == self.me or (self.partner and (seat & 1) == self.team):
                moves = representatives_first(allowed, unseen | hand | mask_of(trick), first)
            else:
                moves = [first]
        result = False
        for c in moves:
            v = voids_after(voids, seat, trick, c, self.must_trump)
            hands[seat] = hand ^ (1 << c)
            trick.append(c)
            if len(trick) < 4:
                r = self._node(hands, trick, leader, mine, theirs, v)
            else:
                winner = (leader + trick_winner_index(trick)) & 3
                saved = trick[:]
                trick.clear()
                if (winner & 1) == self.team:
                    r = self._node(hands, trick, winner, mine + 1, theirs, v)
                else:
                    r = self._node(hands, trick, winner, mine, theirs + 1, v)
                trick.extend(saved)
            trick.pop()
            hands[seat] = hand
            if r:
                result = True
                break
        if key:
            self.memo[key] = result
        return result


__all__ = ["Response"]
