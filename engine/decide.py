"""``decide(state, seat, command) -> events``: the only validating path.

It never changes ``state``.  It raises a :class:`~engine.errors.HokmError` with a stable code for
anything the rules forbid, and otherwise returns the events that record what happened, including
the consequences (a completed trick, the end of a round, of a set, of the match).  ``evolve``
applies those events without checking them again.

``seat`` is the acting seat for player commands and ``None`` for the match service's system
commands (match creation, seating, deals and the final reveal).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from . import errors as E
from .cards import CARD_INDEX, FULL_DECK_MASK, N_CARDS, NAMES, SUIT_INDEX, SUITS
from .commands import (
    PLAYER_COMMANDS, ChooseTrump, Command, CreateMatch, DealRound, Discard, DrawAces, DrawTalon,
    LeaveSeat, PlayCard, RevealSecret, TakeSeat,
)
from .events import (
    CardPlayed, CardsDiscarded, Event, HakemDrawn, MatchCreated, MatchEnded, RoundEnded,
    RoundStarted, SecretRevealed, SeatLeft, SeatRenamed, SeatTaken, SetWon, TalonDrawn, TrickWon,
    TrumpChosen,
)
from .evolve import evolve
from .fairness import commitment_of
from .names import check_name
from .rules import Rules
from .state import (
    CHOOSING_TRUMP, DISCARDING, DRAWING, HELD_BIT, MATCH_OVER, NEW, PLAYING, ROUND_OVER,
    SEAT_SHIFT, WAITING, State, TrumpTable,
)

TRICKS_TO_WIN = 7
"""Tricks that win a round in every variant (``Variant.tricks_to_win``), kept for the bots."""
_HEX64 = re.compile(r"[0-9a-f]{64}")
# Events are immutable values, so the few possible CardPlayed and TrickWon events, and the event
# tuples of the common plays (a card alone; the last card of a trick that ends nothing more), are
# made once and shared: the hot path of ``decide`` then allocates nothing.
_CARD_PLAYED = tuple(tuple(CardPlayed(seat, NAMES[c]) for c in range(N_CARDS)) for seat in range(4))
_TRICK_WON = tuple(TrickWon(seat, 1) for seat in range(4))
_PLAYED_ALONE = tuple(tuple((event,) for event in row) for row in _CARD_PLAYED)
_PLAYED_AND_WON = tuple(
    tuple(tuple((event, won) for won in _TRICK_WON) for event in row) for row in _CARD_PLAYED
)
_ACES = frozenset(CARD_INDEX[r + s] for r in "A" for s in SUITS)


def decide(state: State, seat: int | None, command: Command) -> tuple[Event, ...]:
    """Validate ``command`` by ``seat`` against ``state``; return the resulting events."""
    if type(command) is PlayCard:
        # The hot path, inlined: a held card that leads, follows suit or is discarded by a seat
        # void in the led suit.  Anything else (another phase or seat, a bad card, a refusal,
        # must_trump) goes to _play, which makes every check in order.
        if state.phase == PLAYING and seat == state.turn and type(seat) is int:
            try:
                card = CARD_INDEX.get(command.card)
            except TypeError:  # unhashable: _play refuses it
                card = None
            if card is not None and state.held & HELD_BIT[seat][card]:
                trick = state.trick
                if not trick:
                    return _PLAYED_ALONE[seat][card]
                table = state.table
                assert table is not None
                led = table.follow[trick[0][1]]
                # a discard is plainly legal when void in the led suit (must_trump: see _play)
                if (led >> card) & 1 or not (
                        (state.held >> (SEAT_SHIFT * seat)) & led or state.rules.must_trump):
                    if len(trick) + 1 < state.rules.players:
                        return _PLAYED_ALONE[seat][card]
                    return _last_card(state, seat, card, trick, table)
        return _play(state, seat, command)
    kind = type(command)
    handler = _HANDLERS.get(kind)
    if handler is None:
        if isinstance(command, PlayCard):  # a subclass
            return _play(state, seat, command)
        raise E.InvalidCommand(f"unknown command {kind.__name__}")
    if kind in PLAYER_COMMANDS:
        return handler(state, seat, command)
    if seat is not None:
        raise E.InvalidCommand("only the match service may send this command")
    return handler(state, seat, command)


def _refuse_phase(state: State, what: str) -> E.IllegalMove:
    if state.phase == MATCH_OVER:
        return E.MatchOver("the match is over")
    return E.WrongPhase(f"cannot {what} now (phase {state.phase})")


def _check_player(state: State, seat: int | None) -> int:
    if type(seat) is not int or not 0 <= seat < state.rules.players:
        raise E.InvalidCommand("a player command needs the player's seat")
    return seat


# -- player commands -------------------------------------------------------------------------


def _play(state: State, seat: int | None, command: PlayCard) -> tuple[Event, ...]:
    """The full path of a card, with every check in order (the code of the first that fails is
    the answer): the command's shape (a card name), phase, turn (and that ``seat`` is a seat),
    held, follow suit, must trump.  ``decide`` answers the plainly legal cards itself with the
    same checks."""
    try:
        card = CARD_INDEX.get(command.card)
    except TypeError:  # unhashable
        card = None
    if card is None:  # malformed in any phase: bad_request before wrong_phase (api.md)
        raise E.InvalidCommand(f"{command.card!r} is not a card (rank then suit, e.g. 'QH')")
    if state.phase != PLAYING:
        raise _refuse_phase(state, "play a card")
    if seat != state.turn or type(seat) is not int:  # True == 1, but a bool is not a seat
        _check_player(state, seat)
        raise E.NotYourTurn("it is not your turn")
    hand = (state.held >> (SEAT_SHIFT * seat)) & FULL_DECK_MASK
    bit = 1 << card
    if not hand & bit:
        raise E.IllegalCard(f"{command.card} is not in your hand")
    trick = state.trick
    if not trick:
        return _PLAYED_ALONE[seat][card]
    table = state.table
    assert table is not None
    led_mask = table.follow[trick[0][1]]
    if not bit & led_mask:
        if hand & led_mask:
            raise E.MustFollowSuit(f"you must follow suit ({SUITS[table.eff_suit[trick[0][1]]]})")
        if state.rules.must_trump:
            trump_mask = table.suit_masks[table.trump]
            if hand & trump_mask and not bit & trump_mask:
                raise E.MustTrump("you cannot follow suit, so you must play a trump")
    if len(trick) + 1 < state.rules.players:
        return _PLAYED_ALONE[seat][card]
    return _last_card(state, seat, card, trick, table)


def _last_card(state: State, seat: int, card: int, trick: tuple[tuple[int, int], ...],
               table: TrumpTable) -> tuple[Event, ...]:
    """The events of a (legal) card that completes the trick."""
    # TrumpTable.winner_with, inlined (once per trick)
    row = table.beats[table.eff_suit[trick[0][1]]]
    winner, best = seat, row[card]
    for s, c in trick:
        if row[c] > best:
            best, winner = row[c], s
    rules = state.rules
    if (not rules.double_sar and not rules.bavney
            and state.tricks[rules.team_of(winner)] + 1 < TRICKS_TO_WIN
            and state.tricks_played + 1 < rules.variant.hand_size):
        return _PLAYED_AND_WON[seat][card][winner]  # the common case: nothing else happens
    return (_CARD_PLAYED[seat][card], *_finish_trick(state, winner))


def _finish_trick(state: State, winner: int) -> list[Event]:
    """Events after the last card of a trick won by ``winner``: the trick, and perhaps the end
    of the round, of a set and of the match."""
    rules = state.rules
    assert state.hakem is not None
    team = rules.team_of(winner)
    played = state.tricks_played + 1
    if not rules.double_sar:
        banked = 1
    elif state.run_team == team or played == rules.variant.hand_size:
        banked = state.pile + 1  # two in a row, or the end of the deal: the pile goes to them
    else:
        banked = 0
    tricks = list(state.tricks)
    tricks[team] += banked
    events: list[Event] = [_TRICK_WON[winner] if banked == 1 else TrickWon(winner, banked)]
    ended = round_outcome(rules, rules.team_of(state.hakem), tricks, team, played)
    if ended is None:
        if played == rules.variant.hand_size:
            # three players: the last trick is played and nobody has 7 (a 6-6-5 split)
            events.append(RoundEnded(None, 0, "no_winner", tuple(tricks)))
        return events
    win_team, points, kind = ended
    events.append(RoundEnded(win_team, points, kind, tuple(tricks)))
    score = list(state.match.score)
    score[win_team] += points
    if score[win_team] >= rules.target:
        if rules.sets > 1:
            events.append(SetWon(win_team))
            if state.match.sets[win_team] + 1 < rules.sets:
                return events
        events.append(MatchEnded(win_team, tuple(score)))
    return events


def round_outcome(
    rules: Rules, hakem_team: int, tricks: list[int], trick_team: int, played: int
) -> tuple[int, int, str] | None:
    """``(winning team, points, kind)`` if the round ends with these counted tricks, else None.

    ``trick_team`` won the trick just finished and ``played`` tricks are done.  A side ends the
    round at its seventh counted trick; with ``bavney`` a side holding every trick plays on and
    scores 3 for all 13, while its first lost trick after the seventh ends the round as the
    kot (or Hakem koti) it already earned.  A kot or Hakem koti is a sweep: the winner holds
    every trick played (with three players, 7-0-0).
    """
    to_win = rules.variant.tricks_to_win
    for team, count in enumerate(tricks):
        if count < to_win:
            continue
        others = sum(tricks) - count
        sweep = 2 if team == hakem_team else 3
        sweep_kind = "kot" if team == hakem_team else "hakem_koti"
        if others == 0:
            if not rules.bavney:
                return team, sweep, sweep_kind
            if played == rules.variant.hand_size:
                return team, 3, "bavney"
            return None
        if rules.bavney and trick_team != team and others == 1:
            return team, sweep, sweep_kind
        return team, 1, "normal"
    return None


def _decision_of(state: State, seat: int | None, phase: str, what: str, actor: int | None,
                 not_yours: str) -> int:
    """The checks of a decision other than a card, in order: the phase, a player's seat, the
    seat whose decision it is (``actor``).  Every handler checks its command's shape first, so
    a malformed command is ``bad_request`` in any phase (api.md)."""
    if state.phase != phase:
        raise _refuse_phase(state, what)
    seat = _check_player(state, seat)
    if seat != actor:
        raise E.NotYourTurn(not_yours)
    return seat


def _choose_trump(state: State, seat: int | None, command: ChooseTrump) -> tuple[Event, ...]:
    if type(command.suit) is not str or command.suit not in SUIT_INDEX:
        raise E.InvalidCommand(f"{command.suit!r} is not a suit (one of S H D C)")
    seat = _decision_of(state, seat, CHOOSING_TRUMP, "choose trump", state.hakem,
                        "only the Hakem names trump")
    return (TrumpChosen(seat, command.suit),)


def discard_count(state: State, seat: int) -> int:
    """The talon game: how many cards ``seat`` lays aside before the talon (Hakem 3, other 2)."""
    return 3 if seat == state.hakem else 2


_DISCARD_COUNTS = (2, 3)
"""Every count ``discard_count`` may ask for: a list of another length is malformed anywhere."""


def _discard(state: State, seat: int | None, command: Discard) -> tuple[Event, ...]:
    # the shape first (a list of 2 or 3 different card names), so a malformed discard is
    # bad_request in any phase; the count this seat owes needs the phase and the seat
    cards = command.cards
    if not isinstance(cards, (tuple, list)) or len(cards) not in _DISCARD_COUNTS:
        raise E.InvalidCommand("discard a list of 3 cards (the Hakem) or 2 (the other player)")
    try:
        indexes = {CARD_INDEX.get(card) for card in cards}
    except TypeError:  # unhashable
        indexes = {None}
    if None in indexes or len(indexes) != len(cards):
        raise E.InvalidCommand("discard different cards, by name ('QH')")
    seat = _decision_of(state, seat, DISCARDING, "discard", state.turn,
                        "it is not your turn to discard")
    count = discard_count(state, seat)
    if len(cards) != count:
        raise E.InvalidCommand(f"discard a list of {count} cards")
    hand = state.hand(seat)
    chosen = sorted(i for i in indexes if i is not None)
    if any(not hand >> i & 1 for i in chosen):
        raise E.IllegalCard("you can only discard cards in your hand")
    return (CardsDiscarded(seat, tuple(NAMES[i] for i in chosen)),)


def _draw_talon(state: State, seat: int | None, command: DrawTalon) -> tuple[Event, ...]:
    if type(command.keep) is not bool:
        raise E.InvalidCommand("keep must be true (keep the top card) or false (discard it)")
    seat = _decision_of(state, seat, DRAWING, "draw from the talon", state.turn,
                        "it is not your turn to draw")
    top = state.deal.talon
    first, second = state.deal.deck[top], state.deal.deck[top + 1]
    kept, discarded = (first, second) if command.keep else (second, first)
    return (TalonDrawn(seat, NAMES[kept], NAMES[discarded]),)


# -- system commands -------------------------------------------------------------------------


def _create(state: State, seat: int | None, command: CreateMatch) -> tuple[Event, ...]:
    if state.phase != NEW:
        raise E.WrongPhase("the match already exists")
    if type(command.match_id) is not str or not command.match_id:
        raise E.InvalidCommand("a match needs an id")
    if not isinstance(command.rules, Rules):
        raise E.InvalidCommand("rules must be validated with Rules.from_dict")
    if type(command.commitment) is not str or not _HEX64.fullmatch(command.commitment):
        raise E.InvalidCommand("the commitment must be a sha-256 hex digest")
    fh = command.first_hakem
    if fh is not None and (type(fh) is not int or not 0 <= fh < command.rules.players):
        raise E.InvalidCommand("first_hakem must be a seat")
    return (MatchCreated(command.match_id, command.rules, command.commitment, fh),)


def _take_seat(state: State, seat: int | None, command: TakeSeat) -> tuple[Event, ...]:
    if state.phase in (NEW, MATCH_OVER):
        raise _refuse_phase(state, "take a seat")
    s = command.seat
    if type(s) is not int or not 0 <= s < state.rules.players:
        raise E.InvalidCommand("no such seat")
    if state.match.seats[s] is not None:
        raise E.SeatTaken("that seat is taken")
    name = check_name(command.name if type(command.name) is str else None)
    if type(command.player) is not str or not command.player:
        raise E.InvalidCommand("a seat needs a player id")
    if any(o is not None and o.player == command.player for o in state.match.seats):
        raise E.SeatTaken("this player has a seat here already")  # one seat a player
    if command.bot is not None and (type(command.bot) is not str or not command.bot):
        raise E.InvalidCommand("bot must be a level name or null")
    return (SeatTaken(s, name, command.player, command.bot),
            *_renames(state, s, command.renames))


def _renames(state: State, s: int, renames: object) -> tuple[SeatRenamed, ...]:
    """``TakeSeat.renames``: each names a bot's seat other than ``s``, once, and a good name."""
    if not isinstance(renames, tuple):
        raise E.InvalidCommand("renames is a list of (seat, name)")
    events: list[SeatRenamed] = []
    for rename in renames:
        if not isinstance(rename, tuple) or len(rename) != 2:
            raise E.InvalidCommand("renames is a list of (seat, name)")
        r, name = rename
        occupant = state.match.seats[r] if type(r) is int and 0 <= r < state.rules.players \
            else None
        if r == s or occupant is None or occupant.bot is None \
                or any(e.seat == r for e in events):
            raise E.InvalidCommand("only another seat's bot is renamed, once")
        events.append(SeatRenamed(r, check_name(name if type(name) is str else None)))
    return tuple(events)


