"""The one choke point for hidden information: what a seat (or a spectator) may know.

``view_for(state, seat, version)`` builds the view of ``api.md``: the seat's own hand, the open
trick, public facts, per-seat card counts and the seat's legal choices.  Other hands and the
undealt deck never appear, except once the match is over (``match_over``) when every hand is
revealed for audit, or when a caller that may see everything asks for ``reveal=True`` (the replay
of a finished match).  ``redact_event`` is the same rule applied to one event.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .cards import (
    CARD_INDEX, FULL_DECK_MASK, N_CARDS, NAMES, SUITS, cards_of, mask_of, names_of_mask,
)
from .deal import deal_hands, hakem_five
from .events import CardsDiscarded, Event, RoundStarted, SeatTaken, TalonDrawn, TrumpChosen
from .plain import to_plain
from .state import (
    CHOOSING_TRUMP, DISCARDING, DRAWING, MATCH_OVER, NEW, PLAYING, SEAT_SHIFT, WAITING, State,
)

ALL_SUITS = list(SUITS)


def legal_mask(state: State, seat: int) -> int:
    """The cards ``seat`` may play now, as a mask (0 when it is not that seat's card to play)."""
    table = state.table
    if state.turn != seat or table is None or state.phase != PLAYING:
        return 0
    hand = (state.held >> (SEAT_SHIFT * seat)) & FULL_DECK_MASK
    trick = state.trick
    if not trick:
        return hand
    follow = hand & table.follow[trick[0][1]]
    if follow:
        return follow
    if state.rules.must_trump:
        trumps = hand & table.suit_masks[table.trump]
        if trumps:
            return trumps
    return hand


def legal_choices(state: State, seat: int | None) -> list[str]:
    """The cards (or, for the Hakem choosing trump, the suits) ``seat`` may choose now."""
    if seat is None:
        return []
    if state.phase == CHOOSING_TRUMP and seat == state.hakem:
        return list(ALL_SUITS)
    if state.phase == DISCARDING and seat == state.turn:
        return names_of_mask(state.hand(seat))  # choose ``talon.discard`` of them
    if state.phase == DRAWING and seat == state.turn:
        return list(TALON_CHOICES)
    return names_of_mask(legal_mask(state, seat))


TALON_CHOICES = ("keep", "discard")
"""``legal`` of the seat to draw in the talon game: keep the top card, or discard it."""


def _talon(state: State, seat: int | None) -> dict[str, Any] | None:
    """The talon game's part of a view: cards left in the talon, the top card (to the seat to
    draw only), how many cards the viewer must discard now, and the viewer's own discards."""
    deal = state.deal
    if not deal.talon:
        return None
    own = seat is not None and 0 <= seat < state.rules.players
    drawing = state.phase == DRAWING
    to_discard = 0
    if state.phase == DISCARDING and own and seat == state.turn:
        to_discard = 3 if seat == state.hakem else 2
    return {
        "left": N_CARDS - deal.talon if state.phase in (DISCARDING, DRAWING) else 0,
        "top": NAMES[deal.deck[deal.talon]] if drawing and own and seat == state.turn else None,
        "discard": to_discard,
        "discarded": names_of_mask(deal.discards[seat]) if own else [],  # type: ignore[index]
    }


def _trick(trick: tuple[tuple[int, int], ...]) -> list[dict[str, Any]]:
    return [{"seat": s, "card": NAMES[c]} for s, c in trick]


PER_SEAT = ("seat", "hand", "legal", "talon")
"""The keys in which one seat's view differs from another's.  Nothing else in ``view_for`` reads
the seat, so every other key is the same for every seat (and for spectators)."""


def seat_keys(state: State, seat: int | None) -> dict[str, Any]:
    """Exactly the ``PER_SEAT`` keys of ``view_for(state, seat, ...)``: ``view_for`` takes them
    from here, so a caller that builds one seat's view whole can complete every other seat's
    with this alone (the gateway's view messages, ``services/gateway/viewtext.py``)."""
    own = seat is not None and 0 <= seat < state.rules.players
    return {
        "seat": seat if own else None,
        "hand": names_of_mask(state.hands[seat]) if own else [],  # type: ignore[index]
        "legal": legal_choices(state, seat if own else None),
        "talon": _talon(state, seat),
    }


def seat_basis(state: State, seat: int | None) -> tuple[Any, ...]:
    """Everything ``seat_keys(state, seat)`` reads, as a tuple: two states with equal bases
    (``rules`` and ``deal`` compared by identity or equality) have equal ``seat_keys`` for that
    seat, so a caller may keep the keys' encoding while the basis stays (a property test holds
    every reader of ``seat_keys`` to it).  The turn, the Hakem and the trick's lead count only
    as far as they concern this seat: most cards leave the other seats' keys as they were."""
    if seat is None or not 0 <= seat < state.rules.players:
        return (None, state.rules, state.deal, state.phase)
    mine = state.turn == seat
    return (seat, (state.held >> (SEAT_SHIFT * seat)) & FULL_DECK_MASK, state.phase, mine,
            state.hakem == seat, state.trick[0][1] if mine and state.trick else None,
            state.table if mine else None, state.rules, state.deal)


def same_basis(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """Whether two bases (``seat_basis``, ``steady_basis``) are equal in the sense their
    contracts state: item by item, records by identity first (they are kept from one version to
    the next when unchanged, which makes the common case cheap) and by equality otherwise."""
    return len(a) == len(b) and all(x is y or x == y for x, y in zip(a, b, strict=True))


STEADY = ("match_id", "players", "sides", "removed", "round", "hakem", "dealer", "trump", "score",
          "target", "sets", "seats", "result", "winner", "rules", "draw", "commitment", "secret",
          "dealt")
"""The keys of a view that no card played changes: they come from the rules, the match's and the
round's records (``state.match``, ``state.deal``), the Hakem, the presence and whether every
hand is shown, all of which change at most a few times a round (``steady_keys``)."""


def steady_basis(state: State, connected: Sequence[bool] | None, show_all: bool
                 ) -> tuple[Any, ...]:
    """Everything ``steady_keys`` reads: equal bases (records compared by identity or equality)
    give equal keys."""
    return (state.rules, state.match, state.deal, state.hakem,
            tuple(connected) if connected is not None else None, show_all)


def steady_keys(state: State, connected: Sequence[bool] | None, show_all: bool
                ) -> dict[str, Any]:
    """The ``STEADY`` keys of ``view_for`` (which takes them from here)."""
    rules = state.rules
    match, deal = state.match, state.deal
    seats: list[dict[str, Any]] = []
    for i, s in enumerate(match.seats):
        on = bool(connected[i]) if connected is not None else False
        if s is None:
            seats.append({"name": None, "bot": None, "connected": False, "empty": True})
        else:
            seats.append({"name": s.name, "bot": s.bot, "connected": on or s.bot is not None,
                          "empty": False})
    result = None
    if match.result is not None:
        r = match.result
        result = {"winner": r.winner, "points": r.points, "kind": r.kind, "tricks": list(r.tricks)}
    return {
        "match_id": match.match_id,
        "players": rules.players,
        "sides": [list(side) for side in rules.variant.sides],
        "removed": names_of_mask(mask_of(rules.variant.removed)),
        "round": deal.round_no,
        "hakem": state.hakem,
        "dealer": deal.dealer,
        "trump": SUITS[deal.trump] if deal.trump is not None else None,
        "score": list(match.score),
        "target": rules.target,
        "sets": list(match.sets) if rules.sets > 1 else None,
        "seats": seats,
        "result": result,
        "winner": match.winner,
        "rules": rules.to_dict(),
        "draw": [{"seat": s, "card": c} for s, c in match.draw],
        "commitment": match.commitment,
        "secret": match.secret,
        "dealt": [names_of_mask(h) for h in deal.dealt] if show_all else None,
    }


def play_keys(state: State, version: int, show_all: bool) -> dict[str, Any]:
    """The keys of ``view_for`` that are neither ``PER_SEAT`` nor ``STEADY``: what a card played
    changes (``view_for`` takes them from here)."""
    last_trick = None
    if state.last_trick:
        last_trick = {"cards": _trick(state.last_trick), "winner": state.last_winner}
    hands = state.hands
    return {
        "version": version,
        "phase": WAITING if state.phase == NEW else state.phase,
        "hand_counts": [h.bit_count() for h in hands],
        "trick": _trick(state.trick),
        "leader": state.leader,
        "turn": state.turn,
        "tricks": list(state.tricks),
        "last_trick": last_trick,
        "pile": state.pile if state.rules.double_sar else None,
        "hands": [names_of_mask(h) for h in hands] if show_all else None,
    }


def shows_all(state: State, reveal: bool = False) -> bool:
    """Whether a view of ``state`` shows every hand: once the match is over, or on ``reveal``."""
    return reveal or state.phase == MATCH_OVER


def view_for(
    state: State,
    seat: int | None,
    version: int = 0,
    connected: Sequence[bool] | None = None,
    *,
    reveal: bool = False,
) -> dict[str, Any]:
    """The view of ``seat`` (``None``: the public spectator view) at ``version``.

    ``connected`` is the gateway's presence per seat (not part of the record).  ``reveal`` shows
    every hand; the match service only passes it for finished matches.  The view is the union
    of three parts, each from one function: ``seat_keys`` (the seat's own), ``steady_keys``
    (what no card changes) and ``play_keys`` (the rest), so that a caller encoding views for
    many seats and versions can reuse a part while its basis holds.
    """
    show_all = shows_all(state, reveal)
    view = play_keys(state, version, show_all)
    view.update(steady_keys(state, connected, show_all))
    view.update(seat_keys(state, seat))
    return view


def redact_event(state: State, event: Event, seat: int | None, *, reveal: bool = False
                 ) -> dict[str, Any]:
    """``event`` as plain data for ``seat`` (``None``: spectator).  ``state`` is the state just
    before the event.  Decks become the seat's own cards; other hidden fields are dropped.  A
    seat's ``player`` id is dropped even with ``reveal``: nothing of the game needs it, and it
    would tie a player's matches together (a rematch's ids follow from it)."""
    plain = to_plain(event)
    if isinstance(event, SeatTaken):
        del plain["player"]
    if reveal:
        return plain
    if isinstance(event, RoundStarted):
        del plain["deck"]
        own: tuple[int, ...] = ()
        if seat == event.hakem:
            own = hakem_five(tuple(CARD_INDEX[c] for c in event.deck), state.rules)
        plain["hand"] = names_of_mask(mask_of(own))
    elif isinstance(event, CardsDiscarded):
        if seat != event.seat:
            plain["cards"] = len(event.cards)  # how many, never which
    elif isinstance(event, TalonDrawn):
        if seat != event.seat:
            del plain["kept"], plain["discarded"]
    elif isinstance(event, TrumpChosen):
        if seat is not None and 0 <= seat < state.rules.players and state.hakem is not None:
            hands = deal_hands(state.deal.deck, state.hakem, state.rules)
            plain["hand"] = names_of_mask(hands[seat])
        else:
            plain["hand"] = []
    return plain


__all__ = ["legal_mask", "legal_choices", "view_for", "redact_event", "cards_of"]
