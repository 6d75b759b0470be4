"""The bots' path for the games of two and three players (``engine.variants``: ``simple`` and
``talon`` with two seats, ``three`` with three), for every view whose ``players`` is not 4.

The four-player modules (``knowledge.py``, ``heuristic.py``, ``search.py`` and what they call)
wire in four seats and two partnerships and stay exactly as they are; the policies send other
views here (``SearchPolicy``, ``EasyPolicy``, ``RandomPolicy``, :class:`HeuristicPolicy`).  Every
side of these games is one seat, but the code keeps sides as seat tuples (``rules.side_of``).

Contract: as every policy's (``base.py``).  :func:`seen` reads only the seat's view and its
redacted history, so everything derived from a :class:`Seen` a human in that seat with a perfect
memory could derive too: its hand, the cards played, the voids shown, its own discards (the view's
``talon.discarded``: the cards it laid aside and the talon cards it saw and passed), the talon's
top card when it is the seat's to draw, and the public facts (``removed``, counts, tricks).  The
cards a seat cannot place (:attr:`Seen.pool`) are in another hand or *nowhere*: the simple game's
26 unused cards and the other seat's discards in the talon game are never dealt to anyone in a
sampled deal, and the removed 2 of clubs of the three-player game is not in the pool at all.

A decision is a string, as everywhere: a suit naming trump, ``keep`` or ``discard`` drawing from
the talon, a card name playing, and, discarding, the cards to lay aside as names joined by single
spaces (``"2C 7D 9H"``; :func:`worker.policies.base.is_legal` checks it).

Decisions:

* trump: the four-player heuristic's suit (the five cards only);
* discarding (:func:`discard_choice`): keep the trumps and the high cards, lay aside the lowest
  side cards, the shortest suit first;
* keep or discard (:func:`keep_choice`): keep the top card when it is worth more to the hand than
  the average card the seat cannot place (which is what the next card is, seen from the seat);
* a card (:func:`play`): the four-player heuristic's rules with every other seat an opponent
  (but for a lead from the longest side suit: its top card against one opponent); the search
  (:func:`search_card`) plays every distinct legal card out with :func:`play` for all seats
  (each on what its own view would hold: :func:`model_play`) on deals sampled from what the
  seat knows (:func:`sample`), and takes the best mean.  ``hard`` and ``expert`` draw those
  deals by how plausible the plays seen make them (``nseat_inference``: :data:`OVERSAMPLE`
  candidates a deal, a play the model would not make weighing :data:`MISS`), and once the seat
  holds at most :data:`RESPONSE_CARDS` cards a card's worth in a deal is the seat's best
  response to opponents playing :func:`play` (:class:`BestResponse`) instead of one playout.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.cards import CARD_INDEX, NAMES, SUITS
from engine.rules import Rules
from engine.state import TRUMP_TABLES

from .fast import (
    BLOCK, FAST_TABLES, TRUMP, TRUMP_BASE, FastTable, bits, legal, trick_winner_index, voids_after,
)
from .heuristic import _discard, block_suits, choose_trump, hold_chance
from .knowledge import mask_of_names, rules_of
from .nsolver import count_trick
from .reasons import Reason, card_reason, forced_trump, one_opponent
from .solver import SolverLimit, representatives, representatives_first, stands_for

View = Mapping[str, Any]
History = Sequence[Mapping[str, Any]]
FULL = (1 << 52) - 1


def is_small(view: View) -> bool:
    """Whether ``view`` is of a game this module plays (not four players)."""
    players = view.get("players")
    return isinstance(players, int) and players != 4


@dataclass(slots=True)
class Seen:
    """What one seat knows of the round in play (engine cards and masks)."""

    seat: int
    rules: Rules
    phase: str
    hakem: int
    trump: int | None
    hand: int
    legal: int
    """Playable cards (0 outside the playing phase)."""
    trick: list[tuple[int, int]]
    leader: int
    counts: list[int]
    tricks: list[int]
    """Counted tricks per side."""
    out: int
    """Cards known to be in no other hand: the removed cards, the seat's own discards and the
    talon's top card while the seat looks at it."""
    top: int | None = None
    to_discard: int = 0
    played: int = 0
    voids: list[int] = field(default_factory=list)
    """Per seat, bit ``s`` when the seat has shown it holds no card of effective suit ``s``."""
    score: list[int] = field(default_factory=list)
    pile: int = 0
    run_team: int | None = None
    plays: list[tuple[int, int]] = field(default_factory=list)
    """This round's plays so far, in order (seat, engine card), the open trick's included; only
    the open trick's without a history."""
    history_complete: bool = False
    """Whether :attr:`plays` holds the whole round (the history reached its start)."""

    @property
    def n(self) -> int:
        return self.rules.players

    @property
    def pool(self) -> int:
        """Cards the seat cannot place: in another hand or nowhere."""
        return FULL & ~self.hand & ~self.played & ~self.out

    @property
    def others(self) -> list[int]:
        """The other seats, in playing order after this one."""
        return [(self.seat + i) % self.n for i in range(1, self.n)]


