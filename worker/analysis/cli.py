"""``hokm analyze MATCH``: the post-match analysis of a finished match, in the terminal.

With ``HOKM_REDIS_URL`` it asks the workers, as the gateway does: the rounds not stored yet are
enqueued (``jobs.enqueue``: once each, however often it is asked) and their results read back as
they come, until every round is there or ``--wait`` seconds pass.  With ``--local``, or without
``HOKM_REDIS_URL`` (the embedded server's data folder, read as ``hokm replay`` reads it), the
rounds are computed in this process (stored beside the match when it lives in Redis).  A
progress bar on a terminal (a plain line per step otherwise), then a line per player (decisions,
and how many cost a trick, a round, a kot; "Kian (bot), seat 2": a seat that changed hands has a
line per player who sat there, as the replay's summary; a line per seat for an analysis stored
before moves named their mover) and every costly move.  Bad input is one line on stderr and a
non-zero exit, like every ``hokm`` command.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import TYPE_CHECKING, Any

from engine.events import (
    CardPlayed, CardsDiscarded, MatchCreated, TalonDrawn, TrumpChosen,
)
from services.clitools import CliError, match_arg, positive_at_most
from services.store.port import Record

if TYPE_CHECKING:  # the search and RQ load only when the command runs
    from .core import AnalysisConfig

COST_WORDS = {"trick": "a trick", "round": "the round", "kot": "a kot"}
DECISIONS = (TrumpChosen, CardPlayed, CardsDiscarded, TalonDrawn)
"""The events that are decisions, each the first of its record: what ``core.analyse_round``
judges (a move each: the trump, the talon game's discards and draws, every card played), so
the progress's total is the number of moves the analysis reports."""


class Progress:
    """A bar redrawn in place on a terminal; elsewhere a line at each tenth of the way.  On
    stderr (``tty``: stderr is a terminal), so that stdout holds the report alone (``hokm
    analyze M > report.txt``)."""

    def __init__(self, total: int, unit: str, tty: bool) -> None:
        self.total, self.unit, self.tty = max(total, 1), unit, tty
        self.shown = -1

    def show(self, done: int) -> None:
        step = done if self.tty else 10 * done // self.total
        if step == self.shown:
            return
        self.shown = step
        if self.tty:
            filled = 30 * done // self.total
            print(f"\r[{'#' * filled}{'.' * (30 - filled)}] {done}/{self.total} {self.unit}",
                  end="", file=sys.stderr, flush=True)
        else:
            print(f"analysed {done} of {self.total} {self.unit}", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.tty:
            print(file=sys.stderr, flush=True)


MAX_WAIT_S = 86_400
"""The longest ``--wait``: a day (an audit's finding: 10**20 s was taken and said)."""

def _analyze(args: argparse.Namespace) -> int:
    from services.audit import _records, is_over, whole_chain

    from .core import rounds_of
    from .jobs import config

    from services.settings import Settings

    Settings.from_env()  # a HOKM_ setting that is not valid (a Redis URL too): one line, exit 2
    cfg = config()  # a HOKM_ANALYSIS_ setting that is not valid: one line naming it (exit 2)
    records = _records(args)  # one line for a missing match, folder or Redis
    match_id = args.match
    whole_chain(records, f"match {match_id}")  # analysed, a gap would read as moves not made
    if not is_over(records):
        raise CliError(f"match {match_id} is not over: its analysis opens at its end", 2)
    rounds = rounds_of(records)
    tty, bar = sys.stdout.isatty(), sys.stderr.isatty()  # the report's colours; the progress
    url = os.environ.get("HOKM_REDIS_URL")
    if url and not args.local:
        results = _through_workers(match_id, rounds, args.wait, bar)
    else:
        results = _here(args, records, rounds, cfg, bar, store=bool(url))
    created = records[0].events[0]
    seats = created.rules.players if isinstance(created, MatchCreated) else 4
    report(match_id, [results[r] for r in range(rounds)], tty, seats)
    return 0


def _through_workers(match_id: str, rounds: int, wait_s: float, tty: bool
                     ) -> dict[int, dict[str, Any]]:
    from services.runtime import build_runtime

    from .jobs import enqueue

    try:
        rt = build_runtime()
    except ValueError as exc:
        raise CliError(f"a HOKM_ setting is not valid ({exc})", 2) from None
    if rounds and not rt.store.analysis_results(match_id).keys() >= set(range(rounds)):
        _no_worker_yet(rt, wait_s)
    progress = Progress(rounds, "rounds", tty)
    deadline = time.monotonic() + wait_s
    try:
        while True:
            done = rt.store.analysis_results(match_id)
            progress.show(len(done))
            missing = [r for r in range(rounds) if r not in done]
            if not missing:
                return {r: json.loads(done[r]) for r in range(rounds)}
            if time.monotonic() > deadline:
                raise CliError(f"{len(missing)} of {rounds} rounds not analysed within "
                               f"{wait_s:g} s: is `hokm worker` running? (or use --local)")
            enqueue(rt, match_id, missing)  # the rounds neither stored nor queued
            time.sleep(0.5)
    finally:
        progress.close()


def _no_worker_yet(rt: Any, wait_s: float) -> None:
    """Say on stderr, before the progress, when no worker listens on the analysis queue (RQ's
    registry of its workers): the command waited silently until ``--wait`` ran out (900 s by
    default) before it said so.  Only said: a worker may be starting, so the command waits
    on as before; a queue that does not answer now is left to the waiting to report."""
    import redis
    from rq import Worker

    from .jobs import queue, queue_name

    try:
        listening = Worker.count(connection=rt.scheduler.client, queue=queue(rt))
    except redis.RedisError:
        return
    if not listening:
        print(f"hokm analyze: no worker listens on the queue {queue_name(rt)}: is `hokm "
              f"worker` running? (or use --local); waiting up to {wait_s:g} s for one",
              file=sys.stderr, flush=True)


def _here(args: argparse.Namespace, records: list[Record], rounds: int, cfg: AnalysisConfig,
          tty: bool, *, store: bool) -> dict[int, dict[str, Any]]:
    """Every round computed in this process; stored beside the match when it is in Redis."""
    from .core import analyse_round

    total = sum(1 for r in records if r.events and isinstance(r.events[0], DECISIONS))
    progress = Progress(total, "decisions", tty)
    count = [0]

    def step() -> None:
        count[0] += 1
        progress.show(count[0])

    saved = None
    if store:
        from services.audit import _client
        from services.store.redis_streams import RedisStore

        saved = RedisStore(_client(args, args.match))
    out: dict[int, dict[str, Any]] = {}
    try:
        cached = saved.analysis_results(args.match) if saved is not None else {}
        for r in range(rounds):
            if r in cached:
                out[r] = json.loads(cached[r])
                count[0] += len(out[r]["moves"])
                continue
            out[r] = analyse_round(records, r, cfg, step)
            if saved is not None:
                saved.put_analysis(args.match, r, json.dumps(out[r]).encode())
    finally:
        progress.close()
    return out


def report(match_id: str, rounds: list[dict[str, Any]], tty: bool, seats: int) -> None:
    """Print the analysis of a match's ``rounds`` (each as stored, which is also how ``GET
    /api/matches/{id}/analysis`` answers it): the table per player, then every costly move
    (card colours when ``tty``; ``seats``: the match's number of players)."""
    from services.audit import SUIT_SYMBOL, card_text

    colour = tty and not os.environ.get("NO_COLOR")
    print(f"Match {match_id}: {len(rounds)} rounds analysed")
    costly = [(one["round"], move) for one in rounds for move in one["moves"] if move["cost"]]
    _summary([move for one in rounds for move in one["moves"]], seats)

    def text(move: dict[str, Any], name: str) -> str:
        if move["kind"] == "trump":
            return SUIT_SYMBOL[name]
        words = " ".join(card_text(card, colour) for card in name.split())  # a discard: cards
        return {"draw": f"keeping {words}", "discard": f"laying aside {words}"}.get(
            move["kind"], words)

    if not costly:
        print("No costly move (as far as the solver could judge exactly).")
        return
    print("Costly moves:")
    for round_no, move in costly:
        best = ", ".join(text(move, b) for b in move["best"])
        print(f"  round {round_no + 1}, record {move['version']}, {_mover(move)}: "
              f"{text(move, move['played'])} cost {COST_WORDS[move['cost']]} (best: {best}; "
              f"the bot chose {text(move, move['bot']['choice'])}"
              f"{_chance(move['bot']['win_chance'])})")


def _summary(moves: list[dict[str, Any]], seats: int) -> None:
    """The table of decisions and their costs: a row per player, each seat's in the order they
    first moved there ("Babak, seat 2", "Kian (bot), seat 2"), as the replay's summary shows it
    (a seat changes hands when its player leaves, and a bot that took it over is not charged
    with its predecessor's moves).  An analysis stored before moves named their mover (no
    ``by``; its SEATSUM has no ``players`` either) gets a row per seat, every seat's."""
    split = bool(moves) and all(move.get("by") for move in moves)
    rows: dict[str, dict[str, int]] = {}
    if not split:
        rows = {str(s): {"moves": 0, "trick": 0, "round": 0, "kot": 0} for s in range(seats)}
    for move in sorted(moves, key=lambda m: int(m["seat"])):  # stable: each seat's in order
        row = rows.setdefault(_mover(move) if split else str(move["seat"]),
                              {"moves": 0, "trick": 0, "round": 0, "kot": 0})
        row["moves"] += 1
        if move["cost"]:
            row[move["cost"]] += 1
    # names to the left, seat numbers to the right (as the table always printed them)
    width = max(len(label) for label in [*rows, "player" if split else "seat"])
    align = "<" if split else ">"
    print(f"{'player' if split else 'seat':{align}{width}}  decisions  cost a trick  "
          "cost the round  cost a kot")
    for label, row in rows.items():
        print(f"{label:{align}{width}}  {row['moves']:>9}  {row['trick']:>12}  "
              f"{row['round']:>14}  {row['kot']:>10}")


def _mover(move: dict[str, Any]) -> str:
    """Who made ``move``, as the summary's rows name them ("Kian (bot), seat 2"); a move
    stored before moves named their mover (no ``by``): its seat alone ("seat 2")."""
    by = move.get("by")
    if not by:
        return f"seat {move['seat']}"
    return f"{by.get('name') or '?'}{' (bot)' if by.get('bot') else ''}, seat {move['seat']}"


def _chance(chance: float | None) -> str:
    """The bot's round-win chance as words (none estimated: nothing said)."""
    return "" if chance is None else f", round-win chance {chance:.0%}"


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from services.audit import _DATA_HELP

    p = sub.add_parser("analyze", help="analyse every decision of a finished match",
                       description="Analyse every decision of a finished match: each card and "
                                   "trump against the best with every hand known, and the hard "
                                   "bot's choice from what the seat knew.")
    p.add_argument("match", nargs="?", default="", type=match_arg, help="the match id")
    p.add_argument("--local", action="store_true",
                   help="compute in this process instead of asking the workers")
    p.add_argument("--wait", type=positive_at_most(MAX_WAIT_S, "seconds (a day)"),
                   default=900, help="seconds to wait for the workers")
    p.add_argument("--data", metavar="DIR", help=_DATA_HELP)
    p.set_defaults(func=_analyze)

