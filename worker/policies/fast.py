"""A fast bit-mask model of one Hokm round, for search.  Checked against the engine by tests.

Cards are relabelled per trump table (``engine.state.TRUMP_TABLES``) so that every *effective*
suit is one 16-bit block ordered by the engine's own trick power, and the trump block is the
highest (bits 48..63).  With ``satat`` the 2 of hearts moves into the trump block as its top
card.  Then, for a trick whose first card is ``led``:

* a card counts for the trick when ``c >> 4 == led >> 4`` or ``c >= 48``;
* the winner is the seat of the highest counting card (a plain integer comparison);
* following suit is ``hand & BLOCK[led >> 4]``.

``FastTable.to_fast`` / ``to_engine`` translate between the engine's cards and these.  A round
position is a :class:`FastState` (hands as masks by seat, the open trick, counted tricks per team
and the ``double_sar`` pile); ``legal``, ``play`` and ``outcome`` implement the rules, the
round-end rule delegating to ``engine.decide.round_outcome`` for the house rules.  Contract (the
property tests in ``tests/worker/test_fast.py``): from any reachable position the fast model
gives the same legal cards, trick winners, counted tricks and round result as ``decide`` +
``evolve``.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import cards_of
from engine.decide import TRICKS_TO_WIN, round_outcome
from engine.rules import Rules
from engine.state import TRUMP_TABLES, TrumpTable

TRUMP_BASE = 48
BLOCK: tuple[int, ...] = tuple(0xFFFF << (16 * b) for b in range(4))
TRUMP = BLOCK[3]
ROUND_TRICKS = 13


class FastTable:
    """The relabelling of cards for one (trump, satat)."""

    __slots__ = ("trump", "satat", "engine", "to_fast", "to_engine", "block_of_suit")

    def __init__(self, trump: int, satat: bool) -> None:
        table = TRUMP_TABLES[(trump, satat)]
        blocks = [0, 0, 0, 0]
        b = 0
        for s in range(4):
            if s == trump:
                blocks[s] = 3
            else:
                blocks[s] = b
                b += 1
        to_fast = [0] * 52
        to_engine = [-1] * 64
        for c in range(52):
            s = table.eff_suit[c]
            p = table.power[c]
            slot = p - 100 if p >= 100 else p
            f = blocks[s] * 16 + slot
            to_fast[c] = f
            to_engine[f] = c
        self.trump = trump
        self.satat = satat
        self.engine: TrumpTable = table
        self.to_fast: tuple[int, ...] = tuple(to_fast)
        self.to_engine: tuple[int, ...] = tuple(to_engine)
        self.block_of_suit: tuple[int, ...] = tuple(blocks)
        """Block of each effective engine suit (the trump suit is block 3)."""

    def mask_to_fast(self, mask: int) -> int:
        tf = self.to_fast
        out = 0
        for c in cards_of(mask):
            out |= 1 << tf[c]
        return out

    def mask_to_engine(self, mask: int) -> int:
        te = self.to_engine
        out = 0
        while mask:
            low = mask & -mask
            out |= 1 << te[low.bit_length() - 1]
            mask ^= low
        return out


FAST_TABLES: dict[tuple[int, bool], FastTable] = {
    (t, s): FastTable(t, s) for t in range(4) for s in (False, True)
}


def bits(mask: int) -> list[int]:
    """The set bits of a mask, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_of(indices: Sequence[int]) -> int:
    """The mask with the bits ``indices`` set (the inverse of :func:`bits`)."""
    m = 0
    for i in indices:
        m |= 1 << i
    return m


def legal(hand: int, trick: list[int], must_trump: bool) -> int:
    """The cards of ``hand`` that may be played on the open ``trick`` (fast cards)."""
    if not trick:
        return hand
    follow = hand & BLOCK[trick[0] >> 4]
    if follow:
        return follow
    if must_trump and hand & TRUMP:
        return hand & TRUMP
    return hand


def trick_winner_index(trick: list[int]) -> int:
    """Index in ``trick`` of the winning card (a complete or partial trick)."""
    led = trick[0] >> 4
    best = trick[0]
    bi = 0
    for i in range(1, len(trick)):
        c = trick[i]
        if c > best and (c >= TRUMP_BASE or c >> 4 == led):
            best = c
            bi = i
    return bi


class FastState:
    """A round position.  Mutable: ``play`` changes it in place; ``copy`` before exploring.

    ``result`` is ``None`` while the round goes on, else ``(winning team, points, kind)``.
    """

    __slots__ = ("hands", "trick", "leader", "turn", "tricks", "pile", "run_team", "played",
                 "hakem_team", "rules", "result")

    def __init__(self, hands: list[int], trick: list[int], leader: int, tricks: list[int],
                 played: int, hakem_team: int, rules: Rules, pile: int = 0,
                 run_team: int | None = None) -> None:
        self.hands = hands
        self.trick = trick
        self.leader = leader
        self.turn = (leader + len(trick)) & 3
        self.tricks = tricks
        self.pile = pile
        self.run_team = run_team
        self.played = played
        """Tricks finished this round."""
        self.hakem_team = hakem_team
        self.rules = rules
        self.result: tuple[int, int, str] | None = None

    def copy(self) -> FastState:
        new = FastState(self.hands[:], self.trick[:], self.leader, self.tricks[:], self.played,
                        self.hakem_team, self.rules, self.pile, self.run_team)
        new.result = self.result
        return new

    def legal(self) -> int:
        return legal(self.hands[self.turn], self.trick, self.rules.must_trump)

    def play(self, card: int) -> int | None:
        """Play ``card`` (assumed legal) for the seat to move; returns the trick's winning seat
        when this card completes a trick, else ``None``."""
        seat = self.turn
        self.hands[seat] ^= 1 << card
        trick = self.trick
        trick.append(card)
        if len(trick) < 4:
            self.turn = (seat + 1) & 3
            return None
        winner = (self.leader + trick_winner_index(trick)) & 3
        self.trick = []
        self.leader = self.turn = winner
        self.finish_trick(winner & 1)
        return winner

    def finish_trick(self, team: int) -> None:
        """Count a trick won by ``team`` the way ``engine.decide._finish_trick`` does."""
        rules = self.rules
        self.played += 1
        tricks = self.tricks
        if not rules.double_sar:
            tricks[team] += 1
            if tricks[team] < TRICKS_TO_WIN and not rules.bavney:
                return
        elif self.run_team == team or self.played == ROUND_TRICKS:
            tricks[team] += self.pile + 1
            self.pile = 0
            self.run_team = None
        else:
            self.pile += 1
            self.run_team = team
            return
        self.result = round_outcome(rules, self.hakem_team, tricks, team, self.played)


