"""The state of a match: what ``evolve`` folds events into.

``State`` is a value: ``evolve`` returns a new one and never changes its argument (the tests check
this).  It uses ``__slots__`` and a generated ``clone`` rather than a frozen dataclass because
it is rebuilt for every card played and ``dataclasses.replace`` would dominate the engine's time.
Hands are 52-bit masks (see ``engine.cards``); all of them live packed in one int, ``held``, so
that playing a card is one xor instead of rebuilding a tuple (``hands`` gives the per-seat
tuple).  The state holds hidden information (every hand, the deck); only ``engine.views`` turns it
into what one seat may see.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, TypeVar

from .cards import FULL_DECK_MASK
from .rules import STANDARD, Rules

NEW, WAITING, CHOOSING_TRUMP, PLAYING, ROUND_OVER, MATCH_OVER = (
    "new", "waiting", "choosing_trump", "playing", "round_over", "match_over",
)
DISCARDING, DRAWING = "discarding", "drawing"
"""The two-player talon game's phases between trump and play (``engine.variants.TALON``)."""

R = TypeVar("R")

SEAT_SHIFT = 52
"""Seat ``s``'s hand is bits ``52*s .. 52*s+51`` of ``State.held``."""
HELD_BIT: tuple[tuple[int, ...], ...] = tuple(
    tuple(1 << (card + SEAT_SHIFT * seat) for card in range(52)) for seat in range(4)
)
"""``HELD_BIT[seat][card]``: the card's bit in ``State.held``."""


@dataclass(frozen=True, slots=True)
class Seat:
    name: str
    player: str
    bot: str | None = None


@dataclass(frozen=True, slots=True)
class RoundResult:
    winner: int | None
    points: int
    kind: str
    tricks: tuple[int, ...]


