"""Browser tests: a friend's invite link to a room with no seat for them, and the spectator.

A room whose every seat is taken (the match in play) offers to watch it: its heading says so,
not "Join the match"; a room still waiting (a rematch whose seats are kept for the last
match's players) tells who sits there, not a score of nobody ("Ana 0 · Seat 2 0 · Seat 3 0")."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import PHONE
from .helpers import http, humans_match, wait_phase

pytestmark = pytest.mark.browser


@pytest.mark.timeout(120)
@pytest.mark.parametrize("players", [4, 2])
def test_the_invite_link_of_a_full_room_offers_to_watch(new_client: Any, gateway: str,
                                                        players: int) -> None:
    match_id, _ = humans_match(gateway, players, ["Ana", "Babak", "Dara", "Kian"])
    page = new_client(viewport=PHONE).page
    page.goto(f"/m/{match_id}")
    page.get_by_text("Every seat is taken. You can watch.").wait_for()
    assert page.locator("#join-title").inner_text() == "Watch the match"
    assert page.title() == "Hokm — Watch the match"
    assert page.locator("#take-seat").count() == 0
    page.select_option("#lang-select", "de")
    page.get_by_text("Alle Plätze sind besetzt. Du kannst zusehen.").wait_for()
    assert page.locator("#join-title").inner_text() == "Der Partie zusehen"
    page.get_by_role("button", name="Zusehen").click()
    wait_phase(page, "choosing_trump", "playing")
    assert page.locator(".hand-cards button.card").count() == 0


@pytest.mark.timeout(120)
def test_a_waiting_room_tells_who_is_seated_not_a_score(new_client: Any, gateway: str) -> None:
    # a room of three waiting for two players: Ana alone seated
    created = http(gateway, "POST", "/api/matches", {
        "players": 3, "seats": ["human", "human", "human"], "name": "Ana"})
    page = new_client(viewport=PHONE).page
    page.goto(f"/m/{created['match_id']}")
    page.locator("#take-seat").wait_for()
    status = page.locator(".join-page > p").first.inner_text()
    assert status == "Match status: waiting for players.", status
    assert page.locator("#join-title").inner_text() == "Join the match"