def _leave_seat(state: State, seat: int | None, command: LeaveSeat) -> tuple[Event, ...]:
    if state.phase in (NEW, MATCH_OVER):
        raise _refuse_phase(state, "leave a seat")
    s = command.seat
    if type(s) is not int or not 0 <= s < state.rules.players or state.match.seats[s] is None:
        raise E.InvalidCommand("that seat is empty")
    left = SeatLeft(s)
    if command.then is None:
        return (left,)
    if not isinstance(command.then, TakeSeat) or command.then.seat != s:
        raise E.InvalidCommand("a seat left is taken again only by its own seat's newcomer")
    return (left, *_take_seat(evolve(state, left), None, command.then))


_ALL_NAMES = frozenset(NAMES)


def check_deck(deck: object) -> None:
    """Refuse (``bad_request``) anything but the 52 distinct card names in some order."""
    if not isinstance(deck, (tuple, list)) or len(deck) != N_CARDS:
        raise E.InvalidCommand("a deck is a list of the 52 cards")
    try:
        if set(deck) != _ALL_NAMES:
            raise E.InvalidCommand("a deck holds each of the 52 cards once, by name ('AS', 'TH')")
    except TypeError:
        raise E.InvalidCommand("a deck holds card names such as 'AS' and 'TH'") from None


