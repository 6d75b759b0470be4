"""The double-dummy judge of the two- and three-player games against a brute-force minimax on
small endings (every line of play, no table, no equivalent cards), with the house rules each
game allows; and its budget's fallback."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.rules import Rules
from worker.analysis.exact import Outcome
from worker.analysis.nexact import NJudge, Position
from worker.policies.fast import FAST_TABLES, bits

RULES = [
    Rules.from_dict(d) for d in (
        {"players": 2}, {"players": 2, "must_trump": True}, {"players": 2, "bavney": True},
        {"players": 2, "double_sar": True}, {"players": 2, "two_player": "talon"},
        {"players": 3}, {"players": 3, "must_trump": True})
]


class Brute:
    """Each component (tricks, wins, kot) its own minimax: the seat's side takes the most, every
    other seat the least (together, as the judge reads three players)."""

    def __init__(self, seat: int) -> None:
        self.seat = seat

    def __call__(self, pos: Position) -> Outcome:
        tricks, wins, kot = self.value(pos)
        return Outcome(tricks, bool(wins), bool(kot))

    def value(self, pos: Position) -> tuple[int, int, int]:
        rules = pos.rules
        side = rules.side_of[self.seat]
        win = rules.variant.tricks_to_win
        if pos.over() or max(pos.tricks) >= win:
            mine = pos.tricks[side]
            others = sum(pos.tricks) - mine
            return min(mine, win), int(mine >= win), int(mine >= win and others == 0)
        children = []
        for c in bits(pos.legal()):
            nxt = pos.copy()
            nxt.play(c)
            children.append(self.value(nxt))
        pick = max if rules.side_of[pos.turn] == side else min
        return (pick(v[0] for v in children), pick(v[1] for v in children),
                pick(v[2] for v in children))


def ending(rng: random.Random, rules: Rules, cards: int) -> Position:
    """A random position with ``cards`` cards in the hand of the next seat to lead, a random
    open trick and random counts below seven (not always ones a round can reach: the judge
    must not assume they add up), in two of five cases all of them one side's."""
    n = rules.players
    ft = FAST_TABLES[(rng.randrange(4), rules.satat)]
    deck = list(range(52))
    rng.shuffle(deck)
    leader = rng.randrange(n)
    opened = rng.randrange(n)  # cards already in the open trick
    hands = [0] * n
    trick = []
    pos = 0
    for i in range(n):
        seat = (leader + i) % n
        size = cards - 1 if i < opened else cards
        for c in deck[pos:pos + size]:
            hands[seat] |= 1 << ft.to_fast[c]
        pos += size
    for _ in range(opened):
        trick.append(ft.to_fast[deck[pos]])
        pos += 1
    # the open trick's cards must be ones their seats could play: rebuild it legally
    position = Position(rules, rng.randrange(n), [h for h in hands], [], leader,
                        [rng.randrange(7) for _ in range(n)], rules.hand_size - cards)
    for i, c in enumerate(trick):
        seat = (leader + i) % n
        position.hands[seat] |= 1 << c
        options = bits(position.legal())
        position.hands[seat] ^= 1 << c
        card = c if c in options else rng.choice(options)
        if card != c:
            position.hands[seat] ^= (1 << card) | (1 << c)
        position.trick.append(card)
    if rng.random() < 0.4:  # one side has every trick so far: a sweep may be on
        position.tricks = [0] * n
        position.tricks[rng.randrange(n)] = rng.randrange(max(0, 7 - cards), 7)
    if rules.double_sar and rng.random() < 0.5:
        position.pile = rng.randrange(3)
        position.run = rng.randrange(n)
    return position


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(range(len(RULES))), st.integers(1, 4))
def test_the_judge_is_the_brute_force_minimax(seed: int, which: int, cards: int) -> None:
    rules = RULES[which]
    if rules.players == 3:
        cards = min(cards, 3)
    rng = random.Random(seed)
    pos = ending(rng, rules, cards)
    for seat in range(rules.players):
        judge = NJudge(rules, seat)
        judged = judge.judge(pos)
        got = judged.outcome
        assert judged.exact and judged.low == got == judged.high
        assert got == Brute(seat)(pos), (seat, pos)
        assert judge.outcome(pos) == got  # the table carries over between questions


