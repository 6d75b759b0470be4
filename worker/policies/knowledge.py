"""What one seat knows about the current round, rebuilt from its view and its redacted history.

Input contract (the same for every policy): ``view`` is ``engine.view_for(state, seat, version)``
for the seat and ``history`` the seat's redacted events of the match so far
(``engine.redact_event`` of each event, in order).  Nothing else is read, so whatever a policy
derives from a :class:`Knowledge` a human in that seat with a perfect memory could derive too.

``history`` may be shorter than the match (a hint passes none): then only the view's open trick
and counts are known, and the rest stays unknown rather than guessed.

Cards are engine cards (ints) and sets of cards are 52-bit masks; suits are *effective* suits
of the trump table (with ``satat`` the 2 of hearts is a trump).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from engine.cards import CARD_INDEX, SUIT_INDEX
from engine.rules import Rules
from engine.state import TRUMP_TABLES, TrumpTable

View = Mapping[str, Any]
History = Sequence[Mapping[str, Any]]


@lru_cache(maxsize=64)
def _rules(items: tuple[tuple[str, Any], ...]) -> Rules:
    return Rules.from_dict(dict(items))


def rules_of(view: View) -> Rules:
    """The house rules a view shows (the standard game when it shows none)."""
    raw = view.get("rules")
    if not isinstance(raw, Mapping):
        return Rules()
    return _rules(tuple(sorted(raw.items())))


def mask_of_names(names: Sequence[str]) -> int:
    m = 0
    for name in names:
        m |= 1 << CARD_INDEX[name]
    return m


@dataclass(slots=True)
class Knowledge:
    """One seat's knowledge of the round in play."""

    seat: int
    phase: str
    rules: Rules
    hakem: int
    trump: int | None
    table: TrumpTable | None
    hand: int
    """Own cards now."""
    legal: int
    """Own playable cards now (0 outside the playing phase)."""
    trick: list[tuple[int, int]]
    """The open trick, ``(seat, card)`` in play order."""
    leader: int
    counts: list[int]
    """Cards held now, per seat (public)."""
    tricks: list[int]
    """Counted tricks per team."""
    tricks_played: int
    pile: int = 0
    run_team: int | None = None
    played: int = 0
    """Every card seen played this round, the open trick included."""
    played_by: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    voids: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    """Per seat, bit ``s`` set when the seat has shown it holds no card of effective suit ``s``."""
    first_five: int = 0
    """The seat's own first five cards when it is the Hakem, else 0."""
    discards: list[list[int]] = field(default_factory=lambda: [[], [], [], []])
    """Per seat, the side cards it threw when void in the led suit (and not trumping)."""
    plays: list[tuple[int, int]] = field(default_factory=list)
    """Every card seen played this round, ``(seat, card)`` in order (the open trick last)."""
    history_complete: bool = False
    """True when the history covered the round from its start (played cards are all known)."""
    score: tuple[int, int] = (0, 0)
    """The match score per team (public: the view's ``score``)."""
    target: int = 7
    """The points that win the match (or a set of ``2x7``; the view's ``target``)."""

    @property
    def partner(self) -> int:
        return (self.seat + 2) % 4

    @property
    def team(self) -> int:
        return self.seat % 2

    @property
    def unseen(self) -> int:
        """Cards this seat has not seen: in another hand (every card is dealt in a round)."""
        return ((1 << 52) - 1) & ~self.hand & ~self.played

    def suit_mask(self, suit: int) -> int:
        assert self.table is not None
        return self.table.suit_masks[suit]


def _note_trick_card(k: Knowledge, trick: list[tuple[int, int]], seat: int, card: int) -> None:
    """Record what playing ``card`` on ``trick`` shows about ``seat``'s hand."""
    table = k.table
    if table is None or not trick:
        return
    led = table.eff_suit[trick[0][1]]
    suit = table.eff_suit[card]
    if suit != led:
        k.voids[seat] |= 1 << led
        if suit != table.trump:
            if k.rules.must_trump:
                k.voids[seat] |= 1 << table.trump
            k.discards[seat].append(card)


