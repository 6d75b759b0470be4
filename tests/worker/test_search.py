"""The search policy's parts agree with each other and with the engine."""

from __future__ import annotations

import dataclasses
import random
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Rules
from engine.cards import NAMES, SUITS
from engine.state import PLAYING
from worker.policies import SearchConfig, SearchPolicy, policy_for
from worker.policies import search as search_module
from worker.policies.fast import FAST_TABLES
from worker.policies.inference import PlayModel
from worker.policies.knowledge import fast_knowledge, knowledge
from worker.policies.playout import _heuristic_playout_general, heuristic_playout
from worker.policies.solver import representatives

from .helpers import Table, fast_state, knowledge_in_play, played_by, reach, rules_strategy


@settings(max_examples=60, deadline=None)
@given(rules=rules_strategy, seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 45))
def test_the_inline_playout_is_the_engine_checked_one(rules: Rules, seed: int,
                                                      steps: int) -> None:
    """``heuristic_playout``'s tight loop gives the same winner and tricks as the general loop
    built on ``FastState.play`` (which ``test_fast`` checks against the engine)."""
    table = reach(rules, seed, steps)
    if table.state.phase != PLAYING:
        return
    fs = fast_state(table)
    a, b = fs.copy(), fs.copy()
    voids = [random.Random(seed).randrange(4) for _ in range(4)]
    won = heuristic_playout(a, voids[:])
    assert won == _heuristic_playout_general(b, voids[:])
    if not rules.double_sar:
        assert a.tricks == b.tricks and a.hands == b.hands



@settings(max_examples=60, deadline=None)
@given(rules=rules_strategy, seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 30),
       stop=st.integers(1, 12))
def test_a_playout_stopped_at_a_trick_start_goes_on_as_one_never_stopped(
        rules: Rules, seed: int, steps: int, stop: int) -> None:
    """``heuristic_playout(..., stop)`` either ends the round (the same winner and tricks as
    without ``stop``) or returns -1 at a trick start where every hand holds at most ``stop``
    cards and the trick counts are consistent; played on from there it ends exactly as the
    playout never stopped (the position and voids carry everything the heuristic reads)."""
    table = reach(dataclasses.replace(rules, double_sar=False), seed, steps)
    if table.state.phase != PLAYING:
        return
    fs = fast_state(table)
    whole, cut = fs.copy(), fs.copy()
    voids = [random.Random(seed).randrange(4) for _ in range(4)]
    v_whole, v_cut = voids[:], voids[:]
    won = heuristic_playout(whole, v_whole)
    r = heuristic_playout(cut, v_cut, stop)
    if r >= 0:
        assert r == won and cut.tricks == whole.tricks
        return
    assert not cut.trick and cut.turn == cut.leader
    left = [h.bit_count() for h in cut.hands]
    assert len(set(left)) == 1 and left[0] <= stop
    assert cut.played == 13 - left[0] == sum(cut.tricks)
    assert max(cut.tricks) < 7
    assert heuristic_playout(cut, v_cut) == won
    assert cut.tricks == whole.tricks and cut.hands == whole.hands and v_cut == v_whole

@settings(max_examples=60, deadline=None)
@given(rules=rules_strategy, seed=st.integers(0, 2**32 - 1), steps=st.integers(2, 45))
def test_the_true_deal_is_fully_plausible_among_heuristic_players(rules: Rules, seed: int,
                                                                  steps: int) -> None:
    """When every seat plays the heuristic, the behaviour model reproduces every play seen, so
    the true deal keeps weight 1: the inference is the policy, replayed."""
    heuristic = policy_for("heuristic")
    found = played_by(rules, seed, steps, lambda table, seat, rng: heuristic.choose(
        table.view(seat), table.histories[seat], rng))
    if found is None:
        return
    table, _, f, ft = found
    assert PlayModel(f).weight([ft.mask_to_fast(h) for h in table.state.hands]) == 1.0


