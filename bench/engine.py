"""Engine throughput: random legal rounds through the validating path, against the bare floor.

Plays ROUNDS rounds with ``decide`` + ``evolve`` (commands validated, events produced and applied,
legal cards taken from the engine), and in the same run the bare loop of
``../shared/bench/bare_round.py``.  Prints both rates and ends with
``RESULT ratio=<engine rounds/s / bare rounds/s>`` (goal: at least 0.35).

    python bench/engine.py [ROUNDS] [REPEATS]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import random
import runpy
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchcli import positive_int
from engine import (
    NAMES, ChooseTrump, CreateMatch, DealRound, PlayCard, Rules, State, TakeSeat,
    commitment_of, decide, evolve,
)
from engine.cards import cards_of
from engine.views import legal_mask

# the workspace's reference loop, next to this clone; HOKM_BENCH_BARE names another (the test
# of this script's RESULT line runs it in a clone anywhere, with a stand-in)
BARE = Path(os.environ.get("HOKM_BENCH_BARE")
            or Path(__file__).resolve().parents[2] / "shared" / "bench" / "bare_round.py")
SUITS = "SHDC"


def seated_state(rules: Rules | None = None) -> State:
    state = State()
    rules = rules or Rules()
    commands = [CreateMatch("bench", rules, commitment_of("x"), first_hakem=0)]
    commands += [TakeSeat(i, f"p{i}", f"p{i}") for i in range(4)]
    for command in commands:
        for event in decide(state, None, command):
            state = evolve(state, event)
    return state


def engine_rounds(n: int, seed: int = 1) -> tuple[float, float]:
    """Seconds for ``n`` rounds through decide + evolve, and the mean tricks per round."""
    rng = random.Random(seed)
    randrange, shuffle = rng.randrange, rng.shuffle
    base = seated_state()
    tricks = 0
    names = list(NAMES)
    t0 = time.perf_counter()
    for _ in range(n):
        shuffle(names)
        state = base
        for event in decide(state, None, DealRound(tuple(names))):
            state = evolve(state, event)
        for event in decide(state, state.hakem, ChooseTrump(SUITS[randrange(4)])):
            state = evolve(state, event)
        while state.phase == "playing":
            seat = state.turn
            legal = cards_of(legal_mask(state, seat))  # type: ignore[arg-type]
            command = PlayCard(NAMES[legal[randrange(len(legal))]])
            for event in decide(state, seat, command):
                state = evolve(state, event)
        tricks += state.tricks_played
    return time.perf_counter() - t0, tricks / n


def load_bare_round() -> Callable[[random.Random], list[int]]:
    """The reference loop's own ``round_`` function (its module body also times a short run).
    Without it (a clone outside the workspace that holds ``shared/``) one line says what is
    missing, not a ``FileNotFoundError`` traceback."""
    if not BARE.is_file():
        raise SystemExit(f"bench/engine.py: the reference loop {BARE} is missing: this benchmark "
                         "compares the engine with the workspace's shared/bench/bare_round.py, "
                         "next to this clone")
    sys_argv = sys.argv
    sys.argv = [str(BARE), "200"]
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            namespace = runpy.run_path(str(BARE), run_name="bare")
    finally:
        sys.argv = sys_argv
    return namespace["round_"]  # type: ignore[no-any-return]


def bare_rounds(round_: Callable[[random.Random], list[int]], n: int, seed: int) -> float:
    rng = random.Random(seed)
    t0 = time.perf_counter()
    for _ in range(n):
        round_(rng)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("rounds", type=positive_int, nargs="?", default=20000)
    parser.add_argument("repeats", type=positive_int, nargs="?", default=3)
    args = parser.parse_args()
    rounds, repeats = args.rounds, args.repeats
    chunk = 1000  # interleave short chunks so both loops see the same machine load
    round_ = load_bare_round()
    ratios = []
    for i in range(repeats):
        t_bare = t_eng = 0.0
        tricks = 0.0
        for k in range(0, rounds, chunk):
            m = min(chunk, rounds - k)
            t_bare += bare_rounds(round_, m, seed=i * 1000 + k)
            dt, mean = engine_rounds(m, seed=i * 1000 + k)
            t_eng += dt
            tricks += mean * m
        bare, eng = rounds / t_bare, rounds / t_eng
        ratios.append(eng / bare)
        print(f"run {i + 1}: engine {eng:.0f} rounds/s (mean tricks {tricks / rounds:.2f}), "
              f"bare {bare:.0f} rounds/s, ratio {eng / bare:.3f}")
    print(f"RESULT ratio={statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
