"""A socket that resumes (``since=n``) while the match moves on: the records its gateway's
follower brings while the socket's ``missed`` frame is read must reach the socket too.  The
finding (a load-balancer test, a gateway killed mid-match): two bot moves arrived while the
prelude was read; the socket got the view before them, the prelude, and then only the newest
view, so the record between was in neither a view nor ``missed``."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from tests.conftest import real_redis_client

from .helpers import REDIS_DB, command_for, gateway, recv_until, redis_url, stacked_room


@pytest.mark.redis
def test_records_brought_while_the_prelude_is_read_reach_the_socket() -> None:
    client = real_redis_client(REDIS_DB)
    client.flushdb()
    try:
        with gateway(redis_url=redis_url(), worker=False) as a, \
                gateway(redis_url=redis_url(), worker=False) as b:
            room = stacked_room(a)  # four humans; seat 0 the Hakem, choosing trump
            match_id = room.match_id

            def move(seat: int) -> int:
                version, view = room.get_view(room.tokens[seat])
                answer = room.command(room.tokens[seat], command_for(view, view["legal"][0],
                                                                     version))
                assert answer.status_code == 200, answer.text
                return int(answer.json()["version"])

            since = move(0)  # trump chosen: the version the Hakem's client holds
            move(0)  # the Hakem leads; the client's socket is away meanwhile
            hub = b.app.state.holder["hub"]
            api = b.app.state.holder["api"]
            real = api.redacted_records
            moved = threading.Event()

            def slow_read(match: str, seat: int | None, after: int, version: int) -> Any:
                """The prelude's read, during which two more moves are made on gateway a and
                b's follower brings them (b's hub is past the version being read)."""
                if not moved.is_set():
                    moved.set()
                    last = [move(1), move(2)][-1]
                    deadline = time.monotonic() + 10
                    while (hub.loaded.get(match) is None
                           or hub.loaded[match].version < last):
                        assert time.monotonic() < deadline, "b's follower never brought them"
                        time.sleep(0.01)
                return real(match, seat, after, version)

            api.redacted_records = slow_read
            path = f"/api/matches/{match_id}/ws?token={room.tokens[0]}&since={since}"
            with b.websocket_connect(path) as seat:
                first = recv_until(seat, lambda f: f.get("type") == "view")
                missed = recv_until(seat, lambda f: f.get("type") == "missed")
                assert moved.is_set()
                got = {r["version"] for r in missed["records"]}
                assert missed["version"] == first["version"]
                assert first["version"] == since + 3, first["version"]
                assert got == set(range(since + 1, first["version"] + 1)), sorted(got)
    finally:
        client.flushdb()
