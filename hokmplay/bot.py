"""A local bot for ``hokm play --bot LEVEL``: one of the project's policies
(``worker.policies``) deciding for this seat on this machine, from what the seat witnessed.

Contract: the policy gets exactly what a bot of the server gets: the seat's view (as the server
sent it) and the seat's redacted history, read from ``GET /events`` with the seat's token (the
records up to the view's version).  Its choice is one of the view's ``legal`` (the talon
game's discard: as many different cards of it as asked); a policy that answers something
else (a bug) is replaced by the first legal choice.  The policy runs in a
worker thread, so a terminal stays responsive while it thinks.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

from hokmclient import AsyncSeat, Choice

from .records import SeatRecords
from .screen import to_discard


class LocalBot:
    """A policy of ``worker.policies`` by level, with the seat's records kept incrementally
    (``records``: shared with the printer of ``hokm play`` without a terminal)."""

    def __init__(self, level: str, seed: int | None = None) -> None:
        from worker.policies import policy_for  # only with --bot: the policies are heavy

        self.level = level
        self.policy = policy_for(level)
        self.rng = random.Random(seed)
        self.records = SeatRecords()

    async def choose(self, seat: AsyncSeat, view: dict[str, Any]) -> Choice:
        """The policy's choice in ``view`` (the seat's decision now), on the seat's records up
        to the view's version."""
        version = int(view["version"])
        if self.records.since < version:
            await self.records.fetch(seat)
        history = self.records.events_upto(version)
        choice = await asyncio.get_running_loop().run_in_executor(
            None, self.policy.choose, view, history, self.rng)
        return checked(view, choice)


def checked(view: dict[str, Any], choice: str) -> Choice:
    """``choice`` if the view allows it (``worker.policies.is_legal``: the talon game's discard
    is the cards joined by spaces, which the library's command reads too), else the first legal
    choice (the first cards of the hand, for the discard)."""
    from worker.policies import is_legal

    if is_legal(view, choice):
        return choice
    legal = list(view.get("legal") or [])
    need = to_discard(view)
    return legal[:need] if need else legal[0]