def test_every_ending_of_five_cards_in_the_two_player_game() -> None:
    rng = random.Random(5)
    seen = set()
    for _ in range(40):
        rules = rng.choice(RULES[:5])
        pos = ending(rng, rules, 5)
        for seat in range(2):
            got = NJudge(rules, seat).judge(pos).outcome
            assert got == Brute(seat)(pos)
            seen.add(got.rank())
    # the cases are varied: wins and losses, sweeps, several trick counts
    assert {r[0] for r in seen} == {True, False} and len({r[2] for r in seen}) >= 4
    assert any(r[1] for r in seen)


def test_past_the_budget_a_playout_judges() -> None:
    rules = RULES[0]
    pos = ending(random.Random(9), rules, 13)
    pos.tricks = [0, 0]
    pos.played = 0
    judge = NJudge(rules, 0, nodes=50)
    judged = judge.judge(pos)
    outcome = judged.outcome
    assert not judged.exact and judge.nodes > 50
    assert 0 <= outcome.tricks <= 7 and (outcome.wins == (outcome.tricks == 7))
    # and the same position, unbounded, is searched to its end (13 cards a hand: exact),
    # inside the bounds the budget left
    full = NJudge(rules, 0).judge(pos)
    assert full.exact
    assert judged.low.rank() <= full.outcome.rank() <= judged.high.rank()
    assert judged.low.rank() <= outcome.rank() <= judged.high.rank()


def test_one_table_of_winning_ranks_serves_many_deals() -> None:
    """One judge a seat and rule set, its table shared by random positions of many deals (seven
    to ten cards a hand with two players, five to seven with three), answers as a fresh judge
    whose table keys every card in play (``NSolver(whole=True)``)."""
    from worker.policies.nsolver import NSolver

    rng = random.Random(11)
    shared: dict[tuple[int, int], NJudge] = {}
    compared = 0
    for _ in range(400):
        which = rng.randrange(len(RULES))
        rules = RULES[which]
        pos = ending(rng, rules, rng.randint(5, 7) if rules.players == 3 else rng.randint(7, 10))
        for seat in range(rules.players):
            judge = shared.setdefault((which, seat), NJudge(rules, seat))
            whole = NJudge(rules, seat)
            whole.solver = NSolver(rules, seat, whole=True)
            assert judge.outcome(pos) == whole.outcome(pos), (which, seat, pos)
            compared += 1
    assert compared >= 900


def test_a_budget_leaves_bounds_that_hold() -> None:
    """Positions of 7 cards a hand (5 with three players) in every rule set, judged under
    budgets of 10 to 1,000 nodes a question: the unbounded judge's outcome lies within the
    bounds, and so does the outcome shown; some judgements are left partly settled."""
    rng = random.Random(23)
    partial = compared = 0
    for _ in range(30):
        for rules in RULES:
            pos = ending(rng, rules, 5 if rules.players == 3 else 7)
            for seat in range(rules.players):
                truth = NJudge(rules, seat).outcome(pos)
                for nodes in (10, 30, 100, 300, 1000):
                    judged = NJudge(rules, seat, nodes).judge(pos)
                    assert judged.low.rank() <= truth.rank() <= judged.high.rank()
                    assert judged.low.rank() <= judged.outcome.rank() <= judged.high.rank()
                    partial += not judged.exact and judged.low.rank() > (
                        False, False, pos.tricks[rules.side_of[seat]])
                    compared += 1
    assert compared >= 1000 and partial >= 10, (compared, partial)
