"""``hokm arena A B``: duplicate deals between two policies (or levels).

Every deal is played twice with the same cards (a stacked deck, ``DealRound(deck, stacked=True)``)
and the sides swapped: A holds seats 0 and 2 in the first copy and seats 1 and 3 in the second.
The Hakem seat of deal ``i`` is ``i % 4``, so it rotates evenly.

The games of two and three players (``--players 2 [--two-player talon]``, ``--players 3``; every
side is one seat): with two, A holds seat 0 in one copy and seat 1 in the other; with three,
every deal is played six times, A alone at seat ``s`` against two B and B alone at ``s`` against
two A, for each seat ``s``.  A copy counts for A when a seat of A wins the round, and half when
nobody does (three players, a 6-6-5 split), so a policy against itself scores exactly 0.5 in
every game.  The Hakem seat of deal ``i`` is ``i % players``.  Each copy is one whole round,
played through ``engine.decide``/``evolve``; every seat's policy gets only ``view_for`` of its
seat and its own redacted history, exactly as a bot worker would.  Each seat's random generator is
seeded from (seed, deal, seat) and is the same in both copies, so a policy against itself plays
the two copies identically and scores exactly 0.5.

Reported:

* A's round win rate with a paired 95 % confidence interval: the per-deal score is the mean of
  A's two results (0, 0.5 or 1), and the interval is mean +/- 1.96 * sd / sqrt(deals); with
  fewer than ``MIN_DEALS_FOR_INTERVAL`` deals that normal interval means nothing, so the report
  says it is not available (and the ``RESULT`` line gives ``nan``);
* how often each side made a kot (as Hakem's side) or a Hakem koti (as defenders);
* an estimated first-to-7 match win rate for A: matches simulated by drawing rounds from the
  empirical outcomes, conditioned on which side is Hakem, with the succession rule (the Hakem's
  side keeps the role when it wins, else it passes to the other side), first Hakem side by a coin;
* each policy's decision time (p50, p95, max) in milliseconds, both as CPU time of the deciding
  thread (``time.thread_time``: what one core spends, unaffected by other load on a shared
  machine) and as wall-clock time;
* a last line ``RESULT a_round_rate=<x> ci_low=<l> ci_high=<h> a_ms_p95=<t>`` where ``t`` is A's
  p95 CPU time per decision (``--clock wall`` uses the wall clock instead).

Stopping: Ctrl+C (status 130) terminates the ``--jobs`` pool's processes, and waits for them,
before the command exits (``run_deals``).  When the command dies of a signal (SIGTERM, which it
does not catch; ``kill -9``, the OOM killer), the kernel sends each pool process SIGTERM
(Linux's parent-death signal, ``lifetime.end_with_parent``), which ends it: none runs on as an
orphan.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import random
import signal
import sys
import threading
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine import (
    NAMES, CreateMatch, DealRound, Event, Rules, State, TakeSeat, commitment_of, decide, evolve,
    redact_event, view_for,
)
from engine.state import CHOOSING_TRUMP, DISCARDING, DRAWING, PLAYING

from services.clitools import RulesDisagree, with_game

from .lifetime import end_with_parent
from .policies import LEVELS, MODE, POLICIES, Policy, policy_for
from .policies.base import command_for

SECRET = "a7" * 32
MIN_DEALS_FOR_INTERVAL = 10
"""Below this many deals the report gives no confidence interval (the normal approximation of
a mean of 0/0.5/1 scores is not worth printing from fewer)."""


@dataclass(slots=True)
class RoundRecord:
    """One copy of one deal, from A's side."""

    deal: int
    a_team: int
    hakem_team: int
    winner: int | None
    """The winning side (``None``: a round without a winner, three players)."""
    points: int
    kind: str
    tricks: tuple[int, ...]
    a_sides: tuple[int, ...] = ()
    """A's sides (empty: ``a_team`` alone)."""

    @property
    def sides_of_a(self) -> tuple[int, ...]:
        return self.a_sides or (self.a_team,)

    @property
    def a_won(self) -> bool:
        return self.winner in self.sides_of_a

    @property
    def a_hakem(self) -> bool:
        return self.hakem_team in self.sides_of_a

    @property
    def score(self) -> float:
        """A's result: 1 won, 0 lost, 0.5 when nobody won."""
        return 0.5 if self.winner is None else float(self.a_won)


