"""``evolve(state, event) -> state``: apply a trusted event.  Replay is ``fold(evolve)``.

``evolve`` does not validate (``decide`` did) and never changes its argument: it returns a new
``State``.  Consequences that follow mechanically from an event (completing the deal once trump is
named, the next Hakem after a round) are computed here, identically on every replay.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from .cards import CARD_INDEX, SUIT_INDEX
from .deal import FIRST_PACKET, split_deck
from .events import (
    CardPlayed, Event, HakemDrawn, MatchCreated, MatchEnded, RoundEnded, RoundStarted,
    SecretRevealed, SeatLeft, SeatTaken, SetWon, TrickWon, TrumpChosen,
)
from .state import (
    CHOOSING_TRUMP, MATCH_OVER, PLAYING, ROUND_OVER, TRUMP_TABLES, WAITING, DealInfo,
    RoundResult, Seat, State,
)


def evolve(state: State, event: Event) -> State:
    """The state after ``event``."""
    kind = type(event)
    if kind is CardPlayed:  # the hot path, inlined: one card played
        new = state.clone()
        seat = event.seat  # type: ignore[union-attr]
        card = CARD_INDEX[event.card]  # type: ignore[union-attr]
        bit = 1 << card
        hands = list(state.hands)
        hands[seat] ^= bit
        new.hands = tuple(hands)
        new.played = state.played | bit
        new.trick = state.trick + ((seat, card),)
        new.turn = (seat + 1) % state.rules.players
        return new
    if kind is TrickWon:
        return _trick_won(state, event)  # type: ignore[arg-type]
    return _HANDLERS[kind](state, event)


def replay(events: Iterable[Event], state: State | None = None) -> State:
    """Fold ``evolve`` over ``events`` from ``state`` (the empty state by default)."""
    s = State() if state is None else state
    for event in events:
        s = evolve(s, event)
    return s


def _trick_won(state: State, e: TrickWon) -> State:
    new = state.clone()
    rules = state.rules
    team = rules.team_of(e.seat)
    new.last_trick = state.trick
    new.last_winner = e.seat
    new.trick = ()
    new.leader = new.turn = e.seat
    new.tricks_played = state.tricks_played + 1
    if e.banked:
        tricks = list(state.tricks)
        tricks[team] += e.banked
        new.tricks = tuple(tricks)
        new.pile = 0
        new.run_team = None
    else:
        new.pile = state.pile + 1
        new.run_team = team
    return new


def _match_created(state: State, e: MatchCreated) -> State:
    new = State(e.rules)
    new.match = replace(new.match, match_id=e.match_id, commitment=e.commitment,
                        first_hakem=e.first_hakem, next_hakem=e.first_hakem)
    new.phase = WAITING
    return new


def _seat_taken(state: State, e: SeatTaken) -> State:
    seats = list(state.match.seats)
    seats[e.seat] = Seat(e.name, e.player, e.bot)
    return state.replace(match=replace(state.match, seats=tuple(seats)))


def _seat_left(state: State, e: SeatLeft) -> State:
    seats = list(state.match.seats)
    seats[e.seat] = None
    return state.replace(match=replace(state.match, seats=tuple(seats)))


def _hakem_drawn(state: State, e: HakemDrawn) -> State:
    seats = list(state.match.seats)
    if e.swap is not None:
        a, b = e.swap
        seats[a], seats[b] = seats[b], seats[a]
    return state.replace(match=replace(state.match, seats=tuple(seats), draw=e.draw,
                                       next_hakem=e.hakem))


def _round_started(state: State, e: RoundStarted) -> State:
    new = state.clone()
    rules = state.rules
    n, teams = rules.players, rules.n_teams
    deck = tuple(map(CARD_INDEX.__getitem__, e.deck))
    five = 0
    for c in deck[:FIRST_PACKET]:
        five |= 1 << c
    hands = [0] * n
    hands[e.hakem] = five
    match = state.match
    # a set was won (target "2x7"): the points start again with this deal
    score = (0,) * teams if any(s >= rules.target for s in match.score) else match.score
    new.match = replace(match, next_hakem=None, score=score)
    new.deal = DealInfo(e.round, e.dealer, deck, e.stacked, None, tuple(hands))
    new.phase = CHOOSING_TRUMP
    new.hakem = e.hakem
    new.table = None
    new.hands = tuple(hands)
    new.played = 0
    new.trick = ()
    new.leader = None
    new.turn = e.hakem
    new.tricks = (0,) * teams
    new.pile = 0
    new.run_team = None
    new.tricks_played = 0
    new.last_trick = ()
    new.last_winner = None
    return new


def _trump_chosen(state: State, e: TrumpChosen) -> State:
    new = state.clone()
    rules = state.rules
    assert state.hakem is not None
    trump = SUIT_INDEX[e.suit]
    hands = tuple(split_deck(state.deal.deck, state.hakem, rules.deal, rules.players))
    new.table = TRUMP_TABLES[(trump, rules.satat)]
    new.deal = replace(state.deal, trump=trump, dealt=hands)
    new.hands = hands
    new.phase = PLAYING
    new.leader = new.turn = state.hakem
    return new


def _round_ended(state: State, e: RoundEnded) -> State:
    new = state.clone()
    rules = state.rules
    assert state.hakem is not None
    score = list(state.match.score)
    score[e.winner] += e.points
    won = rules.team_of(state.hakem) == e.winner
    new.match = replace(
        state.match,
        score=tuple(score),
        result=RoundResult(e.winner, e.points, e.kind, tuple(e.tricks)),
        next_hakem=state.hakem if won else (state.hakem + 1) % rules.players,
    )
    new.phase = ROUND_OVER
    new.turn = None
    return new


def _set_won(state: State, e: SetWon) -> State:
    sets = list(state.match.sets)
    sets[e.winner] += 1
    return state.replace(match=replace(state.match, sets=tuple(sets)))


def _match_ended(state: State, e: MatchEnded) -> State:
    return state.replace(phase=MATCH_OVER, turn=None,
                         match=replace(state.match, winner=e.winner, next_hakem=None))


def _secret_revealed(state: State, e: SecretRevealed) -> State:
    return state.replace(match=replace(state.match, secret=e.secret))


_HANDLERS: dict[type, Callable[[State, Any], State]] = {
    MatchCreated: _match_created,
    SeatTaken: _seat_taken,
    SeatLeft: _seat_left,
    HakemDrawn: _hakem_drawn,
    RoundStarted: _round_started,
    TrumpChosen: _trump_chosen,
    RoundEnded: _round_ended,
    SetWon: _set_won,
    MatchEnded: _match_ended,
    SecretRevealed: _secret_revealed,
}
