"""``evolve(state, event) -> state``: apply a trusted event.  Replay is ``fold(evolve)``.

``evolve`` does not validate (``decide`` did) and never changes its argument: it returns a new
``State``.  Consequences that follow mechanically from an event (completing the deal once trump is
named, the next Hakem after a round) are computed here, identically on every replay.

The events that come with every card and trick (``CardPlayed``, ``TrickWon``) are applied inline
by a generated ``evolve`` (see ``_EVOLVE``); those of every round (``RoundStarted``,
``TrumpChosen``, ``RoundEnded``) build their records positionally rather than through
``dataclasses.replace``, which costs several times more.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import fields, replace
from operator import itemgetter
from typing import Any

from .cards import CARD_INDEX, N_CARDS, SUIT_INDEX
from .deal import FIRST_PACKET, deal_hands, hakem_five
from .events import (
    CardPlayed, CardsDiscarded, Event, HakemDrawn, MatchCreated, MatchEnded, RoundEnded,
    RoundStarted, SecretRevealed, SeatLeft, SeatRenamed, SeatTaken, SetWon, TalonDrawn, TrickWon,
    TrumpChosen,
)
from .state import (
    CHOOSING_TRUMP, DISCARDING, DRAWING, HELD_BIT, MATCH_OVER, PLAYING, ROUND_OVER, SEAT_SHIFT,
    TRUMP_TABLES, WAITING, DealInfo, MatchInfo, Seat, State, make_deal_info, make_match_info,
    make_round_result, pack,
)

# The records of a round's start and end are built positionally with the state module's makers
# (several times cheaper than dataclasses.replace); their field order is pinned here.
assert [f.name for f in fields(MatchInfo)] == [
    "match_id", "commitment", "first_hakem", "seats", "draw", "next_hakem", "score", "sets",
    "result", "winner", "secret"]
assert [f.name for f in fields(DealInfo)] == [
    "round_no", "dealer", "deck", "stacked", "trump", "dealt", "talon", "discards"]

_TRICK_STEP: tuple[tuple[tuple[tuple[int, int]], ...], ...] = tuple(
    tuple(((seat, card),) for card in range(N_CARDS)) for seat in range(4)
)
"""``_TRICK_STEP[seat][card]`` is ``((seat, card),)``, made once: adding a card to the open
trick is then a single tuple concatenation."""


# ``evolve`` runs for every event of every match, replay and benchmark, and nearly all events are
# CardPlayed (44 a round) and TrickWon (11).  Their handlers are therefore inlined in ``evolve``
# and the copy of the state's unchanged fields is written out line by line, generated from
# ``State.__slots__`` when this module is imported (as ``State.clone`` is): this saves the calls to
# ``clone`` and the stores of the fields set again, the largest cost of a card.  Everything else
# goes to the plain handlers below.
_EVOLVE = """
def evolve(state, event):
    kind = type(event)
    if kind is CardPlayed:
        seat = event.seat
        card = CARD_INDEX[event.card]
        new = _new(State)
{copy_card}
        new.held = state.held ^ HELD_BIT[seat][card]
        new.trick = state.trick + _TRICK_STEP[seat][card]
        seat += 1
        new.turn = seat if seat < state.rules.players else 0
        return new
    if kind is TrickWon:
        tricks = state.tricks
        if event.banked != 1 or len(tricks) != 2:
            return _trick_won(state, event)  # double_sar, or not two teams
        seat = event.seat
        new = _new(State)
{copy_trick}
        new.last_trick = state.trick
        new.last_winner = new.leader = new.turn = seat
        new.trick = ()
        new.tricks_played = state.tricks_played + 1
        if state.rules.team_of(seat):
            new.tricks = (tricks[0], tricks[1] + 1)
        else:
            new.tricks = (tricks[0] + 1, tricks[1])
        new.pile = 0
        new.run_team = None
        return new
    return _HANDLERS[kind](state, event)
