"""RQ entry points.  Arguments are plain JSON (match id, seat, expected version).

``bot_turn`` plays one bot move through the same decide-and-append path as a human's command:
it loads the match, does nothing if the version moved on or it is not that seat's turn, builds
that seat's view and witnessed history only, asks the seat's policy, and submits the command with
a command id derived from (version, seat) so a duplicate job can never play twice.
"""

from __future__ import annotations

import random

from engine import ChooseTrump, PlayCard, view_for
from engine.state import CHOOSING_TRUMP
from services.errors import HokmError
from services.runtime import Runtime, build_runtime

from .history import Histories

_runtime: Runtime | None = None
_histories = Histories()
_rng = random.Random()


def set_runtime(runtime: Runtime) -> None:
    """Use this runtime for jobs in this process (the embedded server's in-process worker)."""
    global _runtime
    _runtime = runtime


def runtime() -> Runtime:
    global _runtime
    if _runtime is None:
        _runtime = build_runtime()
    return _runtime


def bot_turn(match_id: str, seat: int, version: int) -> str:
    """Play the bot's move due at ``version``; returns what happened (for logs and tests)."""
    rt = runtime()
    service = rt.service
    try:
        loaded = service.load(match_id)
        state = loaded.state
        if loaded.version != version or service.next_actor(state) != seat:
            return "stale"
        occupant = state.match.seats[seat]
        if occupant is None or occupant.bot is None:
            return "not a bot"
        from .policies import policy_for

        view = view_for(state, seat, version)
        history = _histories.for_seat(rt.store, match_id, seat, version)
        choice = policy_for(occupant.bot).choose(view, history, _rng)
        command = ChooseTrump(choice) if state.phase == CHOOSING_TRUMP else PlayCard(choice)
        try:
            service.handle(match_id, seat, command, version=version,
                           command_id=f"bot:{version}:{seat}")
        except HokmError as refusal:
            return f"refused: {refusal.code}"
        return "played"
    finally:
        rt.scheduler.done(match_id, seat, version)


def still_due(match_id: str, seat: int, version: int) -> bool:
    """Whether the bot turn (match, seat, version) has still not been played."""
    service = runtime().service
    try:
        loaded = service.load(match_id)
    except HokmError:
        return False
    return loaded.version == version and service.next_actor(loaded.state) == seat
