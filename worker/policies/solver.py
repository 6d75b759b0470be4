"""An exact solver of the race to seven for a position with every hand known (fast cards).

``wins(state, team)`` answers: with best play by both sides from ``state``, does ``team`` win the
round?  It is a boolean alpha-beta search (the team's seats look for one winning card, the other
seats for one refutation) with a transposition table at the start of every trick keyed by the
*shape* of the hands (who holds each card still in play, by rank order, so positions that differ
only in which equivalent small cards are gone share an entry), cards that are equivalent
(adjacent in rank among the cards still in play) tried once, and the rule policy's card tried
first; an entry keeps the most tricks still needed known won and the fewest known lost for its
head start (see :attr:`Solver.memo`).  Cuts that keep the verdict: the race is over when one
side cannot reach seven; the forced last trick is read off directly; without ``double_sar`` a
trick start is decided when the leader's winners, cashed one after another
(``fast.quick_tricks``), take its side to seven; with ``sure`` also when the trumps of one hand
that outrank every trump of the other side (each wins a trick of its own) take that side to
seven.  The round's winner is the first side to count seven tricks; the ``double_sar``
pile is followed exactly; ``bavney`` does not change who wins.  Used by ``search`` when few
cards remain; checked against brute force and the engine in the tests.
"""

from __future__ import annotations

from .fast import BLOCK, TRUMP_BASE, FastState, quick_tricks, sure_tricks
from .fast import legal as legal_cards
from .fast import trick_winner_index
from .playout import choose

_WIN = 7


def representatives(hand_legal: int, in_play: int) -> list[int]:
    """One card per run of ``hand_legal`` cards that no other card of ``in_play`` separates
    (the lowest of each run).  ``in_play`` holds every card that can still matter this round:
    all hands and the open trick."""
    out = []
    m = hand_legal
    while m:
        low = m & -m
        c = low.bit_length() - 1
        m ^= low
        below = in_play & BLOCK[c >> 4] & (low - 1)
        if below and hand_legal >> (below.bit_length() - 1) & 1:
            continue  # the next card down is ours too: same run
        out.append(c)
    return out


def representatives_first(hand_legal: int, in_play: int, first: int) -> list[int]:
    """``representatives``, the one of ``first``'s run (``first`` a card of ``hand_legal``:
    the heuristic's, so the first line searched is its own and ties go to it) moved to the
    front."""
    moves = representatives(hand_legal, in_play)
    pick = 0
    for i, c in enumerate(moves):
        if c <= first and c >> 4 == first >> 4:
            pick = i
    if pick:
        moves.insert(0, moves.pop(pick))
    return moves


_SHAPES: dict[tuple[int, int, int, int], int] = {}
_SHAPES_MAX = 1 << 18


def _shape(h0: int, h1: int, h2: int, h3: int) -> int:
    """Who holds each card of one suit (16-bit masks per hand), highest first, as base-4 digits
    under a leading 1: positions that differ only in which equivalent cards are left share it."""
    key = (h0, h1, h2, h3)
    code = _SHAPES.get(key)
    if code is None:
        code = 1
        m = h0 | h1 | h2 | h3
        while m:
            bit = 1 << (m.bit_length() - 1)
            code = code * 4 + (0 if h0 & bit else 1 if h1 & bit else 2 if h2 & bit else 3)
            m ^= bit
        if len(_SHAPES) >= _SHAPES_MAX:
            _SHAPES.clear()  # a bounded cache: worker processes live long
        _SHAPES[key] = code
    return code


def shape_key(h0: int, h1: int, h2: int = 0, h3: int = 0) -> tuple[int, int, int, int]:
    """Up to four hands (fast masks; the seats of a smaller game, the rest 0) up to the ranks of
    the cards still in play: two positions with the same key differ only in which equivalent
    cards are left, so every search outcome is the same for both."""
    return (_shape(h0 & 0xFFFF, h1 & 0xFFFF, h2 & 0xFFFF, h3 & 0xFFFF),
            _shape(h0 >> 16 & 0xFFFF, h1 >> 16 & 0xFFFF, h2 >> 16 & 0xFFFF, h3 >> 16 & 0xFFFF),
            _shape(h0 >> 32 & 0xFFFF, h1 >> 32 & 0xFFFF, h2 >> 32 & 0xFFFF, h3 >> 32 & 0xFFFF),
            _shape(h0 >> 48, h1 >> 48, h2 >> 48, h3 >> 48))


class SolverLimit(Exception):
    """The solver reached its node limit."""