@dataclass(slots=True)
class DealResult:
    deal: int
    rounds: list[RoundRecord]
    a_ms: list[float] = field(default_factory=list)
    b_ms: list[float] = field(default_factory=list)
    a_wall: list[float] = field(default_factory=list)
    b_wall: list[float] = field(default_factory=list)

    @property
    def score(self) -> float:
        return sum(r.score for r in self.rounds) / len(self.rounds)


def deck_for_deal(seed: int, deal: int) -> tuple[str, ...]:
    """The shuffled deck of deal ``deal`` (the same for both copies)."""
    names = list(NAMES)
    random.Random(f"hokm-arena:{seed}:deck:{deal}").shuffle(names)
    return tuple(names)


def play_round(deck: Sequence[str], hakem: int, policies: Sequence[Policy],
               rngs: Sequence[random.Random], rules: Rules,
               times: Sequence[list[float]] | None = None,
               walls: Sequence[list[float]] | None = None) -> State:
    """Play one round from a stacked ``deck`` with ``hakem`` as Hakem; every seat's policy sees
    only its own view and redacted history.  Returns the state once the round is over.
    ``times[seat]`` / ``walls[seat]`` (if given) collect that seat's decision times in
    milliseconds (CPU time of this thread / wall clock)."""
    state = State()
    n = rules.players
    histories: list[list[dict[str, Any]]] = [[] for _ in range(n)]
    version = 0

    def run(seat: int | None, command: Any) -> None:
        nonlocal state, version
        events: tuple[Event, ...] = decide(state, seat, command)
        for event in events:
            for s in range(n):
                histories[s].append(redact_event(state, event, s))
            state = evolve(state, event)
            version += 1

    run(None, CreateMatch("arena", rules, commitment_of(SECRET), first_hakem=hakem))
    for s in range(n):
        run(None, TakeSeat(s, f"seat {s}", f"p{s}", policies[s].name))
    run(None, DealRound(tuple(deck), stacked=True))
    while state.phase in (CHOOSING_TRUMP, DISCARDING, DRAWING, PLAYING):
        seat = state.hakem if state.phase == CHOOSING_TRUMP else state.turn
        assert seat is not None
        view = view_for(state, seat, version)
        w0, t0 = time.perf_counter(), time.thread_time()
        choice = policies[seat].choose(view, histories[seat], rngs[seat])
        if times is not None:
            times[seat].append((time.thread_time() - t0) * 1000.0)
        if walls is not None:
            walls[seat].append((time.perf_counter() - w0) * 1000.0)
        run(seat, command_for(state.phase, choice))
    return state


@dataclass(frozen=True, slots=True)
class DealTask:
    a: str
    b: str
    seed: int
    deal: int
    rules: dict[str, Any]


def copies(rules: Rules) -> list[tuple[int, ...]]:
    """A's seats in each copy of a deal (see the module docstring): the two teams with four
    players, else each seat alone for A and each seat alone for B, without repeats."""
    n = rules.players
    if rules.variant.partnerships:
        return [side for side in rules.variant.sides]
    out: list[tuple[int, ...]] = []
    for s in range(n):
        for a_seats in ((s,), tuple(t for t in range(n) if t != s)):
            if a_seats not in out:
                out.append(a_seats)
    return out


def play_deal(task: DealTask) -> DealResult:
    """Every copy of one deal (module level so worker processes can run it)."""
    rules = Rules.from_dict(task.rules)
    n = rules.players
    deck = deck_for_deal(task.seed, task.deal)
    hakem = task.deal % n
    result = DealResult(task.deal, [])
    for a_seats in copies(rules):
        pa, pb = policy_for(task.a), policy_for(task.b)
        policies = [pa if s in a_seats else pb for s in range(n)]
        rngs = [random.Random(f"hokm-arena:{task.seed}:{task.deal}:{s}") for s in range(n)]
        times: list[list[float]] = [[] for _ in range(n)]
        walls: list[list[float]] = [[] for _ in range(n)]
        state = play_round(deck, hakem, policies, rngs, rules, times, walls)
        r = state.match.result
        assert r is not None
        a_sides = tuple(sorted({rules.team_of(s) for s in a_seats}))
        result.rounds.append(RoundRecord(task.deal, a_sides[0], rules.team_of(hakem), r.winner,
                                         r.points, r.kind, r.tricks, a_sides))
        for s in range(n):
            (result.a_ms if s in a_seats else result.b_ms).extend(times[s])
            (result.a_wall if s in a_seats else result.b_wall).extend(walls[s])
    return result


