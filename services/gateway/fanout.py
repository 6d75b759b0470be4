"""One tail task per gateway process: it follows every match that has a socket here, with a single
blocking ``XREAD`` over all their streams (no Redis connection per socket), folds each new record
into its own copy of the match state, and sends every connected seat its own view of that version.

A new match joins the ``XREAD`` at once: the hub appends to its private wake stream, which the
blocking read includes.  Each socket has a bounded outbox drained by its own task, so one slow
client never delays another; a client that falls hopelessly behind is disconnected and catches up
when it reconnects (views are whole snapshots).  Presence (who is connected) is kept in Redis per
seat and gateway, so every replica shows the same table.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Sequence
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocket

from engine import view_for
from services.matches import Loaded, MatchService, fold
from services.runtime import Runtime
from services.store import keys
from services.store.codec import decode
from services.store.port import Record
from services.store.redis_streams import version_of

log = logging.getLogger("hokm.gateway")
OUTBOX = 512
PRESENCE_TTL_MS = 30_000
PRESENCE_EVERY_S = 5.0


def dumps(message: dict[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":"))


class Subscriber:
    """One WebSocket following one match as one seat (or as a spectator, ``seat is None``)."""

    __slots__ = ("ws", "match_id", "seat", "player", "outbox", "writer", "closed")

    def __init__(self, ws: WebSocket, match_id: str, seat: int | None,
                 player: str | None = None) -> None:
        self.ws = ws
        self.match_id = match_id
        self.seat = seat
        self.player = player
        """The seat follows the player: the ace draw may move a player to another seat."""
        self.outbox: asyncio.Queue[str | None] = asyncio.Queue(OUTBOX)
        self.writer: asyncio.Task[None] | None = None
        self.closed = False

    def send(self, text: str) -> None:
        if self.closed:
            return
        try:
            self.outbox.put_nowait(text)
        except asyncio.QueueFull:
            self.closed = True  # too slow: drop it; it reconnects and catches up
            with contextlib.suppress(asyncio.QueueFull):
                self.outbox.put_nowait(None)

    async def write_loop(self) -> None:
        try:
            while True:
                text = await self.outbox.get()
                if text is None:
                    await self.ws.close(code=1013)
                    return
                await self.ws.send_text(text)
        except Exception:  # the socket went away: the reader side cleans up
            self.closed = True


class Hub:
    def __init__(self, runtime: Runtime) -> None:
        self.rt = runtime
        self.service = runtime.service
        self.gateway_id = secrets.token_hex(4)
        self.subs: dict[str, set[Subscriber]] = {}
        self.loaded: dict[str, Loaded] = {}
        self.connected: dict[str, tuple[bool, ...]] = {}
        self._wake_key = f"hokm:gw:{self.gateway_id}:wake"
        self._wake_id = "0-0"
        self._changed = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        self._tasks = [asyncio.create_task(self._tail()), asyncio.create_task(self._presence())]

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(BaseException):
                await task
        client = self.rt.async_client()
        with contextlib.suppress(Exception):
            await client.delete(self._wake_key)

    # -- subscriptions -----------------------------------------------------------------------

    async def subscribe(self, sub: Subscriber) -> Loaded:
        """Register ``sub`` and send it the current view."""
        match_id = sub.match_id
        loaded = self.loaded.get(match_id)
        if loaded is None:
            loaded = await run_in_threadpool(self.service.load, match_id)
            current = self.loaded.get(match_id)  # another subscriber may have raced us here
            if current is None or current.version < loaded.version:
                self.loaded[match_id] = loaded
            loaded = self.loaded[match_id]
            await self._wake()
        self.subs.setdefault(match_id, set()).add(sub)
        sub.writer = asyncio.create_task(sub.write_loop())
        if sub.seat is not None:
            await self._set_presence(match_id, sub.seat, True)
        self._send_view(sub, loaded, self.connected.get(match_id))
        return loaded

    async def unsubscribe(self, sub: Subscriber) -> None:
        match_id = sub.match_id
        subs = self.subs.get(match_id)
        if subs is not None:
            subs.discard(sub)
            if not subs:
                del self.subs[match_id]
                self.loaded.pop(match_id, None)
                self.connected.pop(match_id, None)
        if sub.writer is not None:
            sub.writer.cancel()
        if sub.seat is not None:
            still_here = any(s.seat == sub.seat for s in self.subs.get(match_id, ()))
            if not still_here:
                await self._set_presence(match_id, sub.seat, False)

    async def _wake(self) -> None:
        self._changed.set()
        client = self.rt.async_client()
        await client.xadd(self._wake_key, {"w": 1}, maxlen=16, approximate=False)

    # -- the tail ----------------------------------------------------------------------------

    async def _tail(self) -> None:
        client = self.rt.async_client()
        while True:
            if not self.loaded:
                self._changed.clear()
                await self._changed.wait()
                continue
            streams: dict[Any, Any] = {
                keys.log(m): f"{loaded.version}-0" for m, loaded in self.loaded.items()
            }
            streams[self._wake_key] = self._wake_id
            try:
                found: Any = await client.xread(streams, block=5000, count=500)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("tail read failed; retrying")
                await asyncio.sleep(0.5)
                continue
            for raw_key, entries in found or ():
                key = raw_key.decode() if isinstance(raw_key, bytes) else raw_key
                if key == self._wake_key:
                    last = entries[-1][0]
                    self._wake_id = last.decode() if isinstance(last, bytes) else last
                    continue
                match_id = key.split("{", 1)[1].split("}", 1)[0]
                records = [decode(version_of(i), fields[b"d"]) for i, fields in entries]
                try:
                    await self._deliver(match_id, records)
                except Exception:
                    log.exception("delivering %s failed", match_id)

    async def _deliver(self, match_id: str, records: Sequence[Record]) -> None:
        for record in records:
            loaded = self.loaded.get(match_id)
            if loaded is None:
                return  # nobody here follows this match any more
            if record.version <= loaded.version:
                continue
            if record.version != loaded.version + 1:
                missing = await run_in_threadpool(
                    self.rt.store.read, match_id, loaded.version, record.version - 1)
                loaded = fold(missing, loaded)
            loaded = fold([record], loaded)
            self.loaded[match_id] = loaded
            self.service._remember(match_id, loaded)
            self.broadcast(match_id, loaded)
        latest = self.loaded.get(match_id)
        if latest is not None and self.service.next_actor(latest.state) is not None:
            # Redundant on purpose: if the process that appended died before scheduling the
            # bot, whoever sees the record schedules it (the guard makes this idempotent).
            await run_in_threadpool(self.service.schedule_bot, match_id, latest)

    def broadcast(self, match_id: str, loaded: Loaded) -> None:
        subs = self.subs.get(match_id)
        if not subs:
            return
        connected = self.connected.get(match_id)
        texts: dict[int | None, str] = {}
        seats = loaded.state.match.seats
        for sub in list(subs):
            if sub.player is not None and (
                sub.seat is None or seats[sub.seat] is None
                or seats[sub.seat].player != sub.player  # type: ignore[union-attr]
            ):
                sub.seat = MatchService.seat_of_player(loaded.state, sub.player)
            text = texts.get(sub.seat)
            if text is None:
                text = texts[sub.seat] = self._view_text(loaded, sub.seat, connected)
            sub.send(text)

    def _view_text(self, loaded: Loaded, seat: int | None,
                   connected: tuple[bool, ...] | None) -> str:
        view = view_for(loaded.state, seat, loaded.version, connected)
        return dumps({"type": "view", "version": loaded.version, "view": view})

    def _send_view(self, sub: Subscriber, loaded: Loaded,
                   connected: tuple[bool, ...] | None) -> None:
        sub.send(self._view_text(loaded, sub.seat, connected))

    # -- presence ----------------------------------------------------------------------------

    async def _set_presence(self, match_id: str, seat: int, here: bool) -> None:
        client = self.rt.async_client()
        field = f"{seat}:{self.gateway_id}"
        if here:
            await client.hset(keys.presence(match_id), field,
                              int(time.time() * 1000) + PRESENCE_TTL_MS)
        else:
            await client.hdel(keys.presence(match_id), field)
        await self._refresh_presence(match_id)

    async def read_presence(self, match_id: str, players: int = 4) -> tuple[bool, ...]:
        client = self.rt.async_client()
        raw = await client.hgetall(keys.presence(match_id))
        now = time.time() * 1000
        seats = [False] * players
        for field, value in raw.items():
            name = field.decode() if isinstance(field, bytes) else str(field)
            seat = int(name.split(":", 1)[0])
            if 0 <= seat < players and float(value) > now:
                seats[seat] = True
        return tuple(seats)

    async def _refresh_presence(self, match_id: str) -> None:
        loaded = self.loaded.get(match_id)
        if loaded is None:
            return
        seats = await self.read_presence(match_id, loaded.state.rules.players)
        if self.connected.get(match_id) != seats:
            before = self.connected.get(match_id)
            self.connected[match_id] = seats
            await self._note_away(match_id, loaded, before, seats)
            self.broadcast(match_id, loaded)

    async def _note_away(self, match_id: str, loaded: Loaded, before: tuple[bool, ...] | None,
                         seats: tuple[bool, ...]) -> None:
        """Keep the away set (human seats with nobody connected, since when) for substitutes."""
        client = self.rt.async_client()
        now = time.time()
        for seat, here in enumerate(seats):
            occupant = loaded.state.match.seats[seat]
            if occupant is None or occupant.bot is not None:
                continue
            name = f"{match_id}:{seat}"
            if here:
                await client.zrem(keys.AWAY, name)
            elif before is None or before[seat]:
                await client.zadd(keys.AWAY, {name: now}, nx=True)

    async def _presence(self) -> None:
        """Refresh this gateway's presence entries and everyone else's, every few seconds."""
        while True:
            await asyncio.sleep(PRESENCE_EVERY_S)
            client = self.rt.async_client()
            expiry = int(time.time() * 1000) + PRESENCE_TTL_MS
            for match_id, subs in list(self.subs.items()):
                try:
                    seats = {s.seat for s in subs if s.seat is not None}
                    if seats:
                        await client.hset(keys.presence(match_id), mapping={
                            f"{seat}:{self.gateway_id}": expiry for seat in seats})
                    await self._refresh_presence(match_id)
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("presence refresh for %s failed", match_id)
