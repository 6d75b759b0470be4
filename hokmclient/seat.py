"""A seat (or a spectator) following one match: :class:`AsyncSeat` (asyncio).

Contract:

* After :meth:`AsyncSeat.start` (or ``async with``) the seat holds a WebSocket to the match and
  ``view`` is the newest view it has (a whole snapshot, ``docs/api.md`` *A view*); it never
  goes back to an older version.
* The socket reconnects by itself after any close but a refusal (bad token, no such match,
  bad request: those end the seat with :class:`~hokmclient.errors.ApiError`): after 0.1 s,
  doubling to at most 5 s, with ``since=<version held>``; the server's ``missed`` records (what
  happened while it was away, redacted for the seat) are appended to ``missed`` and passed to
  ``on_missed``.  ``reconnects`` counts the reconnections.
* Waiting never polls: :meth:`~AsyncSeat.turn` and :meth:`~AsyncSeat.wait` sleep until the
  socket delivers a view that satisfies them.
* Commands (:meth:`~AsyncSeat.play`, :meth:`~AsyncSeat.choose_trump`,
  :meth:`~AsyncSeat.discard`, :meth:`~AsyncSeat.draw_talon`, :meth:`~AsyncSeat.decide`) go
  over HTTP with a command id, so their answer (or refusal, as ``ApiError``) is definite and a
  retry is applied once; the answer's view becomes ``view``.
* A seat's ``view`` holds only what the server sent for its token: the library adds nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
from collections.abc import AsyncIterator, Callable
from typing import Any

import websockets
from websockets.asyncio.client import ClientConnection, connect

from .errors import CLOSE_CODES, ApiError
from .http import JSON, KIND_OF_PHASE, AsyncClient, Choice, command, command_for
from .links import Link, parse_link

log = logging.getLogger("hokmclient")
FIRST_DELAY_S = 0.1
MAX_DELAY_S = 5.0
DECIDING = tuple(KIND_OF_PHASE)
"""The phases in which the match waits for a seat's decision."""


def my_turn(view: JSON) -> bool:
    """Does the match wait for this view's seat (a card to play, a trump to name, or in the
    talon game cards to lay aside or the talon's top card to keep or discard)?"""
    return view.get("seat") is not None and bool(view.get("legal")) and (
        view.get("phase") in DECIDING)


def over(view: JSON) -> bool:
    """Is the match over?"""
    return view.get("phase") == "match_over"