def seen(view: View, history: History) -> Seen:
    """The seat's :class:`Seen` from its view and redacted history (see the module docstring;
    without a history only the open trick's plays are known)."""
    seat = int(view["seat"])
    rules = rules_of(view)
    n = rules.players
    trump_name = view.get("trump")
    trump = SUITS.index(trump_name) if trump_name else None
    phase = str(view.get("phase") or "playing")
    open_trick = [(int(t["seat"]), CARD_INDEX[t["card"]]) for t in view.get("trick") or []]
    hakem = view.get("hakem")
    hakem = seat if hakem is None else int(hakem)
    leader = view.get("leader")
    if leader is None:
        leader = open_trick[0][0] if open_trick else hakem
    talon = view.get("talon") or {}
    out = mask_of_names(view.get("removed") or []) | mask_of_names(talon.get("discarded") or [])
    top = CARD_INDEX[talon["top"]] if talon.get("top") else None
    if top is not None:
        out |= 1 << top
    s = Seen(seat=seat, rules=rules, phase=phase, hakem=hakem, trump=trump,
             hand=mask_of_names(view.get("hand") or []),
             legal=mask_of_names(view.get("legal") or []) if phase == "playing" else 0,
             trick=open_trick, leader=int(leader),
             counts=[int(c) for c in view.get("hand_counts") or [rules.hand_size] * n],
             tricks=[int(t) for t in view.get("tricks") or [0] * rules.n_teams],
             out=out, top=top, to_discard=int(talon.get("discard") or 0),
             voids=[0] * n, score=[int(x) for x in view.get("score") or [0] * rules.n_teams],
             pile=int(view.get("pile") or 0))
    start = None
    for i in range(len(history) - 1, -1, -1):
        if history[i].get("type") == "round_started":
            start = i
            break
    plays: list[tuple[int, int] | None] = []
    if start is None:
        plays = list(open_trick)
    else:
        s.history_complete = True
        for event in history[start + 1:]:
            kind = event.get("type")
            if kind == "card_played":
                plays.append((int(event["seat"]), CARD_INDEX[event["card"]]))
            elif kind == "trick_won":
                plays.append(None)
                if rules.double_sar:
                    s.run_team = None if event.get("banked") else rules.team_of(
                        int(event["seat"]))
    table = TRUMP_TABLES[(trump, rules.satat)] if trump is not None else None
    trick: list[int] = []
    for play_ in plays:
        if play_ is None:
            trick = []
            continue
        who, card = play_
        s.played |= 1 << card
        s.plays.append(play_)
        if table is not None and trick:
            led = table.eff_suit[trick[0]]
            if table.eff_suit[card] != led:
                s.voids[who] |= 1 << led
                if rules.must_trump and table.eff_suit[card] != table.trump:
                    s.voids[who] |= 1 << table.trump
        trick.append(card)
    return s


# -- the talon game's decisions ---------------------------------------------------------------


def _card_value(c: int, hand: int) -> float:
    """What a fast card is worth to ``hand``: its rank in its suit, trumps above every side card,
    and a little for length (a card in a suit the hand is long in)."""
    length = (hand & BLOCK[c >> 4] & ~(1 << c)).bit_count()
    return (c & 15) + (14.0 if c >= TRUMP_BASE else 0.0) + 0.5 * length


def lay_aside(hand: int, count: int) -> int:
    """The ``count`` cards of ``hand`` (fast masks) the heuristic lays aside: the lowest value
    first (:func:`_card_value`), so a short side suit's low cards before a long one's, never a
    trump while a side card is left."""
    order = sorted(bits(hand), key=lambda c: (_card_value(c, hand), c))
    out = 0
    for c in order[:count]:
        out |= 1 << c
    return out


def discard_choice(s: Seen) -> list[str]:
    """The cards to lay aside (``s.to_discard`` of the hand; :func:`lay_aside`), as names."""
    assert s.trump is not None
    ft = FAST_TABLES[(s.trump, s.rules.satat)]
    chosen = lay_aside(ft.mask_to_fast(s.hand), s.to_discard)
    return [NAMES[c] for c in sorted(ft.to_engine[c] for c in bits(chosen))]