def run_deals(a: str, b: str, deals: int, seed: int = 1, jobs: int = 1,
              rules: dict[str, Any] | None = None) -> Generator[DealResult, None, None]:
    """Play ``deals`` duplicate deals, yielding results in deal order."""
    # made as they are played: a list of them all held memory for every deal asked at once
    tasks = (DealTask(a, b, seed, i, dict(rules or {})) for i in range(deals))
    if jobs <= 1:
        for task in tasks:
            yield play_deal(task)
        return
    import multiprocessing

    # Ctrl+C while the processes start would reach a process before ``_pool_process`` ignores
    # it (a traceback, or one dying with a lock held: the pool's terminate then hung): SIGINT
    # is blocked while they start (a process starts with the mask of its parent, and unblocks
    # it once it ignores it), and reaches this process inside the block, whose handler ends
    # them (``_stop_on_ctrl_c``)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        pool = multiprocessing.get_context("fork").Pool(jobs, initializer=_pool_process,
                                                        initargs=(os.getpid(),))
    except BaseException:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        raise
    # leaving the block (the run over, or an exception) terminates the processes at once;
    # ``arena`` closes this generator on its way out
    with pool:
        previous = _stop_on_ctrl_c(pool)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        try:
            yield from pool.imap(play_deal, tasks, chunksize=1)
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)


def _stop_on_ctrl_c(pool: Any) -> Any:
    """While ``pool`` runs, Ctrl+C terminates its processes, reaps them and ends the command
    with 130 at once (``services/clitools.py``), rather than raising KeyboardInterrupt wherever
    the main thread is: landing inside one of the pool's locks, it left that lock held and the
    pool's terminate waiting for ever (an audit: 1 run in 8 hung with 200 processes).  Returns
    the handler to put back (None: not the main thread, or SIGINT not Python's to handle)."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return None

    def stop(signum: int, frame: object) -> None:
        import multiprocessing.pool

        # as ``Pool.terminate`` begins: its handler thread replaces no process ended here (one
        # started so was left running after the command: a test under load)
        pool._worker_handler._state = multiprocessing.pool.TERMINATE
        for _ in range(3):  # (one it was starting meanwhile)
            processes = multiprocessing.active_children()
            for process in processes:
                process.terminate()
            for process in processes:
                process.join(10)
        os._exit(130)

    return signal.signal(signal.SIGINT, stop)


def _pool_process(parent: int) -> None:
    """A process of ``run_deals``'s pool (``parent``: the command's pid): SIGTERM (the pool's
    terminate, the parent's death) ends it as the default does, and Ctrl+C (SIGINT to the whole
    process group) is left to the parent, which terminates the pool (no traceback per process).
    Tied to the parent's life (``end_with_parent``): should the parent die without terminating
    the pool (SIGTERM, SIGKILL), the kernel's SIGTERM ends it."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # (blocked by ``run_deals``)
    end_with_parent(parent)


# -- statistics ------------------------------------------------------------------------------


def paired_interval(scores: Sequence[float]) -> tuple[float, float, float]:
    """Mean and 95 % normal interval of per-deal scores (clipped to [0, 1])."""
    n = len(scores)
    mean = sum(scores) / n
    if n < 2:
        return mean, mean, mean
    var = sum((x - mean) ** 2 for x in scores) / (n - 1)
    half = 1.96 * math.sqrt(var / n)
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-quantile (0..1) by the nearest-rank method (0.0 for no values)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(q * len(ordered)))
    return ordered[rank - 1]


