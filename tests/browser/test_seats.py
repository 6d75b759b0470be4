"""Seats in the browser beyond a room's waiting list (QA findings M1, M2, M3, L2): a rematch's
seats kept for the last match's players are not offered to anyone else, an empty seat in the
middle of a match can be given to a bot, and a finished match's page learns of its rematch
(and of a rematch that is full) by itself."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from hokmclient import Client

from .conftest import DESKTOP, PHONE
from .helpers import finish_humans_match, http, open_table, play_until, state, wait_phase

pytestmark = pytest.mark.browser

NAMES = ["Dara", "Roxana", "Kian", "Shirin"]


@pytest.mark.timeout(120)
def test_a_rematchs_held_seat_is_not_offered_to_a_stranger(new_client: Any,
                                                            gateway: str) -> None:
    """M1: the rematch's invite page offered the seat held for the other player ("Open seat",
    Take a seat) and then said "Every seat is taken."  It says now that the seat is kept for a
    player of the last match and for how long, in the visitor's language, offers no seat, and
    offers it once the hold is over."""
    match_id, tokens = finish_humans_match(gateway, 2, NAMES)
    new_id = http(gateway, "POST", f"/api/matches/{match_id}/rematch", {}, tokens[0])["match_id"]
    page = new_client(viewport=PHONE).page
    page.goto(f"/m/{new_id}")
    held = page.locator("#join-held")
    held.wait_for()
    m = re.fullmatch(r"A kept seat waits for its player from the last match for (\d+) more "
                     r"seconds; then anyone may take it\.", held.inner_text())
    assert m and 0 < int(m.group(1)) <= 300, held.inner_text()
    seats = page.locator(".join-page .seat-list li").all_inner_texts()
    assert "Kept for a player of the last match" in " ".join(seats), seats
    assert "Open seat" not in " ".join(seats), seats
    assert page.get_by_role("button", name="Take a seat").count() == 0
    assert "Every seat is taken" not in page.locator(".join-page").inner_text()
    # the same in Persian (every language has the words)
    fa = new_client(viewport=PHONE, locale="fa-IR").page
    fa.goto(f"/m/{new_id}")
    fa.locator("#join-held").filter(has_text="ثانیهٔ دیگر").wait_for()
    assert "نگه‌داشته برای بازیکنی از بازی قبل" in fa.locator(".join-page .seat-list").inner_text()

    # the hold ends (made short here: the summary's held_for says 2 s, then no seat held):
    # the page counts down and then offers the seat
    later = new_client(viewport=DESKTOP).page
    asked: list[int] = []

    def summary(route: Any) -> None:
        body = route.fetch().json()
        if asked:
            body["held_for"] = 0
            for seat in body["seats"]:
                seat["held"] = False
        else:
            body["held_for"] = 2
        asked.append(1)
        route.fulfill(status=200, content_type="application/json", body=json.dumps(body))

    later.route(f"**/api/matches/{new_id}", summary)
    later.goto(f"/m/{new_id}")
    later.locator("#join-held").wait_for()
    assert later.get_by_role("button", name="Take a seat").count() == 0
    later.get_by_role("button", name="Take a seat").wait_for(timeout=10_000)
    assert later.locator("#join-held").count() == 0
    assert "Open seat" in later.locator(".join-page .seat-list").inner_text()


@pytest.mark.timeout(120)
def test_an_empty_seat_mid_match_can_be_given_to_a_bot(new_client: Any, gateway: str) -> None:
    """M3: a player left in the middle of the match (``POST .../leave``, no bot); the table
    said "Open seat is playing" and stopped there, with no way out, though the server takes
    ``POST .../seats/{n}/bot`` at any phase.  The seated player is offered Give to a bot right
    away, the status says the match waits for a player to take that seat, and the bot plays
    it on."""
    with Client(gateway) as client:
        created = client.create(seats=["human", "human", "bot:easy", "bot:easy"],
                                rules={"target": 7}, name="Alice")
        match_id = str(created["match_id"])
        bob = str(client.join(match_id, name="Bob")["token"])
    page = open_table(new_client(viewport=DESKTOP).page, match_id, str(created["token"]))
    wait_phase(page, "choosing_trump", "playing")
    http(gateway, "POST", f"/api/matches/{match_id}/leave", {}, bob)
    empty = [i for i, s in enumerate(http(gateway, "GET", f"/api/matches/{match_id}")["seats"])
             if s["empty"]]
    assert len(empty) == 1
    give = page.get_by_role("button", name=f"Give to a bot: Seat {empty[0] + 1}")
    give.wait_for()
    assert page.get_by_role("heading", name="An empty seat").is_visible()
    waits = f"Waiting for a player to take seat {empty[0] + 1}"
    status = page.locator("#turn-status")
    play_until(page, lambda p: status.inner_text() == waits, 60)  # Alice plays up to its turn
    version = state(page)["version"]
    assert "is playing" not in status.inner_text()
    give.click()
    page.wait_for_function(  # the bot took the seat and played on
        "v => Number(document.querySelector('.table-page').dataset.version) > Number(v)",
        arg=version)
    page.locator("section.waiting").wait_for(state="hidden")
    seat = http(gateway, "GET", f"/api/matches/{match_id}")["seats"][empty[0]]
    assert seat["bot"] == "medium" and not seat["empty"], seat


@pytest.mark.timeout(120)
def test_a_finished_matchs_page_learns_of_its_rematch(new_client: Any, gateway: str) -> None:
    """M2: a visitor on a finished match's page (its invite link, no seat) never learned of
    a rematch made after the page was opened without reloading it.  The page looks for it as
    the table's match-over panel does, and offers the way to it."""
    match_id, tokens = finish_humans_match(gateway, 2, NAMES)
    page = new_client(viewport=PHONE).page
    page.goto(f"/m/{match_id}")
    page.get_by_role("heading", name="Match over").wait_for()
    assert page.locator("#to-rematch").count() == 0
    new_id = http(gateway, "POST", f"/api/matches/{match_id}/rematch", {}, tokens[0])["match_id"]
    link = page.get_by_role("link", name="Go to the rematch")
    link.wait_for()
    assert link.get_attribute("href") == f"/m/{new_id}"