def _replayed_weight(model: PlayModel, hands_now: list[int], miss: float,
                     partner_miss: float) -> float:
    """The likelihood of the plays seen, by replaying the whole round in play order (the
    reference for the seat-by-seat factors of ``PlayModel.weight``)."""
    from worker.policies.fast import BLOCK, TRUMP_BASE
    from worker.policies.fast import legal as legal_cards
    from worker.policies.heuristic import play

    hands = [hands_now[s] | model.played_by[s] for s in range(4)]
    voids = [0, 0, 0, 0]
    trick: list[int] = []
    leader = model.plays[0][0] if model.plays else 0
    weight = 1.0
    partner = (model.me + 2) & 3
    for seat, card in model.plays:
        hand = hands[seat]
        if not trick:
            leader = seat
        legal = legal_cards(hand, trick, model.must_trump)
        if seat != model.me and legal & (legal - 1):
            in_play = hands[0] | hands[1] | hands[2] | hands[3]
            choice = play(hand, legal, in_play ^ hand, voids, trick, leader, seat)[0]
            factor = partner_miss if seat == partner else miss
            if choice >> 4 != card >> 4:
                weight *= factor
            elif choice != card:
                lo, hi = min(choice, card), max(choice, card)
                between = BLOCK[lo >> 4] & ((1 << hi) - 1) & ~((2 << lo) - 1)
                for c in trick:
                    in_play |= 1 << c
                if between & in_play & ~hand:
                    weight *= factor
        if trick and card >> 4 != trick[0] >> 4:
            voids[seat] |= 1 << (trick[0] >> 4)
            if model.must_trump and card < TRUMP_BASE:
                voids[seat] |= 8
        hands[seat] = hand ^ (1 << card)
        trick.append(card)
        if len(trick) == 4:
            trick = []
    return weight


@settings(max_examples=60, deadline=None)
@given(rules=rules_strategy, seed=st.integers(0, 2**32 - 1), steps=st.integers(4, 45),
       miss=st.sampled_from([0.02, 0.2]), partner_miss=st.sampled_from([0.02, 0.5, 1.0]))
def test_the_seat_factors_multiply_to_the_replayed_likelihood(
        rules: Rules, seed: int, steps: int, miss: float, partner_miss: float) -> None:
    """``PlayModel.weight``, a product of per-seat factors kept per hand, equals the
    likelihood of replaying the round in play order on every deal of a chain (asked twice, so
    the remembered factors answer too); where either is below ``floor`` (the deal is
    implausible and the replay is cut short) both are."""
    from worker.policies.sampler import Sampler

    found = knowledge_in_play(rules, seed, steps)
    if found is None:
        return
    table, _, f = found
    s = table.state
    assert s.deal.trump is not None
    model = PlayModel(f, miss, partner_miss)
    if not model.active:
        return
    sampler = Sampler(f)
    rng = random.Random(seed)
    ft = FAST_TABLES[(s.deal.trump, rules.satat)]
    deals = [[ft.mask_to_fast(h) for h in s.hands]] + [sampler.sample(rng, tries=0)
                                                       for _ in range(12)]
    for hands in deals + deals:
        got, want = model.weight(hands), _replayed_weight(model, hands, miss, partner_miss)
        if min(got, want) < model.floor:
            assert max(got, want) < model.floor
        else:
            assert got == pytest.approx(want, rel=1e-12)


class FakeClock:
    """Stands in for the ``time`` module of worker/policies/search.py: the first reading is 0 s
    (the search sets its deadline from it), every later one 1 s, long past any deadline."""

    def __init__(self) -> None:
        self.readings = 0

    def perf_counter(self) -> float:
        self.readings += 1
        return 0.0 if self.readings == 1 else 1.0