def estimate_match_rate(records: Sequence[RoundRecord], matches: int = 20000, target: int = 7,
                        seed: int = 0) -> float:
    """A's first-to-``target`` match win rate, simulated from the empirical round outcomes.

    Rounds are drawn with replacement from the records where A's side was (or was not) the
    Hakem's side, whichever the simulated match needs; the Hakem's side keeps the role when it
    wins a round, otherwise the role passes to the other side (rules.md, succession); the first
    Hakem's side is a coin toss.  Points are the recorded points (1, kot 2, Hakem koti 3).
    Only for games of two sides (``nan`` with three players)."""
    as_hakem = [(r.a_won, r.points) for r in records if r.a_hakem]
    as_defender = [(r.a_won, r.points) for r in records if not r.a_hakem]
    if not as_hakem or not as_defender or any(len(r.tricks) != 2 for r in records):
        return float("nan")
    rng = random.Random(seed)
    wins = 0
    for _ in range(matches):
        a_score = b_score = 0
        a_hakem = rng.random() < 0.5
        while a_score < target and b_score < target:
            pool = as_hakem if a_hakem else as_defender
            a_won, points = pool[rng.randrange(len(pool))]
            if a_won:
                a_score += points
            else:
                b_score += points
            a_hakem = a_won  # the winning side holds (or takes over) the Hakem role
        wins += a_score >= target
    return wins / matches


# -- command line ----------------------------------------------------------------------------


def _bar(done: int, total: int, rate: float, width: int = 30) -> str:
    filled = int(width * done / total) if total else width
    return f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} deals  A {rate:.3f}"


def arena(a: str, b: str, deals: int, seed: int = 1, jobs: int = 1,
          rules: dict[str, Any] | None = None, out: Any = None, err: Any = None,
          progress: bool = True, clock: str = "cpu", plot_path: str | None = None
          ) -> dict[str, float]:
    """Run the arena and print its report to ``out`` (progress to ``err``); return the figures
    of the ``RESULT`` line plus the match estimate."""
    out = out or sys.stdout
    err = err or sys.stderr
    if deals < 1:
        raise ValueError(f"deals must be 1 or more (got {deals})")
    Rules.from_dict(rules)  # fail early on rules the game does not play
    policy_for(a)
    policy_for(b)  # fail early on unknown names
    results: list[DealResult] = []
    total_score = 0.0
    shown = 0.0
    played = run_deals(a, b, deals, seed, jobs, rules)
    with contextlib.closing(played):  # its pool ends here, not when the frame is collected
        for result in played:
            results.append(result)
            total_score += result.score
            now = time.monotonic()
            if progress and (now - shown > 0.2 or len(results) == deals):
                shown = now
                err.write(_bar(len(results), deals, total_score / len(results)))
                err.flush()
    if progress:
        err.write("\n")
    scores = [r.score for r in results]
    mean, low, high = paired_interval(scores)
    if len(scores) < MIN_DEALS_FOR_INTERVAL:
        low = high = float("nan")
        interval = (f"95% CI not available (too few deals: {len(scores)} of the "
                    f"{MIN_DEALS_FOR_INTERVAL} it needs)")
    else:
        interval = f"95% CI [{low:.3f}, {high:.3f}] (paired by deal)"
    records = [rec for r in results for rec in r.rounds]
    a_ms = [t for r in results for t in r.a_ms]
    b_ms = [t for r in results for t in r.b_ms]
    a_wall = [t for r in results for t in r.a_wall]
    b_wall = [t for r in results for t in r.b_wall]
    n_rounds = len(records)
    swings = sum(1 for s in scores if s != 0.5)

    def rate(pred: Callable[[RoundRecord], bool]) -> float:
        return sum(1 for r in records if pred(r)) / n_rounds if n_rounds else 0.0

    a_hakem = [r for r in records if r.a_hakem]
    a_def = [r for r in records if not r.a_hakem]
    match_rate = estimate_match_rate(records, seed=seed)
    rule_text = json.dumps(rules) if rules else "standard"
    p = out.write
    p(f"arena: A={a} vs B={b}, {deals} duplicate deals ({n_rounds} rounds), seed {seed}, "
      f"rules {rule_text}; bot code {'compiled (mypyc)' if MODE == 'compiled' else 'Python'}\n")
    p(f"A round win rate {mean:.3f}  {interval}; {swings} of {deals} deals differ between "
      "the copies\n")
    if a_hakem and a_def:
        p(f"A wins {sum(r.a_won for r in a_hakem) / len(a_hakem):.3f} as Hakem's side, "
          f"{sum(r.a_won for r in a_def) / len(a_def):.3f} as defenders\n")
    p(f"kot (Hakem's side 7-0): A {rate(lambda r: r.a_won and r.kind == 'kot'):.3f}, "
      f"B {rate(lambda r: not r.a_won and r.kind == 'kot'):.3f} of rounds; "
      f"Hakem koti: A {rate(lambda r: r.a_won and r.kind == 'hakem_koti'):.3f}, "
      f"B {rate(lambda r: not r.a_won and r.kind == 'hakem_koti'):.3f}\n")
    p(f"A mean points per round {sum(r.points for r in records if r.a_won) / n_rounds:.3f}, "
      f"B {sum(r.points for r in records if not r.a_won) / n_rounds:.3f}\n")
    if match_rate == match_rate:  # not nan
        p(f"estimated first-to-7 match win rate of A: {match_rate:.3f} (simulated from the "
          "round outcomes)\n")
    else:
        p("estimated match win rate of A: not estimated (the succession of three players is "
          "not simulated)\n")
    for name, ms, wall in ((f"A={a}", a_ms, a_wall), (f"B={b}", b_ms, b_wall)):
        p(f"decision time {name} (CPU): p50 {percentile(ms, 0.5):.2f} ms, p95 "
          f"{percentile(ms, 0.95):.2f} ms, max {max(ms, default=0.0):.2f} ms "
          f"({len(ms)} decisions); wall clock p50 {percentile(wall, 0.5):.2f} ms, "
          f"p95 {percentile(wall, 0.95):.2f} ms, max {max(wall, default=0.0):.2f} ms\n")
    if plot_path:
        p(plot(results, plot_path, f"{a} vs {b}, {deals} duplicate deals") + "\n")
    a_p95 = percentile(a_wall if clock == "wall" else a_ms, 0.95)
    p(f"RESULT a_round_rate={mean:.4f} ci_low={low:.4f} ci_high={high:.4f} a_ms_p95={a_p95:.2f}\n")
    return {"a_round_rate": mean, "ci_low": low, "ci_high": high, "a_ms_p95": a_p95,
            "match_rate": match_rate}