def sure_tricks(hands: list[int], team: int) -> tuple[int, int]:
    """Tricks each side (``team``, then the other) is sure to win from a trick start, however
    anyone plays: the trumps of one hand that outrank every trump of the other side each win a
    trick of their own when played (the larger count of the side's two hands)."""
    a = hands[team] & TRUMP
    b = hands[team + 2] & TRUMP
    x = hands[1 - team] & TRUMP
    y = hands[3 - team] & TRUMP
    ours = theirs = 0
    if a | b:
        above = -1 << (x | y).bit_length()
        ours = max((a & above).bit_count(), (b & above).bit_count())
    if x | y:
        above = -1 << (a | b).bit_length()
        theirs = max((x & above).bit_count(), (y & above).bit_count())
    return ours, theirs


def quick_tricks(hands: list[int], leader: int, friend: int) -> int:
    """Tricks the seat on lead at a trick start (``leader``) takes one after another from now,
    however the others play: in each effective suit its cards above every other hand's, and in
    a plain suit no more of them than a hand that holds a trump and could ruff has cards there
    (a hand must follow suit while it can).  ``friend``: a seat that never ruffs the leader's
    winners while it can play another card (its partner, when no rule forces a void hand to
    trump), or -1; holding a trump, it plays a card that is not one in as many tricks as it
    holds such cards, so the plain suits' count stops there.  The leader keeps the lead all
    along, so no other seat counts a trick before these are cashed."""
    plain = (suit_winners(hands, leader, friend, 0) + suit_winners(hands, leader, friend, 1)
             + suit_winners(hands, leader, friend, 2))
    return suit_winners(hands, leader, friend, 3) + min(plain, plain_cap(hands, friend))


def suit_winners(hands: list[int], leader: int, friend: int, b: int) -> int:
    """``quick_tricks``'s count in the effective suit ``b`` (3: trumps) before the cap of
    ``plain_cap``: the leader's cards above every other hand's there, in a plain suit no more
    than a hand other than ``friend`` that holds a trump has cards there."""
    block = BLOCK[b]
    own = hands[leader] & block
    if not own:
        return 0
    others = 0
    for s in range(len(hands)):
        if s != leader:
            others |= hands[s] & block
    count = (own & (-1 << others.bit_length())).bit_count()
    if b != 3:
        for s in range(len(hands)):
            if count and s != leader and s != friend and hands[s] & TRUMP:
                length = (hands[s] & block).bit_count()
                if length < count:
                    count = length
    return count


def plain_cap(hands: list[int], friend: int) -> int:
    """The most plain-suit winners ``quick_tricks`` counts: a ``friend`` holding a trump
    plays its other cards under them only so many times (else no cap: 13)."""
    if friend >= 0 and hands[friend] & TRUMP:
        return (hands[friend] & ~TRUMP).bit_count()
    return ROUND_TRICKS


def same_play(choice: int, card: int, trick: list[int], unplayed: int, hand: int) -> bool:
    """Whether playing ``card`` is the play ``choice`` (a behaviour model's) up to equivalent
    cards: the same card, or one of the same block with no card still in play (``unplayed``,
    the open ``trick``'s) outside ``hand`` ranking between them.  The inference of the plays
    seen (``inference.py``, ``nseat_inference.py``) weighs any other play as a miss."""
    if choice == card:
        return True
    if choice >> 4 != card >> 4:
        return False
    lo, hi = (choice, card) if choice < card else (card, choice)
    between = BLOCK[lo >> 4] & ((1 << hi) - 1) & ~((2 << lo) - 1)
    in_play = unplayed
    for c in trick:
        in_play |= 1 << c
    return not between & in_play & ~hand


def voids_after(voids: list[int], seat: int, trick: list[int], card: int,
                must_trump: bool) -> list[int]:
    """``voids`` (block bits per seat) once ``seat`` has played ``card`` to ``trick``: a new list
    when the card shows a void, else ``voids`` itself."""
    if not trick or card >> 4 == trick[0] >> 4:
        return voids
    out = voids[:]
    out[seat] |= 1 << (trick[0] >> 4)
    if must_trump and card < TRUMP_BASE:
        out[seat] |= 8
    return out


def winner_decided(state: FastState) -> int | None:
    """The team that has won the round, as soon as that is certain (a side with 7 counted tricks
    without ``double_sar``; with ``bavney`` the round may go on, but its winner is fixed)."""
    if state.result is not None:
        return state.result[0]
    if not state.rules.double_sar:
        for team in (0, 1):
            if state.tricks[team] >= TRICKS_TO_WIN:
                return team
    return None