def ace_draw(cards: tuple[int, ...], players: int, find_partner: bool) -> HakemDrawn:
    """Turn cards face up, one per seat from seat 0 in playing order, until an ace names the
    Hakem; then (``find_partner``) go on, skipping the Hakem, until a second ace names the
    partner, who is moved opposite the Hakem by swapping two seats."""
    draw: list[tuple[int, str]] = []
    seat, hakem, partner = 0, None, None
    for card in cards:
        draw.append((seat, NAMES[card]))
        if card in _ACES:
            if hakem is None:
                hakem = seat
                if not find_partner:
                    break
            else:
                partner = seat
                break
        seat = (seat + 1) % players
        if seat == hakem:
            seat = (seat + 1) % players
    assert hakem is not None
    swap = None
    if partner is not None:
        opposite = (hakem + players // 2) % players
        if partner != opposite:
            swap = (min(partner, opposite), max(partner, opposite))
    return HakemDrawn(tuple(draw), hakem, partner, swap)


def high_card_draw(cards: tuple[int, ...], players: int) -> HakemDrawn:
    """One card face up to each seat in turn from seat 0; the higher rank names the Hakem.  A
    tie (equal ranks) turns one more card to each, until the ranks differ; should every card
    tie, seat 0 is Hakem."""
    draw: list[tuple[int, str]] = []
    for start in range(0, len(cards) - players + 1, players):
        turned = cards[start:start + players]
        draw.extend((seat, NAMES[card]) for seat, card in enumerate(turned))
        ranks = [card % 13 for card in turned]
        best = max(ranks)
        if ranks.count(best) == 1:
            return HakemDrawn(tuple(draw), ranks.index(best), None, None)
    return HakemDrawn(tuple(draw), 0, None, None)


def first_hakem_draw(cards: tuple[int, ...], rules: Rules) -> HakemDrawn:
    """The draw for the first Hakem that ``rules``' variant prescribes (from a shuffled deck)."""
    if rules.variant.first_hakem == "high_card":
        return high_card_draw(cards, rules.players)
    return ace_draw(cards, rules.players, rules.teams == "ace_draw" and rules.players == 4)


def _draw_aces(state: State, seat: int | None, command: DrawAces) -> tuple[Event, ...]:
    if state.phase != WAITING or not state.all_seated or state.match.next_hakem is not None:
        raise _refuse_phase(state, "draw for Hakem")
    check_deck(command.deck)
    cards = tuple(map(CARD_INDEX.__getitem__, command.deck))
    return (first_hakem_draw(cards, state.rules),)


def _deal_round(state: State, seat: int | None, command: DealRound) -> tuple[Event, ...]:
    hakem = state.match.next_hakem
    ready = state.phase == ROUND_OVER or (state.phase == WAITING and hakem is not None)
    if not ready or not state.all_seated or hakem is None:
        raise _refuse_phase(state, "deal")
    check_deck(command.deck)
    n = state.rules.players
    return (RoundStarted(state.deal.round_no + 1, hakem, (hakem - 1) % n, tuple(command.deck),
                         bool(command.stacked)),)


def _reveal(state: State, seat: int | None, command: RevealSecret) -> tuple[Event, ...]:
    if state.phase != MATCH_OVER or state.match.secret is not None:
        raise E.WrongPhase("the secret is revealed once, when the match is over")
    if type(command.secret) is not str or commitment_of(command.secret) != state.match.commitment:
        raise E.InvalidCommand("the secret does not match the match's commitment")
    return (SecretRevealed(command.secret),)


_HANDLERS: dict[type, Callable[[State, int | None, Any], tuple[Event, ...]]] = {
    ChooseTrump: _choose_trump,
    Discard: _discard,
    DrawTalon: _draw_talon,
    CreateMatch: _create,
    TakeSeat: _take_seat,
    LeaveSeat: _leave_seat,
    DrawAces: _draw_aces,
    DealRound: _deal_round,
    RevealSecret: _reveal,
}
