"""A seat (or a spectator) following one match: :class:`AsyncSeat` (asyncio).

Contract:

* After :meth:`AsyncSeat.start` (or ``async with``) the seat holds a WebSocket to the match and
  ``view`` is the newest view it has (a whole snapshot, ``docs/api.md`` *A view*); it never
  goes back to an older version, but for one case: the first view of a connection older than
  the version the seat held as it reconnected, which only a server whose store lost its newest
  records sends (it closes the sockets of such a match with 1012 for this).
* The socket reconnects by itself after any close but a refusal (bad token, no such match,
  bad request: those end the seat with :class:`~hokmclient.errors.ApiError`): after 0.1 s,
  doubling to at most 5 s, with ``since=<the last version its socket delivered>``; the
  server's ``missed`` records (what happened while it was away, redacted for the seat) are
  appended to ``missed`` and passed to ``on_missed``.  (Not since the version held: a
  command's answer while the socket was down may hold a later one, with the bots' moves
  after the command, and those records would never reach ``missed``.)  ``reconnects``
  counts the reconnections.  A seat given up elsewhere (its token no longer works: a view
  without a seat, or a reconnection refused with ``bad_token``) follows on as a spectator
  after :meth:`AsyncSeat.watch_on`.  Any other failure of the socket's
  task (an ``on_view`` callback raising, a URL the socket library refuses) also ends the seat:
  every wait raises :class:`~hokmclient.errors.NetworkError`, its ``__cause__`` the failure.
* :meth:`~AsyncSeat.start` raises ``NetworkError`` when no view arrives within its
  ``timeout`` (the server is down or cannot be reached; it names the last failure) and stops
  the socket's task: the seat is as before the call.
* Waiting never polls: :meth:`~AsyncSeat.turn` and :meth:`~AsyncSeat.wait` sleep until the
  socket delivers a view that satisfies them.
* Commands (:meth:`~AsyncSeat.play`, :meth:`~AsyncSeat.choose_trump`,
  :meth:`~AsyncSeat.discard`, :meth:`~AsyncSeat.draw_talon`, :meth:`~AsyncSeat.decide`) go
  over HTTP with a command id, so their answer (or refusal, as ``ApiError``) is definite and a
  retry is applied once; the answer's view becomes ``view``.  :meth:`~AsyncSeat.send` sends
  one over the socket: the server's refusal (an error frame after the socket's view, with the
  command's ``id`` or none) is appended to ``errors``.
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
from urllib.parse import urlencode

import websockets
from websockets.asyncio.client import ClientConnection, connect

from .errors import CLOSE_CODES, ApiError, NetworkError
from .http import JSON, KIND_OF_PHASE, AsyncClient, Choice, command, command_for
from .links import Link, parse_link

log = logging.getLogger("hokmclient")
FIRST_DELAY_S = 0.1
MAX_DELAY_S = 5.0
DECIDING = tuple(KIND_OF_PHASE)
"""The phases in which the match waits for a seat's decision."""
SEAT_OPTIONS = frozenset({"on_view", "on_missed", "on_frame", "since"})
"""The keywords of :meth:`AsyncSeat.create` that go to the seat; the others to the request."""


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
        self._heard: int | None = None  # the last version the socket delivered (view, missed)
        self.view: JSON | None = None
        self.missed: list[JSON] = []
        """Every record the server sent in ``missed`` frames, in order."""
        self.errors: list[JSON] = []
        """Error frames received for commands sent over the socket (:meth:`send`), with their
        command's ``id`` or without one."""
        self.reconnects = 0
        self.connected = False
        self._owns = owns_client
        self._changed = asyncio.Event()
        """Set (and replaced) at every change: what waiters sleep on."""
        self._seq = 0
        self._asked: int | None = None
        """The version this connection was opened ``since`` (the one held then), or None."""
        self._fatal: ApiError | None = None
        self._closing = False
        self._ws: ClientConnection | None = None
        self._task: asyncio.Task[None] | None = None
        self._last_error: JSON | None = None
        """The error frame that refused the socket before its view (it names a 44xx close)."""
        self._failure = ""
        """Why the last connection ended or failed (for ``start``'s ``NetworkError``)."""

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
        ``POST /api/matches``; a solo match is ``["human", "bot:medium", ...]``).  The
        keywords of the seat (:data:`SEAT_OPTIONS`: ``on_view``, ``on_missed``, ``on_frame``,
        ``since``) go to it; every other one (``players``, ``disconnect_timeout``,
        ``first_hakem``...) to the create request, as :meth:`AsyncClient.create` takes them."""
        options = {k: v for k, v in kw.items() if k not in SEAT_OPTIONS}
        client = AsyncClient(parse_link(server).base)
        try:
            created = await client.create(seats=seats, rules=rules, name=name, **options)
        except BaseException:
            await client.aclose()
            raise
        seat = cls(client, created["match_id"], created["token"], owns_client=True,
                   **{k: v for k, v in kw.items() if k in SEAT_OPTIONS})
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
        query: dict[str, str | int] = {}
        if self.token:
            query["token"] = self.token  # encoded: a token is the caller's string
        since = (self._heard if self._heard is not None
                 else self.version if self.view is not None else self._since)
        if since is not None:
            query["since"] = since
        return f"{link.ws_base}/api/matches/{self.match_id}/ws?{urlencode(query)}"

    async def start(self, timeout: float = 30.0) -> JSON:
        """Open the socket and wait for the first view (which it returns); ``NetworkError``
        (and the socket's task stopped) if none arrives within ``timeout`` seconds."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._guarded())
        try:
            return await self.wait(lambda v: True, timeout)
        except TimeoutError:
            if self.view is not None:  # (a view arrived as the time ran out)
                return self.view
            await self._stop_task()
            raise NetworkError(
                f"no view of match {self.match_id} from {self.client.base} within {timeout} s"
                + (f" (the socket: {self._failure})" if self._failure else "")) from None

    async def _guarded(self) -> None:
        """:meth:`_follow`, and the seat ended if it fails in a way it does not handle (so no
        wait is left sleeping on a socket that is gone)."""
        try:
            await self._follow()
        except Exception as failed:  # (not a cancellation: that is a BaseException)
            log.error("the socket of %s failed", self.match_id, exc_info=True)
            error = NetworkError(f"the socket failed: {type(failed).__name__}: {failed}")
            error.__cause__ = failed
            await self._end(error)

    async def _follow(self) -> None:
        delay = FIRST_DELAY_S
        while not self._closing:
            code: int | None = None
            reason = ""
            self._asked = self.version if self.view is not None else None
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
            self._failure = reason
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
        if not isinstance(message, dict):
            return
        if self.on_frame is not None:
            self.on_frame(message)
        kind = message.get("type")
        if kind == "view":
            first, self.connected = not self.connected, True
            view = message["view"]
            self._heard = int(view["version"])
            # the first view of a connection older than the version it was opened with: the
            # server's log went back (its store lost its newest records, and it closed the
            # socket so that the seat starts again from the log as it is now)
            self._offer(view, back=first and self._asked is not None
                        and view["version"] < self._asked)
        elif kind == "missed":
            records = message.get("records") or []
            self.missed.extend(records)
            self._heard = max([self._heard or 0, *(int(r["version"]) for r in records)])
            if self.on_missed is not None:
                self.on_missed(message)
        elif kind == "error":
            # A refused command comes after the socket's view (the server sends the view as
            # the socket joins, before it reads a frame); before it, the error refuses the
            # socket itself and names the 44xx close that follows.
            if self.connected or message.get("id") is not None:
                self.errors.append(message)
            else:
                self._last_error = message
            self._notify()  # (a waiter may be waiting for the answer to its command)

    def _offer(self, view: JSON, back: bool = False) -> None:
        """Take ``view`` if it is not older than the one held (or the server went ``back``),
        and wake the waiters."""
        if not back and self.view is not None and view["version"] < self.view["version"]:
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

        # asyncio.timeout, not wait_for: it runs ``until`` in this task, so the caller resumes
        # with the view it returns still the newest (wait_for's task of its own lets frames
        # arrive in between: a caller reading the seat then would skip views)
        async with asyncio.timeout(timeout):
            return await until()

    async def turn(self, timeout: float | None = None) -> JSON:
        """The view at which this seat must decide next, or the final view once the match is
        over (check :func:`over`)."""
        return await self.wait(lambda v: my_turn(v) or over(v), timeout)

    async def turns(self) -> AsyncIterator[JSON]:
        """Each view at which this seat must decide, until the match is over.  Decide (and
        send the command) before asking for the next one; after a command refused with
        ``stale_version`` the next one is the newest view (the one that made it stale, or
        later): deciding on it again is the way to go on."""
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

    def watch_on(self) -> None:
        """Drop the token and follow the match on as a spectator (the seat was given up
        elsewhere: the token no longer works).  The socket goes on and reconnects without the
        token; if the server already refused it (close 4401: the seat ended with
        ``ApiError("bad_token")``, say after a reconnection while the seat was given up), it is
        opened again, and waits and :meth:`views` work on."""
        self.token = None
        if self._fatal is not None and self._fatal.code == "bad_token" and not self._closing:
            self._fatal, self._last_error = None, None
            self._task = asyncio.get_running_loop().create_task(self._guarded())

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
        await self._stop_task()
        if self._owns:
            await self.client.aclose()

    async def _stop_task(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None

    async def __aenter__(self) -> AsyncSeat:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


def _match_link(link: str) -> Link:
    where = parse_link(link)
    if where.match_id is None:
        raise ValueError(f"{link!r} is not an invite link (http://HOST/m/MATCH): it names no "
                         "match")
    return where
