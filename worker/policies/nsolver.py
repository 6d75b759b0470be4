"""The double-dummy search of the games of two and three players, and their trick count.

:func:`count_trick` counts a trick as the engine does (``double_sar`` piles, ``bavney``: the
engine's own ``round_outcome``); the bots' playouts (``nseat.py``) and this search share it.

:class:`NSolver` answers one question for the side of one seat, every hand known: "does the side
count ``k`` tricks (with ``sweep``: while no other side counts one) before another side counts
seven or the tricks run out, whatever the others play?".  The others play *together* against
the side (with three players the paranoid reading; ``worker.analysis.nexact`` builds its
judgements on these answers and says what they mean).  A boolean search:

* a table at trick starts of the four-player solver's kind (``solver.Solver``: a verdict holds
  for every position with the same lengths and the same holders of the top cards whose ranks it
  read), by the leader, the counts, the ``double_sar`` pile and whether the question is a
  sweep; it keeps the largest ``k`` known reachable and the smallest known not (reaching ``k``
  implies reaching every smaller one), so the questions of a bisection share what each
  settled;
* at a trick start the leader's winners (``fast.quick_tricks``) are counted as cashed: they take
  the side to ``k``, or another side to seven, before anyone else counts a trick;
* a question is given up once the tricks left (and the pile) cannot make ``k``;
* equivalent cards are searched once (``solver.representatives``), the cards that take the
  trick so far first.

Past ``limit`` nodes a question raises ``solver.SolverLimit`` (the table keeps only settled
answers, so the solver stays usable).  Compiled with mypyc (``setup.py``).
"""

from __future__ import annotations

from engine.decide import round_outcome
from engine.rules import Rules

from .fast import TRUMP_BASE, legal, quick_tricks, trick_winner_index
from .solver import (NO_CODES, SolverLimit, probe, quick_rel, remember, representatives,
                     suit_codes, top_of, winner_read)


def count_trick(rules: Rules, hakem_side: int, tricks: list[int], side: int, played: int,
                pile: int, run: int | None) -> tuple[int, int | None, tuple[int, int, str] | None]:
    """Count the trick ``played`` (1-based) won by ``side`` as the engine does: into ``tricks``
    (changed in place), or with ``double_sar`` onto the pile until a side wins two in a row (or
    the last trick); the pile and its run after it, and the round's outcome if it ends here."""
    if not rules.double_sar:
        tricks[side] += 1
        if not rules.bavney and max(tricks) < rules.variant.tricks_to_win:
            return pile, run, None  # (round_outcome's answer, without its call: the hot path)
        return pile, run, round_outcome(rules, hakem_side, tricks, side, played)
    if run == side or played == rules.hand_size:
        tricks[side] += pile + 1
        return 0, None, round_outcome(rules, hakem_side, tricks, side, played)
    return pile + 1, side, None


