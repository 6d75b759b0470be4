"""In which phase of a round does a level lose to what it cannot see?  (research only)

NOT a policy: side A here is helped by the true state (every hand) in one phase of the round.
It plays a search level (``hard`` by default) honestly in one phase and with help in the
other, against heuristic sides, on ``hokm arena``'s duplicate deals and generators (``--mode
honest`` gives exactly ``hokm arena LEVEL heuristic``'s rate).  The phase boundary is the
seat's hand size: "late" is at most ``--cards`` cards (8: where ``hard`` switches from heuristic
playouts to its best response), "early" is more.

    --mode honest          the level throughout
    --mode clair-late      the level early; late, the clairvoyant best response of ceiling.py
                           (every hand seen, the partner's cards planned too)
    --mode clair-early     early, ceiling.py's clairvoyant card by heuristic playouts of the
                           true deal; the level late
    --mode pin-opponents   the level throughout, but late its sampled deals hold the opponents'
                           true hands (and so the partner's): its own algorithm with a perfect
                           belief
    --mode pin-partner     the same with only the partner's true hand
    --mode pin-partner-trumps, pin-partner-honours, pin-partner-lengths,
           pin-partner-trump-count
                           late, only the partner's trumps (or aces and kings, its number of
                           cards in each suit, or of trumps) are its true ones, the rest of
                           its hand sampled (run with HOKM_PURE=1)
    --mode pin-opponents-early, pin-partner-early
                           the same pins, early instead of late (the level honest late)

    python bench/bots_arena/phases.py --mode pin-opponents --deals 200 --seed 1
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from ceiling import clairvoyant_card, duplicate

from engine import State, view_for
from engine.cards import SUITS, mask_of, parse_card
from worker.policies import LEVELS, _compiled, search
from worker.policies.fast import BLOCK, FAST_TABLES, TRUMP, FastTable, bits
from worker.policies.knowledge import FastKnowledge
from worker.policies.sampler import Sampler


HONOURS = mask_of(parse_card(r + s) for r in "AK" for s in SUITS)
"""The aces and kings (engine mask)."""


class PinnedSampler:
    """A :class:`~worker.policies.sampler.Sampler` whose deals give the seats of ``pinned``
    their true hands; the other hidden cards are dealt to the remaining seats as the seat's
    knowledge allows (counts, shown voids), and the search's Markov chain moves cards between
    those seats only (``sampler.others``)."""

    def __init__(self, f: FastKnowledge, pinned: dict[int, int]) -> None:
        self.real = Sampler(f)
        self.f = f
        self.pinned = pinned
        self.ok = self.real.ok
        self.weigh_trump = self.real.weigh_trump
        self.hakem_seat = self.real.hakem_seat
        self.hakem_played_trumps = self.real.hakem_played_trumps
        self.others = [s for s in self.real.others if s not in pinned]

    def trump_weight(self, hands: list[int]) -> float:
        return self.real.trump_weight(hands)

    def sample(self, rng: random.Random, tries: int = 12) -> list[int]:
        f = self.f
        out = [0, 0, 0, 0]
        out[f.k.seat] = f.hand
        rest = f.unseen
        for seat, hand in self.pinned.items():
            out[seat] = hand
            rest &= ~hand
        allowed = _allowed(f, rest, self.others)
        return _fill(out, rng, rest, allowed, {s: f.k.counts[s] for s in self.others})


def _allowed(f: FastKnowledge, rest: int, seats: list[int]) -> dict[int, int]:
    """Per seat of ``seats``, the cards of ``rest`` it may hold by the voids it has shown."""
    allowed = {}
    for s in seats:
        m = rest
        for b in range(4):
            if f.voids[s] >> b & 1:
                m &= ~BLOCK[b]
        allowed[s] = m
    return allowed


def _fill(out: list[int], rng: random.Random, rest: int, allowed: dict[int, int],
          cap: dict[int, int]) -> list[int]:
    """Deal the cards of ``rest`` to the seats of ``cap`` (that many each, only cards of
    ``allowed[seat]``), added to ``out``; the true deal is one answer, so a random order with
    the most constrained cards first finds one within a few tries."""
    cards = bits(rest)
    while True:
        done = _try_fill(out, rng, cards, allowed, cap)
        if done is not None:
            return done


def _try_fill(out: list[int], rng: random.Random, cards: list[int], allowed: dict[int, int],
              cap: dict[int, int]) -> list[int] | None:
    """One try of :func:`_fill` over ``cards`` (shuffled in place); None when this random
    order does not fit."""
    seats = list(cap)
    left = dict(cap)
    hands = dict.fromkeys(seats, 0)
    rng.shuffle(cards)
    cards.sort(key=lambda c: sum(allowed[s] >> c & 1 for s in seats))
    for c in cards:
        options = [s for s in seats if allowed[s] >> c & 1 and left[s] > 0]
        if not options:
            return None
        r = rng.randrange(sum(left[s] for s in options))
        for s in options:
            r -= left[s]
            if r < 0:
                break
        hands[s] |= 1 << c
        left[s] -= 1
    for s in seats:
        out[s] |= hands[s]
    return out


class PartlyPinnedSampler(PinnedSampler):
    """A sampler whose deals give ``seat`` exactly its true cards among ``among`` (the rest of
    its hand, and the other hands, as the knowledge allows); the chain moves cards between all
    three other seats and the play model of :func:`partly_pinned` keeps the pin."""

    def __init__(self, f: FastKnowledge, seat: int, among: int, cards: int) -> None:
        super().__init__(f, {})
        self.seat, self.among, self.cards = seat, among & f.unseen, cards

    def sample(self, rng: random.Random, tries: int = 12) -> list[int]:
        f = self.f
        out = [0, 0, 0, 0]
        out[f.k.seat] = f.hand
        out[self.seat] = self.cards
        rest = f.unseen & ~self.cards
        allowed = _allowed(f, rest, self.others)
        allowed[self.seat] &= ~self.among
        cap = {s: f.k.counts[s] - (self.cards.bit_count() if s == self.seat else 0)
               for s in self.others}
        return _fill(out, rng, rest, allowed, cap)


@contextmanager
def pinned(hands: dict[int, int]) -> Iterator[None]:
    """While open, the search policies deal from a :class:`PinnedSampler` (``hands``: seat to
    fast hand)."""
    real = search.Sampler

    def make(f: FastKnowledge) -> PinnedSampler:
        return PinnedSampler(f, hands)

    search.Sampler = make  # type: ignore[misc,assignment]
    try:
        yield
    finally:
        search.Sampler = real  # type: ignore[misc]


class LengthSampler(PinnedSampler):
    """A sampler whose deals give ``seat`` its true number of cards in the suits where
    ``lengths`` (by block) is not None, which cards sampled; the rest of its hand and the other
    hands as the knowledge allows."""

    def __init__(self, f: FastKnowledge, seat: int, lengths: list[int | None]) -> None:
        super().__init__(f, {})
        self.seat, self.lengths = seat, lengths

    def sample(self, rng: random.Random, tries: int = 12) -> list[int]:
        f = self.f
        fixed = sum(n for n in self.lengths if n is not None)
        free = f.unseen
        for b, n in enumerate(self.lengths):
            if n is not None:
                free &= ~BLOCK[b]
        while True:  # the true deal is one answer: redraw the seat's cards until the rest fits
            out = [0, 0, 0, 0]
            out[f.k.seat] = f.hand
            for b, n in enumerate(self.lengths):
                if n is not None:
                    out[self.seat] |= sum(1 << c for c in rng.sample(bits(f.unseen & BLOCK[b]),
                                                                      n))
            rest = f.unseen & ~out[self.seat]
            allowed = _allowed(f, rest, self.others)
            allowed[self.seat] &= free
            cap = {s: f.k.counts[s] - (fixed if s == self.seat else 0) for s in self.others}
            done = _try_fill(out, rng, bits(rest), allowed, cap)
            if done is not None:
                return done


@contextmanager
def partly_pinned(seat: int, holds: Callable[[int], bool],
                  sampler: Callable[[FastKnowledge], PinnedSampler]) -> Iterator[None]:
    """While open, the search policies deal from ``sampler`` and weigh deals by a play model
    that gives 0 to a deal where ``seat``'s hand fails ``holds``, so the Markov chain never
    leaves the pin.  Needs the plain-Python bots (``HOKM_PURE=1``): a compiled play model
    cannot be subclassed."""
    real_sampler, real_model = search.Sampler, search.PlayModel

    class Model(real_model):  # type: ignore[misc,valid-type]
        def weight(self, hands: list[int]) -> float:
            return super().weight(hands) if holds(hands[seat]) else 0.0

    search.Sampler, search.PlayModel = sampler, Model  # type: ignore[misc,assignment]
    try:
        yield
    finally:
        search.Sampler, search.PlayModel = real_sampler, real_model  # type: ignore[misc]


PARTS = ("pin-partner-trumps", "pin-partner-honours", "pin-partner-lengths",
         "pin-partner-trump-count")
"""The modes that pin a part of the partner's hand (late)."""