def _plot_ready(path: str) -> None:
    """A ``CliError`` (status 2) before any deal is played if ``--plot PATH`` cannot be
    written: its folder missing, or matplotlib not installed (the run ended with status 0 and
    "plot skipped": an audit's finding)."""
    from services.clitools import CliError

    folder = os.path.dirname(os.path.abspath(path)) if path else ""
    if not path or os.path.isdir(path) or not os.path.isdir(folder):
        raise CliError(f"--plot {path!r}: the plot is a file in a folder that exists", 2)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise CliError("--plot needs matplotlib, which is not installed (pip install "
                       "matplotlib)", 2) from None


def plot(results: Sequence[DealResult], path: str, title: str) -> str:
    """Save the running round win rate of A (with its 95 % band) to ``path`` when matplotlib is
    installed; return what happened, for the report."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "plot skipped: matplotlib is not installed"
    xs, mids, lows, highs = [], [], [], []
    scores: list[float] = []
    for r in results:
        scores.append(r.score)
        mean, low, high = paired_interval(scores)
        xs.append(len(scores))
        mids.append(mean)
        lows.append(low)
        highs.append(high)
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.fill_between(xs, lows, highs, alpha=0.25)
    ax.plot(xs, mids)
    ax.axhline(0.5, color="grey", linewidth=0.8)
    ax.set_xlabel("duplicate deals")
    ax.set_ylabel("round win rate of A")
    ax.set_title(title)
    fig.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(fig)
    return f"plot saved to {path}"


def _rules(text: str) -> dict[str, Any]:
    """``--rules``: a JSON object of house rules.  Which rules are valid depends on the game,
    which ``--players`` and ``--two-player`` may name: :func:`game_rules` checks them together
    (``_main``), not this parser type alone."""
    from services.clitools import json_object

    return json_object(text)


def game_rules(rules: dict[str, Any] | None, players: int | None = None,
               two_player: str | None = None) -> dict[str, Any]:
    """The house rules of ``--rules`` with the game of ``--players`` / ``--two-player`` added,
    validated by ``Rules.from_dict`` as one game.  As the API does (``players`` beside the
    rules and in them), a value given in both places must be the same: ``RulesDisagree``
    saying which disagree, else ``Rules.from_dict``'s own ``ValueError``."""
    merged = with_game(rules, (("--players", "players", players),
                               ("--two-player", "two_player", two_player)))
    Rules.from_dict(merged)
    return merged


