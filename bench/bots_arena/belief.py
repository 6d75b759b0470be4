"""How well does a level's Markov chain place the hidden cards?  (research only)

NOT a policy: it compares the deals a search level samples with the true deal.  Side A plays
the level (``hard`` by default) against heuristic sides on ``hokm arena``'s duplicate deals; at
each of A's card decisions with at most ``--cards`` cards in hand and a choice to make, it runs
the level's chain again (its start, burn-in and thinning, or ``--burn``/``--thin``) for 256
deals and reports, by hand size:

* ``true deal``: the share of decisions where the true deal has the full likelihood under the
  opponents' behaviour model (1.0 when the model is the opponents' own policy);
* ``consistent``: the mean share of sampled deals with the full likelihood (no opponent's play
  the model would not make);
* ``placed``: the mean share of the opponents' cards that a sampled deal puts in their true
  hand;
* ``distinct``: the mean number of different deals among the 256.

A chain much longer than the level's that places the cards no better says the chain samples
the belief the plays allow, not a part of it.

    python bench/bots_arena/belief.py --deals 15
    python bench/bots_arena/belief.py --deals 15 --burn 2000 --thin 60
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from ceiling import duplicate

from engine import State, view_for
from worker.policies import LEVELS, SearchPolicy
from worker.policies.fast import FAST_TABLES
from worker.policies.inference import PlayModel
from worker.policies.knowledge import fast_knowledge, knowledge
from worker.policies.sampler import Sampler
from worker.policies.search import _walk


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--level", choices=("hard", "expert"), default="hard")
    ap.add_argument("--cards", type=int, default=8)
    ap.add_argument("--deals", type=int, default=15)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--burn", type=int, default=0, help="chain steps before the first deal "
                    "(0: the level's)")
    ap.add_argument("--thin", type=int, default=0, help="chain steps between deals (0: the "
                    "level's)")
    args = ap.parse_args()
    policy = LEVELS[args.level]()
    assert isinstance(policy, SearchPolicy)
    cfg = policy.config
    burn, thin = args.burn or cfg.chain_burn, args.thin or cfg.chain_thin
    rows: dict[int, list[tuple[bool, float, float, int]]] = {}

    def choose(state: State, seat: int, voids: list[int], history: list[dict[str, object]],
               rng: random.Random) -> str:
        view = view_for(state, seat)
        f = fast_knowledge(knowledge(view, history))
        n = f.hand.bit_count()
        if n <= args.cards and f.legal & (f.legal - 1):
            assert state.deal.trump is not None
            ft = FAST_TABLES[(state.deal.trump, state.rules.satat)]
            true = [ft.mask_to_fast(h) for h in state.hands]
            sampler = Sampler(f)
            model = PlayModel(f, cfg.miss, cfg.partner_miss)
            opponents_only = PlayModel(f, cfg.miss, 1.0)  # the opponents' plays alone
            probe = random.Random(f"belief:{n}:{seat}:{len(history)}")
            chain: list[int] = []
            weight = 0.0
            for _ in range(cfg.oversample):
                hands = sampler.sample(probe, tries=0)
                w = sampler.trump_weight(hands) * model.weight(hands)
                if w > weight or not chain:
                    chain, weight = hands, w
            chain, weight = _walk(chain, weight, burn, f.voids, sampler, model, probe)
            opponents = [(seat + 1) & 3, (seat + 3) & 3]
            total = sum(true[o].bit_count() for o in opponents)
            consistent, placed, distinct = 0, [], set()
            for _ in range(256):
                chain, weight = _walk(chain, weight, thin, f.voids, sampler, model, probe)
                consistent += opponents_only.weight(chain) == 1.0
                placed.append(sum((chain[o] & true[o]).bit_count() for o in opponents) / total)
                distinct.add(tuple(chain))
            rows.setdefault(n, []).append((opponents_only.weight(true) == 1.0, consistent / 256,
                                           statistics.mean(placed), len(distinct)))
        return policy.choose(view, history, rng)

    duplicate(args.seed, args.deals, choose, f"{args.level} (chain burn {burn}, thin {thin})")
    print("cards  decisions  true deal  consistent  placed  distinct")
    for n in sorted(rows):
        r = rows[n]
        print(f"{n:5d}  {len(r):9d}  {statistics.mean(x[0] for x in r):9.2f}  "
              f"{statistics.mean(x[1] for x in r):10.2f}  {statistics.mean(x[2] for x in r):6.3f}"
              f"  {statistics.mean(x[3] for x in r):8.0f}")


if __name__ == "__main__":
    main()
