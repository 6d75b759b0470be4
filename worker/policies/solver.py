"""An exact solver of the race to seven for a position with every hand known (fast cards).

``wins(state, team)`` answers: with best play by both sides from ``state``, does ``team`` win the
round?  It is a boolean alpha-beta search (the team's seats look for one winning card, the other
seats for one refutation), cards that are equivalent (adjacent in rank among the cards still in
play) tried once and the rule policy's card tried first, with a transposition table at the start
of every trick in the manner of partition search (Ginsberg) and the "winning ranks" of bridge
double-dummy solvers: every verdict also says which cards' ranks it read (``Solver.rel``: the
cards that took a trick against another card of their suit, and what the cuts below looked at),
and it is stored for every position with the same lengths in each hand and the same holders of
those cards, closed upwards in each suit (the top cards of each suit, by rank among the cards
still in play); the other cards are "small" and interchangeable.  An entry keeps the most tricks
still needed known won and the fewest known lost for its head start (see :attr:`Solver.memo`).
Cuts that keep the verdict: the race is over when one side cannot reach seven; the forced last
trick is read off directly; without ``double_sar`` a trick start is decided when the leader's
winners, cashed one after another (``fast.quick_tricks``), take its side to seven; with ``sure``
also when the trumps of one hand that outrank every trump of the other side (each wins a trick
of its own before the cards run out) leave the other side short of seven.  The round's winner
is the first side to count seven tricks; the ``double_sar`` pile is followed exactly; ``bavney``
does not change who wins.  Used by ``search`` when few cards remain and by the post-match
analysis; checked against brute force and the engine in the tests.
"""

from __future__ import annotations

from typing import Final

from .fast import BLOCK, TRUMP, FastState, plain_cap, quick_tricks, suit_winners, sure_tricks
from .fast import legal as legal_cards
from .fast import trick_winner_index
from .playout import choose

_WIN: Final = 7


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
    to_front(moves, first)
    return moves


def stands_for(moves: list[int], card: int) -> int:
    """The card of ``moves`` (representatives) that stands for ``card``: the highest of its
    suit not above it, or -1."""
    pick = -1
    for c in moves:
        if c <= card and c >> 4 == card >> 4 and c > pick:
            pick = c
    return pick


def to_front(moves: list[int], first: int) -> None:
    """Move the card of ``moves`` that stands for ``first`` to the front, in place."""
    pick = stands_for(moves, first)
    if pick >= 0 and moves[0] != pick:
        moves.remove(pick)
        moves.insert(0, pick)


NO_CODES: list[int] = []
"""The suit codes of a node inside a trick (none: only trick starts are in the table)."""


def shape_counts(h0: int, h1: int, h2: int, h3: int) -> tuple[int, int]:
    """One suit of four hands (16-bit masks): who holds each card, highest first, as base-4
    digits under a leading 1 (positions that differ only in which equivalent cards are left
    share it, and its top digits are the holders of the top cards), and the hands' lengths in
    it (4 bits each)."""
    code = 1
    m = h0 | h1 | h2 | h3
    while m:
        bit = 1 << (m.bit_length() - 1)
        code = code * 4 + (0 if h0 & bit else 1 if h1 & bit else 2 if h2 & bit else 3)
        m ^= bit
    return code, (h0.bit_count() | h1.bit_count() << 4 | h2.bit_count() << 8
                  | h3.bit_count() << 12)


def top_closed(rel: int, hands: list[int], in_play: int) -> int:
    """``rel`` with, in each suit where it holds a card, every card in ``hands`` above, and the
    rest of the lowest one's run below it (the cards of the same hand next to it in rank among
    the cards in play): the search tried one card of each run, so the cards of a run are read
    together, and no run is split between the cards read and the small ones.  ``in_play``:
    the hands' cards together."""
    out = 0
    for b in range(4):
        m = rel & BLOCK[b]
        if m:
            low = m & -m
            out |= in_play & BLOCK[b] & -low
            holder = 0
            for h in hands:
                if h & low:
                    holder = h
            below = in_play & BLOCK[b] & (low - 1)
            while below:
                nxt = 1 << (below.bit_length() - 1)
                if not holder & nxt:
                    break
                out |= nxt
                below ^= nxt
    return out