_RANK_BITS = tuple(sum(1 << (16 * b + r) for b in range(4) for r in range(16) if r >> j & 1)
                   for j in range(4))
"""Per bit ``j`` of a rank, the fast cards whose rank (``c & 15``) has it: the ranks of a mask
sum to ``sum(2**j * popcount(mask & _RANK_BITS[j]))``."""


def keeps(hand: int, top: int, pool: int) -> bool:
    """Whether the heuristic keeps the talon's ``top`` card (fast cards): when it is worth at
    least as much to ``hand`` as the average card of ``pool``, the cards the seat cannot place
    (the next card, which it keeps otherwise, is one of those as far as it knows).  The mean of
    :func:`_card_value` over the pool, in a few popcounts: a pool card's length term is its
    block's count in the hand."""
    size = pool.bit_count()
    if not size:
        return _card_value(top, hand) >= 0.0
    total = 14.0 * (pool & TRUMP).bit_count()
    for j in range(4):
        total += (1 << j) * (pool & _RANK_BITS[j]).bit_count()
    for b in range(4):
        total += 0.5 * (pool & BLOCK[b]).bit_count() * (hand & BLOCK[b]).bit_count()
    return _card_value(top, hand) * size >= total


def keep_choice(s: Seen) -> tuple[str, Reason]:
    """``keep`` or ``discard`` for the talon's top card (:func:`keeps`), and why (``keep`` or
    ``take_next``)."""
    assert s.trump is not None and s.top is not None
    ft = FAST_TABLES[(s.trump, s.rules.satat)]
    top = NAMES[s.top]
    if keeps(ft.mask_to_fast(s.hand), ft.to_fast[s.top], ft.mask_to_fast(s.pool)):
        return "keep", Reason("keep", {"card": top})
    return "discard", Reason("take_next", {"card": top})


# -- card play --------------------------------------------------------------------------------


