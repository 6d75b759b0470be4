"""A subscriber writes its frames with the server's own ``send`` where ``RawSend`` left it in
the scope, with Starlette's ``WebSocket.send_text`` otherwise; in order either way, and a
socket whose client reads slowly queues the rest behind the frame that waits."""

from __future__ import annotations

import asyncio
from collections.abc import MutableMapping
from typing import Any

from starlette.websockets import WebSocket

from services.gateway.subscriber import RAW_SEND, RawSend, Subscriber
from tests.conftest import run_async


class _Server:
    """An ASGI server's side of one WebSocket: records frames; ``hold`` makes a send wait."""

    def __init__(self) -> None:
        self.frames: list[str] = []
        self.hold: asyncio.Event | None = None

    async def send(self, message: MutableMapping[str, Any]) -> None:
        if self.hold is not None:
            await self.hold.wait()
        if message["type"] == "websocket.send":
            self.frames.append(message["text"])


def _socket(server: _Server, raw: bool) -> WebSocket:
    scope: dict[str, Any] = {"type": "websocket", "path": "/", "headers": []}
    if raw:
        scope[RAW_SEND] = server.send

    async def receive() -> MutableMapping[str, Any]:
        return {"type": "websocket.connect"}

    ws = WebSocket(scope, receive, server.send)
    ws.client_state = ws.application_state = ws.client_state.__class__.CONNECTED
    return ws


def test_frames_go_out_in_order_through_the_raw_send_or_starlettes() -> None:
    async def main() -> None:
        for raw in (True, False):
            server = _Server()
            sub = Subscriber(_socket(server, raw), "m", 0)
            sub.send("a")
            assert server.frames == ["a"]  # written in the caller's step, no task
            server.hold = asyncio.Event()
            sub.send("b")
            sub.send("c")
            assert server.frames == ["a"] and sub.writer is not None
            server.hold.set()
            await asyncio.wait_for(sub.writer, 5)
            assert server.frames == ["a", "b", "c"]

    run_async(main())


def test_the_middleware_leaves_the_servers_send_in_websocket_scopes_only() -> None:
    seen: list[dict[str, Any]] = []

    async def app(scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        seen.append(dict(scope))

    async def send(message: Any) -> None:
        return None

    async def main() -> None:
        wrapped = RawSend(app)
        await wrapped({"type": "websocket"}, None, send)  # type: ignore[arg-type]
        await wrapped({"type": "http"}, None, send)  # type: ignore[arg-type]

    run_async(main())
    assert seen[0][RAW_SEND] is send and RAW_SEND not in seen[1]
