"""Arena runs of search configurations that are not levels (for choosing a level's budget).

    python bench/bots_arena/tune.py '{"response_cards": 10}' --deals 100 --seed 2
    python bench/bots_arena/tune.py '{"response_cards": 10}' --b hard --deals 100
    python bench/bots_arena/tune.py hard --rules '{"players": 2}' --nseat '{"OVERSAMPLE": 4}'

Side A is ``SearchPolicy(SearchConfig(**JSON))`` under the name ``tuned`` (or a search level's
own config, by its name); B a level or policy (``heuristic`` by default).  ``--rules`` picks the
game as ``hokm arena --rules`` does, and ``--nseat`` sets constants of the games of two and
three players (``worker.policies.nseat``: ``OVERSAMPLE``, ``MISS``, ``RESPONSE_CARDS``, ...;
``nseat_inference``: ``WEIGH_TRUMP``)
before the arena's processes start.  The report is ``hokm arena``'s.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from worker.arena import arena
from worker.policies import EXPERT, HARD, MEDIUM, POLICIES, SearchConfig, SearchPolicy, nseat
from worker.policies import nseat_inference


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("config", help="SearchConfig fields as JSON, or medium, hard or expert")
    p.add_argument("--b", default="heuristic")
    p.add_argument("--deals", type=int, default=100)
    p.add_argument("--seed", type=int, default=2)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--rules", default="{}", help="the game and house rules as JSON")
    p.add_argument("--nseat", default="{}", help="nseat module constants as JSON")
    args = p.parse_args()
    levels = {"medium": MEDIUM, "hard": HARD, "expert": EXPERT}
    config = levels.get(args.config) or SearchConfig(**json.loads(args.config))
    for name, value in json.loads(args.nseat).items():
        module = next((m for m in (nseat, nseat_inference) if hasattr(m, name)), None)
        if module is None:
            p.error(f"neither worker.policies.nseat nor nseat_inference has {name}")
        setattr(module, name, value)
        print(f"{module.__name__}.{name} = {value!r}")
    POLICIES["tuned"] = lambda: SearchPolicy(config, "tuned")
    print(f"config {config}")
    arena("tuned", args.b, args.deals, args.seed, args.jobs, rules=json.loads(args.rules),
          progress=False)


if __name__ == "__main__":
    main()