@pytest.mark.timeout(120)
def test_join_the_rematch_refused_as_full_says_so_and_offers_to_watch(
        new_client: Any, gateway: str) -> None:
    """L2: the other player gave the seat held for this one to a bot; "Join the rematch" was
    answered "Every seat is taken." and stayed, with "A rematch is ready: join it."  It says
    now that the rematch is full, and the button gives way to the link to watch it."""
    match_id, tokens = finish_humans_match(gateway, 2, NAMES)
    player = new_client(viewport=DESKTOP)
    late = open_table(player.page, match_id, tokens[1])
    late.locator(".banner.over").wait_for()
    made = http(gateway, "POST", f"/api/matches/{match_id}/rematch", {}, tokens[0])
    new_id = made["match_id"]
    held = [i for i, s in enumerate(http(gateway, "GET", f"/api/matches/{new_id}")["seats"])
            if s["empty"]]
    assert held == [1 - made["seat"]]
    http(gateway, "POST", f"/api/matches/{new_id}/seats/{held[0]}/bot", {"level": "easy"},
         made["token"])
    client = late
    join = client.get_by_role("button", name="Join the rematch")
    join.wait_for()
    join.click()
    note = client.locator("#rematch-note")
    note.filter(has_text="The rematch is full: every seat is taken. You can watch it.").wait_for()
    assert client.locator("#rematch").count() == 0  # no longer offered
    assert client.get_by_role("link", name="Go to the rematch").get_attribute(
        "href") == f"/m/{new_id}"
    assert client.locator("#toast").inner_text() != "Every seat is taken."
    # the refusal itself, as the browser logs every 4xx answer; nothing else
    assert all("status of 409" in e for e in player.errors), player.errors
    player.errors.clear()


PARTNERS_JS = """() => [...document.querySelectorAll('.seat')]
  .filter((s) => s.querySelector('.badge.partner')).map((s) => Number(s.dataset.seat))"""
"""The seats marked "Partner" on the table."""


@pytest.mark.timeout(120)
@pytest.mark.parametrize("teams", ["ace_draw", "as_seated"])
def test_the_waiting_room_marks_a_partner_only_once_teams_are_known(
        new_client: Any, gateway: str, teams: str) -> None:
    """QA: the waiting room marked an open seat "Partner" although the ace draw (the default)
    decides the teams, and the friend who took it ended on the other side.  Teams still to be
    drawn, no seat is marked; seated as they sit (``as_seated``) the seat across is the
    partner from the start; after the draw the player's partner is marked."""
    with Client(gateway) as client:
        created = client.create(seats=["human", "human", "bot:easy", "bot:easy"],
                                rules={"target": 7, "teams": teams}, name="Alice")
        match_id, alice = str(created["match_id"]), str(created["token"])
        page = open_table(new_client(viewport=DESKTOP).page, match_id, alice)
        wait_phase(page, "waiting")
        page.locator(".seat[data-seat='2'] .badge.bot").wait_for()  # the seats are drawn
        assert page.evaluate(PARTNERS_JS) == ([] if teams == "ace_draw" else [2])
        client.join(match_id, name="Bob")
    wait_phase(page, "choosing_trump", "playing")
    view = http(gateway, "GET", f"/api/matches/{match_id}/view", token=alice)["view"]
    partner = next(s for side in view["sides"] if view["seat"] in side
                   for s in side if s != view["seat"])
    page.wait_for_function(f"() => ({PARTNERS_JS})().join() === '{partner}'")
