"""The analysis of one round of a finished match: pure functions of its records.

``analyse_round(records, index, config)`` replays the match's records (the deck of every round is
in its ``RoundStarted`` event, all public once the match is over) and, for each decision of round
``index`` (0-based: the Hakem's trump, the talon game's discards and draws, and every card
played), returns the ROUND object of ``docs/api.md`` ("The analysis of a match"):

* every legal alternative judged with every hand known (four players: ``exact.Judge``; two and
  three: ``nexact.NJudge``, the others against the mover): tricks, wins, kot for the mover's
  side after that card; for the trump, each of the four suits with the Hakem leading, on the full
  deal with four players and on the hands the play began with in the smaller games (in the
  talon game the hands the talon left, so that trump move is judged when the first card comes);
  the best ones and what the choice made cost against them;
* the hard bot's choice and round-win chance (``bot.estimate``, ``bot.estimate_small``) from the
  mover's own view at that version, built by ``engine.view_for`` from the state before the move,
  and its redacted history (``engine.redact_event`` for that seat): never another seat's cards.
  The talon game's discards and draws are moves as well (``_talon_move``): each judged on the
  hands the play began with, the mover's hand changed by that choice alone.

Deterministic: the bot's random numbers are seeded by (match id, version).  ``progress`` is
called after every decision (the job refreshes its running mark there).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from engine import State, evolve, redact_event, view_for
from engine.cards import CARD_INDEX, NAMES, SUITS, cards_of, mask_of
from engine.deal import deal_hands
from engine.events import (
    CardPlayed, CardsDiscarded, MatchCreated, RoundEnded, RoundStarted, TalonDrawn, TrumpChosen,
)
from services.store.port import Record
from worker.policies import HARD, SearchConfig, SearchPolicy
from worker.policies.fast import BLOCK, FAST_TABLES, FastState, FastTable
from worker.policies.solver import representatives

from .bot import estimate, estimate_small
from .exact import Judge, Judged
from .nexact import NJudge, Position

COSTS = ("trick", "round", "kot")


@dataclass(frozen=True, slots=True)
class AnalysisConfig:
    """What one analysis spends."""

    nodes: int = 50_000
    """Most solver nodes per question (0: no limit, always exact); past it an alternative is
    judged by a rule-policy playout and its move is marked ``"exact": false``.  Measured
    (compiled search; rounds 0-3 of ``bench/analysis.py``'s four-player match, round 0 of three
    three-player matches), since the tables of winning ranks (session 18, a faster machine):
    50,000 nodes judge 173 of 188 four-player moves exactly in 9.5 s CPU and 0.77 / 0.81 /
    0.84 of the three-player ones in 16.8 s; 150,000 judged 178 of 188 in 17.3 s and 0.84 /
    0.89 / 0.86 in 38.5 s (before the cuts named fewer cards).  With the former table (session
    17, a slower machine) 150,000 made two analysis workers speed a match up only 1.71x
    instead of 1.85x (the larger tables of two processes share the caches), so the default
    stays at 50,000."""
    bot: SearchConfig = HARD
    """The search whose choice and chance are reported (the ``hard`` level)."""


class NotAnalysable(ValueError):
    """The records hold no such finished round."""


def rounds_of(records: Sequence[Record]) -> int:
    """The rounds played to their end in ``records``."""
    return sum(isinstance(e, RoundEnded) for r in records for e in r.events)


def analyse_round(records: Sequence[Record], index: int, config: AnalysisConfig = AnalysisConfig(),
                  progress: Callable[[], None] | None = None) -> dict[str, Any]:
    """The ROUND object of round ``index`` (see the module docstring)."""
    state = State()
    n = 4
    seen: list[list[dict[str, Any]]] = []
    match_id = ""
    round_no = -1
    out: dict[str, Any] | None = None
    judges: dict[tuple[int, int], Judge] = {}
    njudges: dict[tuple[int, int], NJudge] = {}
    # the decisions judged on the hands the play began with (a small game's trump, the talon's
    # discards and draws): each move and what fills it in at the first card
    pending: list[tuple[dict[str, Any], Callable[[State], dict[str, Any]]]] = []
    policy = SearchPolicy(config.bot, "hard")
    for record in records:
        for i, event in enumerate(record.events):
            if isinstance(event, MatchCreated):
                match_id = event.match_id
                n = event.rules.players
                seen = [[] for _ in range(n)]
            elif isinstance(event, RoundStarted):
                round_no += 1
                if round_no == index:
                    out = {"round": index, "hakem": event.hakem, "trump": None, "moves": [],
                           "result": None}
            if round_no == index and out is not None and i == 0 and \
                    isinstance(event, (TrumpChosen, CardPlayed, CardsDiscarded, TalonDrawn)):
                view = view_for(state, event.seat, record.version - 1)
                rng = random.Random(f"{match_id}:{record.version}")
                history = list(seen[event.seat])
                chance: float | None
                if n != 4:
                    choice, chance = estimate_small(policy, view, history, rng)
                else:
                    choice, chance = estimate(policy, view, history, rng)
                if isinstance(event, TrumpChosen) and n == 4:
                    move = _trump_move(state, event, judges, config)
                elif isinstance(event, TrumpChosen):
                    move = {"kind": "trump", "played": event.suit}
                    pending.append((move, _later_trump(event.suit, njudges, config)))
                elif isinstance(event, (CardsDiscarded, TalonDrawn)):
                    move, later = _talon_move(state, event, njudges, config)
                    choice = _talon_choice(state, event, choice)
                    pending.append((move, later))
                else:
                    for waiting, later in pending:
                        waiting.update(later(state))
                    pending = []
                    if n != 4:
                        move = _small_card_move(state, event, njudges, config)
                    else:
                        move = _card_move(state, event, judges, config)
                win_chance = None if chance is None else round(chance, 3)
                sitting = state.match.seats[event.seat]
                # who made the move: a seat changes hands when a player leaves (a bot or a
                # newcomer takes it), and the summary counts each player's own moves
                by = {"name": sitting.name if sitting else "",
                      "bot": sitting.bot if sitting else None}
                move.update(version=record.version, seat=event.seat, by=by,
                            bot={"choice": choice, "win_chance": win_chance},
                            win_chance=win_chance)
                out["moves"].append(move)
                if progress is not None:
                    progress()
            if round_no == index and out is not None and isinstance(event, RoundEnded):
                out["trump"] = None if state.deal.trump is None else SUITS[state.deal.trump]
                out["result"] = {"winner_side": event.winner, "kind": event.kind,
                                 "tricks": list(event.tricks)}
            for s in range(n):
                seen[s].append(redact_event(state, event, s))
            state = evolve(state, event)
        if out is not None and out["result"] is not None:
            out["seats"] = seat_summary(out["moves"], n)
            return out
    raise NotAnalysable(f"the match has no finished round {index}")


def _judge(judges: dict[tuple[int, int], Judge], trump: int, team: int, config: AnalysisConfig,
           state: FastState) -> Judged:
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
    judged: dict[str, Judged] = {}
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
    in_play = st.hands[0] | st.hands[1] | st.hands[2] | st.hands[3]
    for c in st.trick:
        in_play |= 1 << c

    def after(c: int) -> Judged:
        nxt = st.copy()
        nxt.play(c)
        return _judge(judges, trump, team, config, nxt)

    return _move("play", event.card, _every_card(st.legal(), in_play, ft, after))


def _every_card(legal: int, in_play: int, ft: FastTable,
                after: Callable[[int], Judged]) -> dict[str, Judged]:
    """Every card of ``legal`` (fast cards) judged by ``after``, one call per run of
    equivalent cards (``in_play``: every card in a hand or the open trick)."""
    reps = set(representatives(legal, in_play))
    judged: dict[str, Judged] = {}
    rep_of: dict[int, int] = {}
    m = legal
    while m:
        low = m & -m
        c = low.bit_length() - 1
        m ^= low
        if c in reps:
            rep_of[c] = c
            judged[NAMES[ft.to_engine[c]]] = after(c)
        else:  # equivalent to the card just below it in play, which is the mover's (same run)
            below = in_play & BLOCK[c >> 4] & (low - 1)
            rep_of[c] = rep_of[below.bit_length() - 1]
            judged[NAMES[ft.to_engine[c]]] = judged[NAMES[ft.to_engine[rep_of[c]]]]
    return judged


def _njudge(njudges: dict[tuple[int, int], NJudge], trump: int, seat: int,
            config: AnalysisConfig, pos: Position) -> Judged:
    """A small game's outcome for ``seat``, by its judge for this trump."""
    judge = njudges.get((trump, seat))
    if judge is None:
        judge = njudges[(trump, seat)] = NJudge(pos.rules, seat, config.nodes)
    return judge.judge(pos)


