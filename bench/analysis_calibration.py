"""Calibration of the post-match analysis's ``win_chance`` (issue 15): is it a probability?

Plays ``--deals`` four-player rounds in this process (``hokm arena``'s decks and Hakem rotation,
every seat the ``--players`` bot, seeded per seat) and, at every decision (the Hakem's trump and
every card), asks the analysis's own estimate (``worker.analysis.bot.estimate`` with the
``hard`` search, from the mover's view and redacted history only, seeded as the analysis seeds
it) for the mover's side.  Each estimate is then paired with the round's outcome for that side.

Prints the calibration table (bins of 0.1: count, mean predicted, observed win rate), the same
split by the search's scoring phase (more than 8 cards in hand: heuristic playouts; at most 8:
the seat's best response to heuristic opponents on each sampled deal), the Brier score against
the constant baseline (the overall win rate), and the partners' disagreement (the two estimates
of the same side in the same trick).  The rounds are split over ``--jobs`` processes.

Ends with ``RESULT brier=<a> brier_base=<b> n=<c> skill=<d> partner_gap=<e>`` (``skill``:
1 - brier / brier_base; ``partner_gap``: mean |difference| of the partners' estimates).

    python bench/analysis_calibration.py [--deals 48] [--seed 7] [--players heuristic] [--jobs 2]
                                         [--analyst hard]
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Iterable, Sequence
from itertools import pairwise
from dataclasses import replace
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchcli import positive_int
from engine import (
    ChooseTrump, CreateMatch, DealRound, PlayCard, Rules, State, TakeSeat, commitment_of, decide,
    evolve, redact_event, view_for,
)
from engine.state import CHOOSING_TRUMP, PLAYING
from worker.analysis.bot import estimate, estimate_small
from worker.arena import deck_for_deal
from worker.policies import HARD, LEVELS, POLICIES, SearchPolicy, policy_for

Row = tuple[int, int, int, int, float, int]
"""(deal, seat, trick index, cards in the mover's hand, estimate, 1 if the mover's side won)."""


ANALYSTS = {
    "hard": HARD,
    "soft": replace(HARD, miss=0.2, partner_miss=None),
    "playout": replace(HARD, response_cards=0, solver_cards=0),
}
"""The searches whose estimate is measured: ``hard`` is the analysis's own; the others are
experiments (``soft``: the default behaviour model, a play the heuristic would not make weighs
0.2 for every seat, not 0.02 for the opponents; ``playout``: heuristic playouts to the end at
every hand size, no best response)."""


def play_deal(args: tuple[int, int, str, str, int]) -> list[Row]:
    """One round of deal ``deal`` for ``seats`` players: every decision's estimate with the
    round's outcome (in the games of two and three, ``estimate_small``; a decision it does not
    estimate, none)."""
    seed, deal, players, analyst_name, seats = args
    analyst = SearchPolicy(ANALYSTS[analyst_name], "hard")
    bots = [policy_for(players) for _ in range(seats)]
    rngs = [random.Random(f"hokm-arena:{seed}:{deal}:{s}") for s in range(seats)]
    state = State()
    seen: list[list[dict[str, object]]] = [[] for _ in range(seats)]

    def run(seat: int | None, command: object) -> None:
        nonlocal state
        for event in decide(state, seat, command):  # type: ignore[arg-type]
            for s in range(seats):
                seen[s].append(redact_event(state, event, s))
            state = evolve(state, event)

    run(None, CreateMatch("calib", Rules.from_dict({"players": seats}), commitment_of("c"),
                          first_hakem=deal % seats))
    for s in range(seats):
        run(None, TakeSeat(s, f"p{s}", f"p{s}"))
    run(None, DealRound(deck_for_deal(seed, deal), stacked=True))
    pending: list[tuple[int, int, int, float]] = []
    step = 0
    while state.phase in (CHOOSING_TRUMP, PLAYING):
        seat = state.turn
        assert seat is not None
        view = view_for(state, seat)
        step += 1
        rng = random.Random(f"calib:{seed}:{deal}:{step}")
        chance = (estimate(analyst, view, list(seen[seat]), rng)[1] if seats == 4 else
                  estimate_small(analyst, view, list(seen[seat]), rng)[1])
        if chance is not None:
            in_hand = state.hands[seat].bit_count()
            pending.append((seat, state.tricks_played, in_hand, chance))
        choice = bots[seat].choose(view, seen[seat], rngs[seat])
        run(seat, ChooseTrump(choice) if state.phase == CHOOSING_TRUMP else PlayCard(choice))
    assert state.match.result is not None
    winner = state.match.result.winner
    side = (lambda s: s % 2) if seats == 4 else (lambda s: s)
    return [(deal, s, t, n, c, int(side(s) == winner)) for s, t, n, c in pending]


def in_play_order(parts: Iterable[list[Row]]) -> list[Row]:
    """The rows of every deal (each deal's list in the order its decisions were made, as
    :func:`play_deal` returns it), by deal, each deal's in that order: :func:`alternation`
    pairs consecutive decisions.  (Session 38 sorted the rows whole, which put a deal's rows
    in seat order: its "saw" of 0.087 compared seat 0's last estimate with seat 1's first.)"""
    return sorted((r for part in parts for r in part), key=lambda r: r[0])


def alternation(rows: Sequence[Row]) -> float:
    """Two players: the mean of seat 0's estimate less seat 1's next one, both turned to seat
    0's chance (a mover's estimate biased toward the mover draws the analysis graph as a saw:
    twice that bias)."""
    jumps = []
    by_deal: dict[int, list[tuple[int, float]]] = {}
    for deal, seat, _, _, chance, _ in rows:
        by_deal.setdefault(deal, []).append((seat, chance if seat == 0 else 1 - chance))
    for seq in by_deal.values():
        for (s1, a), (s2, b) in pairwise(seq):
            if s1 != s2:
                jumps.append(a - b if s1 == 0 else b - a)
    return sum(jumps) / max(1, len(jumps))


def brier(rows: Sequence[Row], base: float | None = None) -> float:
    """Mean squared error of the estimates (or of the constant ``base``)."""
    return sum(((r[4] if base is None else base) - r[5]) ** 2 for r in rows) / max(1, len(rows))


def table(rows: Sequence[Row], title: str) -> None:
    """The calibration table of ``rows``: 10 bins of the estimate."""
    print(f"{title}: n={len(rows)} brier={brier(rows):.4f}")
    print("  bin        count  predicted  observed")
    for b in range(10):
        low, high = b / 10, (b + 1) / 10
        part = [r for r in rows if low <= r[4] < high or (b == 9 and r[4] == 1.0)]
        if not part:
            print(f"  {low:.1f}-{high:.1f}  {0:5d}          -         -")
            continue
        pred = sum(r[4] for r in part) / len(part)
        obs = sum(r[5] for r in part) / len(part)
        print(f"  {low:.1f}-{high:.1f}  {len(part):5d}      {pred:.3f}     {obs:.3f}")


Pair = tuple[int, float, float, int]
"""(trick index, one partner's estimate, the other's, 1 if their side won)."""


def partner_pairs(rows: Sequence[Row]) -> list[Pair]:
    """The two partners' estimates for their side in the same trick (cards only: the trump is
    named by one seat)."""
    by: dict[tuple[int, int, int], tuple[float, int]] = {}
    for deal, seat, trick, n, chance, won in rows:
        if not (trick == 0 and n == 5):
            by[(deal, seat, trick)] = (chance, won)
    return [(t, c, by[(d, s + 2, t)][0], w) for (d, s, t), (c, w) in sorted(by.items())
            if s < 2 and (d, s + 2, t) in by]


def partner_report(pairs: Sequence[Pair]) -> float:
    """Print how far the partners' estimates are apart by trick, and how the outcome falls in
    the pairs far apart; return the mean |gap|."""
    print("partners' estimates for the same side in the same trick:")
    print("  tricks   pairs  mean|gap|  gap>0.4")
    for low, high in ((0, 3), (3, 6), (6, 9), (9, 13)):
        part = [abs(a - b) for t, a, b, _ in pairs if low <= t < high]
        if part:
            print(f"  {low:2d}-{high - 1:2d}  {len(part):6d}     {sum(part) / len(part):.3f}"
                  f"    {sum(g > 0.4 for g in part) / len(part):.3f}")
    far = [(max(a, b), min(a, b), w) for _, a, b, w in pairs if abs(a - b) > 0.4]
    if far:
        hi = sum(h for h, _, _ in far) / len(far)
        lo = sum(lo for _, lo, _ in far) / len(far)
        obs = sum(w for _, _, w in far) / len(far)
        b_hi = sum((h - w) ** 2 for h, _, w in far) / len(far)
        b_lo = sum((lo - w) ** 2 for _, lo, w in far) / len(far)
        b_mid = sum(((h + lo) / 2 - w) ** 2 for h, lo, w in far) / len(far)
        print(f"  pairs > 0.4 apart: {len(far)}; mean higher {hi:.3f}, lower {lo:.3f}, side won "
              f"{obs:.3f}; brier higher {b_hi:.3f} lower {b_lo:.3f} their mean {b_mid:.3f}")
    gaps = [abs(a - b) for _, a, b, _ in pairs]
    return sum(gaps) / max(1, len(gaps))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deals", type=positive_int, default=48)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--players", default="heuristic", choices=sorted({*LEVELS, *POLICIES}),
                    help="the bot level of every seat")
    ap.add_argument("--jobs", type=positive_int, default=2)
    ap.add_argument("--analyst", default="hard", choices=sorted(ANALYSTS),
                    help="the search whose estimate is measured (hard: the analysis's)")
    ap.add_argument("--seats", type=int, default=4, choices=(2, 3, 4),
                    help="the game: four players (partners), or the games of two and three")
    args = ap.parse_args()
    tasks = [(args.seed, d, args.players, args.analyst, args.seats) for d in range(args.deals)]
    with Pool(args.jobs) as pool:
        rows = in_play_order(pool.imap_unordered(play_deal, tasks))
    base = sum(r[5] for r in rows) / max(1, len(rows))
    table(rows, "all decisions")
    table([r for r in rows if r[3] > 8], "more than 8 cards in hand (heuristic playouts)")
    table([r for r in rows if r[3] <= 8], "at most 8 cards in hand (best response)")
    # the Hakem of deal d is seat d % seats (``hokm arena``'s rotation)
    n = args.seats
    hakems = [r for r in rows if (r[1] % 2 == r[0] % 2 if n == 4 else r[1] == r[0] % n)]
    table(hakems, "the Hakem's side")
    table([r for r in rows if r not in hakems], "the defenders")
    b, bb = brier(rows), brier(rows, base)
    gap = partner_report(partner_pairs(rows)) if n == 4 else 0.0
    bias = sum(r[4] - r[5] for r in rows) / max(1, len(rows))
    print(f"baseline: the constant {base:.3f} (the share of estimates whose side won)")
    print(f"the mover's bias: mean estimate less outcome {bias:+.3f}")
    if n == 2:
        print(f"the graph's saw: seat 0's estimate less seat 1's next, in seat 0's terms "
              f"{alternation(rows):+.3f}")
    print(f"RESULT brier={b:.4f} brier_base={bb:.4f} n={len(rows)} "
          f"skill={1 - b / bb if bb else 0.0:.3f} partner_gap={gap:.3f} mover_bias={bias:.3f}")


if __name__ == "__main__":
    main()
