"""Playing in a real browser: a solo match to its end, a room shared by two browsers, a reload."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest

from .conftest import DESKTOP, PHONE
from .helpers import (
    HAND_ENABLED, SUIT_ENABLED, click_one_move, hand, open_room, play_until, start_solo, state,
    wait_my_turn, wait_phase,
)

pytestmark = pytest.mark.browser


def over(page) -> bool:  # type: ignore[no-untyped-def]
    return state(page).get("phase") == "match_over"


@pytest.mark.timeout(900)
def test_solo_match_played_to_its_end_by_clicking(new_client: Any, shots: Path) -> None:
    c = new_client(viewport=DESKTOP)
    page = c.page
    start_solo(page, "Ana")
    page.wait_for_function("() => document.querySelector('.table-page')?.dataset.phase")
    # the first decision is made with the keyboard only: focus moves to the choices
    wait_my_turn(page)
    choice = page.locator(f"{SUIT_ENABLED}, {HAND_ENABLED}").first
    choice.focus()
    # the version is read before the key press: read after, the move and every bot reply could
    # already be shown, and nothing would change again until this player's next turn
    before = state(page)["version"]
    page.keyboard.press("Enter")
    page.wait_for_function(
        "v => document.querySelector('.table-page').dataset.version !== v", arg=before)
    moves = 1 + play_until(page, over, timeout=840)
    assert moves >= 7  # at least one full round of own cards
    banner = page.locator(".banner.over")
    banner.wait_for()
    assert re.search(r"won|lost", banner.inner_text())
    assert page.locator("#watch-replay").get_attribute("href").startswith("/replay/")
    # every hand is shown once the match is over
    assert page.locator(".seat .revealed").count() == 3
    page.screenshot(path=str(shots / "desktop-match-over.png"))


@pytest.mark.timeout(600)
def test_room_created_and_joined_by_invite_link_both_play_a_round(
        new_client: Any, shots: Path) -> None:
    host = new_client(viewport=DESKTOP)
    guest = new_client(viewport=PHONE, reduced=False)  # with the pauses and animations
    a, b = host.page, guest.page
    link = open_room(a, "Host", {"Seat 2": "bot:easy", "Seat 3": "human", "Seat 4": "bot:easy"})
    assert re.search(r"/m/[\w-]+$", link)
    assert a.get_by_role("button", name="Copy link").first.is_visible()
    a.screenshot(path=str(shots / "desktop-room-waiting.png"))
    # the guest opens the invite link, sees the match summary and takes the open seat
    b.goto(link)
    b.get_by_role("heading", name="Join the match").wait_for()
    # the summary fills in after the heading: wait for the host's name to be shown (fails on
    # timeout), not a one-shot look that races the render
    b.get_by_text("Host").first.wait_for(state="visible", timeout=10_000)
    b.screenshot(path=str(shots / "phone-join.png"))
    b.get_by_label("Your name").fill("Guest")
    b.get_by_role("button", name="Take a seat").click()
    for p in (a, b):
        wait_phase(p, "choosing_trump", "playing")
    # both seats are humans now; the view says where each one sits after the ace draw
    sa, sb = state(a)["seat"], state(b)["seat"]
    assert sa != sb and sa != "" and sb != ""
    names = a.locator(".seat .name").all_inner_texts()
    assert "Guest" in names and "Host" in names

    def round_done(_page) -> bool:  # type: ignore[no-untyped-def]
        sta, stb = state(a), state(b)
        return all(s.get("phase") in ("round_over", "match_over") or int(s.get("round", "1")) > 1
                   for s in (sta, stb))

    deadline = time.monotonic() + 540
    moves = 0
    while not round_done(a):
        assert time.monotonic() < deadline, f"round not over: {state(a)} {state(b)}"
        made = False
        for p in (a, b):
            if click_one_move(p):
                moves += 1
                made = True
        if not made:
            time.sleep(0.05)
    assert moves >= 7
    # the guest's table shows the round's result for a moment (it may be gone already if the
    # host was quick to start the next round: then the score panel keeps it, checked below)
    if b.locator(".banner.result").is_visible():
        b.screenshot(path=str(shots / "phone-round-result.png"))
    # both saw the round's result (announced and kept in the score panel)
    for p in (a, b):
        p.wait_for_function(
            "() => document.querySelector('.last-result, .banner.result, .banner.over')")
    # once the next round is dealt the score panel keeps the result, in the words of a player
    # with a partner: "We win ..." / "They win ..." (the labels "Us" / "Them" are not subjects)
    for p in (a, b):
        kept = p.locator(".last-result")
        kept.wait_for(timeout=60_000)
        text = kept.inner_text()
        assert re.match(r"Last round: (We|They) win the round|Last round: (Kot|Hakem koti|"
                        r"Bavney|Nobody)", text), text
        assert not re.search(r"\b(Us|Them) (win|took)", text), text


@pytest.mark.timeout(300)
def test_reload_resumes_the_same_seat_with_the_same_hand(new_client: Any) -> None:
    c = new_client(viewport=PHONE)
    page = c.page
    page.goto("/")
    page.get_by_role("button", name="Play solo").click()
    page.wait_for_url(re.compile(r"/m/[\w-]+$"))
    url = page.url
    # play a few cards so the match is well under way, then wait for our own turn
    play_until(page, lambda p: len(hand(p)) and len(hand(p)) <= 11, timeout=120)
    wait_my_turn(page)
    before_seat, before_hand = state(page)["seat"], hand(page)
    before_version = state(page)["version"]
    page.reload()
    wait_my_turn(page)
    assert page.url == url
    assert state(page)["seat"] == before_seat
    assert state(page)["version"] == before_version
    assert hand(page) == before_hand
    # the start page offers to resume the solo match
    page.goto("/")
    page.locator("#resume-solo").click()
    page.wait_for_url(url)
    page.wait_for_function("() => document.querySelector('.table-page')?.dataset.version")
    assert hand(page) == before_hand


@pytest.mark.timeout(180)
def test_a_dropped_connection_reconnects_and_catches_up(new_client: Any) -> None:
    c = new_client(viewport=DESKTOP)
    page = c.page
    sockets: list = []  # type: ignore[type-arg]

    def proxy(ws) -> None:  # type: ignore[no-untyped-def]
        ws.connect_to_server()  # pass everything through, but keep a handle to drop it
        sockets.append(ws)

    page.route_web_socket(re.compile(r"/api/matches/[\w-]+/ws"), proxy)
    page.goto("/")
    page.get_by_role("button", name="Play solo").click()
    wait_my_turn(page)
    click_one_move(page)
    wait_my_turn(page)
    version = state(page)["version"]
    assert len(sockets) == 1
    sockets[0].close(code=1011, reason="test drop")
    deadline = time.monotonic() + 20
    while len(sockets) < 2:  # the client opens a new socket by itself
        assert time.monotonic() < deadline, "no reconnect"
        page.wait_for_timeout(100)
    page.wait_for_function(
        "() => document.querySelector('#conn-status').className.includes('open')", timeout=20_000)
    since = re.search(r"[?&]since=(\d+)", sockets[-1].url)
    assert since and int(since.group(1)) >= int(version)  # catch up from what was shown
    assert page.locator("#conn-status").inner_text() == "Connected"
    # the table still works on the new socket
    before = len(hand(page))
    play_until(page, lambda p: len(hand(p)) < before, timeout=60)


@pytest.mark.timeout(120)
def test_an_open_seat_can_be_given_to_a_bot_and_spectators_can_watch(new_client: Any) -> None:
    host = new_client(viewport=DESKTOP)
    a = host.page
    a.goto("/")
    a.get_by_label("Seat 2").select_option("human")
    a.get_by_label("Seat 3").select_option("bot:easy")
    a.get_by_label("Seat 4").select_option("bot:easy")
    a.get_by_role("button", name="Create the room").click()
    a.wait_for_url(re.compile(r"/m/[\w-]+$"))
    wait_phase(a, "waiting")
    a.get_by_role("button", name="Give to a bot: Seat 2").click()
    wait_phase(a, "choosing_trump", "playing")
    # a second browser without a seat: the match is full, it can watch
    guest = new_client(viewport=PHONE)
    b = guest.page
    b.goto(a.url)
    b.get_by_text("Every seat is taken").wait_for()
    b.get_by_role("button", name="Watch").click()
    b.wait_for_function("() => document.querySelector('.table-page')?.dataset.phase")
    assert state(b)["seat"] == ""
    assert b.locator(".hand").is_hidden()
    assert b.locator(".seat .name").count() == 4