def _small_position(state: State, ft: FastTable) -> Position:
    assert state.hakem is not None and state.leader is not None
    return Position(state.rules, state.hakem, [ft.mask_to_fast(h) for h in state.hands],
                    [ft.to_fast[c] for _, c in state.trick], state.leader, list(state.tricks),
                    state.tricks_played, state.pile, state.run_team)


def _small_trump_move(state: State, played: str, njudges: dict[tuple[int, int], NJudge],
                      config: AnalysisConfig) -> dict[str, Any]:
    """The four suits for the Hakem on the hands held when the play began (in the talon game
    the hands the talon left), the first leader to move."""
    assert state.hakem is not None
    judged: dict[str, Judged] = {}
    for suit in range(4):
        pos = _small_position(state, FAST_TABLES[(suit, state.rules.satat)])
        judged[SUITS[suit]] = _njudge(njudges, suit, state.hakem, config, pos)
    return _move("trump", played, judged)


def _later_trump(suit: str, njudges: dict[tuple[int, int], NJudge], config: AnalysisConfig
                 ) -> Callable[[State], dict[str, Any]]:
    return lambda first: _small_trump_move(first, suit, njudges, config)


def _cards_text(mask: int) -> str:
    """Cards as a discard is named: names in deck order, one space apart."""
    return " ".join(NAMES[c] for c in cards_of(mask))