class AsyncSeat:
    """One seat's (``token``) or a spectator's (``token=None``) live view of a match.

    Make one with :meth:`join`, :meth:`create`, :meth:`resume` or :meth:`spectate`, or from an
    :class:`~hokmclient.http.AsyncClient` and a token.  ``on_view(view)`` and
    ``on_missed(message)`` are called in the event loop for every view taken and every
    ``missed`` frame; ``on_frame(message)`` for every frame as it arrives (before anything is
    filtered: for programs that log or measure).  ``since``: the version the program already
    holds (its first connection then receives the records after it as ``missed``)."""

    def __init__(self, client: AsyncClient, match_id: str, token: str | None = None, *,
                 on_view: Callable[[JSON], None] | None = None,
                 on_missed: Callable[[JSON], None] | None = None,
                 on_frame: Callable[[JSON], None] | None = None,
                 since: int | None = None, owns_client: bool = False) -> None:
        self.client = client
        self.match_id = match_id
        self.token = token
        self.on_view = on_view
        self.on_missed = on_missed
        self.on_frame = on_frame
        self._since = since
        self.view: JSON | None = None
        self.missed: list[JSON] = []
        """Every record the server sent in ``missed`` frames, in order."""
        self.errors: list[JSON] = []
        """Error frames received for commands sent over the socket (:meth:`send`)."""
        self.reconnects = 0
        self.connected = False
        self._owns = owns_client
        self._changed = asyncio.Event()
        """Set (and replaced) at every change: what waiters sleep on."""
        self._seq = 0
        self._fatal: ApiError | None = None
        self._closing = False
        self._ws: ClientConnection | None = None
        self._task: asyncio.Task[None] | None = None
        self._last_error: JSON | None = None

    # -- making one --------------------------------------------------------------------------

    @classmethod
    async def join(cls, link: str, *, name: str | None = None, seat: int | None = None,
                   **kw: Any) -> AsyncSeat:
        """Claim an open seat of the match an invite link (``http://host/m/<id>``) names."""
        where = _match_link(link)
        client = AsyncClient(where.base)
        try:
            joined = await client.join(where.match_id or "", name=name, seat=seat)
        except BaseException:
            await client.aclose()
            raise
        return cls(client, where.match_id or "", joined["token"], owns_client=True, **kw)

    @classmethod
    async def create(cls, server: str, *, seats: list[str] | None = None,
                     rules: JSON | None = None, name: str | None = None,
                     **kw: Any) -> AsyncSeat:
        """Create a match on ``server`` and take its first human seat (``seats`` as in
        ``POST /api/matches``; a solo match is ``["human", "bot:medium", ...]``)."""
        client = AsyncClient(parse_link(server).base)
        try:
            created = await client.create(seats=seats, rules=rules, name=name)
        except BaseException:
            await client.aclose()
            raise
        seat = cls(client, created["match_id"], created["token"], owns_client=True, **kw)
        seat.created = created
        return seat

    @classmethod
    def resume(cls, link: str, token: str | None, **kw: Any) -> AsyncSeat:
        """The seat of ``token`` in the match ``link`` names (after a restart of the program:
        the token is the player's, kept from the join or create answer)."""
        where = _match_link(link)
        return cls(AsyncClient(where.base), where.match_id or "", token, owns_client=True, **kw)

    @classmethod
    def spectate(cls, link: str, **kw: Any) -> AsyncSeat:
        """Watch the match ``link`` names (the public view: no hand, no commands)."""
        return cls.resume(link, None, **kw)

    created: JSON | None = None
    """The create answer, for a seat made by :meth:`create` (it holds ``invite_url``)."""

    # -- the socket ----------------------------------------------------------------------------

    @property
    def version(self) -> int:
        """The version of ``view`` (-1 before the first)."""
        return -1 if self.view is None else int(self.view["version"])

    @property
    def ws_url(self) -> str:
        link = Link(self.client.base, self.match_id)
        query = []
        if self.token:
            query.append(f"token={self.token}")
        since = self.version if self.view is not None else self._since
        if since is not None:
            query.append(f"since={since}")
        return f"{link.ws_base}/api/matches/{self.match_id}/ws?{'&'.join(query)}"

    async def start(self, timeout: float = 30.0) -> JSON:
        """Open the socket and wait for the first view (which it returns)."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._follow())
        return await self.wait(lambda v: True, timeout)

    async def _follow(self) -> None:
        delay = FIRST_DELAY_S
        while not self._closing:
            code: int | None = None
            reason = ""
            try:
                async with connect(self.ws_url, open_timeout=15, max_size=2 ** 22,
                                   max_queue=None, proxy=None) as ws:
                    self._ws = ws
                    async for raw in ws:
                        self._frame(raw if isinstance(raw, str) else raw.decode())
                        delay = FIRST_DELAY_S
                    reason = f"closed with {ws.close_code} {ws.close_reason or ''}".strip()
            except websockets.ConnectionClosed as closed:
                code = closed.rcvd.code if closed.rcvd is not None else None
                reason = str(closed)
            except (OSError, TimeoutError, websockets.InvalidHandshake) as failed:
                reason = f"{type(failed).__name__}: {failed}"
            finally:
                self._ws = None
                self.connected = False
            if code is not None and code in CLOSE_CODES:
                error = self._last_error or {}
                await self._end(ApiError(CLOSE_CODES[code], str(error.get("message", "")),
                                         0))
                return
            if self._closing:
                return
            log.info("the socket of %s ended (%s); reconnecting", self.match_id, reason)
            await asyncio.sleep(delay * (0.75 + random.random() / 2))  # backoff
            delay = min(delay * 2, MAX_DELAY_S)
            self.reconnects += 1

    def _frame(self, raw: str) -> None:
        try:
            message = json.loads(raw)
        except ValueError:
            return
        if self.on_frame is not None:
            self.on_frame(message)
        kind = message.get("type")
        if kind == "view":
            self.connected = True
            self._offer(message["view"])
        elif kind == "missed":
            self.missed.extend(message.get("records") or [])
            if self.on_missed is not None:
                self.on_missed(message)
        elif kind == "error":
            if message.get("id") is not None:
                self.errors.append(message)
            else:
                self._last_error = message
            self._notify()  # (a waiter may be waiting for the answer to its command)

    def _offer(self, view: JSON) -> None:
        """Take ``view`` if it is not older than the one held, and wake the waiters."""
        if self.view is not None and view["version"] < self.view["version"]:
            return
        self.view = view
        self._seq += 1
        if self.on_view is not None:
            self.on_view(view)
        self._notify()

    def _notify(self) -> None:
        """Wake every waiter (each then checks its own condition)."""
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    async def _end(self, error: ApiError) -> None:
        self._fatal = error
        self._notify()

    # -- waiting -------------------------------------------------------------------------------

    async def wait(self, predicate: Callable[[JSON], bool], timeout: float | None = None
                   ) -> JSON:
        """The newest view once ``predicate(view)`` holds (now, or when the socket delivers
        one); ``TimeoutError`` after ``timeout`` seconds; the seat's fatal ``ApiError`` if the
        server refused the socket."""
        async def until() -> JSON:
            while True:
                if self.view is not None and predicate(self.view):
                    return self.view
                if self._fatal is not None:
                    raise self._fatal
                await self._changed.wait()

        return await asyncio.wait_for(until(), timeout)

    async def turn(self, timeout: float | None = None) -> JSON:
        """The view at which this seat must decide next, or the final view once the match is
        over (check :func:`over`)."""
        return await self.wait(lambda v: my_turn(v) or over(v), timeout)

    async def turns(self) -> AsyncIterator[JSON]:
        """Each view at which this seat must decide, until the match is over.  Decide (and
        send the command) before asking for the next one."""
        while True:
            view = await self.turn()
            if over(view):
                return
            seen = self._seq
            yield view
            if self._seq == seen:  # no command was sent: wait for something new
                await self.wait(lambda v, s=seen: self._seq > s)  # type: ignore[misc]

    async def views(self) -> AsyncIterator[JSON]:
        """Every new view as it arrives (a consumer slower than the match sees the newest
        only: views are whole).  Ends after the match is over."""
        seen = -1
        while True:
            view = await self.wait(lambda v, s=seen: self._seq > s)  # type: ignore[misc]
            seen = self._seq
            yield view
            if over(view):
                return

    # -- commands ------------------------------------------------------------------------------

    def _need_token(self) -> str:
        if self.token is None:
            raise ApiError("bad_token", "a spectator cannot send commands")
        return self.token

    async def _send(self, body: JSON) -> JSON:
        answer = await self.client.command(self.match_id, self._need_token(), body)
        self._offer(answer["view"])
        return answer["view"]  # type: ignore[no-any-return]

    async def play(self, card: str, version: int | None = None) -> JSON:
        """Play ``card`` (at ``version``: default the version of ``view``); returns the
        answer's view."""
        return await self._send(command("play", card, self._at(version)))

    async def choose_trump(self, suit: str, version: int | None = None) -> JSON:
        """Name ``suit`` trump (the Hakem, seeing its five cards)."""
        return await self._send(command("choose_trump", suit, self._at(version)))

    async def discard(self, cards: Choice, version: int | None = None) -> JSON:
        """The talon game: lay ``cards`` aside face down (the Hakem 3, the other 2)."""
        return await self._send(command("discard", cards, self._at(version)))

    async def draw_talon(self, choice: str, version: int | None = None) -> JSON:
        """The talon game: ``keep`` the top card of the talon (and discard the next) or
        ``discard`` it (and keep the next)."""
        return await self._send(command("draw_talon", choice, self._at(version)))

    async def decide(self, choice: Choice, view: JSON | None = None) -> JSON:
        """Make ``choice`` in the situation of ``view`` (default ``self.view``): a suit while
        choosing trump, the cards to lay aside while discarding, ``keep`` or ``discard`` while
        drawing, else a card; sent at that view's version."""
        at = view or self.view
        if at is None:
            raise ApiError("wrong_phase", "no view yet: start() the seat first")
        return await self._send(command_for(at, choice))

    async def send(self, body: JSON) -> None:
        """Send a command over the socket (no answer: its effect arrives as a view, a refusal
        as an error frame in ``errors``).  The fast path for programs that measure."""
        if self._ws is None:
            raise ApiError("unavailable", "the socket is not open")
        await self._ws.send(json.dumps(body))

    def _at(self, version: int | None) -> int | None:
        return version if version is not None else (None if self.view is None else
                                                     self.version)

    async def hint(self, since: int) -> JSON:
        """A suggestion for this seat's decision (``GET /hint``)."""
        return await self.client.hint(self.match_id, self._need_token(), since)

    async def events(self, since: int = 0) -> JSON:
        """The records after ``since``, redacted for this seat (``GET /events``)."""
        return await self.client.events(self.match_id, since, self.token)

    async def leave(self, replace_with: str | None = None) -> JSON:
        """Give the seat up (to ``bot:<level>`` if given); the token stops working."""
        answer = await self.client.leave(self.match_id, self._need_token(), replace_with)
        await self.close()
        return answer

    # -- the end -------------------------------------------------------------------------------

    def drop(self) -> None:
        """Break the socket's connection at once, without a closing handshake (as a network
        failure would); the seat reconnects by itself.  For tests and demonstrations."""
        ws = self._ws
        if ws is not None:
            ws.transport.abort()

    async def close(self) -> None:
        """Close the socket (and the HTTP client, if the seat made it)."""
        self._closing = True
        if self._ws is not None:
            with contextlib.suppress(Exception):
                await self._ws.close()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None
        if self._owns:
            await self.client.aclose()

    async def __aenter__(self) -> AsyncSeat:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


def _match_link(link: str) -> Link:
    where = parse_link(link)
    if where.match_id is None:
        raise ValueError(f"{link!r} names a server, not a match (an invite link is "
                         "http://HOST/m/MATCH)")
    return where
