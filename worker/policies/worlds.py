"""The seat's best response over a set of sampled deals at once, without strategy fusion.

``Worlds(me, must_trump, responders, depth).wins(hands, trick, leader, mine, theirs, voids)``
answers, for every deal of a set (``hands[w]``, the four hands of deal ``w``; every deal holds
the same cards for seat ``me`` and shares the public position: the open trick, the leader, the
trick counts, the shown voids): in which deals does the side ``me & 1`` win the race to seven,
when every other seat (the partner included) plays ``heuristic.play`` on what it would know and
the seat ``me`` chooses its next ``depth`` cards *from what it sees*, not from the deal?

Why: ``response.Response`` answers the same question in one deal, where the seat chooses every
card knowing that deal (strategy fusion: a card that needs a guess later looks as good as one
that needs none, because in each sampled deal the guess is made right).  Here the heuristic
seats are deterministic given their hands, so the deals that show the same cards stay together
(the seat cannot tell them apart) and the seat picks one card for all of them, the one that
wins in most of them; deals that show different cards split, as the seat's knowledge does.
After ``depth`` such decisions, or once a set holds one deal, each deal is finished by its
``Response`` (the seat then plans seeing it, as before).  ``depth = 0`` is exactly the
per-deal best response.

The result is a bit mask over the deal indices.  Its count never exceeds the per-deal best
response's (one card for several deals can only do worse than one card for each), which the
tests check, with the brute force over every fusion-free plan on small endings.
"""

from __future__ import annotations

from engine.rules import Rules

from .fast import FastState, legal, mask_of, trick_winner_index, voids_after
from .heuristic import play
from .playout import heuristic_playout
from .response import Response
from .solver import representatives_first

_WIN = 7


class Worlds:
    """Fusion-free best response of seat ``me`` over the deals ``hands`` (changed during a
    call and restored); ``responders[w]`` finishes deal ``w`` (its table is kept)."""

    __slots__ = ("me", "team", "must_trump", "responders", "depth", "hands", "nodes", "rules",
                 "cards", "shift", "extreme")

    def __init__(self, me: int, must_trump: bool, responders: list[Response], depth: int,
                 rules: Rules | None = None) -> None:
        self.me = me
        self.team = me & 1
        self.must_trump = must_trump
        self.responders = responders
        self.depth = depth
        self.rules = rules
        """With rules (no ``double_sar``), a deal is finished by a heuristic playout (every
        seat, this one too, on what it would know) instead of its responder."""
        self.hands: list[list[int]] = []
        self.nodes = 0
        """Nodes of this search (the responders count their own)."""
        self.cards = 0
        """Cards played in the finishing playouts."""
        self.shift = 0
        self.extreme = 0
        """After ``wins``: the deals whose round ends in a sweep (seven tricks to none, either
        way) in the plan found, as far as the search sees it: trick counts it reached and the
        finishing playouts, not the responders (bit ``w`` for deal ``w``)."""

    def wins(self, hands: list[list[int]], trick: list[int], leader: int, mine: int,
             theirs: int, voids: list[int]) -> int:
        """The deals (bit ``w`` for ``hands[w]``) the side wins from this position."""
        self.hands = hands
        self.shift = n = len(hands)
        r = self._node(list(range(n)), trick, leader, mine, theirs, voids, self.depth)
        self.extreme = r >> n
        return r & ((1 << n) - 1)

    def _node(self, idx: list[int], trick: list[int], leader: int, mine: int, theirs: int,
              voids: list[int], left: int) -> int:
        self.nodes += 1
        if not trick:
            if mine >= _WIN:
                m = mask_of(idx)
                return m | (m << self.shift) if theirs == 0 else m
            if theirs >= _WIN:
                return mask_of(idx) << self.shift if mine == 0 else 0
        if len(idx) == 1 or left <= 0:
            out = 0
            if self.rules is not None:
                for w in idx:
                    out |= self._playout(self.hands[w], trick, leader, mine, theirs,
                                         voids) << w
                return out
            for w in idx:
                if self.responders[w].wins_from(self.hands[w], trick, leader, mine, theirs,
                                                voids):
                    out |= 1 << w
            return out
        seat = (leader + len(trick)) & 3
        if seat == self.me:
            h = self.hands[idx[0]]
            hand = h[seat]
            allowed = legal(hand, trick, self.must_trump)
            if allowed & (allowed - 1) == 0:
                return self._play(idx, seat, allowed.bit_length() - 1, trick, leader, mine,
                                  theirs, voids, left)
            live = h[0] | h[1] | h[2] | h[3]
            unseen = live ^ hand  # the others' cards, the same in every deal of the group
            in_play = live
            for c in trick:
                in_play |= 1 << c
            first = play(hand, allowed, unseen, voids, trick, leader, seat)[0]
            moves = representatives_first(allowed, in_play, first)  # ties go to the heuristic
            best = -1
            best_mask = 0
            everything = len(idx)
            low = (1 << self.shift) - 1
            for c in moves:
                m = self._play(idx, seat, c, trick, leader, mine, theirs, voids, left - 1)
                n = (m & low).bit_count()
                if n > best:
                    best, best_mask = n, m
                    if n == everything:
                        break
            return best_mask
        groups: dict[int, list[int]] = {}
        for w in idx:
            h = self.hands[w]
            hand = h[seat]
            allowed = legal(hand, trick, self.must_trump)
            if allowed & (allowed - 1) == 0:
                c = allowed.bit_length() - 1
            else:
                unseen = (h[0] | h[1] | h[2] | h[3]) ^ hand
                c = play(hand, allowed, unseen, voids, trick, leader, seat)[0]
            g = groups.get(c)
            if g is None:
                groups[c] = [w]
            else:
                g.append(w)
        out = 0
        for c, g in groups.items():
            out |= self._play(g, seat, c, trick, leader, mine, theirs, voids, left)
        return out

    def _playout(self, hands: list[int], trick: list[int], leader: int, mine: int,
                 theirs: int, voids: list[int]) -> int:
        """1 for a round won, plus ``1 << shift`` for a sweep either way."""
        assert self.rules is not None
        team = self.team
        tricks = [mine, theirs] if team == 0 else [theirs, mine]
        st = FastState(hands[:], trick[:], leader, tricks, 0, 0, self.rules)
        before = hands[0] | hands[1] | hands[2] | hands[3]
        won = heuristic_playout(st, voids[:]) == team
        h = st.hands
        self.cards += (before ^ (h[0] | h[1] | h[2] | h[3])).bit_count()
        t = st.tricks
        swept = t[0] == 0 or t[1] == 0
        return int(won) | (int(swept) << self.shift)

    def _play(self, idx: list[int], seat: int, c: int, trick: list[int], leader: int,
              mine: int, theirs: int, voids: list[int], left: int) -> int:
        v = voids_after(voids, seat, trick, c, self.must_trump)
        bit = 1 << c
        hands = self.hands
        for w in idx:
            hands[w][seat] ^= bit
        after = trick + [c]
        if len(after) < 4:
            r = self._node(idx, after, leader, mine, theirs, v, left)
        else:
            winner = (leader + trick_winner_index(after)) & 3
            if (winner & 1) == self.team:
                r = self._node(idx, [], winner, mine + 1, theirs, v, left)
            else:
                r = self._node(idx, [], winner, mine, theirs + 1, v, left)
        for w in idx:
            hands[w][seat] ^= bit
        return r


__all__ = ["Worlds"]