def suit_codes(hands: list[int]) -> tuple[list[int], int]:
    """Per suit the ``shape_counts`` code of up to four hands (a smaller game's missing seats
    empty), and every hand's length in every suit packed in one number (the table's bucket)."""
    h1 = hands[1] if len(hands) > 1 else 0
    h2 = hands[2] if len(hands) > 2 else 0
    h3 = hands[3] if len(hands) > 3 else 0
    codes = []
    lengths = 0
    for b in range(4):
        sh = 16 * b
        code, counts = shape_counts(hands[0] >> sh & 0xFFFF, h1 >> sh & 0xFFFF,
                                    h2 >> sh & 0xFFFF, h3 >> sh & 0xFFFF)
        codes.append(code)
        lengths = lengths << 16 | counts
    return codes, lengths


def matches(codes: list[int], pattern: tuple[int, ...]) -> bool:
    """Whether a position with these suit codes (and the bucket's lengths) holds the top cards
    of ``pattern`` as its entry did."""
    return (codes[0] >> pattern[4] == pattern[0] and codes[1] >> pattern[5] == pattern[1]
            and codes[2] >> pattern[6] == pattern[2] and codes[3] >> pattern[7] == pattern[3])


def winner_read(trick: list[int], wi: int) -> int:
    """The trick's winning card (``trick[wi]``, as a bit) when its rank decided the trick:
    another card of its suit was played to it; else 0 (it won by suit alone)."""
    top = trick[wi]
    for i in range(len(trick)):
        if i != wi and trick[i] >> 4 == top >> 4:
            return 1 << top
    return 0


def probe(bucket: dict[tuple[int, ...], list[int]], codes: list[int],
          value: int) -> tuple[int, ...] | None:
    """The first pattern of ``bucket`` that the position (its suit ``codes``) matches and whose
    bounds settle ``value`` (at most the largest known won, or at least the smallest known
    lost), or ``None``."""
    for pattern, bounds in bucket.items():
        if bounds[0] < value < bounds[1]:
            continue
        if matches(codes, pattern):
            return pattern
    return None


def remember(bucket: dict[tuple[int, ...], list[int]], rel: int, hands: list[int],
             in_play: int, codes: list[int], value: int, won: bool, whole: bool) -> int:
    """Store a trick start's verdict for ``value`` under the cards its search read (``rel``,
    closed by ``top_closed``; every card in play with ``whole``): it holds wherever the hands
    have these lengths and the same holders of those top cards.  Returns the closed cards,
    what the trick start itself read."""
    rel = in_play if whole else top_closed(rel, hands, in_play)
    record(bucket, pattern_of(rel, in_play, codes), value, won)
    return rel


def record(bucket: dict[tuple[int, ...], list[int]], pattern: tuple[int, ...], value: int,
           won: bool) -> None:
    """Keep a verdict for ``value`` under ``pattern``: the largest value known won, the
    smallest known lost (winning with a value wins with less)."""
    bounds = bucket.get(pattern)
    if bounds is None:
        bounds = bucket[pattern] = [-1, 99]
    if won:
        if value > bounds[0]:
            bounds[0] = value
    elif value < bounds[1]:
        bounds[1] = value


def pattern_of(rel: int, in_play: int, codes: list[int]) -> tuple[int, ...]:
    """A table entry's pattern: per suit the holders of its top cards in ``rel`` (``codes``:
    the suits' ``shape_counts`` codes, whose top digits they are), then the shifts that cut
    each code down to them."""
    shifts = []
    out = []
    for b in range(4):
        drop = 2 * ((in_play & BLOCK[b]).bit_count() - (rel & BLOCK[b]).bit_count())
        shifts.append(drop)
        out.append(codes[b] >> drop)
    return (out[0], out[1], out[2], out[3], shifts[0], shifts[1], shifts[2], shifts[3])