class TrumpTable:
    """Per (trump, satat): each card's effective suit, the masks of effective suits, and the
    power used to find a trick's winner.  With ``satat`` the 2 of hearts belongs to the trump
    suit and outranks every other trump."""

    __slots__ = ("trump", "eff_suit", "suit_masks", "power", "follow", "beats")

    def __init__(self, trump: int, satat: bool) -> None:
        eff = [c // 13 for c in range(52)]
        power = [c % 13 for c in range(52)]
        for c in range(52):
            if c // 13 == trump:
                power[c] = 100 + c % 13
        if satat:
            two_hearts = 13  # suit H (1) * 13 + rank 2 (0)
            eff[two_hearts] = trump
            power[two_hearts] = 113
        masks = [0, 0, 0, 0]
        for c in range(52):
            masks[eff[c]] |= 1 << c
        self.trump = trump
        self.eff_suit: tuple[int, ...] = tuple(eff)
        self.suit_masks: tuple[int, ...] = tuple(masks)
        self.power: tuple[int, ...] = tuple(power)
        self.follow: tuple[int, ...] = tuple(masks[eff[c]] for c in range(52))
        """``follow[card]``: the mask of the (effective) suit a trick led with ``card`` asks for,
        one lookup on the hot path of ``decide`` and ``legal_mask``."""
        self.beats: tuple[tuple[int, ...], ...] = tuple(
            tuple(power[c] if eff[c] == trump or eff[c] == led else -1 for c in range(52))
            for led in range(4)
        )
        """``beats[led suit][card]``: the card's strength in a trick led in that suit (-1 when it
        can never win it), so finding a trick's winner is a max over one table row."""

    def winner(self, trick: tuple[tuple[int, int], ...]) -> int:
        """The seat that wins a complete trick of ``(seat, card)`` in play order."""
        row = self.beats[self.eff_suit[trick[0][1]]]
        best_seat, best = trick[0][0], row[trick[0][1]]
        for seat, card in trick[1:]:
            if row[card] > best:
                best, best_seat = row[card], seat
        return best_seat

    def winner_with(self, trick: tuple[tuple[int, int], ...], seat: int, card: int) -> int:
        """The winner of the open ``trick`` completed by ``seat`` playing ``card`` (without
        building the completed trick: this runs once per trick in ``decide``)."""
        row = self.beats[self.eff_suit[trick[0][1]]]
        best_seat, best = seat, row[card]
        for s, c in trick:
            if row[c] > best:
                best, best_seat = row[c], s
        return best_seat


TRUMP_TABLES: dict[tuple[int, bool], TrumpTable] = {
    (t, s): TrumpTable(t, s) for t in range(4) for s in (False, True)
}


@dataclass(frozen=True, slots=True)
class MatchInfo:
    """The parts of the state that change at most once a round."""

    match_id: str = ""
    commitment: str = ""
    first_hakem: int | None = None
    seats: tuple[Seat | None, ...] = (None, None, None, None)
    draw: tuple[tuple[int, str], ...] = ()
    next_hakem: int | None = None
    """The Hakem of the next deal, once known (after the draw or a round's end)."""
    score: tuple[int, ...] = (0, 0)
    sets: tuple[int, ...] = (0, 0)
    result: RoundResult | None = None
    winner: int | None = None
    secret: str | None = None


@dataclass(frozen=True, slots=True)
class DealInfo:
    """The current round's deal: fixed once dealt (``trump`` and ``dealt`` once trump is named)."""

    round_no: int = 0
    dealer: int | None = None
    deck: tuple[int, ...] = ()
    stacked: bool = False
    trump: int | None = None
    dealt: tuple[int, ...] = (0, 0, 0, 0)
    """Every seat's cards as dealt (hidden; shown only once the match is over).  In the talon
    game: the cards a seat has received and not discarded (its 13 once the talon is empty)."""
    talon: int = 0
    """The talon game: the deck position of the talon's top card (0: no talon)."""
    discards: tuple[int, ...] = ()
    """The talon game: every seat's discards this round, a mask per seat (hidden: each seat
    sees its own)."""


class State:
    """Everything about one match.  Treat as immutable: use ``clone``/``replace`` to change.

    The fields that change with every card are slots of ``State`` itself; the rest live in two
    small frozen records, ``match`` and ``deal``, so that copying a state per card stays cheap.
    """

    __slots__ = (
        "rules", "phase", "hakem", "table", "held", "trick", "leader", "turn",
        "tricks", "pile", "run_team", "tricks_played", "last_trick", "last_winner", "match",
        "deal",
    )

    rules: Rules
    phase: str
    hakem: int | None
    table: TrumpTable | None
    held: int
    """Cards held now, every seat's 52-bit mask packed: seat ``s`` at bit ``52*s`` (hidden
    information).  ``hands`` and ``hand(seat)`` unpack it."""
    trick: tuple[tuple[int, int], ...]
    """The open trick, ``(seat, card)`` in play order."""
    leader: int | None
    turn: int | None
    tricks: tuple[int, ...]
    """Counted tricks per team this round."""
    pile: int
    """double_sar: tricks waiting to be banked."""
    run_team: int | None
    """double_sar: the team that won the last trick of an unbanked run."""
    tricks_played: int
    last_trick: tuple[tuple[int, int], ...]
    last_winner: int | None
    match: MatchInfo
    deal: DealInfo

    def __init__(self, rules: Rules = STANDARD) -> None:
        """The empty state before ``MatchCreated``."""
        n, teams = rules.players, rules.n_teams
        self.rules = rules
        self.phase = NEW
        self.hakem = None
        self.table = None
        self.held = 0
        self.trick = ()
        self.leader = None
        self.turn = None
        self.tricks = (0,) * teams
        self.pile = 0
        self.run_team = None
        self.tricks_played = 0
        self.last_trick = ()
        self.last_winner = None
        self.match = MatchInfo(seats=(None,) * n, score=(0,) * teams, sets=(0,) * teams)
        self.deal = DealInfo(dealt=(0,) * n)

    def clone(self) -> State:
        """A shallow copy (every field is immutable, so this is a full copy).  Replaced below by
        generated straight-line code, which is several times faster than a loop."""
        new = State.__new__(State)
        for name in State.__slots__:
            setattr(new, name, getattr(self, name))
        return new

    def replace(self, **changes: object) -> State:
        new = self.clone()
        for name, value in changes.items():
            setattr(new, name, value)
        return new

    def snapshot(self) -> tuple[object, ...]:
        """Every field, for equality checks in tests and replay comparisons (the trump table is
        represented by its trump).  Replaced below by generated straight-line code."""
        return tuple(
            getattr(self, name) if name != "table" else (self.table.trump if self.table else None)
            for name in State.__slots__
        )

    def hand(self, seat: int) -> int:
        """The cards ``seat`` holds now, as a mask."""
        return (self.held >> (SEAT_SHIFT * seat)) & FULL_DECK_MASK

    @property
    def hands(self) -> tuple[int, ...]:
        """Cards held now, a bit mask per seat (hidden information)."""
        held, full = self.held, FULL_DECK_MASK
        if self.rules.players == 4:  # unrolled: views and tests call this often
            return (held & full, (held >> SEAT_SHIFT) & full, (held >> 2 * SEAT_SHIFT) & full,
                    (held >> 3 * SEAT_SHIFT) & full)
        return tuple((held >> (SEAT_SHIFT * s)) & full for s in range(self.rules.players))

    @hands.setter
    def hands(self, hands: tuple[int, ...]) -> None:
        # only for building a state (``replace(hands=...)``); evolve sets ``held`` directly
        self.held = pack(hands)

    @property
    def played(self) -> int:
        """Cards played this round: dealt and no longer held."""
        dealt = held = 0
        for mask in self.deal.dealt:
            dealt |= mask
        for mask in self.hands:
            held |= mask
        return dealt & ~held

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.snapshot() == other.snapshot()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"State(match_id={self.match.match_id!r}, phase={self.phase!r}, "
                f"round={self.deal.round_no}, hakem={self.hakem}, turn={self.turn}, "
                f"tricks={self.tricks}, score={self.match.score})")

    @property
    def n(self) -> int:
        return self.rules.players

    @property
    def all_seated(self) -> bool:
        for s in self.match.seats:
            if s is None:
                return False
        return True