def test_budgets(monkeypatch: pytest.MonkeyPatch) -> None:
    table = reach(Rules(), 21, 3)
    seat = table.state.turn
    assert seat is not None
    view, history = table.view(seat), table.histories[seat]
    clock = FakeClock()
    monkeypatch.setattr(search_module, "time", clock)
    tiny = SearchPolicy(SearchConfig(samples=2, min_samples=1, batch=1, work=1))
    assert tiny.choose(view, history, random.Random(1)) in view["legal"]
    assert clock.readings == 0  # without max_ms the search never looks at a clock
    # max_ms: the deadline is read once, then the first look at the clock once min_samples
    # deals are done finds it passed and stops the search (no wall-clock timing involved:
    # samples and work alone would take it a very long time)
    hurried = SearchPolicy(SearchConfig(samples=10_000, work=10**9, max_ms=20.0))
    assert hurried.choose(view, history, random.Random(1)) in view["legal"]
    assert clock.readings == 2
    monkeypatch.undo()
    # the real clock: a guard against a hang, not a measurement (typically 20-40 ms here; the
    # bound is 500 times the budget so a loaded machine cannot trip it).  How far the budget
    # is overrun is measured by bench/bots.py (``budget_p95_ms``).
    t0 = time.perf_counter()
    assert hurried.choose(view, history, random.Random(1)) in view["legal"]
    assert time.perf_counter() - t0 < 10.0


@settings(max_examples=40, deadline=None)
@given(rules=rules_strategy, seed=st.integers(0, 2**32 - 1), steps=st.integers(4, 45))
def test_the_chain_keeps_deals_consistent(rules: Rules, seed: int, steps: int) -> None:
    """The Metropolis walk over deals keeps the seat's own hand, every public count and every
    shown void, deals each unseen card exactly once, and reports the likelihood of the deal it
    ends on."""
    from worker.policies.sampler import Sampler

    found = knowledge_in_play(rules, seed, steps)
    if found is None:
        return
    _, seat, f = found
    sampler = Sampler(f)
    if not sampler.ok:
        return
    model = PlayModel(f, 0.05)
    rng = random.Random(seed)
    hands = sampler.sample(rng, tries=0)
    w = sampler.trump_weight(hands) * model.weight(hands)
    after, w2 = search_module._walk(hands, w, 60, f.voids, sampler, model, rng)
    assert w2 == sampler.trump_weight(after) * model.weight(after)
    assert after[seat] == f.hand
    union = 0
    for other in range(4):
        assert after[other].bit_count() == hands[other].bit_count()
        assert not union & after[other]
        union |= after[other]
        if other != seat:
            for block in range(4):
                if f.voids[other] >> block & 1:
                    assert not after[other] >> (16 * block) & 0xFFFF
    assert union == f.unseen | f.hand


def _card_choice(steps: int, legal: int) -> tuple[int, Table, int]:
    """The first of seeds 0-199 whose table after ``steps`` random moves is in card play with
    at least ``legal`` legal cards for the seat to move: the seed, the table, the seat."""
    for seed in range(200):
        table = reach(Rules(), seed, steps)
        seat = table.state.turn
        if (table.state.phase == PLAYING and seat is not None
                and len(table.view(seat)["legal"]) >= legal):
            return seed, table, seat
    raise AssertionError(f"no position with {legal} legal cards")


