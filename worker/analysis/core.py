"""The analysis of one round of a finished match: pure functions of its records.

``analyse_round(records, index, config)`` replays the match's records (the deck of every round is
in its ``RoundStarted`` event, all public once the match is over) and, for each decision of round
``index`` (0-based: the Hakem's trump and every card played), returns the ROUND object of
``docs/api.md`` ("The analysis of a match"):

* every legal alternative judged with every hand known (``exact.Judge``: tricks, wins, kot for
  the mover's side after that card; for the trump, each of the four suits on the full deal with
  the Hakem leading), the best ones and what the card played cost against them;
* the hard bot's choice and round-win chance (``bot.estimate``) from the mover's own view at that
  version, built by ``engine.view_for`` from the state before the move, and its redacted history
  (``engine.redact_event`` for that seat): never another seat's cards.

Deterministic: the bot's random numbers are seeded by (match id, version).  ``progress`` is
called after every decision (the job refreshes its running mark there).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engine import State, evolve, redact_event, view_for
from engine.cards import NAMES, SUITS
from engine.deal import deal_hands
from engine.events import CardPlayed, MatchCreated, RoundEnded, RoundStarted, TrumpChosen
from services.store.port import Record
from worker.policies import HARD, SearchConfig, SearchPolicy
from worker.policies.fast import BLOCK, FAST_TABLES, FastState
from worker.policies.solver import representatives

from .bot import estimate
from .exact import Judge, Outcome

COSTS = ("trick", "round", "kot")


@dataclass(frozen=True, slots=True)
class AnalysisConfig:
    """What one analysis spends."""

    nodes: int = 50_000
    """Most solver nodes per question (0: no limit, always exact); past it an alternative is
    judged by a rule-policy playout and its move is marked ``"exact": false``.  Measured on
    round 0 of a seeded match with the ``hard`` bot, pure Python: 20,000 nodes 5.5 s CPU and
    30 of 49 moves exact, 50,000 10.8 s and 32, 200,000 29.9 s and 36."""
    bot: SearchConfig = HARD
    """The search whose choice and chance are reported (the ``hard`` level)."""


class NotAnalysable(ValueError):
    """The records hold no such finished round of a four-player match."""


def rounds_of(records: Sequence[Record]) -> int:
    """The rounds played to their end in ``records``."""
    return sum(isinstance(e, RoundEnded) for r in records for e in r.events)


def analyse_round(records: Sequence[Record], index: int, config: AnalysisConfig = AnalysisConfig(),
                  progress: Callable[[], None] | None = None) -> dict[str, Any]:
    """The ROUND object of round ``index`` (see the module docstring)."""
    state = State()
    seen: list[list[dict[str, Any]]] = [[] for _ in range(4)]
    match_id = ""
    round_no = -1
    out: dict[str, Any] | None = None
    judges: dict[tuple[int, int], Judge] = {}
    policy = SearchPolicy(config.bot, "hard")
    for record in records:
        for i, event in enumerate(record.events):
            if isinstance(event, MatchCreated):
                match_id = event.match_id
                if event.rules.players != 4:
                    raise NotAnalysable("the analysis covers the four-player game only")
            elif isinstance(event, RoundStarted):
                round_no += 1
                if round_no == index:
                    out = {"round": index, "hakem": event.hakem, "trump": None, "moves": [],
                           "result": None}
            if round_no == index and out is not None and i == 0 and \
                    isinstance(event, (TrumpChosen, CardPlayed)):
                view = view_for(state, event.seat, record.version - 1)
                rng = random.Random(f"{match_id}:{record.version}")
                choice, chance = estimate(policy, view, list(seen[event.seat]), rng)
                if isinstance(event, TrumpChosen):
                    move = _trump_move(state, event, judges, config)
                else:
                    move = _card_move(state, event, judges, config)
                move.update(version=record.version, seat=event.seat,
                            bot={"choice": choice, "win_chance": round(chance, 3)},
                            win_chance=round(chance, 3))
                out["moves"].append(move)
                if progress is not None:
                    progress()
            if round_no == index and out is not None and isinstance(event, RoundEnded):
                out["trump"] = None if state.deal.trump is None else SUITS[state.deal.trump]
                out["result"] = {"winner_side": event.winner, "kind": event.kind,
                                 "tricks": list(event.tricks)}
            for s in range(4):
                seen[s].append(redact_event(state, event, s))
            state = evolve(state, event)
        if out is not None and out["result"] is not None:
            out["seats"] = seat_summary(out["moves"])
            return out
    raise NotAnalysable(f"the match has no finished round {index}")


def _judge(judges: dict[tuple[int, int], Judge], trump: int, team: int, config: AnalysisConfig,
           state: FastState) -> tuple[Outcome, bool]:
    """One side's outcome, by that side's judge for this trump (its table serves the round)."""
    judge = judges.get((trump, team))
    if judge is None:
        judge = judges[(trump, team)] = Judge(state.rules, team, config.nodes)
    return judge.judge(state)


def _trump_move(state: State, event: TrumpChosen, judges: dict[tuple[int, int], Judge],
                config: AnalysisConfig) -> dict[str, Any]:
    """The four suits on the full deal, the Hakem's side to move first."""
    hakem = event.seat
    hands = deal_hands(state.deal.deck, hakem, state.rules)
    team = hakem % 2
    judged: dict[str, tuple[Outcome, bool]] = {}
    for suit in range(4):
        ft = FAST_TABLES[(suit, state.rules.satat)]
        start = FastState([ft.mask_to_fast(h) for h in hands], [], hakem, [0, 0], 0, team,
                          state.rules)
        judged[SUITS[suit]] = _judge(judges, suit, team, config, start)
    return _move("trump", event.suit, judged)


