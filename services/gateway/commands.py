"""The gateway's command path: the pipeline's step on the event loop, the service's otherwise.

``run(...)`` takes one authenticated player's command.  The common case runs on the event loop,
without a thread: ``services.pipeline.prepare`` on the process's cached match, one asynchronous
append of the sealed record through the store port (pipelined with the other appends of the
moment), and this process's sockets get the new views at once.  Anything unusual — nothing
cached, a refusal, a retried command id, a stale version, another writer first, trouble with the
store — goes to ``MatchService.handle`` in a worker thread, which reloads, prepares again and
answers exactly as the fast path would have.  Both paths run the same checks; only where they
run differs.  The system steps that follow a command (the next deal, the final reveal) run on
the loop too once the match's side data is kept in the process (``MatchService.sides``), else
in a thread, as does the scheduling of a bot's turn.
"""

from __future__ import annotations

from typing import NamedTuple

from engine import Command, pending_system_action
from engine.errors import HokmError
from engine.state import State
from services.matches import MatchService, command_key
from services.pipeline import Duplicate, Loaded, Prepared, prepare
from services.store.port import AsyncEventStore, StoreUnavailable

from .hub import Hub, bot_to_move
from .offload import off_loop


class Applied(NamedTuple):
    """What a command led to: the match's version and state after it (and after the system
    steps that followed), the sender's seat and player id, and whether it was a retry of a
    command already applied (then version and state are those it produced originally)."""

    version: int
    state: State
    seat: int | None
    player: str
    duplicate: bool


async def run(service: MatchService, hub: Hub, store: AsyncEventStore, match_id: str,
              token: str, player: str | None, command: Command, version: int | None,
              client_id: str | None) -> Applied:
    """Apply ``command`` for the player of ``token`` (``player``: its id, if the token was
    checked already), with the client's command id ``client_id``."""
    may_be_hurried = hub.turns.acting(match_id, player)
    applied: Applied | None = None
    try:
        applied = await _apply(service, hub, store, match_id, token, player, command, version,
                               client_id)
        return applied
    finally:  # an accepted command: its seat is no longer hurried (services/turns.py)
        await hub.turns.acted(match_id, None if applied is None or applied.duplicate
                              else (applied.player, applied.version, applied.state),
                              may_be_hurried)


async def _apply(service: MatchService, hub: Hub, store: AsyncEventStore, match_id: str,
                 token: str, player: str | None, command: Command, version: int | None,
                 client_id: str | None) -> Applied:
    if player is not None:
        key = None if client_id is None else command_key(player, client_id)
        done = await _on_loop(service, hub, store, match_id, player, command, version, key)
        if done is not None:
            return done

    def in_thread() -> Applied:
        # the player, seated or not: ``handle`` refuses one without a seat (``bad_token``)
        # unless the command is the retry of one applied before its player left
        who = service.player_of(match_id, token)
        key = None if client_id is None else command_key(who, client_id)
        # the seat is the player's in the match the command is prepared on (it may have moved
        # since the token was checked: the ace draw's swap)
        outcome = service.handle(match_id, None, command, version=version, command_id=key,
                                 player=who)
        seat = MatchService.seat_in(outcome.state, who)
        latest = outcome.latest
        if latest is None:
            return Applied(outcome.version, outcome.state, seat, who, outcome.duplicate)
        return Applied(latest.version, latest.state, seat, who, outcome.duplicate)

    return await off_loop(in_thread)


async def _on_loop(service: MatchService, hub: Hub, store: AsyncEventStore, match_id: str,
                   player: str, command: Command, version: int | None,
                   command_id: str | None) -> Applied | None:
    """The common case; None whenever the thread path must answer instead."""
    loaded = service.cached(match_id)
    if loaded is None:
        return None
    seat = MatchService.seat_of_player(loaded.state, player)
    if seat is None:
        return None
    try:
        prepared = prepare(loaded, seat, command, time_ms=int(service.clock() * 1000),
                           version=version, command_id=command_id)
    except (Duplicate, HokmError):
        return None  # the thread path looks again (the cache may be behind) and answers
    new = await _append(service, hub, store, match_id, loaded, prepared)
    if new is None:
        return None
    latest = await _system_steps(service, hub, store, match_id, new)
    if latest is None or bot_to_move(latest):
        latest = await off_loop(service.advance, match_id, latest or new)
    return Applied(latest.version, latest.state, seat, player, False)


async def _append(service: MatchService, hub: Hub, store: AsyncEventStore, match_id: str,
                  loaded: Loaded, prepared: Prepared) -> Loaded | None:
    """Append a record prepared on ``loaded`` and send its views: the match after it, or None
    if another writer appended first or the store failed (the thread path takes over)."""
    after = prepared.after
    hub.appending(match_id, prepared.payload, after)
    try:
        if not await store.append(match_id, after.version, prepared.payload):
            return None  # another writer appended first: the thread path prepares again
    except StoreUnavailable:
        service.forget_all()  # as the service does when the store fails
        return None
    finally:
        hub.appended(match_id, after)
    new = service.remember(match_id, after)
    hub.applied(match_id, loaded, new)
    return new


async def _system_steps(service: MatchService, hub: Hub, store: AsyncEventStore, match_id: str,
                        loaded: Loaded) -> Loaded | None:
    """The system steps ``loaded`` waits for (the next deal, the final reveal), on the loop
    as ``MatchService.advance`` makes them in a thread, while the match's side data is kept
    (``MatchService.sides``); None where the thread path must go on from the match as cached
    (side data not read yet, another writer first, the store failing)."""
    for _ in range(4):  # at most a deal and a reveal follow a command
        action = pending_system_action(loaded.state)
        if action is None:
            return loaded
        side = service.sides.get(match_id)
        if side is None:
            return None
        new = await _append(service, hub, store, match_id, loaded,
                            service.system_step(loaded, action, side))
        if new is None:
            return None
        if service.renews(new.state):  # the match's lifetime (a round trip, in a thread)
            await off_loop(service.renew, match_id, new.state)
        loaded = new
    return None
