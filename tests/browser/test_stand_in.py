"""A player who leaves the table (the page closed, the phone's browser gone to sleep) is played
by a stand-in after the room's ``disconnect_timeout``; opening the table again, they are told so
(the finding: cards were gone from the hand without a word).  The page remembers the last
version it showed and asks the socket for what it missed since; the missed records say which
moves a stand-in made for the seat."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.conftest import wait_for

from .helpers import http, open_table

pytestmark = pytest.mark.browser


# one move is named (the card played, the trump named), several are counted
TOLD = re.compile(r"While you were away, a stand-in (played the \w+ of \w+ for you|chose \w+ as "
                  r"trump for you|played for you \((\d+) moves\))\.")


@pytest.mark.timeout(240)
@pytest.mark.parametrize("behind", ["a_few", "over_200"])
def test_back_at_the_table_the_player_is_told_a_stand_in_played_for_them(
        new_client: Any, gateway: str, behind: str) -> None:
    """Back a few records later, the socket's ``missed`` records tell; back more than 200
    later (a whole match, say), the socket only says to resync, and the page asks
    ``/events`` (the finding: no word at all then, the case that matters most)."""
    created = http(gateway, "POST", "/api/matches",
                   {"seats": ["human", "bot:easy", "bot:easy", "bot:easy"], "name": "Away",
                    "disconnect_timeout": 1})
    match_id, token = created["match_id"], created["token"]
    page = open_table(new_client().page, match_id, token)
    page.locator("section.hand").wait_for()
    page.wait_for_function(f"() => Number(localStorage.getItem('hokm.seen.{match_id}')) > 0")
    seen = int(page.evaluate(f"() => localStorage.getItem('hokm.seen.{match_id}')"))
    page.goto("about:blank")  # the table is closed: its socket too

    def stood_in() -> list[dict[str, Any]] | None:
        answer = http(gateway, "GET", f"/api/matches/{match_id}/events?since={seen}")
        mine = [r for r in answer["events"] if r["stand_in"] and r["actor"] == created["seat"]]
        far = answer["version"] > seen + 200 or any(
            e["type"] == "match_ended" for r in answer["events"] for e in r["events"])
        return mine if mine and (behind == "a_few" or far) else None

    assert wait_for(stood_in, 180)
    page.goto(f"/m/{match_id}")
    toast = page.locator("#toast")
    toast.filter(has_text="While you were away").wait_for(timeout=15_000)
    told = TOLD.fullmatch(toast.inner_text())
    assert told, toast.inner_text()
    # as many as the records after the page's last view hold (and none after the player is
    # back but the one a stand-in may have been making at that moment)
    mine = [r for r in http(gateway, "GET", f"/api/matches/{match_id}/events?since={seen}")[
        "events"] if r["stand_in"] and r["actor"] == created["seat"]]
    assert len(mine) - 1 <= int(told.group(2) or 1) <= len(mine)
