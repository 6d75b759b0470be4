"""A match whose log is damaged (a record deleted or edited in Redis by hand, a restore that
lost one entry): every request on it answers ``503 match_damaged`` with a message that names
``hokm verify``, a socket is refused with that error frame and close 4500 (the client does not
retry it), and the operator gets one log line naming the match (the finding: ``500 Internal
Server Error`` with a traceback, and a socket closed with 1011)."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from services.store import keys

from .helpers import bearer, gateway, refused_socket, stacked_room


def _damage(client: Any, match_id: str) -> None:
    """Take one record out of the middle of the match's log."""
    entries = client.xrange(keys.log(match_id))
    assert len(entries) >= 3
    client.xdel(keys.log(match_id), entries[1][0])


def test_a_damaged_log_answers_match_damaged_everywhere(caplog: pytest.LogCaptureFixture
                                                        ) -> None:
    with gateway(worker=False) as gw:
        r = stacked_room(gw, seed=5)
        _damage(gw.rt.store.client, r.match_id)
        gw.rt.service.forget_all()  # as a gateway that never read this match before
        caplog.set_level(logging.WARNING, logger="hokm")
        for method, path, headers in (
            ("GET", "", None), ("GET", "/view", bearer(r.tokens[0])),
            ("GET", "/events?since=0", None), ("GET", "/replay?step=1", bearer(r.tokens[0])),
            ("GET", "/hint", bearer(r.tokens[0])),
        ):
            got = gw.request(method, r.base + path, headers=headers)
            assert got.status_code == 503, (path, got.status_code, got.text)
            error = got.json()["error"]
            assert error["code"] == "match_damaged", (path, error)
            assert "hokm verify" in error["message"]
            assert "Retry-After" not in got.headers  # waiting does not mend it
        answer = r.command(r.tokens[0], {"type": "choose_trump", "suit": "H"})
        assert answer.status_code == 503 and answer.json()["error"]["code"] == "match_damaged"
        joined = gw.post(r.base + "/join", json={"name": "late"})
        assert joined.status_code in (409, 503), joined.text  # full, or damaged: never a 500
        frame, code = refused_socket(gw, f"{r.base}/ws?token={r.tokens[1]}")
        assert frame["type"] == "error" and frame["code"] == "match_damaged", frame
        assert code == 4500
        named = [rec for rec in caplog.records if r.match_id in rec.getMessage()]
        assert named and all(rec.exc_info is None for rec in named)
        assert all("Traceback" not in rec.getMessage() for rec in caplog.records)