class Solver:
    """Solves positions of one sampled deal; the table is kept across calls on that deal."""

    __slots__ = ("team", "must_trump", "double_sar", "memo", "nodes", "limit", "sure")

    def __init__(self, team: int, must_trump: bool, double_sar: bool, limit: int = 0,
                 sure: bool = False) -> None:
        self.team = team
        self.must_trump = must_trump
        self.double_sar = double_sar
        self.memo: dict[tuple[object, ...], tuple[int, int]] = {}
        """Per trick start: the hands up to ranks, the leader, the head start (the counts'
        sum less the tricks played, 0 in a plain race), the pile and its run; the most tricks
        the side is known to reach seven with from there and the fewest it is known not to.
        With the head start fixed, needing one more trick means the other side needs one fewer,
        so winning with ``need`` wins with less: the bounds settle every count in between, and
        positions reached with another split of the tricks share them."""
        self.nodes = 0
        self.limit = limit
        """Raise :class:`SolverLimit` once this many nodes are searched (0: no limit); the
        table keeps only exact results, so the solver stays usable after that."""
        self.sure = sure
        """Cut a trick start where the sure trump tricks of one hand already take its side to
        seven (same verdicts, fewer nodes)."""

    def wins(self, state: FastState) -> bool:
        """Does ``self.team`` win the round from ``state`` with best play?"""
        if state.result is not None:
            return state.result[0] == self.team
        t = state.tricks
        run = -1 if state.run_team is None else state.run_team
        return self._node(list(state.hands), list(state.trick), state.leader,
                          t[self.team], t[1 - self.team], state.played, state.pile,
                          run if run < 0 else int(run == self.team))

    def _node(self, hands: list[int], trick: list[int], leader: int, mine: int, theirs: int,
              played: int, pile: int, run: int) -> bool:
        """``mine``/``theirs``: counted tricks; ``run``: -1 none, 1 us, 0 them (double_sar)."""
        self.nodes += 1
        if self.nodes == self.limit:
            raise SolverLimit
        key: tuple[object, ...] | None = None
        if not trick:
            if mine >= _WIN:
                return True
            if theirs >= _WIN:
                return False
            left = 13 - played
            if not self.double_sar:
                if mine + left < _WIN:
                    return False
                if theirs + left < _WIN:
                    return True
                if self.sure:
                    sure_mine, sure_theirs = sure_tricks(hands, self.team)
                    if mine + sure_mine >= _WIN:
                        return True
                    if theirs + sure_theirs >= _WIN:
                        return False
                # the leader cashes its winners: its side is sure of them before any other
                quick = quick_tricks(hands, leader, -1 if self.must_trump else leader ^ 2)
                if (leader & 1) == self.team:
                    if mine + quick >= _WIN:
                        return True
                elif theirs + quick >= _WIN:
                    return False
                if left == 1:
                    # six tricks each: the forced last trick decides
                    led = hands[leader]
                    best, bi = led.bit_length() - 1, 0
                    block = BLOCK[best >> 4]
                    for i in (1, 2, 3):
                        x = hands[(leader + i) & 3].bit_length() - 1
                        if x > best and (x >= TRUMP_BASE or (1 << x) & block):
                            best, bi = x, i
                    return ((leader + bi) & 1) == self.team
            key = (shape_key(hands[0], hands[1], hands[2], hands[3]), leader,
                   mine + theirs - played, pile, run)
            hit = self.memo.get(key)
            if hit is not None:
                if _WIN - mine <= hit[0]:
                    return True
                if _WIN - mine >= hit[1]:
                    return False
        seat = (leader + len(trick)) & 3
        hand = hands[seat]
        legal = legal_cards(hand, trick, self.must_trump)
        if legal & (legal - 1) == 0:
            moves = [legal.bit_length() - 1]
        else:
            in_play = hands[0] | hands[1] | hands[2] | hands[3]
            for c in trick:
                in_play |= 1 << c
            moves = representatives(legal, in_play)
        if len(moves) > 1:
            # the rule policy's card first (the kept card of its run: the highest kept card of
            # its suit not above it)
            first = choose(hands, trick, leader, seat, self.must_trump)
            pick = -1
            for i, c in enumerate(moves):
                if c <= first and c >> 4 == first >> 4:
                    pick = i
            if pick > 0:
                moves.insert(0, moves.pop(pick))
        ours = (seat & 1) == self.team
        result = not ours
        for c in moves:
            bit = 1 << c
            hands[seat] ^= bit
            trick.append(c)
            if len(trick) < 4:
                r = self._node(hands, trick, leader, mine, theirs, played, pile, run)
            else:
                winner = (leader + trick_winner_index(trick)) & 3
                we = (winner & 1) == self.team
                saved = trick[:]
                trick.clear()
                if not self.double_sar:
                    if we:
                        r = self._node(hands, trick, winner, mine + 1, theirs, played + 1, 0, -1)
                    else:
                        r = self._node(hands, trick, winner, mine, theirs + 1, played + 1, 0, -1)
                else:
                    side = 1 if we else 0
                    if run == side or played + 1 == 13:
                        gain = pile + 1
                        if we:
                            r = self._node(hands, trick, winner, mine + gain, theirs,
                                           played + 1, 0, -1)
                        else:
                            r = self._node(hands, trick, winner, mine, theirs + gain,
                                           played + 1, 0, -1)
                    else:
                        r = self._node(hands, trick, winner, mine, theirs, played + 1,
                                       pile + 1, side)
                trick.extend(saved)
            trick.pop()
            hands[seat] ^= bit
            if r == ours:
                result = ours
                break
        if key is not None:
            yes, no = self.memo.get(key, (0, 99))
            self.memo[key] = (max(yes, _WIN - mine), no) if result else (yes, min(no, _WIN - mine))
        return result
