"""Browser tests: what a spectator is offered.  The invite link is for a player of a room with
a free seat, who sends it to friends: a spectator of a full match was shown it (QA), and a
spectator of a room with a free seat is sent to the join page instead (a name, then the seat)."""

from __future__ import annotations

from typing import Any

import asyncio

import pytest

from hokmclient import AsyncSeat, over
from hokmclient.http import command_for
from tests.conftest import run_async

from .conftest import DESKTOP
from .helpers import http, humans_match, open_table, wait_phase

pytestmark = pytest.mark.browser

INVITE = "details.invite-details, #invite-link, #copy-link"


def play_out(base: str, match_id: str, tokens: list[str]) -> None:
    """Every seat of ``tokens`` plays legal[0] over its WebSocket until the match is over
    (finish_humans_match's players, for a match a page already watches)."""

    async def play(token: str) -> None:
        async with AsyncSeat.resume(f"{base}/m/{match_id}", token) as seat:
            while not over(view := await seat.turn()):
                at, refused = int(view["version"]), len(seat.errors)
                await seat.send(command_for(view, view["legal"][0]))
                await seat.wait(lambda v, at=at, refused=refused:  # type: ignore[misc]
                                int(v["version"]) > at or len(seat.errors) > refused)
                if len(seat.errors) > refused and seat.errors[-1].get("code") == "rate_limited":
                    await asyncio.sleep(0.1)

    async def everyone() -> None:
        await asyncio.wait_for(asyncio.gather(*(play(t) for t in tokens)), timeout=120)

    run_async(everyone(), timeout=150)


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


@pytest.mark.timeout(240)
def test_a_spectator_watches_a_match_to_its_end_and_on_to_its_rematch(
        new_client: Any, gateway: str, shots: Any) -> None:
    """A spectator's walk: the match watched to its end (?watch=1), its match-over panel (no
    Play again: no seat to take it with; the replay first), the rematch a player asks for
    linked, the replay and the analysis."""
    match_id, tokens = humans_match(gateway, 2, ["Ana", "Babak"])
    c = new_client(viewport=DESKTOP)
    watcher = c.page
    watcher.goto(f"/m/{match_id}?watch=1")
    wait_phase(watcher, "choosing_trump", "playing")
    play_out(gateway, match_id, tokens)
    wait_phase(watcher, "match_over", timeout=60_000)
    heading = watcher.locator("#over-h")
    heading.wait_for()
    assert heading.inner_text() == "Match over"
    assert watcher.locator("#rematch").count() == 0  # Play again is for the players
    assert watcher.locator(INVITE + ", #join-free-seat, details.seat-details").count() == 0
    assert "primary" in (watcher.locator("#watch-replay").get_attribute("class") or "")
    watcher.screenshot(path=str(shots / "spectator_over.png"))
    rematch = http(gateway, "POST", f"/api/matches/{match_id}/rematch", {}, tokens[0])
    to_rematch = watcher.locator("#to-rematch")
    to_rematch.wait_for()
    assert to_rematch.get_attribute("href") == f"/m/{rematch['match_id']}"
    watcher.locator("#watch-replay").click()
    watcher.locator("#rp-next").wait_for()
    watcher.goto(f"/replay/{match_id}?analysis=1")
    watcher.locator("#rp-analysis").wait_for()


@pytest.mark.timeout(120)
def test_a_spectator_of_a_waiting_room_is_sent_to_the_join_page(new_client: Any,
                                                                gateway: str) -> None:
    """A room waiting for its players, watched (?watch=1): its waiting panel offered the
    spectator the invite link meant for the players; it offers the join page instead."""
    created = http(gateway, "POST", "/api/matches", {
        "players": 4, "seats": ["human", "human", "bot:easy", "bot:easy"], "name": "Ana"})
    match_id = created["match_id"]
    watcher = new_client(viewport=DESKTOP).page
    watcher.goto(f"/m/{match_id}?watch=1")
    watcher.get_by_role("heading", name="Waiting for players").wait_for()
    join = watcher.locator("#join-free-seat")
    join.wait_for()
    assert watcher.locator(INVITE).count() == 0
    join.click()
    watcher.locator("#take-seat").wait_for()
    # the host's own page keeps its invite link
    host = new_client(viewport=DESKTOP).page
    open_table(host, match_id, created["token"])
    host.locator("#invite-link").wait_for()