def _card_move(state: State, event: CardPlayed, judges: dict[tuple[int, int], Judge],
               config: AnalysisConfig) -> dict[str, Any]:
    """Every legal card of the mover, one solve per run of equivalent cards."""
    trump = state.deal.trump
    assert trump is not None and state.hakem is not None and state.leader is not None
    ft = FAST_TABLES[(trump, state.rules.satat)]
    st = FastState([ft.mask_to_fast(h) for h in state.hands],
                   [ft.to_fast[c] for _, c in state.trick], state.leader, list(state.tricks),
                   state.tricks_played, state.hakem % 2, state.rules, state.pile,
                   state.run_team)
    team = event.seat % 2
    legal = st.legal()
    in_play = st.hands[0] | st.hands[1] | st.hands[2] | st.hands[3]
    for c in st.trick:
        in_play |= 1 << c
    reps = set(representatives(legal, in_play))
    judged: dict[str, tuple[Outcome, bool]] = {}
    rep_of: dict[int, int] = {}
    m = legal
    while m:
        low = m & -m
        c = low.bit_length() - 1
        m ^= low
        if c in reps:
            after = st.copy()
            after.play(c)
            rep_of[c] = c
            judged[NAMES[ft.to_engine[c]]] = _judge(judges, trump, team, config, after)
        else:  # equivalent to the card just below it in play, which is ours (same run)
            below = in_play & BLOCK[c >> 4] & (low - 1)
            rep_of[c] = rep_of[below.bit_length() - 1]
            judged[NAMES[ft.to_engine[c]]] = judged[NAMES[ft.to_engine[rep_of[c]]]]
    return _move("play", event.card, judged)


def _move(kind: str, played: str, judged: dict[str, tuple[Outcome, bool]]) -> dict[str, Any]:
    """The MOVE object's judgement part: alternatives, best, cost, exact."""
    top = max(o.rank() for o, _ in judged.values())
    best = [name for name, (o, _) in judged.items() if o.rank() == top]
    exact = all(e for _, e in judged.values())
    mine = judged[played][0]
    top_o = judged[best[0]][0]
    cost: str | None = None
    if exact:
        if top_o.wins and not mine.wins:
            cost = "round"
        elif top_o.kot and not mine.kot:
            cost = "kot"
        elif top_o.tricks > mine.tricks:
            cost = "trick"
    return {"kind": kind, "played": played,
            "alternatives": [{"card": name, "tricks": o.tricks, "wins": o.wins, "kot": o.kot}
                             for name, (o, _) in judged.items()],
            "best": best, "cost": cost, "exact": exact}


def seat_summary(moves: Sequence[dict[str, Any]]) -> list[dict[str, int]]:
    """SEATSUM per seat over ``moves``: decisions and how many cost a trick, a round, a kot."""
    out = [{"seat": s, "moves": 0, "cost_trick": 0, "cost_round": 0, "cost_kot": 0}
           for s in range(4)]
    for move in moves:
        row = out[move["seat"]]
        row["moves"] += 1
        if move["cost"] in COSTS:
            row[f"cost_{move['cost']}"] += 1
    return out
