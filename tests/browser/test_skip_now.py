"""Browser test: a page watching bots alone can skip to the match as it is now.

Bots alone play faster than the table shows their moves (every view in turn, at the table's
pace), so a player who left a solo match watched the bots minutes behind them, with no way to
catch up but to hide the tab (a "Left" item of session 27).  While such a page is more than a
dozen views behind, "Skip to now" shows the latest view at once."""

from __future__ import annotations

from typing import Any

import pytest

from hokmclient import Client

from .conftest import DESKTOP
from .helpers import http, open_table, wait_phase

pytestmark = pytest.mark.browser


@pytest.mark.timeout(180)
def test_a_page_watching_bots_alone_skips_to_now(new_client: Any, gateway: str) -> None:
    with Client(gateway) as client:
        created = client.create(players=4, seats=["human"] + ["bot:easy"] * 3,
                                rules={"target": 7}, name="Dara")
    match_id, token = str(created["match_id"]), str(created["token"])
    page = open_table(new_client(viewport=DESKTOP, fast=False).page, match_id, token)
    wait_phase(page, "choosing_trump", "playing")
    skip = page.locator("#skip-now")
    assert skip.is_hidden()  # a player's own table never offers it
    page.locator("#leave-table").click()
    page.locator("#leave-confirm").click()
    skip.wait_for(state="visible", timeout=60_000)
    assert skip.inner_text() == "Skip to now"
    now = int(http(gateway, "GET", f"/api/matches/{match_id}")["version"])
    shown = int(page.locator(".table-page").get_attribute("data-version"))
    assert shown < now - 12, (shown, now)
    skip.click()
    # the table's pace shows a dozen views in several seconds: this is the jump, not the pace
    page.wait_for_function(f"() => +document.querySelector('.table-page').dataset.version >= {now}",
                           timeout=10_000)
    # the focus is not lost with the button it was on: the page's status takes it (or the
    # button, offered again when the bots ran a dozen views ahead once more)
    assert page.evaluate("() => document.activeElement.id") in ("turn-status", "skip-now")