def _main(args: argparse.Namespace) -> int:
    from services.clitools import CliError

    for name in (args.a, args.b):
        try:
            policy_for(name)
        except (ValueError, KeyError) as exc:
            raise CliError(str(exc), 2) from None
    try:
        rules = game_rules(args.rules, args.players, args.two_player)
    except RulesDisagree as exc:  # (before ValueError: it is one)
        raise CliError(str(exc), 2) from None
    except ValueError as exc:
        raise CliError(f"--rules: {exc}" if args.rules is not None else str(exc), 2) from None
    if args.plot is not None:
        _plot_ready(args.plot)
    # SIGTERM ends the command as the signal does, and its pool with it (the kernel's
    # parent-death signal, ``_pool_process``): unwinding the run from a handler to terminate
    # the pool could hang in ``Pool.terminate`` (a CI run under load waited a minute)
    arena(args.a, args.b, args.deals, args.seed, args.jobs, rules or None,
          progress=not args.quiet, clock=args.clock, plot_path=args.plot)
    return 0


MAX_JOBS = 256
"""The most ``--jobs`` (as ``hokm worker --processes``): a deal is CPU-bound, so more processes
than a few per core only share the cores; a mistyped 100000 forked a thousand processes."""
MAX_DEALS = 1_000_000
"""The most ``--deals``: about four days of ``hard`` on two cores (1,000 deals take about six
minutes), and each deal's outcome is kept for the statistics."""


def register(subparsers: Any) -> None:
    """Add ``hokm arena A B [--deals N] [--seed S] [--jobs J] [--rules JSON]``."""
    from services.clitools import non_negative_int, players, positive_at_most

    p = subparsers.add_parser("arena", help="duplicate deals between two bot policies",
                              description="Duplicate deals between two policies (or levels): "
                                          "each deal twice, the sides swapped.")
    # listed from the registries, so a new level shows in the help (expert was missing once)
    known = ", ".join([*LEVELS, *POLICIES])
    p.add_argument("a", help=f"policy or level A ({known})")
    p.add_argument("b", help="policy or level B")
    p.add_argument("--deals", type=positive_at_most(MAX_DEALS, "deals"), default=100,
                   help=f"duplicate deals (each played twice), 1 to {MAX_DEALS:,}")
    p.add_argument("--seed", type=non_negative_int, default=1,
                   help="seed of the decks and of the players' random choices")
    p.add_argument("--jobs", type=positive_at_most(MAX_JOBS, "processes"), default=1,
                   help=f"worker processes (deals in parallel), 1 to {MAX_JOBS}")
    p.add_argument("--rules", type=_rules, default=None,
                   help='house rules as JSON, e.g. \'{"satat": true}\', of the game --players '
                        'and --two-player name (given in both places, they must agree) '
                        '(default: standard)')
    p.add_argument("--players", type=players, default=None,
                   help="the game: 4 (default), 3, or 2 (with --two-player)")
    p.add_argument("--two-player", choices=("simple", "talon"), default=None,
                   help="with --players 2: the simple game (default) or the talon game")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--plot", metavar="PATH", default=None,
                   help="save the running win rate as a PNG (needs matplotlib)")
    p.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                   help="the decision time in the RESULT line: CPU time of the deciding "
                        "thread or wall clock")
    p.set_defaults(func=_main)
