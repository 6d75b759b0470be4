"""The seat's next card decided on what it will know then: one level of information-set search.

PIMC scores a late candidate by the best response in each sampled deal, which plans the seat's
later cards as if it saw that deal (strategy fusion: every line that guesses a hidden card looks
sure in the deals where the guess is right).  The lookahead instead plays each candidate in each
root deal, lets the other seats play on by the model the search holds of them (the heuristic on
what each would know) up to the seat's next turn, and groups the deals that show the same plays:
each group is one information set of the seat's.  There the seat's next card is chosen the way
the seat will choose it, by the search itself (``evaluate``) on fresh deals drawn from what the
seat will know then (its own chain: the plays seen on the way weigh the deals), and the candidate
is worth, in each deal of the group, what that search gives the chosen card.  This is Furtak
and Buro's Imperfect Information Monte Carlo (2013), one level deep, with PIMC below it.

Only the seat's own knowledge enters: the root deals, the plays the model makes in them, and
the knowledge ``knowledge.advance`` builds from those plays, which is what the seat would see.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from .fast import FAST_TABLES, FastState, voids_after, winner_decided
from .fast import legal as legal_cards
from .ismcts import model_card
from .knowledge import FastKnowledge, advance, fast_knowledge
from .solver import representatives

Evaluate = Callable[[FastKnowledge, list[int], random.Random],
                    tuple[list[float], list[float] | None]]
"""A search's scoring of candidates: (mean value, round-win rate or None) per candidate."""


def outcome_value(team: int, won: int, tricks: Sequence[int],
                  util: tuple[float, float, float, float] | None) -> float:
    """A finished round's worth to ``team``: 1 or 0, or with ``util`` (win, sweep, loss, swept)
    its match value."""
    if util is None:
        return 1.0 if won == team else 0.0
    if won == team:
        return util[1] if tricks[1 - team] == 0 else util[0]
    return util[3] if tricks[team] == 0 else util[2]


def lookahead(f: FastKnowledge, worlds: Sequence[list[int]], candidates: list[int],
              shown: Sequence[list[int]], util: tuple[float, float, float, float] | None,
              evaluate: Evaluate, finish: Callable[[FastState, list[int]], float],
              margin: float, rng: random.Random, split: bool = False
              ) -> tuple[list[float], list[float]]:
    """Each candidate's mean value and round-win rate over the root deals ``worlds`` (hands per
    seat, fast cards), the seat's next card chosen per information set by ``evaluate`` on the
    knowledge it will have then; where that card is forced (or the round ends first) a deal is
    valued by ``finish(state, voids)`` (the best response) or by its outcome.  ``shown``: the
    voids once the seat has played each candidate; ``margin``: the next card is the best valued
    of those whose round-win rate is within it of the best rate (as the search plays).  With
    ``split`` the next card is valued by a second search on other deals than the one that chose
    it (the best of several noisy means is biased up, and more so where there are more cards to
    choose from)."""
    k = f.k
    assert k.trump is not None
    me = k.seat
    team = k.team
    must_trump = k.rules.must_trump
    ft = FAST_TABLES[(k.trump, k.rules.satat)]
    trick0 = [c for _, c in f.trick]
    leader0 = f.trick[0][0] if f.trick else k.leader
    totals = [0.0] * len(candidates)
    wins = [0.0] * len(candidates)
    for i, c in enumerate(candidates):
        groups: dict[tuple[int, ...], int] = {}
        for hands in worlds:
            st = FastState(hands[:], trick0[:], leader0, list(k.tricks), k.tricks_played,
                           k.hakem % 2, k.rules, k.pile, k.run_team)
            st.play(c)
            voids = shown[i][:]
            seen: list[int] = []
            while True:
                won = winner_decided(st)
                if won is not None or st.turn == me:
                    break
                seat = st.turn
                card = model_card(st, voids, must_trump)
                voids = voids_after(voids, seat, st.trick, card, must_trump)
                st.play(card)
                seen.append(seat << 6 | card)
            if won is not None:
                value = outcome_value(team, won, st.tricks, util)
                totals[i] += value
                wins[i] += won == team
                continue
            in_play = st.hands[0] | st.hands[1] | st.hands[2] | st.hands[3]
            for x in st.trick:
                in_play |= 1 << x
            mine = st.hands[me]
            if len(representatives(legal_cards(mine, st.trick, must_trump), in_play)) == 1:
                value = finish(st, voids)
                totals[i] += value
                wins[i] += value >= 1.0
                continue
            key = tuple(seen)
            groups[key] = groups.get(key, 0) + 1
        for key, size in groups.items():
            plays = [(me, ft.to_engine[c])] + [(x >> 6, ft.to_engine[x & 63]) for x in key]
            f2 = fast_knowledge(advance(k, plays))
            in_play = f2.unseen | f2.hand
            for _, x in f2.trick:
                in_play |= 1 << x
            nexts = representatives(f2.legal, in_play)
            scores, rates = evaluate(f2, nexts, rng)
            if rates is None:
                best = max(range(len(nexts)), key=lambda j: scores[j])
            else:
                top = max(rates)
                best = max((j for j in range(len(nexts)) if rates[j] >= top - margin),
                           key=lambda j: scores[j])
            if split:
                scores, rates = evaluate(f2, [nexts[best]] * 2, rng)  # twice: see the race
                best = 0
            totals[i] += size * scores[best]
            wins[i] += size * (rates[best] if rates is not None else scores[best] >= 0.5)
    n = len(worlds)
    return [t / n for t in totals], [w / n for w in wins]


__all__ = ["lookahead", "outcome_value"]