def top_of(in_play: int, pattern: tuple[int, ...]) -> int:
    """The cards of ``in_play`` that a matching ``pattern`` reads: the top ones of each suit,
    all but ``shift / 2`` of them."""
    out = 0
    for b in range(4):
        m = in_play & BLOCK[b]
        for _ in range(pattern[4 + b] >> 1):
            m &= m - 1
        out |= m
    return out


def quick_rel(hands: list[int], leader: int, friend: int, need: int) -> int:
    """The cards whose ranks make ``fast.quick_tricks`` (same ``friend``) count at least
    ``need``: in the fewest suits that reach it (trumps first, then the plain suits that count
    most), the leader's cards above every other hand's and the highest of the others'.  A
    position with the same lengths and the same holders of these cards counts as many in those
    suits and no fewer in the others (the rest of the count is lengths: who can ruff, the
    partner's other cards)."""
    counts = [suit_winners(hands, leader, friend, b) for b in range(4)]
    chosen = [3] if counts[3] else []
    total = counts[3]
    if total < need:
        plain = sorted((b for b in range(3) if counts[b]), key=lambda b: -counts[b])
        counted = 0
        cap = plain_cap(hands, friend)
        for b in plain:
            chosen.append(b)
            counted += counts[b]
            if total + min(counted, cap) >= need:
                break
    out = 0
    for b in chosen:
        block = BLOCK[b]
        others = 0
        for s in range(len(hands)):
            if s != leader:
                others |= hands[s] & block
        if others:
            out |= (hands[leader] | others) & block & (-1 << (others.bit_length() - 1))
    return out


def sure_rel(hands: list[int], team: int, need: int) -> int:
    """The trumps whose ranks make ``fast.sure_tricks`` give ``team`` at least ``need``: from
    the top down to the ``need``-th of its hand's trumps above every trump of the other side
    (none when that side holds no trump: the count is then a length)."""
    opp = (hands[1 - team] | hands[3 - team]) & TRUMP
    if not opp:
        return 0
    every = (hands[0] | hands[1] | hands[2] | hands[3]) & TRUMP
    above = -1 << opp.bit_length()
    for h in (hands[team], hands[team + 2]):
        m = h & TRUMP & above
        if m.bit_count() >= need:
            for _ in range(m.bit_count() - need):
                m &= m - 1  # the lowest dropped: the need-th highest is left lowest
            return every & -(m & -m)
    return every


class SolverLimit(Exception):
    """The solver reached its node limit."""