"""
_CARD_CHANGES = ("held", "trick", "turn")
_TRICK_CHANGES = ("last_trick", "last_winner", "leader", "turn", "trick", "tricks_played",
                  "tricks", "pile", "run_team")


def _generate_evolve() -> Callable[[State, Event], State]:
    def copy(changed: tuple[str, ...]) -> str:
        return "\n".join(f"        new.{name} = state.{name}"
                         for name in State.__slots__ if name not in changed)

    source = _EVOLVE.format(copy_card=copy(_CARD_CHANGES), copy_trick=copy(_TRICK_CHANGES))
    namespace: dict[str, Any] = {
        "CardPlayed": CardPlayed, "TrickWon": TrickWon, "State": State, "_new": object.__new__,
        "CARD_INDEX": CARD_INDEX, "HELD_BIT": HELD_BIT, "_TRICK_STEP": _TRICK_STEP,
        "_trick_won": _trick_won, "_HANDLERS": _HANDLERS,
    }
    # a named pseudo-file, so tracebacks say where the generated code comes from
    code = compile(source, "<engine.evolve: generated evolve>", "exec")
    exec(code, namespace)  # noqa: S102 - generated from our own slot names only
    generated: Callable[[State, Event], State] = namespace["evolve"]
    generated.__doc__ = "The state after ``event`` (a new ``State``; ``state`` is unchanged)."
    generated.__module__ = __name__
    return generated


def replay(events: Iterable[Event], state: State | None = None) -> State:
    """Fold ``evolve`` over ``events`` from ``state`` (the empty state by default)."""
    s = State() if state is None else state
    for event in events:
        s = evolve(s, event)
    return s


def _trick_won(state: State, e: TrickWon) -> State:
    new = state.clone()
    seat = e.seat
    new.last_trick = state.trick
    new.last_winner = seat
    new.trick = ()
    new.leader = new.turn = seat
    new.tricks_played = state.tricks_played + 1
    banked = e.banked
    if banked:
        team = state.rules.team_of(seat)
        tricks = state.tricks
        if len(tricks) == 2:  # two teams: no list round trip
            new.tricks = ((tricks[0] + banked, tricks[1]) if team == 0
                          else (tricks[0], tricks[1] + banked))
        else:
            counts = list(tricks)
            counts[team] += banked
            new.tricks = tuple(counts)
        new.pile = 0
        new.run_team = None
    else:
        new.pile = state.pile + 1
        new.run_team = state.rules.team_of(seat)
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


def _seat_renamed(state: State, e: SeatRenamed) -> State:
    seats = list(state.match.seats)
    occupant = seats[e.seat]
    assert occupant is not None
    seats[e.seat] = replace(occupant, name=e.name)
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
    deck: tuple[int, ...] = itemgetter(*e.deck)(CARD_INDEX)  # 2.5x a map over the names
    five = 0
    for c in (deck[:5] if n == 4 else hakem_five(deck, rules)):
        five |= 1 << c
    hands = [0] * n
    hands[e.hakem] = five
    m = state.match
    # a set was won (target "2x7"): the points start again with this deal
    score = (0,) * teams if max(m.score) >= rules.target else m.score
    new.match = make_match_info(m.match_id, m.commitment, m.first_hakem, m.seats, m.draw,
                                None, score, m.sets, m.result, m.winner, m.secret)
    new.deal = make_deal_info(e.round, e.dealer, deck, e.stacked, None, tuple(hands), 0, ())
    new.phase = CHOOSING_TRUMP
    new.hakem = e.hakem
    new.table = None
    new.held = five << (SEAT_SHIFT * e.hakem)
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
    d = state.deal
    hands = tuple(deal_hands(d.deck, state.hakem, rules))
    new.table = TRUMP_TABLES[(trump, rules.satat)]
    if rules.deal == "talon":  # five each: the discards come first, then the talon
        new.deal = make_deal_info(d.round_no, d.dealer, d.deck, d.stacked, trump, hands,
                                  2 * FIRST_PACKET, (0,) * rules.players)
        new.held = pack(hands)
        new.phase = DISCARDING
        new.turn = state.hakem
        return new
    new.deal = make_deal_info(d.round_no, d.dealer, d.deck, d.stacked, trump, hands, 0, ())
    new.held = pack(hands)
    new.phase = PLAYING
    new.leader = new.turn = state.hakem
    return new


def _talon_step(state: State, seat: int, gained: int, lost: int, talon: int) -> State:
    """A talon-game decision of ``seat``: ``gained`` (a mask) joins its hand, ``lost`` leaves
    it or the talon for its discards; the talon's top moves to ``talon``."""
    new = state.clone()
    d = state.deal
    dealt = list(d.dealt)
    dealt[seat] = (dealt[seat] | gained) & ~lost
    discards = list(d.discards)
    discards[seat] |= lost
    held = state.hand(seat)
    new.held = state.held ^ ((held ^ ((held | gained) & ~lost)) << (SEAT_SHIFT * seat))
    new.deal = make_deal_info(d.round_no, d.dealer, d.deck, d.stacked, d.trump, tuple(dealt),
                              talon, tuple(discards))
    return new


def _cards_discarded(state: State, e: CardsDiscarded) -> State:
    lost = 0
    for card in e.cards:
        lost |= 1 << CARD_INDEX[card]
    hakem = state.hakem
    assert hakem is not None
    new = _talon_step(state, e.seat, 0, lost, state.deal.talon)
    if e.seat == hakem:  # then the other player discards
        new.turn = (hakem + 1) % state.rules.players
    else:  # then the Hakem draws first
        new.phase = DRAWING
        new.turn = hakem
    return new


def _talon_drawn(state: State, e: TalonDrawn) -> State:
    talon = state.deal.talon + 2
    new = _talon_step(state, e.seat, 1 << CARD_INDEX[e.kept], 1 << CARD_INDEX[e.discarded],
                      talon)
    if talon >= N_CARDS:  # the talon is empty: both hold 13, the Hakem leads
        new.phase = PLAYING
        new.leader = new.turn = state.hakem
    else:
        new.turn = (e.seat + 1) % state.rules.players
    return new


def _round_ended(state: State, e: RoundEnded) -> State:
    new = state.clone()
    rules = state.rules
    assert state.hakem is not None
    m = state.match
    score = list(m.score)
    if e.winner is not None:
        score[e.winner] += e.points
    won = rules.team_of(state.hakem) == e.winner
    if won:
        next_hakem = state.hakem
    elif e.winner is not None and not rules.variant.partnerships:
        next_hakem = rules.variant.sides[e.winner][0]  # playing alone: the winner is Hakem
    else:  # partners (or nobody won): the seat after the Hakem, an opponent
        next_hakem = (state.hakem + 1) % rules.players
    result = make_round_result(e.winner, e.points, e.kind, tuple(e.tricks))
    new.match = make_match_info(m.match_id, m.commitment, m.first_hakem, m.seats, m.draw,
                                next_hakem, tuple(score), m.sets, result, m.winner, m.secret)
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
    SeatRenamed: _seat_renamed,
    SeatLeft: _seat_left,
    HakemDrawn: _hakem_drawn,
    RoundStarted: _round_started,
    TrumpChosen: _trump_chosen,
    RoundEnded: _round_ended,
    SetWon: _set_won,
    MatchEnded: _match_ended,
    SecretRevealed: _secret_revealed,
    CardsDiscarded: _cards_discarded,
    TalonDrawn: _talon_drawn,
}


evolve = _generate_evolve()