def test_with_points_the_round_comes_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``points`` only the candidates within ``points_margin`` of the best round-win rate
    compete on value: a likelier sweep never buys a clearly likelier loss of the round."""
    _, table, seat = _card_choice(6, 3)
    view, history = table.view(seat), table.histories[seat]
    seen: list[int] = []

    def fake(self: SearchPolicy, f: object, candidates: list[int], rng: random.Random
             ) -> tuple[list[float], list[float] | None]:
        seen[:] = candidates
        n = len(candidates)
        # candidate 0 wins most often, 1 nearly as often with more sweeps, 2 sweeps most and
        # wins least
        wins = [0.9, 0.88, 0.5] + [0.1] * (n - 3)
        values = [0.9, 1.2, 2.0] + [0.1] * (n - 3)
        return values, (wins if self.config.points_margin is not None else None)

    monkeypatch.setattr(SearchPolicy, "_evaluate", fake)
    ft = FAST_TABLES[(SUITS.index(view["trump"]), False)]

    def pick(margin: float | None) -> int:
        policy = SearchPolicy(SearchConfig(points=True, points_margin=margin, tie=0.0))
        name = policy.choose(view, history, random.Random(0))
        return seen.index(ft.to_fast[NAMES.index(name)])

    assert pick(0.03) == 1
    assert len(seen) >= 3
    assert pick(0.0) == 0
    assert pick(None) == 2


def test_without_racing_every_candidate_is_scored_on_every_deal() -> None:
    """``race=0``: no candidate is dropped (none scores the dropped mark), however far it
    trails, and the work budget still ends the search (here long before ``samples``)."""
    seed, table, seat = _card_choice(4, 4)
    k = knowledge(table.view(seat), table.histories[seat])
    f = fast_knowledge(k)
    in_play = f.unseen | f.hand
    candidates = representatives(f.legal, in_play)
    assert len(candidates) >= 3
    for race, dropped in ((0.0, False), (0.01, True)):
        policy = SearchPolicy(SearchConfig(samples=10**6, min_samples=8, batch=8, work=60000,
                                           race=race, points=True))
        means, wins = policy._evaluate(f, candidates, random.Random(seed))
        assert wins is not None
        assert (min(wins) < 0) is dropped, (race, wins)
        assert (min(means) == -9.0) is dropped


def _count_walks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The steps of every walk of the search's Markov chain from now on, in order."""
    walks: list[int] = []
    real_walk = search_module._walk

    def counting(hands: list[int], weight: float, steps: int, *rest: object
                 ) -> tuple[list[int], float]:
        walks.append(steps)
        return real_walk(hands, weight, steps, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(search_module, "_walk", counting)
    return walks


@pytest.mark.parametrize("chains", [1, 2, 4])
def test_every_chain_starts_afresh_and_makes_its_share_of_the_deals(
        chains: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """``chains``: the deals of one decision come from that many chains, each with its own
    burn-in from a start of its own, and every chain makes ``samples // chains`` of them."""
    seed, table, seat = _card_choice(12, 3)
    k = knowledge(table.view(seat), table.histories[seat])
    f = fast_knowledge(k)
    candidates = representatives(f.legal, f.unseen | f.hand)
    walks = _count_walks(monkeypatch)
    policy = SearchPolicy(SearchConfig(samples=16, batch=16 // chains, race=0, chain_thin=3,
                                       chain_burn=17, chains=chains, miss=0.05))
    policy._evaluate(f, candidates, random.Random(seed))
    assert PlayModel(f, 0.05).active  # the plays seen weigh the deals, so the chain runs
    starts = [i for i, steps in enumerate(walks) if steps == 17]
    assert len(starts) == chains and starts[0] == 0
    assert len(walks) == chains + 16
    gaps = [b - a for a, b in zip(starts, starts[1:] + [len(walks)], strict=True)]
    assert gaps == [16 // chains + 1] * chains


def test_batches_change_nothing_under_the_budget_and_the_budget_stops_at_a_batch(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``hard`` draws its deals in batches so its ``work`` stop can bind: under the budget the
    scores are those of one batch of every deal (the same chain, the same deals); over it the
    search ends at the first batch boundary past ``min_samples``."""
    seed, table, seat = _card_choice(12, 3)
    k = knowledge(table.view(seat), table.histories[seat])
    f = fast_knowledge(k)
    candidates = representatives(f.legal, f.unseen | f.hand)
    chain = SearchConfig(samples=64, race=0, chain_thin=3, chain_burn=17, miss=0.05,
                         points=True)
    whole = SearchPolicy(dataclasses.replace(chain, batch=64, work=10**9))
    batched = SearchPolicy(dataclasses.replace(chain, batch=16, work=10**9))
    assert (whole._evaluate(f, candidates, random.Random(seed))
            == batched._evaluate(f, candidates, random.Random(seed)))
    walks = _count_walks(monkeypatch)
    stopped = SearchPolicy(dataclasses.replace(chain, batch=16, min_samples=20, work=1))
    stopped._evaluate(f, candidates, random.Random(seed))
    assert PlayModel(f, 0.05).active
    assert len(walks) == 1 + 32  # the burn-in, then two batches: 16 < min_samples <= 32
