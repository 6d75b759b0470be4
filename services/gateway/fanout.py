"""The hub: one per gateway process.  It follows every match that has a socket here and sends
every connected seat its own view of each new version.

* Commands handled in this process (``api.Api._apply_here``) hand the hub the match after their
  record (``applied``): the views go out at once, without waiting to read the record back.
* One tail task follows all the other writers (other gateways, bot workers, the match service's
  threads) with a single blocking ``XREAD`` over the streams of every followed match (no Redis
  connection per socket), folds each new record into its copy of the match and sends the views.
  A new match joins the read at once through the hub's private wake stream.  Records this process
  is appending are recognised by their bytes and not decoded again.
* Views come from ``view_for`` only; ``view_texts`` encodes the part every seat shares once and
  splices in each seat's own keys.
* A socket is written to directly when it keeps up; when it does not (its client reads slowly)
  its messages wait in its own bounded outbox, drained by its own task, so one slow client never
  delays another; one hopelessly behind is disconnected and catches up when it reconnects (views
  are whole snapshots).
* Presence (who is connected) is kept in Redis per seat and gateway, so every replica shows the
  same table; it also feeds the away set that lets a bot stand in for a player gone too long.
* If a record leaves the match waiting for a system step (the next deal, the final reveal) and
  nobody performs it within ``SYSTEM_GRACE_S`` (the appending process died in between), the hub
  does it.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Coroutine, Iterable, Sequence
from typing import Any

import redis
from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocket

from engine import pending_system_action, view_for
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
SYSTEM_GRACE_S = 1.0


_ENCODE = json.JSONEncoder(separators=(",", ":")).encode


def dumps(message: dict[str, Any]) -> str:
    return _ENCODE(message)


PER_SEAT = ("seat", "hand", "legal")
"""The keys in which one seat's view differs from another's (checked for every view built)."""


def view_texts(loaded: Loaded, seats: Iterable[int | None],
               connected: tuple[bool, ...] | None,
               fragments: dict[str, tuple[Any, str]] | None = None) -> dict[int | None, str]:
    """The ``view`` message of ``loaded`` for each of ``seats`` (None: spectators).

    Every view comes from ``view_for``; the part that every seat shares is JSON-encoded once and
    each seat's own keys are spliced in front of it.  A view that differs from the first one
    anywhere outside ``PER_SEAT`` is encoded whole, so the text is always exactly its view.
    ``fragments`` (kept per match by the caller) remembers the JSON of each shared key's last
    value: most of a view (seats, rules, the draw, the commitment...) does not change from one
    version to the next, so only what changed is encoded again."""
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
            shared = _encode_items(view, fragments if fragments is not None else {})
        elif view != base:  # some other key differs: this view is encoded whole
            view.update(own)
            out[seat] = f'{{"type":"view","version":{version},"view":{_ENCODE(view)}}}'
            continue
        if fragments is not None:  # a seat's own keys change only when it plays or must
            mark = f"\0{seat}"
            known = fragments.get(mark)
            if known is not None and known[0] == own:
                body = known[1]
            else:
                body = _encode_items(own, None)
                fragments[mark] = (own, body)
        else:
            body = _encode_items(own, None)
        body = f"{body},{shared}" if body and shared else body or shared
        out[seat] = f"{head}{body}}}}}"
    return out


def _encode_items(items: dict[str, Any], fragments: dict[str, tuple[Any, str]] | None) -> str:
    """``items`` as the inside of a JSON object (without the braces)."""
    parts = []
    for key, value in items.items():
        if fragments is not None:
            known = fragments.get(key)
            if known is not None and known[0] == value and type(known[0]) is type(value):
                parts.append(known[1])
                continue
        part = f"{_key(key)}:{_fragment(value)}"
        if fragments is not None:
            fragments[key] = (value, part)
        parts.append(part)
    return ",".join(parts)


_KEYS: dict[str, str] = {}


def _key(key: str) -> str:
    text = _KEYS.get(key)
    if text is None:
        text = _KEYS[key] = _ENCODE(key)
    return text


def _fragment(value: Any) -> str:
    """JSON of one value, with short cuts for what views are mostly made of (small integers,
    null, and lists of card or suit names); anything else goes to the JSON encoder."""
    kind = type(value)
    if kind is int:
        return str(value)
    if value is None:
        return "null"
    if kind is list and all(type(x) is str and x.isascii() and x.isalnum() for x in value):
        return '["' + '","'.join(value) + '"]' if value else "[]"
    return _ENCODE(value)


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
    """One WebSocket following one match as one seat (or as a spectator, ``seat is None``).

    Sending is eager: a message is written to the socket at once, in the caller's step, when
    nothing is queued before it and the socket takes it without waiting (the usual case: no
    task switch per message).  When the socket cannot take more (its client reads slowly) the
    message, and every later one, waits in the outbox, drained by a task of this socket alone,
    so one slow client never delays another; past ``OUTBOX`` messages the client is dropped and
    catches up when it reconnects (views are whole snapshots).
    """

    __slots__ = ("ws", "match_id", "seat", "player", "outbox", "writer", "closed", "close_code")

    def __init__(self, ws: WebSocket, match_id: str, seat: int | None,
                 player: str | None = None) -> None:
        self.ws = ws
        self.match_id = match_id
        self.seat = seat
        self.player = player
        """The seat follows the player: the ace draw may move a player to another seat."""
        self.outbox: collections.deque[str | None] = collections.deque()
        self.writer: asyncio.Task[None] | None = None
        """The task draining the outbox, while there is one."""
        self.closed = False
        self.close_code = 1013

    def send(self, text: str) -> None:
        if self.closed:
            return
        if self.writer is not None or self.outbox:  # others wait before it: keep the order
            if len(self.outbox) >= OUTBOX:
                self.close(1013)  # too slow: drop it; it reconnects and catches up
            else:
                self.outbox.append(text)
            return
        coro = self.ws.send_text(text)
        try:
            waiting = coro.send(None)
        except StopIteration:
            return  # written
        except Exception:  # the socket went away: the reader side cleans up
            self.closed = True
            return
        self.writer = asyncio.get_running_loop().create_task(self._drain(coro, waiting))

    def close(self, code: int) -> None:
        """Close the socket with ``code`` once everything queued before has been sent."""
        if self.closed:
            return
        self.closed, self.close_code = True, code
        self.outbox.append(None)
        if self.writer is None:
            self.writer = asyncio.get_running_loop().create_task(self._drain())

    async def _drain(self, coro: Coroutine[Any, Any, None] | None = None,
                     waiting: Any = None) -> None:
        try:
            if coro is not None:
                await _resume(coro, waiting)
            while self.outbox:
                text = self.outbox.popleft()
                if text is None:
                    await self.ws.close(code=self.close_code)
                    return
                await self.ws.send_text(text)
        except asyncio.CancelledError:
            raise
        except Exception:  # the socket went away: the reader side cleans up
            self.closed = True
        finally:
            self.writer = None


async def _resume(coro: Coroutine[Any, Any, None], waiting: Any) -> None:
    """Run a coroutine that was started by hand and suspended on ``waiting`` (a future) to its
    end, as a task would have."""
    try:
        while True:
            if isinstance(waiting, asyncio.Future):
                await asyncio.wait([waiting])  # its outcome is the coroutine's to read
            else:
                await asyncio.sleep(0)
            try:
                waiting = coro.send(None)
            except StopIteration:
                return
    except BaseException:
        coro.close()
        raise


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
        self._background: set[asyncio.Task[None]] = set()
        self._fragments: dict[str, dict[str, tuple[Any, str]]] = {}
        """Match id -> the JSON of each shared key of its last view (see ``view_texts``)."""
        self._mine: dict[str, tuple[int, bytes, Loaded, str | None]] = {}
        """Match id -> the record this process is appending (version, payload, the match after
        it, command id)."""

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        self._tasks = [asyncio.create_task(self._tail()), asyncio.create_task(self._presence())]

    async def stop(self) -> None:
        for task in [*self._tasks, *self._background]:
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
                self._fragments.pop(match_id, None)
                self._gen += 1
        if sub.writer is not None and not sub.closed:
            sub.writer.cancel()  # (a closing writer finishes its queue, then closes)
        if sub.seat is not None:
            still_here = any(s.seat == sub.seat for s in self.subs.get(match_id, ()))
            if not still_here:
                try:
                    await self._set_presence(match_id, sub.seat, False)
                    if sub.player is not None and not (await self.read_presence(match_id))[
                            sub.seat]:
                        # the player's last connection anywhere is gone: from now on the seat
                        # counts as away (the hub may no longer follow this match to notice)
                        await self.rt.async_client().zadd(
                            keys.AWAY, {f"{match_id}:{sub.seat}": time.time()}, nx=True)
                except Exception:  # it expires by itself (PRESENCE_TTL_MS)
                    log.warning("presence of %s not cleared", match_id, exc_info=True)

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
            self._watch_progress(match_id, after)

    def appending(self, match_id: str, payload: bytes, after: Loaded,
                  command_id: str | None) -> None:
        """This process is appending ``payload`` as the record that turns the match into
        ``after``: if the tail reads that very record back first, it takes ``after`` as it is
        instead of decoding and folding the record again."""
        self._mine[match_id] = (after.version, payload, after, command_id)

    def appended(self, match_id: str, after: Loaded) -> None:
        mine = self._mine.get(match_id)
        if mine is not None and mine[2] is after:
            del self._mine[match_id]

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
                asked = time.monotonic()
                found: Any = await conn.read_response(timeout=TAIL_BLOCK_S + 10)
                if found is None and time.monotonic() - asked > TAIL_BLOCK_S + 5:
                    raise redis.TimeoutError("no answer to the tail's read")
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
                fresh: list[tuple[int, bytes]] = []
                mine = self._mine.get(match_id)
                for entry_id, fields in entries:
                    number = int(entry_id.split(b"-", 1)[0])
                    if number <= known:
                        continue  # records this process appended and already sent
                    payload = _payload(fields)
                    if mine is not None and number == mine[0] == known + 1 and not fresh \
                            and payload == mine[1]:
                        # our own append, read back before its answer came: it is stored
                        after, command_id = mine[2], mine[3]
                        if command_id is not None:
                            after.commands[command_id] = number
                        self._advance(match_id, after)
                        known = number
                        continue
                    fresh.append((number, payload))
                if not fresh:
                    continue
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
        self.service.remember(match_id, loaded)
        self.broadcast(match_id, loaded)
        self._watch_progress(match_id, loaded)

    def _watch_progress(self, match_id: str, loaded: Loaded) -> None:
        """If the match now waits for a system step (the next deal, the final reveal) or for a
        bot, check a moment later that it moved on, and see to it otherwise.  The process that
        appended the record does it at once; this covers that process dying (or failing) in
        between, which would leave the match waiting for ever.  Doing it twice is harmless: the
        append's optimistic lock lets one system step win, and a bot turn is scheduled once
        (``services/bots.py``)."""
        if pending_system_action(loaded.state) is None and not bot_to_move(loaded):
            return
        loop = asyncio.get_running_loop()
        loop.call_later(SYSTEM_GRACE_S, lambda: self._spawn(self._ensure_progress(
            match_id, loaded.version)))

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _ensure_progress(self, match_id: str, version: int) -> None:
        loaded = self.loaded.get(match_id)
        if loaded is None or loaded.version != version:
            return  # it moved on (or nobody here follows it any more)
        service = self.service
        try:
            latest = await run_in_threadpool(
                lambda: service.advance(match_id, service.load(match_id)))
        except Exception:
            log.exception("moving %s on from version %d failed", match_id, version)
            return
        if latest.version != version:
            log.warning("match %s was stuck at version %d (a system step): moved on",
                        match_id, version)

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
        texts = view_texts(loaded, {sub.seat for sub in subs}, self.connected.get(match_id),
                           self._fragments.setdefault(match_id, {}))
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