def record_maker(cls: type[R]) -> Callable[..., R]:
    """A positional constructor for a frozen, slotted dataclass (every field, in order) that
    sets the slots through their descriptors: half the cost of the generated ``__init__``, which
    goes through ``object.__setattr__`` for each field.  For the records ``evolve`` builds at
    every round's start and end; the result is an ordinary instance of ``cls``."""
    names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    body = "\n".join(f"    set_{name}(new, {name})" for name in names)
    source = f"def make({', '.join(names)}):\n    new = _new(cls)\n{body}\n    return new\n"
    namespace: dict[str, Any] = {"_new": object.__new__, "cls": cls}
    namespace.update({f"set_{name}": cls.__dict__[name].__set__ for name in names})
    code = compile(source, f"<engine.state: generated {cls.__name__} maker>", "exec")
    exec(code, namespace)  # noqa: S102 - generated from the dataclass's own field names
    make: Callable[..., R] = namespace["make"]
    make.__doc__ = f"{cls.__name__}({', '.join(names)}), built without __init__."
    return make


make_match_info = record_maker(MatchInfo)
make_deal_info = record_maker(DealInfo)
make_round_result = record_maker(RoundResult)


def pack(hands: tuple[int, ...] | list[int]) -> int:
    """The packed ``held`` int of per-seat hand masks."""
    held = 0
    for seat, mask in enumerate(hands):
        held |= mask << (SEAT_SHIFT * seat)
    return held


def _generate_clone() -> None:
    """Straight-line ``clone`` and ``snapshot``: several times faster than loops over slots."""
    body = "\n".join(f"    new.{name} = self.{name}" for name in State.__slots__)
    fields = ", ".join(
        "(self.table.trump if self.table is not None else None)" if name == "table"
        else f"self.{name}" for name in State.__slots__)
    source = (f"def clone(self):\n    new = _new(State)\n{body}\n    return new\n"
              f"def snapshot(self):\n    return ({fields},)\n")
    namespace: dict[str, object] = {"_new": object.__new__, "State": State}
    code = compile(source, "<engine.state: generated State.clone/snapshot>", "exec")
    exec(code, namespace)  # noqa: S102 - generated from our own slot names only
    clone: Any = namespace["clone"]
    clone.__doc__ = State.clone.__doc__
    State.clone = clone  # type: ignore[method-assign]
    snapshot: Any = namespace["snapshot"]
    snapshot.__doc__ = State.snapshot.__doc__
    State.snapshot = snapshot  # type: ignore[method-assign]


_generate_clone()


def pending_system_action(state: State) -> str | None:
    """What the match service must do next for the match to go on by itself.

    ``"draw"`` (turn cards for the first Hakem), ``"deal"`` (start the next round with a deck),
    ``"reveal"`` (publish the secret once the match is over) or ``None`` (waiting for players).
    """
    if state.phase == WAITING and state.all_seated:
        return "deal" if state.match.next_hakem is not None else "draw"
    if state.phase == ROUND_OVER and state.all_seated:
        return "deal"
    if state.phase == MATCH_OVER and state.match.secret is None:
        return "reveal"
    return None