def _talon_move(state: State, event: CardsDiscarded | TalonDrawn,
                njudges: dict[tuple[int, int], NJudge], config: AnalysisConfig
                ) -> tuple[dict[str, Any], Callable[[State], dict[str, Any]]]:
    """The talon game's discard or draw: the move, and what judges it once the play begins.
    Every other decision of the round is taken as made (the talon's order is fixed and every
    draw takes two cards, so another choice changes the mover's hand only): a draw is judged
    by the card kept (the top one or the next), a discard by the cards laid aside (every set of
    as many of the seat's cards then)."""
    seat = event.seat
    if isinstance(event, TalonDrawn):
        kept, other = CARD_INDEX[event.kept], CARD_INDEX[event.discarded]
        kind, played = "draw", event.kept
        # name -> (cards added to the hand the play began with, cards taken out of it)
        options = {event.kept: (0, 0), event.discarded: (1 << other, 1 << kept)}
    else:
        laid = mask_of(CARD_INDEX[card] for card in event.cards)
        kind, played = "discard", _cards_text(laid)
        options = {}
        for combo in combinations(cards_of(state.hands[seat]), len(event.cards)):
            alt = mask_of(combo)
            options[_cards_text(alt)] = (laid, alt)  # the discards back, those laid aside out

    def later(first: State) -> dict[str, Any]:
        trump = first.deal.trump
        assert trump is not None
        ft = FAST_TABLES[(trump, first.rules.satat)]
        judged: dict[str, Judged] = {}
        for name, (add, remove) in options.items():
            pos = _small_position(first, ft)
            pos.hands[seat] = ft.mask_to_fast((first.hands[seat] | add) & ~remove)
            judged[name] = _njudge(njudges, trump, seat, config, pos)
        return _move(kind, played, judged)

    return {"kind": kind, "played": played}, later


