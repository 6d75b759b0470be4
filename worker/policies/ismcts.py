"""The late cards decided by a search over the seat's own information sets (POMCP / ISMCTS).

PIMC scores a card in each sampled deal as if the seat will see that deal for the rest of the
round, so it cannot value a play whose worth is what it makes the others show (strategy
fusion).  This search instead grows one tree of the seat's *information*: a node is the seat's
own action-observation history from the decision on (its cards, and the plays the three others
made in answer), so every node is an information set of the seat's, and the seat's choice there
is one card for all the deals that reach it.

Each iteration takes the next deal of the root belief (``deals``: hands per seat, fast cards,
from the search's Markov chain), descends the tree choosing the seat's cards by UCB1 and
letting the other three seats play on that deal by the model the belief already holds of them
(``heuristic.play`` on what each would know), follows the observed plays to the child they
lead to, and at the first action not tried at a node plays it and values the deal from there
with the leaf evaluation (``leaf``: the seat's best response to heuristic opponents, as PIMC's
late scoring, or a heuristic playout); a round decided on the way scores its outcome.  Since
the others' plays in a deal are exactly what the belief weighs deals by, the deals that reach a
node are the belief's deals given the plays observed there (a particle filter, as POMCP): no
fresh chain is needed below the root.  The decision is the root action with the most visits.

Only the seat's knowledge enters (the root deals come from the chain, never from the true
hands), and the search draws nothing from a generator: given its deals it is deterministic.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from .fast import FastState, voids_after, winner_decided
from .fast import legal as legal_cards
from .heuristic import play
from .knowledge import FastKnowledge
from .playout import heuristic_playout
from .response import Response
from .solver import representatives

Leaf = Callable[[int, FastState, list[int]], float]
"""A leaf evaluation: (index of the deal in ``deals``, state after the seat's card, voids) ->
the value of the deal for the seat's side in [0, 1]."""


def model_card(st: FastState, voids: list[int], must_trump: bool) -> int:
    """The card the seat to play in ``st`` plays by the model the search holds of the others:
    ``heuristic.play`` on what it would know (its hand, the cards out, the ``voids`` shown)."""
    seat = st.turn
    hand = st.hands[seat]
    allowed = legal_cards(hand, st.trick, must_trump)
    if allowed & (allowed - 1) == 0:
        return allowed.bit_length() - 1
    unseen = (st.hands[0] | st.hands[1] | st.hands[2] | st.hands[3]) ^ hand
    return play(hand, allowed, unseen, voids, st.trick, st.leader, seat)[0]


class Node:
    """One information set of the seat's: its candidate cards and, per card, the visits, the
    summed value and the children keyed by (card index, the others' plays that followed)."""

    __slots__ = ("acts", "visits", "count", "total", "kids")

    def __init__(self, acts: list[int]) -> None:
        self.acts = acts
        self.visits = 0
        self.count = [0] * len(acts)
        self.total = [0.0] * len(acts)
        self.kids: dict[tuple[int, tuple[int, ...]], Node] = {}

    def select(self, explore: float) -> int:
        """The first untried card, else the one with the best UCB1 bound."""
        count = self.count
        for i, n in enumerate(count):
            if n == 0:
                return i
        log_n = math.log(self.visits)
        total = self.total
        return max(range(len(count)),
                   key=lambda i: total[i] / count[i] + explore * math.sqrt(log_n / count[i]))


def response_leaf(f: FastKnowledge, deals: int) -> Leaf:
    """The seat's best response to heuristic opponents (the partner on the heuristic too), one
    table per deal kept across the iterations on it: 1.0 if the side can win the race to seven,
    else 0.0 (PIMC's late scoring, without points)."""
    k = f.k
    responders = [Response(k.seat, k.rules.must_trump, False) for _ in range(deals)]

    def leaf(index: int, state: FastState, voids: list[int]) -> float:
        return 1.0 if responders[index].wins(state, voids) else 0.0

    return leaf


def playout_leaf(f: FastKnowledge) -> Leaf:
    """A heuristic playout of every seat (the seat's own cards too) to the round's end."""
    team = f.k.team

    def leaf(index: int, state: FastState, voids: list[int]) -> float:
        won = winner_decided(state)
        if won is None:
            won = heuristic_playout(state, voids[:])
        return 1.0 if won == team else 0.0

    return leaf


def search(f: FastKnowledge, deals: Sequence[list[int]], candidates: list[int], iterations: int,
           leaf: Leaf, explore: float = 0.7) -> Node:
    """Run ``iterations`` descents of the seat's information-set tree from the position of
    ``f`` (the seat to play), the deal of iteration ``i`` being ``deals[i % len(deals)]``;
    return the root, whose actions are ``candidates``."""
    k = f.k
    me = k.seat
    team = k.team
    must_trump = k.rules.must_trump
    trick0 = [c for _, c in f.trick]
    leader0 = f.trick[0][0] if f.trick else k.leader
    hakem_team = k.hakem % 2
    root = Node(list(candidates))
    n_deals = len(deals)
    for it in range(iterations):
        index = it % n_deals
        hands = deals[index]
        st = FastState(hands[:], trick0[:], leader0, list(k.tricks), k.tricks_played,
                       hakem_team, k.rules, k.pile, k.run_team)
        voids = f.voids[:]
        node = root
        path: list[tuple[Node, int]] = []
        while True:
            i = node.select(explore)
            card = node.acts[i]
            voids = voids_after(voids, me, st.trick, card, must_trump)
            st.play(card)
            path.append((node, i))
            if node.count[i] == 0:  # a new action: value the deal from here
                value = leaf(index, st, voids)
                break
            won = winner_decided(st)
            seen: list[int] = []
            while won is None and st.turn != me:
                seat = st.turn
                c = model_card(st, voids, must_trump)
                voids = voids_after(voids, seat, st.trick, c, must_trump)
                st.play(c)
                seen.append(seat << 6 | c)
                won = winner_decided(st)
            if won is not None:
                value = 1.0 if won == team else 0.0
                break
            key = (i, tuple(seen))
            child = node.kids.get(key)
            if child is None:
                in_play = st.hands[0] | st.hands[1] | st.hands[2] | st.hands[3]
                for x in st.trick:
                    in_play |= 1 << x
                child = Node(representatives(legal_cards(st.hands[me], st.trick, must_trump),
                                             in_play))
                node.kids[key] = child
            node = child
        for n, i in path:
            n.visits += 1
            n.count[i] += 1
            n.total[i] += value
    return root


def decide(root: Node, prefer: int = -1, tie: float = 0.0) -> tuple[int, float]:
    """The root action with the most visits (ties: the better mean, then the first) and its
    mean value; but the action ``prefer`` (-1: none) when its mean is within ``tie`` of that
    one's (why: where the cards are worth the same, the heuristic's card is the one PIMC
    plays, measured better than any other tie rule; also where nothing is at stake)."""
    means = [t / max(1, n) for t, n in zip(root.total, root.count, strict=True)]
    best = max(range(len(root.acts)), key=lambda i: (root.count[i], means[i], -i))
    if prefer in root.acts:
        j = root.acts.index(prefer)
        if root.count[j] and means[j] >= means[best] - tie:
            best = j
    return root.acts[best], means[best]


__all__ = ["Node", "decide", "model_card", "playout_leaf", "response_leaf", "search"]
