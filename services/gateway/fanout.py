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
from collections.abc import Iterable, Sequence
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocket

from engine import view_for
from engine.state import CHOOSING_TRUMP, PLAYING
from services.matches import Loaded, MatchService, fold_raw
from services.runtime import Runtime
from services.store import keys

log = logging.getLogger("hokm.gateway")
OUTBOX = 512
PRESENCE_TTL_MS = 30_000
PRESENCE_EVERY_S = 5.0
PRESENCE_BATCH = 250
TAIL_BLOCK_S = 5


_ENCODE = json.JSONEncoder(separators=(",", ":")).encode


def dumps(message: dict[str, Any]) -> str:
    return _ENCODE(message)


PER_SEAT = ("seat", "hand", "legal")
"""The keys in which one seat's view differs from another's (checked for every view built)."""


def view_texts(loaded: Loaded, seats: Iterable[int | None],
               connected: tuple[bool, ...] | None) -> dict[int | None, str]:
    """The ``view`` message of ``loaded`` for each of ``seats`` (None: spectators).

    Every view comes from ``view_for``; the part that every seat shares is JSON-encoded once and
    each seat's own keys are spliced in front of it.  A view that differs from the first one
    anywhere outside ``PER_SEAT`` is encoded whole, so the text is always exactly its view."""
    state, version = loaded.state, loaded.version
    head = f'{{"type":"view","version":{version},"view":{{'
    out: dict[int | None, str] = {}
    base: dict[str, Any] | None = None
    shared = ""
    for seat in seats:
        view = view_for(state, seat, version, connected)
        own = {k: view.pop(k) for k in PER_SEAT if k in view}
        if base is None:
            base = view
            shared = _ENCODE(view)[1:-1]
        elif view != base:  # some other key differs: this view is encoded whole
            view.update(own)
            out[seat] = f'{{"type":"view","version":{version},"view":{_ENCODE(view)}}}'
            continue
        body = _ENCODE(own)[1:-1]
        body = f"{body},{shared}" if body and shared else body or shared
        out[seat] = f"{head}{body}}}}}"
    return out


_XREAD_HEAD = b"".join(b"$%d\r\n%s\r\n" % (len(w), w) for w in (
    b"XREAD", b"COUNT", b"500", b"BLOCK", b"%d" % (TAIL_BLOCK_S * 1000), b"STREAMS"))


def _payload(fields: Any) -> bytes:
    """The ``d`` field of a stream entry (a flat list, or a map under RESP3)."""
    if isinstance(fields, dict):
        return fields[b"d"]  # type: ignore[no-any-return]
    for i in range(0, len(fields) - 1, 2):
        if fields[i] == b"d":
            return fields[i + 1]  # type: ignore[no-any-return]
    raise KeyError("d")


def bot_to_move(loaded: Loaded) -> bool:
    """Whether the match waits for a bot's decision (which some process must schedule)."""
    state = loaded.state
    seat = state.turn
    if seat is None or state.phase not in (CHOOSING_TRUMP, PLAYING):
        return False
    occupant = state.match.seats[seat]
    return occupant is not None and occupant.bot is not None