class NSolver:
    """The questions of one round (one trump) for the side of ``seat``; ``limit``: the most
    nodes a question may search (0: no limit)."""

    def __init__(self, rules: Rules, seat: int, limit: int = 0, whole: bool = False) -> None:
        self.rules = rules
        self.n = rules.players
        self.side_of: tuple[int, ...] = tuple(rules.side_of)
        self.side = self.side_of[seat]
        self.win = rules.variant.tricks_to_win
        self.hand_size = rules.hand_size
        self.must_trump = rules.must_trump
        self.double_sar = rules.double_sar
        self.limit = limit
        self.table: dict[tuple[object, ...], dict[tuple[int, ...], list[int]]] = {}
        """Per trick start, by the hands' lengths in each suit, the leader, the counts, the
        pile and its run and whether the question is a sweep: for each pattern of top cards
        read (``solver.pattern_of``) the largest ``k`` known reachable and the smallest known
        not."""
        self.whole = whole
        """Keep every verdict for the ranks of all the cards in play (the tests' reference)."""
        self.rel = 0
        """Set by every node searched: the cards (fast bits) whose ranks its verdict read."""
        self.hakem_side = 0
        self.count = 0
        """Nodes of the current question."""
        self.nodes = 0
        """Nodes searched so far, every question together (the cost)."""

    def reaches(self, hakem: int, hands: list[int], trick: list[int], leader: int,
                tricks: list[int], played: int, pile: int, run: int | None, k: int,
                sweep: bool) -> bool:
        """The question for the position (hands as fast masks per seat, the open trick in play
        order from ``leader``, the counts per side, the tricks finished); the lists are copied.
        ``SolverLimit`` past the limit."""
        if tricks[self.side] >= k:
            return True
        # the Hakem's side names a sweep's kind (kot or Hakem koti), never whether it ends
        self.hakem_side = self.side_of[hakem]
        self.count = 0
        try:
            return self._node(hands[:], trick[:], leader, tricks[:], played, pile, run, k, sweep)
        finally:
            self.nodes += self.count

    def _node(self, hands: list[int], trick: list[int], leader: int, tricks: list[int],
              played: int, pile: int, run: int | None, k: int, sweep: bool) -> bool:
        self.count += 1
        if self.limit and self.count > self.limit:
            raise SolverLimit
        n = self.n
        self.rel = 0
        bucket: dict[tuple[int, ...], list[int]] | None = None
        codes = NO_CODES
        in_play = 0
        for h in hands:
            in_play |= h
        if not trick:
            codes, lengths = suit_codes(hands)
            key = (lengths, leader, tuple(tricks), pile, run, sweep)
            bucket = self.table.get(key)
            if bucket is None:
                bucket = self.table[key] = {}
            hit = probe(bucket, codes, k)
            if hit is not None:
                self.rel = top_of(in_play, hit)
                return k <= bucket[hit][0]
            if not self.double_sar:
                # the leader cashes its winners before any other seat counts a trick
                quick = quick_tricks(hands, leader, -1)
                lead_side = self.side_of[leader]
                if lead_side == self.side:
                    if tricks[lead_side] + quick >= k:
                        self.rel = quick_rel(hands, leader, -1, k - tricks[lead_side])
                        return True
                elif quick and (sweep or tricks[lead_side] + quick >= self.win):
                    self.rel = quick_rel(hands, leader, -1,
                                         1 if sweep else self.win - tricks[lead_side])
                    return False
        turn = (leader + len(trick)) % n
        mine = self.side_of[turn] == self.side
        everything = in_play
        for c in trick:
            everything |= 1 << c
        moves = _ordered(representatives(legal(hands[turn], trick, self.must_trump),
                                         everything), trick)
        out = not mine
        rel = 0
        for card in moves:
            hands[turn] ^= 1 << card
            trick.append(card)
            if len(trick) < n:
                value = self._node(hands, trick, leader, tricks, played, pile, run, k, sweep)
                crel = self.rel
            else:
                value = self._trick_done(hands, trick, leader, tricks, played, pile, run, k,
                                         sweep)
                crel = self.rel | winner_read(trick, trick_winner_index(trick))
            trick.pop()
            hands[turn] ^= 1 << card
            if value == mine:
                out = mine
                rel = crel
                break
            rel |= crel
        if bucket is not None:
            rel = remember(bucket, rel, hands, in_play, codes, k, out, self.whole)
        self.rel = rel
        return out

    def _trick_done(self, hands: list[int], trick: list[int], leader: int, tricks: list[int],
                    played: int, pile: int, run: int | None, k: int, sweep: bool) -> bool:
        self.rel = 0
        winner = (leader + trick_winner_index(trick)) % self.n
        counts = tricks[:]
        played += 1
        pile, run, result = count_trick(self.rules, self.hakem_side, counts,
                                        self.side_of[winner], played, pile, run)
        side = self.side
        others = sum(counts) - counts[side]
        if sweep and others:
            return False
        if counts[side] >= k:
            return True
        if result is not None or played >= self.hand_size \
                or counts[side] + pile + self.hand_size - played < k:  # (not enough left)
            return False
        for s, c in enumerate(counts):
            if s != side and c >= self.win:
                return False
        return self._node(hands, [], winner, counts, played, pile, run, k, sweep)


def _ordered(moves: list[int], trick: list[int]) -> list[int]:
    """Cards that take the trick so far first (lowest first), then the others lowest first;
    leading, the highest first."""
    if not trick:
        return moves[::-1]
    best = trick[trick_winner_index(trick)]
    led = trick[0] >> 4
    win: list[int] = []
    lose: list[int] = []
    for c in moves:  # (trick_winner_index's rule against the card winning so far)
        (win if c > best and (c >= TRUMP_BASE or c >> 4 == led) else lose).append(c)
    return win + lose
