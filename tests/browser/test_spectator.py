"""Browser tests: what a spectator is offered.  The invite link is for a player of a room with
a free seat, who sends it to friends: a spectator of a full match was shown it (QA), and a
spectator of a room with a free seat is sent to the join page instead (a name, then the seat)."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import DESKTOP
from .helpers import http, humans_match, open_table, wait_phase

pytestmark = pytest.mark.browser

INVITE = "details.invite-details, #invite-link, #copy-link"


@pytest.mark.timeout(180)
def test_a_spectator_gets_no_invite_link_and_a_free_seat_leads_to_the_join_page(
        new_client: Any, gateway: str) -> None:
    match_id, tokens = humans_match(gateway, 4, ["Ana", "Babak", "Dara", "Kian"])
    watcher = new_client(viewport=DESKTOP).page
    watcher.goto(f"/m/{match_id}?watch=1")
    wait_phase(watcher, "choosing_trump", "playing")
    watcher.locator(".info details").first.wait_for(state="attached")
    assert watcher.locator(INVITE).count() == 0  # a full match: nothing to invite to
    assert watcher.locator("#join-free-seat").count() == 0
    player = new_client(viewport=DESKTOP).page
    open_table(player, match_id, tokens[1])
    wait_phase(player, "choosing_trump", "playing")
    player.locator(".info details").first.wait_for(state="attached")
    assert player.locator(INVITE).count() == 0  # nor for its players: every seat is taken
    # a player leaves the seat empty: the match waits for someone to take it
    http(gateway, "POST", f"/api/matches/{match_id}/leave", {}, tokens[2])
    player.locator("details.invite-details").wait_for(state="attached")
    join = watcher.locator("#join-free-seat")
    join.wait_for()
    assert watcher.locator(INVITE).count() == 0
    assert join.get_attribute("href") == f"/m/{match_id}"
    join.click()
    watcher.locator("#take-seat").wait_for()
