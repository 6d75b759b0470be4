"""A player who leaves the table (the page closed, the phone's browser gone to sleep) is played
by a stand-in after the room's ``disconnect_timeout``; opening the table again, they are told so
(the finding: cards were gone from the hand without a word).  The page remembers the last
version it showed and asks the socket for what it missed since; the missed records say which
moves a stand-in made for the seat."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import wait_for

from .helpers import http, open_table

pytestmark = pytest.mark.browser


@pytest.mark.timeout(120)
def test_back_at_the_table_the_player_is_told_a_stand_in_played_for_them(
        new_client: Any, gateway: str) -> None:
    created = http(gateway, "POST", "/api/matches",
                   {"seats": ["human", "bot:easy", "bot:easy", "bot:easy"], "name": "Away",
                    "disconnect_timeout": 1})
    match_id, token = created["match_id"], created["token"]
    page = open_table(new_client().page, match_id, token)
    page.locator("section.hand").wait_for()
    page.wait_for_function(f"() => Number(localStorage.getItem('hokm.seen.{match_id}')) > 0")
    page.goto("about:blank")  # the table is closed: its socket too

    def stood_in() -> bool:
        records = http(gateway, "GET", f"/api/matches/{match_id}/events?since=0")["events"]
        return any(r["stand_in"] and r["actor"] == created["seat"] for r in records)

    assert wait_for(stood_in, 60)
    page.goto(f"/m/{match_id}")
    toast = page.locator("#toast")
    toast.filter(has_text="a stand-in played for you").wait_for(timeout=15_000)
    assert "While you were away" in toast.inner_text()
