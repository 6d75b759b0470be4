"""A table driven through the engine the way the arena and the bot workers drive it: every seat
keeps its own redacted history, and views come from ``view_for`` only."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from engine import (
    NAMES, ChooseTrump, CreateMatch, DealRound, Event, PlayCard, Rules, State, TakeSeat,
    commitment_of, decide, evolve, redact_event, view_for,
)
from engine.cards import cards_of
from engine.state import CHOOSING_TRUMP, DISCARDING, DRAWING, PLAYING
from engine.views import legal_mask
from worker.policies.base import History, Policy, View, command_for
from worker.policies.fast import FAST_TABLES, FastState
from worker.policies.knowledge import FastKnowledge, fast_knowledge, knowledge

SECRET = "3c" * 32

rules_strategy = st.builds(
    lambda must_trump, satat, bavney, double_sar, deal: Rules.from_dict({
        "must_trump": must_trump, "satat": satat, "bavney": bavney and not double_sar,
        "double_sar": double_sar, "deal": deal,
    }),
    st.booleans(), st.booleans(), st.booleans(), st.booleans(),
    st.sampled_from(["5-4-4", "5-3-3-2"]),
)
"""Random house-rule variants (``bavney`` and ``double_sar`` do not combine)."""


def random_deck(rng: random.Random) -> tuple[str, ...]:
    names = list(NAMES)
    rng.shuffle(names)
    return tuple(names)


class Table:
    """One match at a table of four (or of ``rules.players``), with each seat's redacted
    history."""

    def __init__(self, rules: Rules, hakem: int = 0) -> None:
        self.n = rules.players
        self.state = State()
        self.histories: list[list[dict[str, Any]]] = [[] for _ in range(self.n)]
        self.log: list[Event] = []
        self.run(None, CreateMatch("w", rules, commitment_of(SECRET), first_hakem=hakem))
        for seat in range(self.n):
            self.run(None, TakeSeat(seat, f"p{seat}", f"id{seat}", "bot"))

    @property
    def version(self) -> int:
        return len(self.log)

    def run(self, seat: int | None, command: Any) -> tuple[Event, ...]:
        events = decide(self.state, seat, command)
        for event in events:
            for s in range(self.n):
                self.histories[s].append(redact_event(self.state, event, s))
            self.state = evolve(self.state, event)
            self.log.append(event)
        return events

    def deal(self, deck: tuple[str, ...]) -> None:
        self.run(None, DealRound(deck, stacked=True))

    def view(self, seat: int) -> dict[str, Any]:
        return view_for(self.state, seat, self.version)

    @property
    def live(self) -> bool:
        return self.state.phase in (CHOOSING_TRUMP, PLAYING)

    def act(self, choice: str) -> tuple[Event, ...]:
        seat = self.state.turn
        assert seat is not None
        if self.state.phase == CHOOSING_TRUMP:
            return self.run(seat, ChooseTrump(choice))
        return self.run(seat, PlayCard(choice))

    def random_move(self, rng: random.Random) -> str:
        seat = self.state.turn
        assert seat is not None
        if self.state.phase == CHOOSING_TRUMP:
            return "SHDC"[rng.randrange(4)]
        legal = cards_of(legal_mask(self.state, seat))
        return NAMES[legal[rng.randrange(len(legal))]]


def reach(rules: Rules, seed: int, steps: int, rounds: int = 1,
          kind: type[Table] = Table) -> Table:
    """A table (of ``kind``) after ``rounds - 1`` random rounds and then up to ``steps`` random
    decisions of the last round, stopping short of a decision that would end it (so the table
    is live)."""
    rng = random.Random(seed)
    table = kind(rules, hakem=rng.randrange(rules.players))
    for r in range(rounds):
        table.deal(random_deck(rng))
        last = r == rounds - 1
        n = 0
        while table.live and not (last and n >= steps):
            saved = (table.state, [h[:] for h in table.histories], len(table.log))
            table.act(table.random_move(rng))
            n += 1
            if last and not table.live:  # undo the round's last card
                table.state, table.histories, size = saved
                del table.log[size:]
                break
        if not last and table.state.phase == "match_over":
            break
    return table


def played_by(rules: Rules, seed: int, steps: int,
              move: Callable[[Table, int, random.Random], str]
              ) -> tuple[Table, int, FastKnowledge, Any] | None:
    """A table after up to ``steps`` decisions ``move(table, seat, rng)`` from a random deal,
    stopping short of a decision that would end the round; the seat to play there, its fast
    knowledge and the fast tables of the trump; ``None`` unless the round is in card play."""
    rng = random.Random(seed)
    table = Table(rules, hakem=rng.randrange(rules.players))
    table.deal(random_deck(rng))
    for _ in range(steps):
        seat = table.state.turn
        assert seat is not None
        saved = (table.state, [h[:] for h in table.histories], len(table.log))
        table.act(move(table, seat, rng))
        if not table.live:  # undo the round's last card
            table.state, table.histories, size = saved
            del table.log[size:]
            break
    seat, trump = table.state.turn, table.state.deal.trump
    if table.state.phase != PLAYING or seat is None or trump is None:
        return None
    return (table, seat, fast_knowledge(knowledge(table.view(seat), table.histories[seat])),
            FAST_TABLES[(trump, rules.satat)])


def knowledge_in_play(rules: Rules, seed: int, steps: int
                      ) -> tuple[Table, int, FastKnowledge] | None:
    """``reach``'s table, the seat to play and that seat's fast knowledge, or ``None`` when the
    round is not in card play there."""
    table = reach(rules, seed, steps)
    seat = table.state.turn
    if table.state.phase != PLAYING or seat is None:
        return None
    return table, seat, fast_knowledge(knowledge(table.view(seat), table.histories[seat]))


def late(rules: Rules, seed: int, cards: int) -> Table | None:
    """A table whose trump is named at random and whose random play has gone on until no hand
    holds more than ``cards`` cards; ``None`` when the round ended first."""
    rng = random.Random(seed)
    table = Table(rules, hakem=rng.randrange(4))
    table.deal(random_deck(rng))
    table.act("SHDC"[rng.randrange(4)])
    while table.state.phase == PLAYING and max(h.bit_count() for h in table.state.hands) > cards:
        table.act(table.random_move(rng))
    return table if table.state.phase == PLAYING else None


def legal_rounds(policy: Policy, deals: int, rng: random.Random,
                 deck_rng: random.Random | None = None) -> list[str]:
    """Play ``deals`` rounds of four seats with ``policy`` everywhere (Hakem seat ``deal % 4``,
    decks from ``deck_rng``, else from ``rng``), asserting every choice is legal; the choices."""
    choices = []
    for deal in range(deals):
        table = Table(Rules(), hakem=deal % 4)
        table.deal(random_deck(deck_rng or rng))
        while table.live:
            seat = table.state.turn
            assert seat is not None
            view = table.view(seat)
            choice = policy.choose(view, table.histories[seat], rng)
            assert choice in (view["legal"] or view.get("trump_options") or []), (choice, view)
            choices.append(choice)
            table.act(choice)
    return choices


def fast_state(table: Table) -> FastState:
    """The engine state of ``table`` in the fast model (all hands known)."""
    s = table.state
    assert s.deal.trump is not None and s.hakem is not None and s.leader is not None
    ft = FAST_TABLES[(s.deal.trump, s.rules.satat)]
    return FastState([ft.mask_to_fast(h) for h in s.hands], [ft.to_fast[c] for _, c in s.trick],
                     s.leader, list(s.tricks), s.tricks_played, s.hakem % 2, s.rules, s.pile,
                     s.run_team)


# -- the games of two and three players -------------------------------------------------------

GAMES = ("simple", "talon", "three")
"""The variants other than four players, by the name of ``engine.variants``."""


def game_rules(game: str, **extra: Any) -> Rules:
    """The rules of ``game`` (``simple``, ``talon`` or ``three``) with house rules ``extra``."""
    base: dict[str, Any] = {"players": 3} if game == "three" else {
        "players": 2, "two_player": game}
    return Rules.from_dict({**base, **extra})


game_rules_strategy = st.builds(
    lambda game, must_trump, satat, other: game_rules(game, must_trump=must_trump, satat=satat,
                                                      **({} if game == "three" else other)),
    st.sampled_from(GAMES), st.booleans(), st.booleans(),
    st.sampled_from([{}, {"bavney": True}, {"double_sar": True}]),
)
"""Random rules of the games of two and three players (the house rules each accepts)."""


class GameTable(Table):
    """One match of any variant (``Table`` with the talon game's decisions)."""

    @property
    def live(self) -> bool:
        return self.state.phase in (CHOOSING_TRUMP, DISCARDING, DRAWING, PLAYING)

    def act(self, choice: str) -> tuple[Event, ...]:
        return self.run(self.actor, command_for(self.state.phase, choice))

    def random_move(self, rng: random.Random) -> str:
        """A uniformly random decision, in the form policies answer with."""
        view = self.view(self.actor)
        if self.state.phase == DISCARDING:
            return " ".join(rng.sample(view["legal"], view["talon"]["discard"]))
        legal: list[str] = view["legal"]
        return legal[rng.randrange(len(legal))]

    @property
    def actor(self) -> int:
        seat = self.state.turn if self.state.phase != CHOOSING_TRUMP else self.state.hakem
        assert seat is not None
        return seat


def reach_game(rules: Rules, seed: int, steps: int, rounds: int = 1) -> GameTable:
    """:func:`reach` for any variant."""
    table = reach(rules, seed, steps, rounds, GameTable)
    assert isinstance(table, GameTable)
    return table


class Spy:
    """Wraps a policy and records exactly what it receives."""

    def __init__(self, inner: Policy) -> None:
        self.inner = inner
        self.name = inner.name
        self.calls: list[tuple[View, History]] = []

    def choose(self, view: View, history: History, rng: random.Random) -> str:
        self.calls.append((copy.deepcopy(view), copy.deepcopy(list(history))))
        return self.inner.choose(view, history, rng)


def states_by_version(records: Any) -> dict[int, State]:
    """The state after each record of a match's log, by version."""
    states = {}
    state = State()
    for record in records:
        for event in record.events:
            state = evolve(state, event)
        states[record.version] = state
    return states


def leaked(hidden: set[str], view: View, history: History) -> set[str]:
    """The cards of ``hidden`` named in ``view`` or in ``history``'s events since the last
    ``round_started``."""
    import json

    start = max(i for i, e in enumerate(history) if e["type"] == "round_started")
    text = json.dumps(view) + json.dumps(history[start:])
    return {c for c in hidden if f'"{c}"' in text}


def decisions(records: Any, players: int) -> Any:
    """Each trump choice and card played of a match's log, replayed: ``(event, view, history,
    version)`` with the mover's view before it and its own redacted history."""
    state = State()
    seen: list[History] = [[] for _ in range(players)]
    for record in records:
        for i, event in enumerate(record.events):
            if i == 0 and event.TYPE in ("trump_chosen", "card_played"):
                seat = event.seat
                yield (event, view_for(state, seat, record.version - 1), list(seen[seat]),
                       record.version)
            for s in range(players):
                seen[s].append(redact_event(state, event, s))
            state = evolve(state, event)
