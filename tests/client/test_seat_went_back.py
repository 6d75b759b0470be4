"""A seat keeps the newest view it was sent, but for the server's log gone back (its store lost
its newest records: ``tests/gateway/test_rewound_log.py``)."""

from __future__ import annotations

import json

from hokmclient import AsyncClient
from hokmclient.seat import AsyncSeat
from tests.conftest import run_async


def test_a_seat_takes_an_older_first_view_after_reconnecting_only() -> None:
    """The client's side: a view older than the one held is dropped on an open connection (an
    HTTP answer may be newer than a frame on its way), but the first view of a connection
    older than the version it reconnected with is the log gone back, and is taken."""
    async def scenario() -> list[int]:
        seat = AsyncSeat(AsyncClient("http://127.0.0.1:9"), "abcd1234", token="t")
        seen: list[int] = []
        seat._frame(view(10))
        seat._frame(view(8))  # the same connection: dropped
        seen.append(seat.version)
        seat.connected = False  # the connection ended; the next opened with since=10
        seat._asked = 10
        seat._frame(view(7))
        seen.append(seat.version)
        seat._frame(view(6))  # then the usual rule again
        seen.append(seat.version)
        await seat.client.aclose()
        return seen

    assert run_async(scenario()) == [10, 7, 7]


def view(version: int) -> str:
    return json.dumps({"type": "view", "version": version,
                       "view": {"version": version, "phase": "playing"}})


def test_a_seat_reconnects_since_the_last_version_its_socket_delivered() -> None:
    """A command answered while the socket was down may hold a later version than any frame
    (the bots' moves after the command, applied with it): the socket reconnects since the
    last version it delivered, so those moves still reach ``missed`` (a CI failure of the
    load-balancer test: versions the seat never saw)."""
    async def scenario() -> list[str]:
        seat = AsyncSeat(AsyncClient("http://127.0.0.1:9"), "abcd1234", token="t")
        urls = [seat.ws_url]
        seat._frame(view(24))
        seat.connected = False  # the socket ended
        seat._offer({"version": 27, "phase": "playing"})  # a command's answer
        urls.append(seat.ws_url)
        seat._frame(json.dumps({"type": "missed", "since": 24, "version": 29, "records": [
            {"version": v} for v in range(25, 30)]}))
        urls.append(seat.ws_url)
        await seat.client.aclose()
        return [u.rsplit("?", 1)[1] for u in urls]

    assert run_async(scenario()) == ["token=t", "token=t&since=24", "token=t&since=29"]