def _low(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def _lead(hand: int, unseen: int, share: float, voids: Sequence[int], others: Sequence[int]
          ) -> tuple[int, str]:
    trumps = hand & TRUMP
    unseen_trumps = unseen & TRUMP
    opps_may_trump = bool(unseen_trumps) and not all(voids[o] & 8 for o in others)
    if trumps and opps_may_trump:
        top = trumps.bit_length() - 1
        if not unseen_trumps & ~((2 << top) - 1):
            return top, "draw_top"
        n = trumps.bit_count()
        if n >= 4 and n > unseen_trumps.bit_count() * share:
            return _low(trumps), "draw_long"
    best, best_left = -1, -1.0
    long_low, long_len = -1, 0
    for b in (0, 1, 2):
        m = hand & BLOCK[b]
        if not m:
            continue
        if m.bit_count() > long_len:
            long_low, long_len = _low(m), m.bit_count()
        top = m.bit_length() - 1
        left = unseen & BLOCK[b]
        if left & ~((2 << top) - 1):
            continue  # not a master
        if unseen_trumps and any(voids[o] >> b & 1 and not voids[o] & 8 for o in others):
            continue  # an opponent has shown it can ruff
        expected = left.bit_count() * share
        if opps_may_trump and expected < 1.0:
            continue
        if expected > best_left:
            best, best_left = top, expected
    if best >= 0:
        return best, "cash"
    if long_low >= 0:
        if len(others) == 1:
            # one opponent: its high card goes on this trick (measured: leading low from the
            # longest suit lost 0.10 of rounds in the simple game and 0.02 in the talon game;
            # with two opponents leading low stays better by 0.02)
            return (hand & BLOCK[long_low >> 4]).bit_length() - 1, "lead_long_top"
        return long_low, "lead_long"
    return _low(hand), "lead_trump"


def beating(legal_: int, trick: Sequence[int]) -> tuple[int, int]:
    """Of the legal cards on an open trick (fast cards): those that follow the led suit, and
    those that would win the trick now."""
    led_block = trick[0] >> 4
    best = trick[trick_winner_index(list(trick))]
    follow = legal_ & BLOCK[led_block]
    above = legal_ & ~((2 << best) - 1)
    if not follow:
        above &= TRUMP
    elif best >= TRUMP_BASE and led_block != 3:
        above = 0
    return follow, above


def play(hand: int, legal_: int, unseen: int, share: float, voids: Sequence[int],
         trick: Sequence[int], seat: int, n: int) -> tuple[int, str]:
    """The heuristic's card (fast card space) and a reason code of
    ``reasons.NSEAT_CARD_CODES`` for a game of ``n`` seats, each its own side.  ``unseen`` are
    the cards the seat cannot place, ``share`` the part of them in the other hands (1 unless
    some are nowhere), ``voids[s]`` the blocks seat ``s`` has shown void in, ``trick`` the open
    trick in play order."""
    if legal_ & (legal_ - 1) == 0:
        return _low(legal_), "only"
    others = [(seat + i) % n for i in range(1, n)]
    if not trick:
        return _lead(legal_, unseen, share, voids, others)
    led_block = trick[0] >> 4
    follow, above = beating(legal_, trick)
    if above:
        ruff = "ruff" if led_block != 3 else "win"
        if len(trick) == n - 1:
            c = _low(above)
            return c, (ruff if c >= TRUMP_BASE else "win_last")
        nxt = voids[(seat + 1) % n]
        m = above
        while m:
            low = m & -m
            c = low.bit_length() - 1
            if hold_chance(c, led_block, unseen, nxt) >= 0.5:
                return c, (ruff if c >= TRUMP_BASE else "win")
            m ^= low
    if follow:
        return _low(follow), "duck"
    return _discard(legal_, unseen), "discard"


@dataclass(slots=True)
class Fast:
    """A :class:`Seen` in the fast card space of its trump (``fast.py``)."""

    s: Seen
    ft: FastTable
    hand: int
    legal: int
    pool: int
    trick: list[int]
    voids: list[int]
    """Per seat, the blocks it has shown void in."""

    @property
    def share(self) -> float:
        held = sum(self.s.counts[o] for o in self.s.others)
        size = self.pool.bit_count()
        return min(1.0, held / size) if size else 1.0


def to_fast(s: Seen) -> Fast:
    assert s.trump is not None
    ft = FAST_TABLES[(s.trump, s.rules.satat)]
    voids = []
    for v in s.voids:
        out = 0
        for suit in range(4):
            if v >> suit & 1:
                out |= 1 << ft.block_of_suit[suit]
        voids.append(out)
    return Fast(s, ft, ft.mask_to_fast(s.hand), ft.mask_to_fast(s.legal),
                ft.mask_to_fast(s.pool), [ft.to_fast[c] for _, c in s.trick], voids)


def heuristic_card(s: Seen) -> tuple[str, Reason]:
    """The heuristic's card for ``s`` (a card name), and why."""
    f = to_fast(s)
    legal_ = f.legal or f.hand
    card, key = play(f.hand, legal_, f.pool, f.share, f.voids, f.trick, s.seat, s.n)
    if not legal_ >> card & 1:  # never happens; a guard for the contract
        card = _low(legal_)
    letters = block_suits(f.ft.block_of_suit)
    block = card >> 4
    led = f.trick[0] >> 4 if f.trick else block
    name = NAMES[f.ft.to_engine[card]]
    key = forced_trump(key, s.rules.must_trump, card >= TRUMP_BASE, bool(f.hand & ~TRUMP))
    key = one_opponent(key, s.rules.players)
    return name, card_reason(key, name, letters[block], letters[led])


def decide(s: Seen) -> tuple[str, Reason]:
    """The heuristic's decision in any phase, and why (``reasons.py``)."""
    if s.phase == "choosing_trump":
        suit, reason = choose_trump(s.hand, s.rules.satat)
        return SUITS[suit], reason
    if s.phase == "discarding":
        cards = discard_choice(s)
        return " ".join(cards), Reason("discard_talon", {"cards": tuple(cards)})
    if s.phase == "drawing":
        return keep_choice(s)
    return heuristic_card(s)


class HeuristicPolicy:
    """The ``heuristic`` policy for every game: the four-player heuristic (``heuristic.py``) for
    four players, :func:`decide` otherwise (deterministic either way)."""

    name = "heuristic"

    def __init__(self) -> None:
        from .heuristic import HeuristicPolicy as Four

        self.four = Four()

    def choose(self, view: View, history: History, rng: random.Random) -> str:
        if not is_small(view):
            return self.four.choose(view, history, rng)
        return decide(seen(view, history))[0]


# -- search -----------------------------------------------------------------------------------


def sample(f: Fast, rng: random.Random, tries: int = 20) -> list[int]:
    """Hands for every seat (fast masks): the seat's own, and for each other seat as many cards
    of the pool as it holds, none of a block it has shown void in; the pool's other cards go
    nowhere.  After ``tries`` dead ends of the plain draw (about 1 sample in 2,000 of random
    three-player play) :func:`placed` deals with a look-ahead that cannot reach one; only when
    no deal keeps the voids (a history that misses plays) are they ignored, so a deal is
    always returned."""
    s = f.s
    pool = bits(f.pool)
    others = s.others
    for attempt in range(tries + 1):
        strict = attempt < tries
        if not strict:
            kept = placed(f, pool, rng)
            if kept is not None:
                return kept
        rng.shuffle(pool)
        need = [0] * s.n
        for o in others:
            need[o] = s.counts[o]
        nowhere = len(pool) - sum(need)
        if nowhere < 0:  # a history that misses plays: the counts rule
            nowhere = 0
        hands = [0] * s.n
        hands[s.seat] = f.hand
        ok = True
        for c in pool:
            b = c >> 4
            total = nowhere
            for o in others:
                if need[o] and not (strict and f.voids[o] >> b & 1):
                    total += need[o]
            if total == 0:
                if sum(need) == 0:
                    break
                ok = False
                break
            r = rng.randrange(total)
            if r < nowhere:
                nowhere -= 1
                continue
            r -= nowhere
            for o in others:
                if need[o] and not (strict and f.voids[o] >> b & 1):
                    if r < need[o]:
                        hands[o] |= 1 << c
                        need[o] -= 1
                        break
                    r -= need[o]
        if ok and not any(need):
            return hands
    return hands


def placed(f: Fast, pool: list[int], rng: random.Random) -> list[int] | None:
    """A deal of ``pool`` (shuffled here) that keeps every shown void, or None if there is
    none.  Each card goes to a seat (or nowhere) with the chance of the plain draw, its
    remaining need, among the places after which the rest can still be placed: Hall's condition
    over the at most three places (every set of places has room for the cards that may go
    nowhere else), checked per block since a block's cards share their places."""
    s = f.s
    others = s.others
    places = [*others, -1]  # -1: nowhere
    need = {o: s.counts[o] for o in others}
    need[-1] = len(pool) - sum(need.values())
    if need[-1] < 0:
        return None
    allowed = [[p for p in places if p < 0 or not f.voids[p] >> b & 1] for b in range(4)]
    left = [0, 0, 0, 0]
    for c in pool:
        left[c >> 4] += 1
    subsets = [[p for i, p in enumerate(places) if m >> i & 1] for m in range(1, 1 << len(places))]

    def feasible() -> bool:
        for sub in subsets:
            room = sum(need[p] for p in sub)
            if sum(left[b] for b in range(4) if set(allowed[b]) <= set(sub)) > room:
                return False
        return True

    if not feasible():
        return None
    rng.shuffle(pool)
    hands = [0] * s.n
    hands[s.seat] = f.hand
    for c in pool:
        b = c >> 4
        left[b] -= 1
        options = []
        for p in allowed[b]:
            if need[p]:
                need[p] -= 1
                if feasible():
                    options.append(p)
                need[p] += 1
        r = rng.randrange(sum(need[p] for p in options))  # feasible before: one option or more
        for p in options:
            if r < need[p]:
                break
            r -= need[p]
        need[p] -= 1
        if p >= 0:
            hands[p] |= 1 << c
    return hands


def _utility(result: tuple[int, int, str] | None, side: int) -> float:
    """A round's worth to ``side``: 1 for a win (a little more for a sweep), 0 for a loss (a
    little less when swept), 0.4 for a round without a winner (three players)."""
    if result is None:
        return 0.4
    winner, points, _ = result
    if winner == side:
        return 1.0 + 0.1 * (points - 1)
    return -0.1 * (points - 1)


def model_play(hands: Sequence[int], turn: int, options: int, live: int, voids: Sequence[int],
               trick: Sequence[int], n: int) -> int:
    """The card :func:`play` gives ``turn`` in a sampled deal, on what its own view would hold:
    the cards it cannot place are those of ``live`` (every card not yet played or removed: in
    a hand, or unused) outside its hand, and the share of them in the other hands is their
    cards over those (a third of them in the simple game, all of them with three players), as
    :attr:`Fast.share` gives the seat itself.  (In the talon game a seat's own discards, which
    no sampled deal can name, count among the cards it cannot place.)"""
    h = hands[turn]
    unseen = live & ~h
    size = unseen.bit_count()
    held = 0
    for seat in range(n):
        if seat != turn:
            held += hands[seat].bit_count()
    share = min(1.0, held / size) if size else 1.0
    return play(h, options, unseen, share, voids, trick, turn, n)[0]


def rollout(f: Fast, hands: list[int], first: int) -> float:
    """Play ``first`` for the seat and the rest of the round with :func:`model_play` for every
    seat (each seeing its own hand, the cards played and the voids shown); the round's utility
    to the seat's side."""
    s = f.s
    live = f.pool | f.hand  # the open trick's cards are played: no seat counts them unseen
    return play_on(s.rules, s.seat, s.hakem, hands[:], f.trick[:], s.leader, s.seat, first,
                   f.voids, s.tricks[:], _tricks_done(s), s.pile, s.run_team, live)


def play_on(rules: Rules, me: int, hakem: int, hands: list[int], trick: list[int], leader: int,
            turn: int, card: int, voids: list[int], tricks: list[int], played: int,
            pile: int, run: int | None, live: int) -> float:
    """Play ``card`` for ``turn`` and the round on with :func:`play` for every seat, each
    seeing its own hand, the cards played, the voids shown and the cards of ``live`` (the cards
    in a hand or in ``trick``, fast masks) it does not hold; the round's utility to the side of
    ``me``.  ``hands``, ``trick`` and ``tricks`` are changed."""
    n = rules.players
    side_of = rules.side_of
    hakem_side = side_of[hakem]
    while True:
        voids = voids_after(voids, turn, trick, card, rules.must_trump)
        hands[turn] ^= 1 << card
        live &= ~(1 << card)
        trick.append(card)
        if len(trick) == n:
            winner = (leader + trick_winner_index(trick)) % n
            side = side_of[winner]
            played += 1
            pile, run, result = count_trick(rules, hakem_side, tricks, side, played, pile, run)
            if result is not None or played >= rules.hand_size:
                return _utility(result, side_of[me])
            trick = []
            leader = turn = winner
        else:
            turn = (turn + 1) % n
        h = hands[turn]
        options = legal(h, trick, rules.must_trump)
        if not options:  # an inconsistent sample (a history that misses plays): stop here
            return 0.5
        card = model_play(hands, turn, options, live, voids, trick, n)


def _tricks_done(s: Seen) -> int:
    """Tricks finished this round, from the hand counts (with ``double_sar`` the counted tricks
    lag behind)."""
    leader_count = s.counts[s.trick[0][0]] if s.trick else s.counts[s.seat]
    return s.rules.hand_size - leader_count - (1 if s.trick else 0)


class BestResponse:
    """The seat's best response to heuristic opponents in one sampled deal of ``f``.

    Every other seat is an opponent and plays :func:`model_play` exactly as in :func:`rollout`
    (its own hand, the cards of ``live`` it cannot place, the voids shown, the open trick), so its
    cards are forced and only the seat's own cards branch: a max over the seat's choices of the
    round's :func:`_utility` (the scale of :func:`rollout`; with win or loss only, the boolean
    "can the seat win" of ``response.py``).  The heuristic's card is tried first (the first line
    searched is the rollout itself), one card of each run of equal cards (``representatives``
    over the cards in the hands and the open trick), a table at trick starts keyed by the whole
    position (hands, leader, counted tricks, tricks played, the ``double_sar`` pile, voids), and
    a seat's choices stop at the best utility still reachable (a sweep's while the others have
    no trick, else a win's; 0, or 0.4 with three seats, once the seat cannot reach seven).  The
    ``double_sar`` pile and ``round_outcome`` are followed as :func:`rollout` follows them.

    Exact, checked against an exhaustive max without table, runs or cuts in the tests: the
    opponents' play compares cards of the open trick and of the hands only with cards of their
    own hand, so two of the seat's cards that no card in play separates are interchangeable.
    ``limit`` (0: none): raise :class:`~worker.policies.solver.SolverLimit` once that many nodes
    (cards played) are searched; the table keeps only exact values.
    """

    __slots__ = ("f", "hands", "n", "me", "side", "hakem_side", "rules", "must_trump",
                 "side_of", "rest", "memo", "nodes", "limit", "sweep_top", "lost_top")

    def __init__(self, f: Fast, hands: list[int], limit: int = 0) -> None:
        s = f.s
        self.f = f
        self.hands = hands
        self.n = s.n
        self.me = s.seat
        self.rules = s.rules
        self.must_trump = s.rules.must_trump
        self.side_of = s.rules.side_of
        self.side = self.side_of[s.seat]
        self.hakem_side = self.side_of[s.hakem]
        live = f.pool | f.hand
        held = 0
        for h in hands:
            held |= h
        self.rest = live & ~held
        """The cards of :func:`rollout`'s ``live`` in no hand of the deal (the unused ones):
        ``live`` is always ``rest`` and the hands."""
        self.memo: dict[tuple[int | None, ...], float] = {}
        self.nodes = 0
        self.limit = limit
        sweep = 3 if s.rules.bavney or self.side != self.hakem_side else 2
        self.sweep_top = 1.0 + 0.1 * (sweep - 1)
        """The most a round is worth to the seat while the others have no trick."""
        self.lost_top = 0.4 if self.n > 2 else 0.0
        """The most it is worth once the seat cannot reach seven (a round without a winner)."""

    def value(self, first: int) -> float:
        """The seat's best utility in the deal when it plays ``first`` (legal) now."""
        s = self.f.s
        trick = self.f.trick[:]
        voids = voids_after(self.f.voids, s.seat, trick, first, self.must_trump)
        hands = self.hands[:]
        hands[s.seat] ^= 1 << first
        trick.append(first)
        self.nodes += 1
        return self._after(hands, trick, s.leader, s.tricks[:], _tricks_done(s), s.pile,
                           s.run_team, voids)

    def _after(self, hands: list[int], trick: list[int], leader: int, tricks: list[int],
               played: int, pile: int, run: int | None, voids: list[int]) -> float:
        """The position once a card is added to ``trick``: the next seat's turn, or the trick's
        end (the round's utility when it ends there)."""
        n = self.n
        if len(trick) < n:
            return self._node(hands, trick, leader, tricks, played, pile, run, voids)
        rules = self.rules
        winner = (leader + trick_winner_index(trick)) % n
        side = self.side_of[winner]
        played += 1
        tricks = tricks[:]
        pile, run, result = count_trick(rules, self.hakem_side, tricks, side, played, pile, run)
        if result is not None or played >= rules.hand_size:
            return _utility(result, self.side)
        return self._node(hands, [], winner, tricks, played, pile, run, voids)

    def _top(self, tricks: list[int], played: int, pile: int) -> float:
        """The most the round can still be worth to the seat."""
        mine = tricks[self.side]
        if mine + pile + self.rules.hand_size - played < self.rules.variant.tricks_to_win:
            return self.lost_top
        if sum(tricks) == mine:
            return self.sweep_top
        return 1.0

    def _node(self, hands: list[int], trick: list[int], leader: int, tricks: list[int],
              played: int, pile: int, run: int | None, voids: list[int]) -> float:
        self.nodes += 1
        if self.nodes >= self.limit > 0:
            raise SolverLimit
        n = self.n
        key: tuple[int | None, ...] = ()
        if not trick:
            key = (*hands, leader, *tricks, played, pile, run, *voids)
            hit = self.memo.get(key)
            if hit is not None:
                return hit
        seat = (leader + len(trick)) % n
        hand = hands[seat]
        allowed = legal(hand, trick, self.must_trump)
        if not allowed:  # an inconsistent sample, as in rollout
            return 0.5
        held = 0
        for h in hands:
            held |= h
        if allowed & (allowed - 1) == 0:
            moves = [allowed.bit_length() - 1]
            top = 9.0
        else:
            first = model_play(hands, seat, allowed, self.rest | held, voids, trick, n)
            if seat == self.me:
                in_play = held
                for c in trick:
                    in_play |= 1 << c
                moves = representatives_first(allowed, in_play, first)
                top = self._top(tricks, played, pile)
            else:
                moves = [first]
                top = 9.0
        best = -9.0
        for c in moves:
            v = voids_after(voids, seat, trick, c, self.must_trump)
            hands[seat] = hand ^ (1 << c)
            trick.append(c)
            r = self._after(hands, trick, leader, tricks, played, pile, run, v)
            trick.pop()
            hands[seat] = hand
            if r > best:
                best = r
                if best >= top:
                    break
        if key:
            self.memo[key] = best
        return best


RESPONSE_CARDS = 8
"""The hand size from which ``hard`` and ``expert`` (:meth:`Budget.of`) score by the best
response (0: never).  On deals drawn without inference it moved the round rate by at most a
round in a hundred either way (an earlier session); with the inference from the plays and the exact
model of the other seats (session 14) the two together won 0.02 to 0.0275 more rounds against
the heuristic in each game (``bench/bots_arena/README.md``, "Session 14")."""
RESPONSE_NODES = 4000
"""Most best-response nodes per sampled deal in :meth:`Budget.of` (all candidates together)."""
NODE_COST = 2
"""Work of one best-response node, in cards played by :func:`rollout` (measured: about 4 us a
node against 2 us a playout card, as :class:`Budget` counts those)."""
OVERSAMPLE = 4
"""Candidate deals drawn per deal searched by ``hard`` and ``expert`` (``Budget.oversample``;
1: no inference from the plays).  8 measured no better than 4 (session 14)."""
MISS = 0.02
"""The weight of a play the behaviour model would not have made (``Budget.miss``)."""
RESPONSE_BATCH = 8
"""Deals drawn at a time for the best response (which stops at a work budget)."""
RESPONSE_WORK = 90000
"""The least four-player work budget (``SearchConfig.work``; ``hard``'s) for which
:meth:`Budget.of` turns the best response on: ``medium`` stays a plain PIMC."""


@dataclass(frozen=True, slots=True)
class Budget:
    """The search of one level in these games: at most ``deals`` sampled deals and about
    ``plays`` cards played in all the playouts (a playout per candidate and deal, costed at the
    cards still in the hands), but at least ``min_deals`` deals.  When the seat holds at most
    ``response_cards`` cards each candidate is scored by the seat's :class:`BestResponse`
    instead, a node searched costing :data:`NODE_COST` cards played, and deals are drawn until
    the work reaches ``plays`` (a deal whose search reaches ``response_nodes`` nodes is scored
    by its playouts, the nodes spent counted too)."""

    deals: int
    plays: int
    min_deals: int = 2
    response_cards: int = 0
    response_nodes: int = RESPONSE_NODES
    oversample: int = 1
    """With more than 1, deals are drawn by how plausible the plays seen make them
    (``nseat_inference.draw``: this many candidates a deal kept), a play the model would not
    make weighing ``miss``."""
    miss: float = 1.0

    @classmethod
    def of(cls, samples: int, work: int, min_samples: int) -> Budget:
        """The budget for a four-player search config: a card played here costs about 7.5 of
        its work units (the playouts of this module are plain Python), capped at 48,000 cards
        (about 0.25 s of CPU); the best response from :data:`RESPONSE_CARDS` cards from
        ``hard``'s work on."""
        strong = work >= RESPONSE_WORK
        return cls(samples, min(work * 2 // 15, 48000), max(2, min_samples // 2),
                   RESPONSE_CARDS if strong else 0, oversample=OVERSAMPLE if strong else 1,
                   miss=MISS)


def score_cards(f: Fast, candidates: list[int], budget: Budget, rng: random.Random
                ) -> tuple[list[float], int, int]:
    """Every candidate's total over the same sampled deals, the deals and the work spent (cards
    played in playouts, nodes of the best response)."""
    from .nseat_inference import PlayModel, draw  # (that module builds on this one)

    s = f.s
    totals = [0.0] * len(candidates)
    cost = len(candidates) * max(1, sum(s.counts))
    # medium (oversample 1) reads no plays: no model to build
    model = PlayModel(f, budget.miss) if budget.oversample > 1 else None
    oversample = budget.oversample if model is not None and model.active else 1
    weighing = model.work * oversample if model is not None and oversample > 1 else 0
    """The cost of a deal's weight, in plays judged (about a card played each)."""
    if not (budget.response_cards and f.hand.bit_count() <= budget.response_cards):
        deals = max(budget.min_deals, min(budget.deals, budget.plays // (cost + weighing)))
        for hands in draw(f, rng, deals, model, oversample):
            for i, c in enumerate(candidates):
                totals[i] += rollout(f, hands, c)
        return totals, deals, deals * (cost + weighing)
    deals = work = 0
    batch: list[list[int]] = []
    while deals < budget.deals and (deals < budget.min_deals or work < budget.plays):
        if not batch:
            batch = draw(f, rng, RESPONSE_BATCH, model, oversample)[::-1]  # popped in order
            work += RESPONSE_BATCH * weighing
        hands = batch.pop()
        br = BestResponse(f, hands, budget.response_nodes)
        try:
            values = [br.value(c) for c in candidates]
        except SolverLimit:
            values = [rollout(f, hands, c) for c in candidates]
            work += cost
        work += br.nodes * NODE_COST
        for i, v in enumerate(values):
            totals[i] += v
        deals += 1
    return totals, deals, work


def search_card(s: Seen, budget: Budget, rng: random.Random) -> str:
    """PIMC: every distinct legal card scored on the same sampled deals (:func:`score_cards`);
    the best mean wins, ties to the heuristic's card."""
    f = to_fast(s)
    in_play = f.pool | f.hand
    for c in f.trick:
        in_play |= 1 << c
    candidates = representatives(f.legal, in_play)
    h_name, _ = heuristic_card(s)
    if len(candidates) == 1:
        return NAMES[f.ft.to_engine[candidates[0]]]
    h_card = f.ft.to_fast[CARD_INDEX[h_name]]
    h_rep = stands_for(candidates, h_card)
    totals, deals, _ = score_cards(f, candidates, budget, rng)
    best = max(totals)
    close = [c for c, t in zip(candidates, totals, strict=True) if t >= best - 0.02 * deals]
    pick = h_rep if h_rep in close else min(close, key=lambda c: (c & 15, c))
    return NAMES[f.ft.to_engine[pick]]


def search_choose(view: View, history: History, rng: random.Random, budget: Budget) -> str:
    """A search level's decision: the heuristic's outside card play, :func:`search_card` in
    play."""
    s = seen(view, history)
    if s.phase != "playing":
        return decide(s)[0]
    return search_card(s, budget, rng)
