"""A frozen Redis (``SIGSTOP``: a stalled VM, a primary that stops answering without closing its
connections) must not hold the gateway's requests: the store clients give up after their socket
timeout (``connect.SOCKET_TIMEOUT_S``) and the request answers ``503 unavailable``, as for any
store outage (docs/api.md), once the Redis answers again the match goes on.  Before the timeout
was set, a request to a frozen primary waited on redis-py's defaults (10 s in QA's test on a
cluster; no bound at all where a client's default is none)."""

from __future__ import annotations

import concurrent.futures
import os
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx

from services.store import connect
from tests.conftest import PrivateRedis

from .helpers import bearer, create, deck, gateway, wait_for

DEADLINE_S = 20.0
"""How long a request may take before the test calls it held: far above the socket timeout
and the clients' retries (a bound on the wait, not a measurement)."""


def answered(call: Callable[[], httpx.Response]) -> httpx.Response:
    """``call()``'s response, made in a thread of its own; an AssertionError if it has not come
    within ``DEADLINE_S`` (the thread is left to end once the Redis answers again)."""
    pool = concurrent.futures.ThreadPoolExecutor(1)
    try:
        return pool.submit(call).result(timeout=DEADLINE_S)
    except concurrent.futures.TimeoutError:
        raise AssertionError(f"the request was held over {DEADLINE_S} s by a frozen store"
                             ) from None
    finally:
        pool.shutdown(wait=False)


@contextmanager
def frozen(server: PrivateRedis) -> Iterator[None]:
    """``server`` stopped (``SIGSTOP``: its connections stay open, nothing answers) until the
    block ends, however it ends."""
    assert server.proc is not None
    os.kill(server.proc.pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(server.proc.pid, signal.SIGCONT)


def test_a_frozen_store_answers_unavailable_instead_of_holding_requests(
        private_redis: Any) -> None:
    server: PrivateRedis = private_redis()
    server.start()
    with gateway(worker=False, redis_url=server.url) as gw:
        # the clients that serve players carry the timeout (the sync one, and the event
        # loop's, whose pool is made at the first request that needs it)
        created = create(gw, seats=["human", "bot:easy", "bot:easy", "bot:easy"],
                         first_hakem=0, decks=[deck(3)])
        match_id, token = created["match_id"], created["token"]
        view = f"/api/matches/{match_id}/view"
        shown = gw.get(view, headers=bearer(token)).json()
        assert shown["view"]["phase"] == "choosing_trump", shown  # seat 0 names trump
        clients = [gw.rt.client.connection_pool,
                   *(c.connection_pool for c in gw.rt._async.values())]
        assert len(clients) == 2
        for pool in clients:
            assert pool.connection_kwargs.get("socket_timeout") == connect.SOCKET_TIMEOUT_S
        command = {"type": "choose_trump", "suit": "S", "version": shown["version"], "id": "m1"}
        with frozen(server):
            for name, call in [
                ("a view", lambda: gw.get(view, headers=bearer(token))),
                ("the records", lambda: gw.get(f"/api/matches/{match_id}/events?since=0")),
                ("a new room", lambda: gw.post("/api/matches", json={"seats": ["human"] * 4})),
                ("a move", lambda: gw.post(f"/api/matches/{match_id}/commands",
                                           headers=bearer(token), json=command)),
            ]:
                got = answered(call)
                assert got.status_code == 503, (name, got.status_code, got.text)
                assert got.json()["error"]["code"] == "unavailable", (name, got.text)
        # the Redis answers again: so does the gateway.  The move, sent again with its id as
        # a client does after a 503, is taken once (the frozen try may have been stored when
        # the Redis woke: then the retry gets its answer)
        def retried() -> httpx.Response | None:
            got = gw.post(f"/api/matches/{match_id}/commands", headers=bearer(token),
                          json=command)
            return got if got.status_code != 503 else None

        taken = wait_for(retried, DEADLINE_S, what="the move taken once the Redis is back")
        assert taken.status_code == 200, taken.text
        assert taken.json()["view"]["trump"] == "S", taken.text
