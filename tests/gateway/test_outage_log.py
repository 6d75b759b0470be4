"""An unreachable store is an expected, handled condition (``503 unavailable``): each refused
request logs one line naming the route and the error, never a chained traceback (an outage of
a few seconds logged some 2,000 lines).  A real bug still logs its traceback."""

from __future__ import annotations

import logging

import pytest

from hokmclient import free_port

from .helpers import bearer, gateway, recv

MATCH = "0123456789abcdef"


def test_each_refusal_of_an_unreachable_store_is_one_line(
        caplog: pytest.LogCaptureFixture) -> None:
    with gateway(worker=False, redis_url=f"redis://127.0.0.1:{free_port()}/0") as down:
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="hokm.gateway"):
            answers = [down.post("/api/matches", json={}),
                       down.get(f"/api/matches/{MATCH}"),
                       down.get(f"/api/matches/{MATCH}/view", headers=bearer("x" * 32)),
                       down.post(f"/api/matches/{MATCH}/commands", headers=bearer("x" * 32),
                                 json={"type": "play", "card": "AS"})]
            with down.websocket_connect(f"/api/matches/{MATCH}/ws") as ws:
                assert recv(ws)["code"] == "unavailable"
        assert [a.status_code for a in answers] == [503] * 4
        mine = [r for r in caplog.records if r.name == "hokm.gateway"
                and "unreachable" in r.getMessage()]
        assert len(mine) >= 5, [r.getMessage() for r in caplog.records]
        for record in mine:
            assert record.exc_info is None, record.getMessage()  # the finding: a traceback
            assert "\n" not in record.getMessage()
            assert "ConnectionError" in record.getMessage() or "Unavailable" in \
                record.getMessage()
        routes = {r.getMessage().split(":", 1)[0] for r in mine}
        assert {"create", "summary", "view", "command"} <= routes
