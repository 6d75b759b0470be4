"""The replay viewer's link to a step past the end (``?step=99999``): like a step below the start,
it is clamped, to the match's last step, and every control works from there; and Last goes to
the last step when the page knew one fewer (opened between the match's end and the reveal)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from .conftest import DESKTOP
from .helpers import http

pytestmark = pytest.mark.browser


@pytest.mark.timeout(300)
def test_a_step_past_the_end_shows_the_last_step(new_client: Any, gateway: str,
                                                 finished_match: str) -> None:
    last = int(http(gateway, "GET", f"/api/matches/{finished_match}")["version"])
    assert last > 1
    page = new_client(viewport=DESKTOP).page  # the fixture fails on a console error (a 400)
    page.goto(f"/replay/{finished_match}?step=99999")
    counter = page.locator("#rp-counter")
    counter.get_by_text(f"Step {last} of {last}", exact=False).wait_for()
    page.wait_for_function(f"() => /step={last}$/.test(location.search)")
    assert page.get_by_role("alert").filter(has_text=re.compile(r"\S")).count() == 0
    assert page.get_by_role("button", name="Step forward").is_disabled()
    assert page.get_by_role("button", name="Last step").is_disabled()
    assert page.get_by_role("button", name="Step back").is_enabled()
    # Back moves to the step before the last, and the link follows
    page.get_by_role("button", name="Step back").click()
    counter.get_by_text(f"Step {last - 1} of {last}").wait_for()
    page.wait_for_function(f"() => /step={last - 1}$/.test(location.search)")
    assert page.get_by_role("button", name="Last step").is_enabled()
    # and End goes back to the last step
    page.keyboard.press("End")
    counter.get_by_text(f"Step {last} of {last}").wait_for()
    page.wait_for_function(f"() => /step={last}$/.test(location.search)")


@pytest.mark.timeout(120)
def test_last_goes_to_the_last_step_when_the_page_knew_one_fewer(new_client: Any, gateway: str,
                                                                 finished_match: str) -> None:
    """A stranger's page that opened the replay between the match's end and the deck secret's
    reveal (a record of its own, a moment later) knows one step fewer than there are: Last
    still goes to the last step, the reveal."""
    last = int(http(gateway, "GET", f"/api/matches/{finished_match}")["version"])
    page = new_client(viewport=DESKTOP).page

    def before_the_reveal(route: Any) -> None:  # the opening answer, as it was at the end
        answer = route.fetch().json()
        assert answer["steps"] == last, answer
        route.fulfill(status=200, content_type="application/json",
                      body=json.dumps({**answer, "steps": last - 1}))

    page.route("**/replay?step=0", before_the_reveal)
    page.goto(f"/replay/{finished_match}")
    counter = page.locator("#rp-counter")
    counter.get_by_text(f"Step 0 of {last - 1}").wait_for()
    page.get_by_role("button", name="Last step").click()
    counter.get_by_text(f"Step {last} of {last}").wait_for()
    page.wait_for_function(f"() => /step={last}$/.test(location.search)")
    assert page.get_by_role("button", name="Last step").is_disabled()
