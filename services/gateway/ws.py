"""The WebSocket endpoint: one socket follows one match as one seat (token) or as a spectator.

Frames are JSON text.  The server sends ``{"type": "view", ...}`` after every change (through
the hub) and ``{"type": "error", "code", "message", "id"}`` to the sender of a refused command;
nothing a client sends can change the match except a valid command for its own seat.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.websockets import WebSocket, WebSocketDisconnect

from services.errors import BadToken, HokmError, InvalidCommand, RateLimited, TooLarge

from .api import Api, Unavailable
from .fanout import Hub, Subscriber, dumps

log = logging.getLogger("hokm.gateway")
CLOSE_POLICY = 4401
CLOSE_NOT_FOUND = 4404
CLOSE_TOO_LARGE = 1009
CLOSE_TRY_LATER = 1013


def _error(error: HokmError, command_id: Any = None) -> str:
    return dumps({"type": "error", **error.to_dict(), "id": command_id})


async def endpoint(ws: WebSocket, api: Api, hub: Hub) -> None:
    match_id = ws.path_params["match_id"]
    token = ws.query_params.get("token") or None
    await ws.accept()
    address = ws.client.host if ws.client else "?"
    player: str | None = None
    seat: int | None = None
    try:
        if token is not None:
            seat, who, _ = await run_in_threadpool(api.service.authenticate, match_id, token)
            api.remember_player(match_id, token, who)
            player = who
        else:
            await run_in_threadpool(api.service.load, match_id, fresh=False)
    except HokmError as refusal:
        await ws.send_text(_error(refusal))
        await ws.close(code=CLOSE_NOT_FOUND if refusal.code == "not_found" else CLOSE_POLICY)
        return
    except Exception:  # the store is unreachable (or worse): try again later
        log.warning("a socket for %s could not start", match_id, exc_info=True)
        await ws.send_text(_error(Unavailable("the match store is unreachable; try again")))
        await ws.close(code=CLOSE_TRY_LATER)
        return
    sub = Subscriber(ws, match_id, seat, player)
    try:
        loaded = await hub.subscribe(sub)
    except Exception:
        log.warning("a socket for %s could not start", match_id, exc_info=True)
        await hub.unsubscribe(sub)
        await ws.send_text(_error(Unavailable("the match store is unreachable; try again")))
        await ws.close(code=CLOSE_TRY_LATER)
        return
    await _catch_up(ws, api, sub, match_id, seat, loaded.version)
    try:
        while True:
            message = await ws.receive()
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
            await _handle_frame(text, sub, api, address, token, match_id)
    except WebSocketDisconnect:
        pass
    finally:
        if sub.closed and sub.writer is not None:  # let it send what is queued, then close
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(sub.writer), 5)
        await hub.unsubscribe(sub)


MAX_MISSED = 200


async def _catch_up(ws: WebSocket, api: Api, sub: Subscriber, match_id: str, seat: int | None,
                    version: int) -> None:
    """A client reconnecting with ``since=n`` gets the records it missed (redacted for it), so it
    can show what happened; the view it already received is the whole current state."""
    raw = ws.query_params.get("since")
    if raw is None or not raw.isdigit():
        return
    since = int(raw)
    if since >= version:
        return
    if version - since > MAX_MISSED:
        sub.send(dumps({"type": "missed", "since": since, "version": version, "resync": True,
                        "records": []}))
        return
    try:
        _, records = await run_in_threadpool(api.redacted_records, match_id, seat, since,
                                             version)
    except HokmError:
        return
    sub.send(dumps({"type": "missed", "since": since, "version": version, "resync": False,
                    "records": records}))


async def _handle_frame(text: str, sub: Subscriber, api: Api, address: str, token: str | None,
                        match_id: str) -> None:
    command_id: Any = None
    try:
        if not api.by_address.allow(address):
            raise RateLimited("too many messages from this address; slow down")
        try:
            data = json.loads(text)
        except ValueError:
            raise InvalidCommand("the frame is not valid JSON") from None
        if not isinstance(data, dict):
            raise InvalidCommand("a frame is a JSON object")
        command_id = data.get("id")
        if data.get("type") == "ping":
            sub.send(dumps({"type": "pong"}))
            return
        if token is None:
            raise BadToken("spectators cannot send commands")
        applied = await api.run_command(match_id, token, data, player=sub.player)
        if applied.duplicate:  # a retried command: its effect is in the newest view
            api.hub.resend(sub)
    except HokmError as refusal:
        sub.send(_error(refusal, command_id if isinstance(command_id, str) else None))
    except Exception:  # Redis trouble, or a bug: this socket (and everyone else's) lives on
        log.exception("a command on %s failed", match_id)
        sub.send(_error(Unavailable("the server could not take this command now; try again"),
                        command_id if isinstance(command_id, str) else None))