def knowledge(view: View, history: History) -> Knowledge:
    """Build the seat's :class:`Knowledge` from its view and redacted history."""
    seat = view["seat"]
    rules = rules_of(view)
    trump_name = view.get("trump")
    trump = SUIT_INDEX[trump_name] if trump_name else None
    table = TRUMP_TABLES[(trump, rules.satat)] if trump is not None else None
    hand = mask_of_names(view.get("hand") or [])
    phase = view.get("phase", "playing")
    legal = mask_of_names(view.get("legal") or []) if phase == "playing" else 0
    open_trick = [(int(t["seat"]), CARD_INDEX[t["card"]]) for t in view.get("trick") or []]
    counts = list(view.get("hand_counts") or [13, 13, 13, 13])
    tricks = list(view.get("tricks") or [0, 0])
    hakem = view.get("hakem")
    hakem = seat if hakem is None else int(hakem)
    leader = view.get("leader")
    if leader is None:
        leader = open_trick[0][0] if open_trick else hakem
    pile = view.get("pile") or 0
    if open_trick:
        lead_seat = open_trick[0][0]
        played_tricks = 13 - counts[lead_seat] - 1
    else:
        played_tricks = 13 - counts[leader]
    k = Knowledge(seat=seat, phase=phase, rules=rules, hakem=hakem, trump=trump, table=table,
                  hand=hand, legal=legal, trick=open_trick, leader=int(leader), counts=counts,
                  tricks=tricks, tricks_played=max(0, played_tricks), pile=int(pile))
    score = view.get("score")
    if isinstance(score, Sequence) and len(score) == 2:
        k.score = (int(score[0]), int(score[1]))
    target = view.get("target")
    if isinstance(target, int) and target > 0:
        k.target = target

    # the current round's events: from its last round_started on
    start = None
    for i in range(len(history) - 1, -1, -1):
        if history[i].get("type") == "round_started":
            start = i
            break
    if start is not None:
        k.history_complete = True
        started = history[start]
        if started.get("hakem") == seat:
            k.first_five = mask_of_names(started.get("hand") or [])
        trick: list[tuple[int, int]] = []
        for event in history[start + 1:]:
            kind = event.get("type")
            if kind == "card_played":
                _see(k, trick, int(event["seat"]), CARD_INDEX[event["card"]])
            elif kind == "trick_won":
                trick = []
                if rules.double_sar:
                    k.run_team = None if event.get("banked") else int(event["seat"]) % 2
    else:
        # no history of this round: only the open trick is known
        trick = []
        for s, c in open_trick:
            _see(k, trick, s, c)
    return k


def _see(k: Knowledge, trick: list[tuple[int, int]], seat: int, card: int) -> None:
    """Record ``seat`` playing ``card`` to ``trick`` (appended to it): what it shows of the
    seat's hand, and the card among those played."""
    _note_trick_card(k, trick, seat, card)
    trick.append((seat, card))
    k.plays.append((seat, card))
    k.played |= 1 << card
    k.played_by[seat] |= 1 << card


def advance(k: Knowledge, plays: Sequence[tuple[int, int]]) -> Knowledge:
    """``k`` once the engine cards ``plays`` ((seat, card), in order) have been seen played: what
    :func:`knowledge` rebuilds from the view and history afterwards.  The seat's own cards leave
    its hand, tricks are counted; ``legal`` is the seat's playable cards when it is next to play
    (else 0).  ``k`` is not changed.  Needs a trump; not for ``double_sar`` (its pile and runs
    are not followed)."""
    from .fast import FAST_TABLES, legal

    table = k.table
    assert table is not None and k.trump is not None
    n = replace(k, counts=k.counts[:], tricks=k.tricks[:], trick=k.trick[:],
                played_by=k.played_by[:], voids=k.voids[:],
                discards=[d[:] for d in k.discards], plays=k.plays[:])
    for seat, card in plays:
        _see(n, n.trick, seat, card)
        n.counts[seat] -= 1
        if seat == n.seat:
            n.hand &= ~(1 << card)
        if len(n.trick) == 4:
            winner = table.winner(tuple(n.trick))
            n.tricks[winner % 2] += 1
            n.tricks_played += 1
            n.leader = winner
            n.trick = []
    turn = (n.trick[0][0] + len(n.trick)) % 4 if n.trick else n.leader
    n.legal = 0
    if turn == n.seat and n.hand:
        ft = FAST_TABLES[(k.trump, k.rules.satat)]
        trick = [ft.to_fast[c] for _, c in n.trick]
        n.legal = ft.mask_to_engine(legal(ft.mask_to_fast(n.hand), trick, k.rules.must_trump))
    return n


@dataclass(slots=True)
class FastKnowledge:
    """A :class:`Knowledge` in the fast card space of its trump table (see ``fast.py``):
    effective suits are blocks 0..3 (3 is trump) and a higher bit is a stronger card."""

    k: Knowledge
    hand: int
    legal: int
    unseen: int
    played: int
    trick: list[tuple[int, int]]
    voids: list[int]
    """Per seat, bit ``b`` set when the seat is known void in block ``b``."""


def fast_knowledge(k: Knowledge) -> FastKnowledge:
    """Translate ``k`` (which must have a trump) to fast cards."""
    from .fast import FAST_TABLES

    assert k.trump is not None
    ft = FAST_TABLES[(k.trump, k.rules.satat)]
    voids = []
    for seat in range(4):
        v = 0
        for suit in range(4):
            if k.voids[seat] >> suit & 1:
                v |= 1 << ft.block_of_suit[suit]
        voids.append(v)
    return FastKnowledge(
        k=k, hand=ft.mask_to_fast(k.hand), legal=ft.mask_to_fast(k.legal),
        unseen=ft.mask_to_fast(k.unseen), played=ft.mask_to_fast(k.played),
        trick=[(s, ft.to_fast[c]) for s, c in k.trick], voids=voids,
    )
