"""One WebSocket following one match, and its outbox.

Sending is eager: a message is written to the socket at once, in the caller's step, when nothing
is queued before it and the socket takes it without waiting (the usual case: no task switch per
message).  When the socket cannot take more (its client reads slowly) the message, and every
later one, waits in the outbox, drained by a task of this socket alone, so one slow client never
delays another; past ``OUTBOX`` messages the client is dropped and catches up when it reconnects
(views are whole snapshots).
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket

OUTBOX = 512

RAW_SEND = "hokm.raw_send"
"""The scope key under which ``RawSend`` leaves the server's own ``send`` of a WebSocket."""


class RawSend:
    """ASGI middleware (outermost of the app's own) that leaves the server's ``send`` of each
    WebSocket in its scope: a subscriber writes its views with it directly, instead of through
    Starlette's ``WebSocket.send_text``, its state checks and the exception middleware's wrapper
    (four calls a message, four messages a move: about 4 % of the gateway's CPU at full speed,
    ``bench/load.py``).  Accepting and closing still go through Starlette."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            scope[RAW_SEND] = send
        await self.app(scope, receive, send)


CLOSE_NOT_FOUND = 4404
"""The close code of a socket whose match does not exist (or no longer: it expired)."""
CLOSE_RESTART = 1012
"""The match's log went back (its store lost its newest records): the client reconnects and
takes the view it is then sent, older than the one it held (``Hub._rewound``)."""


class Subscriber:
    """One WebSocket following one match as one seat (or as a spectator, ``seat is None``).

    Sending is eager: a message is written to the socket at once, in the caller's step, when
    nothing is queued before it and the socket takes it without waiting (the usual case: no
    task switch per message).  When the socket cannot take more (its client reads slowly) the
    message, and every later one, waits in the outbox, drained by a task of this socket alone,
    so one slow client never delays another; past ``OUTBOX`` messages the client is dropped and
    catches up when it reconnects (views are whole snapshots).
    """

    __slots__ = ("ws", "match_id", "seat", "player", "outbox", "writer", "closed", "close_code",
                 "started", "limit_told", "_raw")

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
        self.started = False
        """Its first view is queued (``Hub.subscribe``): broadcasts reach it from then on."""
        self.limit_told: object = None
        """The last turn limit this socket was told (``TurnLimits``: each deadline once)."""
        self._raw: Callable[[Message], Awaitable[None]] | None = ws.scope.get(RAW_SEND)

    def _write(self, text: str) -> Coroutine[Any, Any, None]:
        """The coroutine that writes one text frame (the server's own send where ``RawSend``
        left it, Starlette's otherwise)."""
        raw = self._raw
        if raw is not None:
            return raw({"type": "websocket.send", "text": text})  # type: ignore[return-value]
        return self.ws.send_text(text)

    def send(self, text: str) -> None:
        if self.closed:
            return
        if self.writer is not None or self.outbox:  # others wait before it: keep the order
            if len(self.outbox) >= OUTBOX:
                self.close(1013)  # too slow: drop it; it reconnects and catches up
            else:
                self.outbox.append(text)
            return
        coro = self._write(text)
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
                await self._write(text)
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
