"""``random``: a uniformly random legal move (the floor every other policy must beat)."""

from __future__ import annotations

import random

from .base import History, View


class RandomPolicy:
    """Uniform over ``view["legal"]`` (the four suits when naming trump; discarding, a uniform
    set of as many cards as are to be laid aside)."""

    name = "random"

    def choose(self, view: View, history: History, rng: random.Random) -> str:
        legal: list[str] = list(view.get("legal") or [])
        if not legal:
            raise ValueError("no legal choice in this view: it is not this seat's turn")
        if view.get("phase") == "discarding":  # the talon game: ``talon.discard`` of the hand
            count = int((view.get("talon") or {}).get("discard") or 1)
            return " ".join(sorted(rng.sample(legal, count)))
        return legal[rng.randrange(len(legal))]
