"""Arena runs of search configurations that are not levels (for choosing a level's budget).

    python bench/bots_arena/tune.py '{"response_cards": 10}' --deals 100 --seed 2
    python bench/bots_arena/tune.py '{"response_cards": 10}' --b hard --deals 100

Side A is ``SearchPolicy(SearchConfig(**JSON))`` under the name ``tuned``; B a level or policy
(``heuristic`` by default).  The report is ``hokm arena``'s.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from worker.arena import arena
from worker.policies import POLICIES, SearchConfig, SearchPolicy


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("config", help="SearchConfig fields as JSON")
    p.add_argument("--b", default="heuristic")
    p.add_argument("--deals", type=int, default=100)
    p.add_argument("--seed", type=int, default=2)
    p.add_argument("--jobs", type=int, default=1)
    args = p.parse_args()
    config = SearchConfig(**json.loads(args.config))
    POLICIES["tuned"] = lambda: SearchPolicy(config, "tuned")
    print(f"config {config}")
    arena("tuned", args.b, args.deals, args.seed, args.jobs, progress=False)


if __name__ == "__main__":
    main()