def _talon_choice(state: State, event: CardsDiscarded | TalonDrawn, choice: str) -> str:
    """The bot's talon choice named as the move is: the card it keeps, or its discards in deck
    order."""
    if isinstance(event, TalonDrawn):
        top = state.deal.talon
        first, second = state.deal.deck[top], state.deal.deck[top + 1]
        return NAMES[first if choice == "keep" else second]
    return _cards_text(mask_of(CARD_INDEX[card] for card in choice.split(" ")))


def _small_card_move(state: State, event: CardPlayed, njudges: dict[tuple[int, int], NJudge],
                     config: AnalysisConfig) -> dict[str, Any]:
    """:func:`_card_move` in the games of two and three players."""
    trump = state.deal.trump
    assert trump is not None
    ft = FAST_TABLES[(trump, state.rules.satat)]
    pos = _small_position(state, ft)
    in_play = 0
    for h in pos.hands:
        in_play |= h
    for c in pos.trick:
        in_play |= 1 << c

    def after(c: int) -> Judged:
        nxt = pos.copy()
        nxt.play(c)
        return _njudge(njudges, trump, event.seat, config, nxt)

    return _move("play", event.card, _every_card(pos.legal(), in_play, ft, after))


def _move(kind: str, played: str, judged: dict[str, Judged]) -> dict[str, Any]:
    """The MOVE object's judgement part: alternatives, best, cost, exact.  The cost is named
    only where the bounds prove it (with every alternative exact, the exact cost): the round
    when another alternative surely wins and the card played surely does not; the kot when the
    card played surely wins, another surely sweeps and it surely does not; a trick when no
    alternative can win and another surely counts more tricks than the card played can."""
    shown = {name: j.outcome for name, j in judged.items()}
    top = max(o.rank() for o in shown.values())
    best = [name for name, o in shown.items() if o.rank() == top]
    exact = all(j.exact for j in judged.values())
    mine = judged[played]
    lows = [j.low for j in judged.values()]
    cost: str | None = None
    if any(o.wins for o in lows) and not mine.high.wins:
        cost = "round"
    elif mine.low.wins and any(o.kot for o in lows) and not mine.high.kot:
        cost = "kot"
    elif not any(j.high.wins for j in judged.values()) and \
            max(o.tricks for o in lows) > mine.high.tricks:
        cost = "trick"
    return {"kind": kind, "played": played,
            "alternatives": [{"card": name, "tricks": o.tricks, "wins": o.wins, "kot": o.kot}
                             for name, o in shown.items()],
            "best": best, "cost": cost, "exact": exact}


def seat_summary(moves: Sequence[dict[str, Any]], seats: int = 4) -> list[dict[str, Any]]:
    """SEATSUM per seat over ``moves``: decisions and how many cost a trick, a round, a kot;
    ``players``: the same counts split by who made the moves (a move's ``by``), in the order
    they first moved, so a seat that changed hands names each of its players."""
    out: list[dict[str, Any]] = [
        {"seat": s, "moves": 0, "cost_trick": 0, "cost_round": 0, "cost_kot": 0, "players": []}
        for s in range(seats)]
    for move in moves:
        row = out[move["seat"]]
        by = move.get("by") or {"name": "", "bot": None}
        mine = next((p for p in row["players"]
                     if p["name"] == by["name"] and p["bot"] == by["bot"]), None)
        if mine is None:
            mine = {"name": by["name"], "bot": by["bot"], "moves": 0, "cost_trick": 0,
                    "cost_round": 0, "cost_kot": 0}
            row["players"].append(mine)
        for counts in (row, mine):
            counts["moves"] += 1
            if move["cost"] in COSTS:
                counts[f"cost_{move['cost']}"] += 1
    return out