class Solver:
    """Solves positions of one sampled deal; the table is kept across calls on that deal."""

    __slots__ = ("team", "must_trump", "double_sar", "memo", "nodes", "limit", "sure", "rel",
                 "whole")

    def __init__(self, team: int, must_trump: bool, double_sar: bool, limit: int = 0,
                 sure: bool = False, whole: bool = False) -> None:
        self.team = team
        self.must_trump = must_trump
        self.double_sar = double_sar
        self.memo: dict[tuple[int, ...], dict[tuple[int, ...], list[int]]] = {}
        """Per trick start, by the hands' lengths in each suit, the leader, the head start (the
        counts' sum less the tricks played, 0 in a plain race), the pile and its run: for each
        pattern of top cards read (``pattern_of``) the most tricks the side is known to reach
        seven with from there and the fewest it is known not to.  With the head start fixed,
        needing one more trick means the other side needs one fewer, so winning with ``need``
        wins with less: the bounds settle every count in between, and positions reached with
        another split of the tricks share them."""
        self.whole = whole
        """Store every verdict for the ranks of all the cards in play (the table of one
        position up to equivalent cards, as before the winning ranks; the tests' reference)."""
        self.rel = 0
        """Set by every node searched: the cards (fast bits) whose ranks its verdict read."""
        self.nodes = 0
        self.limit = limit
        """Raise :class:`SolverLimit` once this many nodes are searched (0: no limit); the
        table keeps only exact results, so the solver stays usable after that."""
        self.sure = sure
        """Cut a trick start where the sure trump tricks of one side leave the other short of
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
        """``mine``/``theirs``: counted tricks; ``run``: -1 none, 1 us, 0 them (double_sar).
        Sets ``self.rel``: the cards whose ranks the verdict read (see ``memo``)."""
        self.nodes += 1
        if self.nodes == self.limit:
            raise SolverLimit
        self.rel = 0
        bucket: dict[tuple[int, ...], list[int]] | None = None
        in_play = hands[0] | hands[1] | hands[2] | hands[3]
        codes = NO_CODES
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
                    # each sure trump wins a trick of its own before the cards run out: the
                    # other side cannot reach seven on what is left beside them
                    sure_mine, sure_theirs = sure_tricks(hands, self.team)
                    if theirs + left - sure_mine < _WIN:
                        self.rel = sure_rel(hands, self.team, theirs + left + 1 - _WIN)
                        return True
                    if mine + left - sure_theirs < _WIN:
                        self.rel = sure_rel(hands, 1 - self.team, mine + left + 1 - _WIN)
                        return False
                # the leader cashes its winners: its side is sure of them before any other
                friend = -1 if self.must_trump else leader ^ 2
                quick = quick_tricks(hands, leader, friend)
                if (leader & 1) == self.team:
                    if mine + quick >= _WIN:
                        self.rel = quick_rel(hands, leader, friend, _WIN - mine)
                        return True
                elif theirs + quick >= _WIN:
                    self.rel = quick_rel(hands, leader, friend, _WIN - theirs)
                    return False
                if left == 1:
                    # six tricks each: the forced last trick decides (read as any trick is)
                    last = [hands[(leader + i) & 3].bit_length() - 1 for i in range(4)]
                    bi = trick_winner_index(last)
                    self.rel = winner_read(last, bi)
                    return ((leader + bi) & 1) == self.team
            codes, lengths = suit_codes(hands)
            bkey = (lengths, leader, mine + theirs - played, pile, run)
            bucket = self.memo.get(bkey)
            if bucket is None:
                bucket = self.memo[bkey] = {}
            hit = probe(bucket, codes, _WIN - mine)
            if hit is not None:
                self.rel = top_of(in_play, hit)
                return _WIN - mine <= bucket[hit][0]
        seat = (leader + len(trick)) & 3
        hand = hands[seat]
        legal = legal_cards(hand, trick, self.must_trump)
        if legal & (legal - 1) == 0:
            moves = [legal.bit_length() - 1]
        else:
            everything = in_play
            for c in trick:
                everything |= 1 << c
            moves = representatives(legal, everything)
        if len(moves) > 1:
            to_front(moves, choose(hands, trick, leader, seat, self.must_trump))  # rule's card
        ours = (seat & 1) == self.team
        result = not ours
        rel = 0
        for c in moves:
            bit = 1 << c
            hands[seat] ^= bit
            trick.append(c)
            if len(trick) < 4:
                r = self._node(hands, trick, leader, mine, theirs, played, pile, run)
                crel = self.rel
            else:
                wi = trick_winner_index(trick)
                winner = (leader + wi) & 3
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
                crel = self.rel | winner_read(saved, wi)
                trick.extend(saved)
            trick.pop()
            hands[seat] ^= bit
            if r == ours:
                result = ours
                rel = crel
                break
            rel |= crel
        if bucket is not None:
            rel = remember(bucket, rel, hands, in_play, codes, _WIN - mine, result, self.whole)
        self.rel = rel
        return result
