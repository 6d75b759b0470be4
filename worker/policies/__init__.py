"""Bot policies and the levels of ``api.md``'s ``bot:<level>``.

Every policy follows the contract of :mod:`worker.policies.base`: ``choose(view, history, rng)``
sees only what its seat witnessed.  ``policy_for(name)`` accepts a level (``LEVELS``) or a policy
name (``POLICIES``) and returns a fresh policy object.

Levels (measured with ``hokm arena``; see ``bench/bots_arena/README.md``):

* ``easy``: :class:`~worker.policies.easy.EasyPolicy`, a beginner's game (no memory, takes
  tricks from its own partner, slips now and then) that still follows suit sensibly;
* ``medium``: a light search (few samples, no inference from plays, a short exact endgame);
* ``hard``: the full search (``HARD``): every candidate card scored on up to 256 deals drawn
  from a Markov chain weighted by how plausible the plays seen are, from 8 cards in hand by the
  seat's best response to heuristic opponents in every sampled deal, playing for points and
  the match (``points.py``) when the round is not at stake; a p95 under 100 ms of CPU a
  decision with the compiled hot modules;
* ``expert``: the same search on 512 deals from 16 chains, its next card after the one in
  question chosen fusion-free over batches of 32 deals (``worlds.py``); a p95 well under 1 s
  of CPU.

The games of two and three players (every view whose ``players`` is not 4) take the N-seat path
of :mod:`worker.policies.nseat` at every level: its heuristic for ``heuristic`` (and the talon
decisions of ``easy``), its search with a budget derived from the level's config for
``medium``/``hard``/``expert``.  Discarding in the talon game, a decision is the cards to lay
aside joined by spaces (``base.is_legal``).
"""

from __future__ import annotations

from collections.abc import Callable

from ._compiled import MODE  # first: decides where the hot modules come from
from .base import History, Policy, View, is_legal
from .easy import EasyPolicy
from .nseat import HeuristicPolicy
from .random_policy import RandomPolicy
from .search import SearchConfig, SearchPolicy

HARD = SearchConfig(samples=256, batch=32, work=60000, small_work=90000, race=0, chain_thin=8,
                    chain_burn=100, miss=0.02, partner_miss=0.5, points=True)
"""The ``hard`` level's search: every candidate scored on up to 256 deals drawn from a
Metropolis chain under a sharp behaviour model (no racing), playing for points; the deals
stop at a batch of 32 once the work passes 60,000 units (about 86 % of its decisions never
reach it and are decided as on 256 deals; issue 15, session 12).  The games of two and three
players keep their budget from 90,000."""
EXPERT = SearchConfig(samples=512, batch=32, chains=16, race=0, work=10**9, chain_thin=8,
                      chain_burn=100, miss=0.02, partner_miss=0.5, points=True, worlds=1)
"""The ``expert`` level's search: ``hard`` on twice the deals, drawn from 16 chains of 32 deals
each (each from its own start), its next card after the one in question chosen fusion-free over
every batch of 32 deals (``worlds.py``); no work stop (the 512 deals bound it: CPU p95 208 ms,
max 1.7 s on a loaded machine)."""
MEDIUM = SearchConfig(samples=12, min_samples=6, batch=6, work=6000, infer=False, solver_cards=3,
                      response_cards=0)
"""The ``medium`` level's search: a light PIMC."""

POLICIES: dict[str, Callable[[], Policy]] = {
    "random": RandomPolicy,
    "novice": EasyPolicy,
    "heuristic": HeuristicPolicy,
    "search": lambda: SearchPolicy(HARD, "search"),
}

LEVELS: dict[str, Callable[[], Policy]] = {
    "easy": lambda: EasyPolicy(),
    "medium": lambda: SearchPolicy(MEDIUM, "medium"),
    "hard": lambda: SearchPolicy(HARD, "hard"),
    "expert": lambda: SearchPolicy(EXPERT, "expert"),
}


def policy_for(name: str) -> Policy:
    """A new policy for a level (``easy``/``medium``/``hard``/``expert``) or a policy name;
    ``ValueError`` for anything else."""
    factory = LEVELS.get(name) or POLICIES.get(name)
    if factory is None:
        known = ", ".join([*LEVELS, *POLICIES])
        raise ValueError(f"unknown bot level or policy {name!r} (one of {known})")
    return factory()


__all__ = ["EXPERT", "HARD", "MODE", "History", "LEVELS", "MEDIUM", "POLICIES", "Policy",
           "SearchConfig", "SearchPolicy", "View", "is_legal", "policy_for"]
