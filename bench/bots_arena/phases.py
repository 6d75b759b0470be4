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
    --mode pin-opponents-early, pin-partner-early
                           the same pins, early instead of late (the level honest late)

    python bench/bots_arena/phases.py --mode pin-opponents --deals 200 --seed 1
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from ceiling import clairvoyant_card, duplicate

from engine import State, view_for
from worker.policies import LEVELS, search
from worker.policies.fast import BLOCK, FAST_TABLES, bits
from worker.policies.knowledge import FastKnowledge
from worker.policies.sampler import Sampler


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
        allowed = {}
        for s in self.others:
            m = rest
            for b in range(4):
                if f.voids[s] >> b & 1:
                    m &= ~BLOCK[b]
            allowed[s] = m
        cards = bits(rest)
        while True:  # the true deal is one answer, so a random order with the
            # most constrained cards first finds one within a few tries
            cap = {s: f.k.counts[s] for s in self.others}
            hands = dict.fromkeys(self.others, 0)
            rng.shuffle(cards)
            cards.sort(key=lambda c: sum(allowed[s] >> c & 1 for s in self.others))
            for c in cards:
                options = [s for s in self.others if allowed[s] >> c & 1 and cap[s] > 0]
                if not options:
                    break
                r = rng.randrange(sum(cap[s] for s in options))
                for s in options:
                    r -= cap[s]
                    if r < 0:
                        break
                hands[s] |= 1 << c
                cap[s] -= 1
            else:
                for s in self.others:
                    out[s] = hands[s]
                return out


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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mode", choices=("honest", "clair-late", "clair-early", "pin-opponents",
                                       "pin-partner", "pin-opponents-early",
                                       "pin-partner-early"), default="honest")
    ap.add_argument("--level", choices=("medium", "hard", "expert"), default="hard")
    ap.add_argument("--cards", type=int, default=8)
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    policy = LEVELS[args.level]()

    def choose(state: State, seat: int, voids: list[int], history: list[dict[str, object]],
               rng: random.Random) -> str:
        late = state.hands[seat].bit_count() <= args.cards
        if (args.mode == "clair-late" and late) or (args.mode == "clair-early" and not late):
            return clairvoyant_card(state, seat, "heuristic", args.cards, "response", voids)
        view = view_for(state, seat)
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
