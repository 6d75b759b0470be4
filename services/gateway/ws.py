"""The WebSocket endpoint: one socket follows one match as one seat (token) or as a spectator.

Frames are JSON text.  The server sends ``{"type": "view", ...}`` after every change (through
the hub) and ``{"type": "error", "code", "message", "id"}`` to the sender of a refused command;
nothing a client sends can change the match except a valid command for its own seat (and a
seat's ``{"type": "more_time"}`` changes only its turn's deadline: ``turnlimit.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from services.errors import BadToken, HokmError, InvalidCommand, TooLarge
from services.quotas import RetryLater, retry_after

from . import params
from .api import MAX_ID, Api, Unavailable, checked_id
from .hub import Hub
from .outage import UNREACHABLE, one_line
from .subscriber import CLOSE_NOT_FOUND, Subscriber
from .viewtext import dumps
from .jsonbody import only_fields, parse_object
from .offload import off_loop

log = logging.getLogger("hokm.gateway")
CLOSE_BAD_REQUEST = 4400
CLOSE_POLICY = 4401
CLOSE_TOO_LARGE = 1009
CLOSE_TRY_LATER = 1013
CLOSE_DAMAGED = 4500  # match_damaged: a 4xxx, so clients do not retry what waiting cannot mend
CLOSE_IDLE = 1001  # a socket that pinged and went silent: not a 4xxx, the client comes back
IDLE_S = 150.0
"""How long a socket that has sent a ``ping`` may stay silent: then it is closed, as one whose
client is gone (a browser tab frozen in the background, a phone asleep, which keep the socket
open without running the page: the seat counts as away, and a stand-in plays for it after the
room's ``disconnect_timeout``).  The browser pings every 25 s, and a hidden tab's timers run at
most once a minute: 150 s is two and a half of those.  A client that never pings is never
closed for silence (api.md: the ping is optional)."""


def _error(error: HokmError, command_id: Any = None) -> str:
    """The error frame of a refusal; a limit that knows when it would take the frame again
    says so in ``retry_after`` (whole seconds, as the HTTP answers' ``Retry-After``)."""
    frame = {"type": "error", **error.to_dict(), "id": command_id}
    if isinstance(error, RetryLater):
        frame["retry_after"] = int(retry_after(error.retry_after_s))
    return dumps(frame)


async def endpoint(ws: WebSocket, api: Api, hub: Hub) -> None:
    """Serve one socket.  Everything the client sent in its URL is checked before the socket
    joins the hub; once it has joined, it leaves the hub (and its seat's presence) whatever
    happens after, so no failure can leave a subscriber behind."""
    await ws.accept()
    address = ws.client.host if ws.client else "?"
    player: str | None = None
    seat: int | None = None
    try:
        match_id = params.match_id(ws)
        params.only_query(ws, "socket")
        token = params.token_query(ws)
        since = params.int_query(ws, "since", -1)
        if token is not None:
            seat, who, _ = await off_loop(api.service.authenticate, match_id, token)
            api.remember_player(match_id, token, who)
            player = who
        else:
            await off_loop(api.service.load, match_id)  # not_found: gone too
    except HokmError as refusal:
        await _refuse(ws, refusal, {"not_found": CLOSE_NOT_FOUND,
                                    "bad_request": CLOSE_BAD_REQUEST,
                                    "match_damaged": CLOSE_DAMAGED}.get(refusal.code,
                                                                        CLOSE_POLICY))
        return
    except Exception as exc:  # the store is unreachable (or worse): try again later
        if isinstance(exc, UNREACHABLE):  # expected: one line, no traceback
            log.warning("a socket could not start: the store is unreachable (%s)", one_line(exc))
        else:
            log.warning("a socket could not start", exc_info=True)
        await _refuse(ws, Unavailable("the match store is unreachable; try again"),
                      CLOSE_TRY_LATER)
        return
    sub = Subscriber(ws, match_id, seat, player)
    try:
        try:
            async def missed(version: int) -> str | None:
                # the seat the hub found the player in at that version (not the one on
                # connect: the ace draw may have moved the player since)
                return await _catch_up(api, match_id, sub.seat, since, version)

            await hub.subscribe(sub, missed, since)
        except Exception as exc:
            log.warning("a socket for %s could not start (%s)", match_id, one_line(exc),
                        exc_info=not isinstance(exc, UNREACHABLE))
            sub.send(_error(Unavailable("the match store is unreachable; try again")))
            sub.close(CLOSE_TRY_LATER)
            return
        pinging = False
        while True:
            try:
                message = await (asyncio.wait_for(ws.receive(), IDLE_S) if pinging
                                 else ws.receive())
            except TimeoutError:
                log.info("a socket on %s fell silent for %g s after pinging: closed as gone",
                         match_id, IDLE_S)
                sub.close(CLOSE_IDLE)
                break
            if message["type"] == "websocket.disconnect":
                break
            text = message.get("text")
            size = len(text) if text is not None else len(message.get("bytes") or b"")
            if size > api.max_body:
                sub.send(_error(TooLarge(f"frames are at most {api.max_body} bytes")))
                sub.close(CLOSE_TOO_LARGE)  # after the error frame
                break
            if text is None:
                sub.send(_error(InvalidCommand("send JSON text frames")))
                continue
            pinging = await _handle_frame(text, sub, api, address, token, match_id) or pinging
    except WebSocketDisconnect:
        pass
    except Exception:  # a bug: this socket ends, and still leaves the hub below
        log.exception("a socket on %s failed", match_id)
        sub.close(CLOSE_TRY_LATER)
    finally:
        if sub.closed and sub.writer is not None:  # let it send what is queued, then close
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(sub.writer), 5)
        await asyncio.shield(hub.unsubscribe(sub))


async def _refuse(ws: WebSocket, refusal: HokmError, code: int) -> None:
    """Refuse a socket that never joined the hub: an error frame, then the close code."""
    with contextlib.suppress(Exception):
        await ws.send_text(_error(refusal))
        await ws.close(code=code)


MAX_MISSED = 200
FRAME_TYPES = ("play", "choose_trump", "discard", "draw_talon", "more_time", "ping")
"""The frames a client sends (api.md): the commands, the seat's ask for more time, a ping."""


async def _catch_up(api: Api, match_id: str, seat: int | None, since: int, version: int
                    ) -> str | None:
    """The ``missed`` frame of a client reconnecting with ``since=n`` (the records up to
    ``version``, the first view's, redacted for it), so it can show what happened; the view
    it receives is the whole current state.  None when it missed nothing."""
    if since < 0 or since >= version:
        return None
    if version - since > MAX_MISSED:
        return dumps({"type": "missed", "since": since, "version": version, "resync": True,
                      "records": []})
    try:
        _, records = await off_loop(api.redacted_records, match_id, seat, since,
                                             version)
    except HokmError:
        return None
    return dumps({"type": "missed", "since": since, "version": version, "resync": False,
                  "records": records})


async def _handle_frame(text: str, sub: Subscriber, api: Api, address: str, token: str | None,
                        match_id: str) -> bool:
    """Answer one text frame; True when it was a ``ping``."""
    command_id: Any = None
    try:
        if not api.by_address.allow(address):
            command_id = _frame_id(text)  # (the refusal names the frame it drops)
            raise RetryLater("too many messages from this address; slow down",
                             api.by_address.wait_s(address))
        data = parse_object(text, "the frame")
        command_id = data.get("id")
        if data.get("type") == "ping":
            only_fields(data, {"type", "id"})  # (as every frame: a misspelt field is told)
            checked_id(data)  # (as a command's: any id was taken)
            sub.send(dumps({"type": "pong"}))
            return True
        if data.get("type") not in FRAME_TYPES:  # (the commands' own list omits the socket's)
            raise InvalidCommand("type must be " + ", ".join(f'"{t}"' for t in FRAME_TYPES[:-1])
                                 + f' or "{FRAME_TYPES[-1]}"')
        if token is None:
            raise BadToken("spectators cannot send commands")
        if data.get("type") == "more_time":  # not a command: the turn's limit (turnlimit.py)
            only_fields(data, {"type", "id"})
            checked_id(data)  # (as a command's: QA, any id extended the turn)
            await api.hub.turns.more_time(sub)
            return False
        applied = await api.run_command(match_id, token, data, player=sub.player,
                                        transport="ws")
        if applied.duplicate:  # a retried command: its effect is in the newest view
            api.hub.resend(sub)
    except HokmError as refusal:
        sub.send(_error(refusal, _echoed(command_id)))
    except Exception as exc:  # Redis trouble, or a bug: this socket (and everyone else's)
        if isinstance(exc, UNREACHABLE):  # lives on; the expected trouble in one line
            log.warning("a command on %s failed: the store is unreachable (%s)", match_id,
                        one_line(exc))
        else:
            log.exception("a command on %s failed", match_id)
        sub.send(_error(Unavailable("the server could not take this command now; try again"),
                        _echoed(command_id)))
    return False


def _frame_id(text: str) -> object:
    """The ``id`` of a frame refused before it is read (None if it is no JSON object): a
    frame is at most ``max_body`` bytes (16 KiB), so reading one is cheap even in a flood."""
    try:
        return parse_object(text, "the frame").get("id")
    except InvalidCommand:
        return None


def _echoed(command_id: object) -> str | None:
    """The ``id`` an error frame echoes: the frame's, if it is one a command may have (a string
    of 1 to ``MAX_ID`` characters); an id refused for its length is not sent back (an audit:
    a 15,000-character id came back whole)."""
    if isinstance(command_id, str) and 0 < len(command_id) <= MAX_ID:
        return command_id
    return None
