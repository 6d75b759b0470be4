"""A socket that resumes (``since=n``) on a gateway whose hub is behind the version its client
holds.  Behind a load balancer that is ordinary: a command answered by one gateway, or a socket
on a gateway that then stopped, gave the client a version the gateway it reconnects to has not
read yet (its follower brings another gateway's records a moment later).  The first view must
not be older than ``since``: api.md tells clients that such a view means the match's log went
back (a Redis restarted from an older snapshot), and they take it as the match now.  The
finding: the gateway sent its hub's older copy, and the client showed a move undone."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.conftest import real_redis_client, wait_for

from .helpers import REDIS_DB, gateway, recv_until, redis_url, stacked_room


@pytest.mark.redis
def test_a_socket_resuming_ahead_of_the_hub_gets_a_view_as_new() -> None:
    client = real_redis_client(REDIS_DB)
    client.flushdb()
    try:
        with gateway(redis_url=redis_url(), worker=False) as a, \
                gateway(redis_url=redis_url(), worker=False) as b:
            room = stacked_room(a)  # four humans; seat 0 the Hakem, choosing trump
            match_id = room.match_id
            with b.websocket_connect(f"/api/matches/{match_id}/ws") as watcher:
                # b's hub follows the match now (a spectator's socket)
                version = recv_until(watcher, lambda f: f.get("type") == "view")["version"]
                hub = b.app.state.holder["hub"]
                release = b.portal.call(asyncio.Event)
                held: list[Any] = []
                deliver = hub._deliver

                async def stalled(match: str, entries: Any) -> None:
                    """b's follower reads the next record and holds it: b is behind."""
                    held.append(entries)
                    await release.wait()
                    await deliver(match, entries)

                hub._deliver = stalled
                try:
                    # the Hakem names trump through gateway a (the balancer's choice)
                    view = room.api.view(match_id, room.tokens[0])["view"]
                    answer = room.api.command(match_id, room.tokens[0], {
                        "type": "choose_trump", "suit": view["legal"][0],
                        "version": version})
                    assert answer["version"] == version + 1
                    wait_for(lambda: held, 10, 0.01, "b's follower reading the record")
                    # the Hakem's socket resumes on b with the version it holds
                    path = (f"/api/matches/{match_id}/ws?token={room.tokens[0]}"
                            f"&since={version + 1}")
                    with b.websocket_connect(path) as seat:
                        first = recv_until(seat, lambda f: f.get("type") == "view")
                        assert first["version"] == version + 1, (
                            f"the first view is older than since: {first['version']}")
                        assert first["view"]["trump"] == view["legal"][0]
                    # the spectator on b got that version too, in order
                    seen = recv_until(watcher, lambda f: f.get("type") == "view"
                                      and f["version"] > version)
                    assert seen["version"] == version + 1
                finally:
                    b.portal.call(release.set)
    finally:
        client.flushdb()
