"""The replay viewer opened while its match is still being played: it says so, and finds out by
itself when the match ends (it asks for the public summary now and then), then shows the replay
and offers the analysis without a reload."""

from __future__ import annotations

import re
from typing import Any

import pytest

from hokmclient import Seat

from .conftest import DESKTOP

pytestmark = pytest.mark.browser

NOT_OVER = "The replay opens once the match is over."


def replay_requests(page: Any) -> list[str]:
    """The replay endpoint's URLs the page asks for (the list grows as it asks)."""
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/replay?" in r.url else None)
    return asked


@pytest.mark.timeout(300)
def test_a_stranger_sees_the_replay_once_the_live_match_ends(new_client: Any,
                                                             gateway: str) -> None:
    with Seat.create(gateway, seats=["human"] + ["bot:easy"] * 3, rules={"target": 7},
                     name="Live") as seat:
        page = new_client(viewport=DESKTOP).page  # a stranger: no token of this match
        page.goto(f"/replay/{seat.match_id}")
        page.get_by_role("alert").get_by_text(NOT_OVER).wait_for()
        for view in seat.turns(timeout=60):
            seat.decide(view["legal"][0], view)
        # the replay's last step is the deck secret's reveal, a record of its own after the
        # match's end: the seat's first view of the end can be one short of it (the reveal's
        # view still on its way when the socket closed, as happened under load)
        last = int(seat.wait(lambda v: v.get("secret") is not None, timeout=30)["version"])
    # no reload: the page learns that the match is over, and shows its replay and analysis
    page.get_by_role("alert").get_by_text(NOT_OVER).wait_for(state="hidden", timeout=30_000)
    page.locator("#rp-counter").get_by_text(re.compile(r"Step \d+ of \d+")).wait_for()
    page.get_by_role("button", name="Show the analysis").wait_for()
    page.get_by_role("button", name="Last step").click()
    page.locator("#rp-counter").get_by_text(f"Step {last} of {last}").wait_for()


CONTROLS = ("#rp-first", "#rp-prev", "#rp-slider", "#rp-next", "#rp-last", "#rp-share")


def assert_controls_off(page: Any) -> None:
    """Every control of the replay is disabled, and the keys ask for nothing."""
    asked = replay_requests(page)
    for sel in CONTROLS:
        assert page.locator(sel).is_disabled(), sel
    page.locator("body").click()  # the keys go to the page, not to a control
    for key in ("ArrowRight", "End", "ArrowLeft", "Home"):
        page.keyboard.press(key)
    # a request would be sent at once: one to the summary after the keys proves the page idle
    page.evaluate("(id) => fetch('/api/matches/' + id).then((r) => r.status)", "x")
    assert asked == [], asked


@pytest.mark.timeout(120)
def test_the_controls_are_off_while_there_is_nothing_to_show(new_client: Any,
                                                            gateway: str) -> None:
    with Seat.create(gateway, seats=["human"] + ["bot:easy"] * 3, rules={"target": 7},
                     name="Live") as seat:
        c = new_client(viewport=DESKTOP)  # a stranger of a live match
        c.page.goto(f"/replay/{seat.match_id}")
        c.page.get_by_role("alert").get_by_text(NOT_OVER).wait_for()
        assert_controls_off(c.page)
        # a match that does not exist: said, and nothing to step through either
        c.page.goto("/replay/nosuchmatch")
        c.page.get_by_role("alert").get_by_text("There is no match with this link.").wait_for()
        assert_controls_off(c.page)
    # the browser logs the summary's 404s itself (the unknown match's, and the one asked above)
    assert all("404" in e for e in c.errors), c.errors
    c.errors.clear()