def partner_part(mode: str, seat: int, hand: int, ft: FastTable
                 ) -> tuple[Callable[[int], bool], Callable[[FastKnowledge], PinnedSampler]]:
    """For a mode of ``PARTS``: which hands of ``seat`` (the partner, holding ``hand`` in
    truth) keep the pin, and the sampler that deals such hands."""
    if mode in ("pin-partner-lengths", "pin-partner-trump-count"):
        lengths: list[int | None] = [(hand & BLOCK[b]).bit_count() for b in range(4)]
        if mode == "pin-partner-trump-count":
            lengths[:3] = [None, None, None]  # the trump block only

        def holds(h: int) -> bool:
            return all(n is None or (h & BLOCK[b]).bit_count() == n
                       for b, n in enumerate(lengths))

        return holds, lambda f: LengthSampler(f, seat, lengths)
    among = TRUMP if mode == "pin-partner-trumps" else ft.mask_to_fast(HONOURS)
    cards = hand & among

    def holds_cards(h: int) -> bool:
        return h & among == cards

    return holds_cards, lambda f: PartlyPinnedSampler(f, seat, among, cards)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mode", choices=("honest", "clair-late", "clair-early", "pin-opponents",
                                       "pin-partner", "pin-opponents-early",
                                       "pin-partner-early", *PARTS), default="honest")
    ap.add_argument("--level", choices=("medium", "hard", "expert"), default="hard")
    ap.add_argument("--cards", type=int, default=8)
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if args.mode in PARTS and _compiled.MODE == "compiled":
        ap.error(f"--mode {args.mode} needs the plain-Python bots: run it with HOKM_PURE=1")
    policy = LEVELS[args.level]()

    def choose(state: State, seat: int, voids: list[int], history: list[dict[str, object]],
               rng: random.Random) -> str:
        late = state.hands[seat].bit_count() <= args.cards
        if (args.mode == "clair-late" and late) or (args.mode == "clair-early" and not late):
            return clairvoyant_card(state, seat, "heuristic", args.cards, "response", voids)
        view = view_for(state, seat)
        if late and args.mode in PARTS:
            assert state.deal.trump is not None
            ft = FAST_TABLES[(state.deal.trump, state.rules.satat)]
            p = seat ^ 2
            holds, deal = partner_part(args.mode, p, ft.mask_to_fast(state.hands[p]), ft)
            with partly_pinned(p, holds, deal):
                return policy.choose(view, history, rng)
        if args.mode.startswith("pin-") and late != args.mode.endswith("-early"):
            assert state.deal.trump is not None
            ft = FAST_TABLES[(state.deal.trump, state.rules.satat)]
            seats = [seat ^ 2] if args.mode.startswith("pin-partner") else [seat ^ 1, seat ^ 3]
            with pinned({s: ft.mask_to_fast(state.hands[s]) for s in seats}):
                return policy.choose(view, history, rng)
        return policy.choose(view, history, rng)

    duplicate(args.seed, args.deals, choose, f"{args.level}, {args.mode} (late: <= "
              f"{args.cards} cards)", progress=True)


if __name__ == "__main__":
    main()