class Subscriber:
    """One WebSocket following one match as one seat (or as a spectator, ``seat is None``)."""

    __slots__ = ("ws", "match_id", "seat", "player", "outbox", "writer", "closed", "close_code")

    def __init__(self, ws: WebSocket, match_id: str, seat: int | None,
                 player: str | None = None) -> None:
        self.ws = ws
        self.match_id = match_id
        self.seat = seat
        self.player = player
        """The seat follows the player: the ace draw may move a player to another seat."""
        self.outbox: asyncio.Queue[str | None] = asyncio.Queue()
        self.writer: asyncio.Task[None] | None = None
        self.closed = False
        self.close_code = 1013

    def send(self, text: str) -> None:
        if self.closed:
            return
        if self.outbox.qsize() >= OUTBOX:
            self.close(1013)  # too slow: drop it; it reconnects and catches up
            return
        self.outbox.put_nowait(text)

    def close(self, code: int) -> None:
        """Close the socket with ``code`` once everything queued before has been sent."""
        if not self.closed:
            self.closed, self.close_code = True, code
            self.outbox.put_nowait(None)

    async def write_loop(self) -> None:
        try:
            while True:
                text = await self.outbox.get()
                if text is None:
                    await self.ws.close(code=self.close_code)
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
        self._gen = 0
        """Bumped whenever the set of followed matches changes (the tail's read changes)."""
        self._keys_gen = -1
        self._keys_for = -1
        self._keys_block = b""
        self._match_of: dict[bytes, str] = {}
        self._ids: dict[str, tuple[int, bytes]] = {}
        self._wake_key = f"hokm:gw:{self.gateway_id}:wake"
        self._wake_bytes = self._wake_key.encode()
        self._wake_id = b"0-0"
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
        """Register ``sub`` and send it the current view.  The first view is queued in the same
        step as the registration, so the socket gets every later version after it, in order."""
        match_id = sub.match_id
        loaded = self.loaded.get(match_id)
        joined = loaded is None
        if loaded is None:
            fresh = await run_in_threadpool(self.service.load, match_id)
            loaded = self.loaded.get(match_id)  # another subscriber may have raced us here
            if loaded is None or loaded.version < fresh.version:
                if match_id not in self.loaded:
                    self._gen += 1
                loaded = self.loaded[match_id] = fresh
        self.subs.setdefault(match_id, set()).add(sub)
        sub.writer = asyncio.create_task(sub.write_loop())
        self._send_view(sub, loaded, self.connected.get(match_id))
        if joined:
            await self._wake()
        if sub.seat is not None:
            await self._set_presence(match_id, sub.seat, True)
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
                self._ids.pop(match_id, None)
                self._gen += 1
        if sub.writer is not None and not sub.closed:
            sub.writer.cancel()  # (a closing writer finishes its queue, then closes)
        if sub.seat is not None:
            still_here = any(s.seat == sub.seat for s in self.subs.get(match_id, ()))
            if not still_here:
                await self._set_presence(match_id, sub.seat, False)

    async def _wake(self) -> None:
        self._changed.set()
        client = self.rt.async_client()
        await client.xadd(self._wake_key, {"w": 1}, maxlen=16, approximate=False)

    def resend(self, sub: Subscriber) -> None:
        """Send ``sub`` the newest view again (the answer to a retried command)."""
        loaded = self.loaded.get(sub.match_id)
        if loaded is not None:
            self._send_view(sub, loaded, self.connected.get(sub.match_id))

    def applied(self, match_id: str, before: Loaded, after: Loaded) -> None:
        """A command handled in this process turned ``before`` into ``after`` (the next
        version): send the views now instead of waiting to read the record back from the
        stream.  If the hub's copy is not ``before`` (it is behind, or the tail already
        delivered the record) the tail does the work, so every version goes out exactly once
        and in order."""
        current = self.loaded.get(match_id)
        if current is not None and current.version == before.version \
                and after.version == before.version + 1:
            self.loaded[match_id] = after
            self.broadcast(match_id, after)

    # -- the tail ----------------------------------------------------------------------------

    async def _tail(self) -> None:
        """Follow every match that has a socket here with one blocking ``XREAD``, for good."""
        client = self.rt.async_client()
        conn: Any = None
        while True:
            if not self.loaded:
                self._changed.clear()
                await self._changed.wait()
                continue
            try:
                if conn is None:
                    conn = await client.connection_pool.get_connection()  # type: ignore[no-untyped-call]
                await conn.send_packed_command(self._xread_command(), check_health=False)
                # longer than the BLOCK: the client's default socket timeout (5 s in redis-py 8)
                # would otherwise cut an idle read off just as Redis answers "nothing new"
                found: Any = await conn.read_response(timeout=TAIL_BLOCK_S + 10)
            except asyncio.CancelledError:
                if conn is not None:  # cancelled mid-read: the connection is out of step
                    with contextlib.suppress(BaseException):
                        await conn.disconnect()
                raise
            except Exception:
                log.exception("tail read failed; retrying")
                if conn is not None:
                    with contextlib.suppress(Exception):
                        await conn.disconnect()
                        await client.connection_pool.release(conn)
                    conn = None
                await asyncio.sleep(0.5)
                continue
            if not found:
                continue
            for raw_key, entries in (found.items() if isinstance(found, dict) else found):
                if raw_key == self._wake_bytes:
                    self._wake_id = entries[-1][0]
                    continue
                match_id = self._match_of.get(raw_key)
                loaded = self.loaded.get(match_id) if match_id is not None else None
                if match_id is None or loaded is None:
                    continue  # nobody here follows this match any more
                known = loaded.version
                fresh = []
                for entry_id, fields in entries:
                    number = int(entry_id.split(b"-", 1)[0])
                    if number > known:
                        fresh.append((number, _payload(fields)))
                if not fresh:
                    continue  # records this process appended and already sent
                try:
                    await self._deliver(match_id, fresh)
                except Exception:
                    log.exception("delivering %s failed", match_id)
                    await self._reload(match_id)

    def _xread_command(self) -> bytes:
        """``XREAD COUNT 500 BLOCK 5000 STREAMS <every followed match> <wake> <ids>``, packed
        once per call from cached pieces: with a thousand matches, letting the client library
        encode two thousand arguments took about a millisecond per read."""
        loaded = self.loaded
        if self._keys_for != len(loaded) or self._keys_gen != self._gen:
            parts = []
            self._match_of = {}
            for match_id in loaded:
                key = keys.log(match_id).encode()
                self._match_of[key] = match_id
                parts.append(b"$%d\r\n%s\r\n" % (len(key), key))
            wake = self._wake_bytes
            parts.append(b"$%d\r\n%s\r\n" % (len(wake), wake))
            self._keys_block = b"".join(parts)
            self._keys_for, self._keys_gen = len(loaded), self._gen
        ids = self._ids
        parts = [b"*%d\r\n" % (6 + 2 * (len(loaded) + 1)), _XREAD_HEAD, self._keys_block]
        for match_id, at in loaded.items():
            cached = ids.get(match_id)
            if cached is None or cached[0] != at.version:
                text = b"%d-0" % at.version
                cached = ids[match_id] = (at.version, b"$%d\r\n%s\r\n" % (len(text), text))
            parts.append(cached[1])
        wake_id = self._wake_id
        parts.append(b"$%d\r\n%s\r\n" % (len(wake_id), wake_id))
        return b"".join(parts)

    async def _deliver(self, match_id: str, entries: Sequence[tuple[int, bytes]]) -> None:
        """Fold new records into the hub's copy of the match, one version at a time, sending
        the views of each."""
        for number, payload in entries:
            while True:
                loaded = self.loaded.get(match_id)
                if loaded is None:
                    return  # nobody here follows this match any more
                if number <= loaded.version:
                    break
                if number == loaded.version + 1:
                    self._advance(match_id, fold_raw([(number, payload)], loaded))
                    break
                # a gap (rare): read what is missing, then look again
                missing = await run_in_threadpool(
                    self.rt.store.read_raw, match_id, loaded.version, number - 1)
                if self.loaded.get(match_id) is loaded:
                    for entry in missing:
                        loaded = fold_raw([entry], loaded)
                        self._advance(match_id, loaded)
        latest = self.loaded.get(match_id)
        if latest is not None and bot_to_move(latest):
            # Redundant on purpose: if the process that appended died before scheduling the
            # bot, whoever sees the record schedules it (the guard makes this idempotent).
            await run_in_threadpool(self.service.schedule_bot, match_id, latest)

    def _advance(self, match_id: str, loaded: Loaded) -> None:
        self.loaded[match_id] = loaded
        self.service._remember(match_id, loaded)
        self.broadcast(match_id, loaded)

    async def _reload(self, match_id: str) -> None:
        """Start the hub's copy of a match again from the stream (after a record it could not
        fold), and send everyone the current view."""
        self.service.forget(match_id)
        try:
            loaded = await run_in_threadpool(self.service.load, match_id)
        except Exception:
            log.exception("reloading %s failed", match_id)
            await asyncio.sleep(0.5)  # do not spin on a match that cannot be read
            return
        if match_id in self.loaded:
            self._advance(match_id, loaded)

    def broadcast(self, match_id: str, loaded: Loaded) -> None:
        subs = self.subs.get(match_id)
        if not subs:
            return
        seats = loaded.state.match.seats
        for sub in subs:
            if sub.player is not None and (
                sub.seat is None or seats[sub.seat] is None
                or seats[sub.seat].player != sub.player  # type: ignore[union-attr]
            ):
                sub.seat = MatchService.seat_of_player(loaded.state, sub.player)
        texts = view_texts(loaded, {sub.seat for sub in subs}, self.connected.get(match_id))
        for sub in list(subs):
            sub.send(texts[sub.seat])

    def _send_view(self, sub: Subscriber, loaded: Loaded,
                   connected: tuple[bool, ...] | None) -> None:
        sub.send(view_texts(loaded, (sub.seat,), connected)[sub.seat])

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
        return _present(await client.hgetall(keys.presence(match_id)), players)

    async def _refresh_presence(self, match_id: str) -> None:
        loaded = self.loaded.get(match_id)
        if loaded is None:
            return
        await self._presence_is(match_id, await self.read_presence(
            match_id, loaded.state.rules.players))

    async def _presence_is(self, match_id: str, seats: tuple[bool, ...]) -> None:
        """Presence as just read: if it changed, note who is away and resend the views."""
        loaded = self.loaded.get(match_id)
        if loaded is None or self.connected.get(match_id) == seats:
            return
        before = self.connected.get(match_id)
        self.connected[match_id] = seats
        await self._note_away(match_id, loaded, before, seats)
        loaded = self.loaded.get(match_id)
        if loaded is not None:
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
        """Refresh this gateway's presence entries and read everyone else's, every few seconds
        (pipelined: a few round trips for all the matches followed here)."""
        while True:
            await asyncio.sleep(PRESENCE_EVERY_S)
            client = self.rt.async_client()
            expiry = int(time.time() * 1000) + PRESENCE_TTL_MS
            matches = list(self.subs.items())
            for start in range(0, len(matches), PRESENCE_BATCH):
                chunk = matches[start:start + PRESENCE_BATCH]
                try:
                    pipe = client.pipeline(transaction=False)
                    asked = []
                    for match_id, subs in chunk:
                        seats = {s.seat for s in subs if s.seat is not None}
                        if seats:
                            pipe.hset(keys.presence(match_id), mapping={
                                f"{seat}:{self.gateway_id}": expiry for seat in seats})
                        pipe.hgetall(keys.presence(match_id))
                        asked.append((match_id, bool(seats)))
                    answers = iter(await pipe.execute())
                    for match_id, wrote in asked:
                        if wrote:
                            next(answers)  # the HSET
                        raw = next(answers)
                        loaded = self.loaded.get(match_id)
                        if loaded is not None:
                            await self._presence_is(
                                match_id, _present(raw, loaded.state.rules.players))
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("presence refresh failed")


def _present(raw: Any, players: int) -> tuple[bool, ...]:
    """Seats with an unexpired presence entry, from the presence hash."""
    now = time.time() * 1000
    seats = [False] * players
    for field, value in raw.items():
        name = field.decode() if isinstance(field, bytes) else str(field)
        seat = int(name.split(":", 1)[0])
        if 0 <= seat < players and float(value) > now:
            seats[seat] = True
    return tuple(seats)
