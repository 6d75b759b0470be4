"""How far above the heuristic can card play get?  A *clairvoyant* upper bound (research only).

NOT a policy: side A here reads the true state (every hand), which no bot may do.  It scores
each legal card on the one true deal, exactly like one sample of the search policy: with at most
``--solve`` cards in hand by the exact solver (``--eval solver``) or by the side's best response
to heuristic opponents (``--eval response``, ``worker/policies/response.py``), else by a playout
(``heuristic``: every seat plays the heuristic; ``rule``: the perfect-information rule policy).
Trump is the heuristic's.  Deals are duplicated as in ``hokm arena`` (same decks and Hakem
rotation).

    python bench/bots_arena/ceiling.py --deals 200 --rollout heuristic --solve 5
    python bench/bots_arena/ceiling.py --deals 200 --eval response --solve 8

``play_copy`` and ``duplicate`` (a side A given by a chooser against heuristic sides, on
``hokm arena``'s deals and per-seat generators) serve ``phases.py`` and ``belief.py`` too.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine import (
    NAMES, ChooseTrump, CreateMatch, DealRound, PlayCard, Rules, State, TakeSeat, commitment_of,
    decide, evolve, redact_event, view_for,
)
from engine.cards import CARD_INDEX
from engine.state import CHOOSING_TRUMP, PLAYING
from worker.arena import deck_for_deal, paired_interval
from worker.policies import policy_for
from worker.policies.fast import FAST_TABLES, FastState, winner_decided
from worker.policies.playout import heuristic_playout, playout
from worker.policies.response import Response
from worker.policies.solver import Solver, representatives


def clairvoyant_card(state: State, seat: int, rollout: str, solve: int, evaluator: str,
                     voids: list[int]) -> str:
    assert state.deal.trump is not None and state.leader is not None and state.hakem is not None
    ft = FAST_TABLES[(state.deal.trump, state.rules.satat)]
    fs = FastState([ft.mask_to_fast(h) for h in state.hands],
                   [ft.to_fast[c] for _, c in state.trick], state.leader, list(state.tricks),
                   state.tricks_played, state.hakem % 2, state.rules, state.pile, state.run_team)
    in_play = fs.hands[0] | fs.hands[1] | fs.hands[2] | fs.hands[3]
    for c in fs.trick:
        in_play |= 1 << c
    team = seat & 1
    best, best_value = -1, -1
    for c in representatives(fs.legal(), in_play):
        st = fs.copy()
        st.play(c)
        if fs.hands[seat].bit_count() <= solve and evaluator == "response":
            value = int(Response(seat, state.rules.must_trump).wins(st, voids))
        elif fs.hands[seat].bit_count() <= solve:
            value = int(Solver(team, state.rules.must_trump, state.rules.double_sar,
                               sure=True).wins(st))
        else:
            won = winner_decided(st)
            if won is None:
                won = heuristic_playout(st, [0, 0, 0, 0]) if rollout == "heuristic" else \
                    playout(st)
            value = int(won == team)
        if value > best_value:
            best, best_value = c, value
    return NAMES[ft.to_engine[best]]


Chooser = Callable[[State, int, list[int], list[dict[str, object]], random.Random], str]
"""Side A's card: ``(state, seat, voids shown, the seat's redacted history, rng)``."""


def play_copy(deck: tuple[str, ...], hakem: int, a_team: int, choose_a: Chooser,
              rngs: list[random.Random]) -> bool:
    """One copy of a deal; True when side A wins the round.  Side A names trump as the
    heuristic does and plays the cards ``choose_a`` gives; side B is the heuristic.
    ``rngs[seat]`` is each seat's generator (``hokm arena`` seeds them the same way)."""
    heuristic = policy_for("heuristic")
    state = State()
    seen: list[list[dict[str, object]]] = [[], [], [], []]
    voids = [0, 0, 0, 0]  # the voids shown, in fast suits (what the heuristic players know)

    def run(seat: int | None, command: object) -> None:
        nonlocal state
        if isinstance(command, PlayCard) and state.trick and state.deal.trump is not None:
            assert seat is not None
            ft = FAST_TABLES[(state.deal.trump, state.rules.satat)]
            led = ft.to_fast[state.trick[0][1]] >> 4
            if ft.to_fast[CARD_INDEX[command.card]] >> 4 != led:
                voids[seat] |= 1 << led
        for event in decide(state, seat, command):  # type: ignore[arg-type]
            for s in range(4):
                seen[s].append(redact_event(state, event, s))
            state = evolve(state, event)

    run(None, CreateMatch("ceiling", Rules(), commitment_of("c"), first_hakem=hakem))
    for s in range(4):
        run(None, TakeSeat(s, f"p{s}", f"p{s}"))
    run(None, DealRound(deck, stacked=True))
    while state.phase in (CHOOSING_TRUMP, PLAYING):
        seat = state.turn
        assert seat is not None
        if state.phase == PLAYING and seat % 2 == a_team:
            run(seat, PlayCard(choose_a(state, seat, voids, seen[seat], rngs[seat])))
            continue
        choice = heuristic.choose(view_for(state, seat), seen[seat], rngs[seat])
        run(seat, ChooseTrump(choice) if state.phase == CHOOSING_TRUMP else PlayCard(choice))
    assert state.match.result is not None
    return state.match.result.winner == a_team


def duplicate(seed: int, deals: int, choose_a: Chooser, label: str,
              progress: bool = False) -> tuple[float, float, float]:
    """Every deal twice (``hokm arena``'s decks and Hakem rotation, side A on each team);
    print and return the paired mean and 95 % interval of A's round wins."""
    scores = []
    for deal in range(deals):
        deck, hakem = deck_for_deal(seed, deal), deal % 4
        won = [play_copy(deck, hakem, a_team, choose_a,
                         [random.Random(f"hokm-arena:{seed}:{deal}:{s}") for s in range(4)])
               for a_team in (0, 1)]
        scores.append(sum(won) / 2)
        if progress:
            mean = sum(scores) / len(scores)
            print(f"\r{deal + 1}/{deals} deals  A {mean:.3f}", end="", file=sys.stderr,
                  flush=True)
    if progress:
        print(file=sys.stderr)
    mean, low, high = paired_interval(scores)
    print(f"{label} vs heuristic: {mean:.4f} [{low:.3f}, {high:.3f}] over {deals} duplicate "
          f"deals, seed {seed}")
    return mean, low, high


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--rollout", choices=("heuristic", "rule"), default="heuristic")
    ap.add_argument("--solve", type=int, default=5)
    ap.add_argument("--eval", choices=("solver", "response"), default="solver")
    args = ap.parse_args()

    def clairvoyant(state: State, seat: int, voids: list[int], history: object,
                    rng: random.Random) -> str:
        return clairvoyant_card(state, seat, args.rollout, args.solve, args.eval, voids)

    duplicate(args.seed, args.deals, clairvoyant,
              f"clairvoyant ({args.rollout} playouts, {args.eval} <= {args.solve} cards)")


if __name__ == "__main__":
    main()
