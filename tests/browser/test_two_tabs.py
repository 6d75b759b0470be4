"""An invite link opened in two tabs of one browser: the browser takes one seat, not two.

Both tabs share the browser's localStorage (one context, two pages).  Once the first tab has
taken a seat, the second goes to that seat's table: by itself, hearing of the seat at once (the
``storage`` event), or when its "Take a seat" is pressed (a tab that did not hear of it)."""

from __future__ import annotations

from typing import Any

import pytest

from hokmclient import Client
from hokmclient.http import command_for
from tests.conftest import wait_for

from .helpers import hand, http, open_table, state

pytestmark = pytest.mark.browser


# Installed in the second tab when it must not hear of the first tab's seat (a capturing listener
# at the window runs before the page's own): its "Take a seat" is then pressed for sure.
DEAF = "window.addEventListener('storage', (e) => e.stopImmediatePropagation(), true)"


@pytest.mark.timeout(120)
@pytest.mark.parametrize("hears", [True, False], ids=["storage-event", "button-pressed"])
def test_two_tabs_of_one_browser_take_one_seat(new_client: Any, gateway: str,
                                               hears: bool) -> None:
    with Client(gateway) as client:  # Ali's room: two seats open, a bot in the last
        created = client.create(seats=["human", "human", "human", "bot:easy"], name="Ali",
                                rules={"target": 7})
    match_id = str(created["match_id"])
    c = new_client()
    first, second = c.page, c.context.new_page()
    second.on("console", c._console)
    second.on("pageerror", lambda e: c.errors.append(f"pageerror: {e}"))
    if not hears:
        second.add_init_script(DEAF)
    for page in (first, second):
        page.goto(f"/m/{match_id}")
        page.get_by_role("button", name="Take a seat").wait_for()
        page.get_by_label("Your name").fill("Cyrus")
    first.get_by_role("button", name="Take a seat").click()
    first.wait_for_selector(".table-page")
    # the second tab goes to the table by itself, or, deaf to the first, when its button is pressed
    if not hears:
        second.get_by_role("button", name="Take a seat").click()
    second.wait_for_selector(".table-page")

    def seats() -> list[dict[str, Any]]:
        return list(http(gateway, "GET", f"/api/matches/{match_id}")["seats"])

    names = [s["name"] for s in seats() if not s["empty"]]
    assert names.count("Cyrus") == 1, names
    assert sum(s["empty"] for s in seats()) == 1, seats()
    # the last seat taken, the match starts: both tabs show the same seat and its cards
    with Client(gateway) as client:
        others = [str(created["token"]), str(client.join(match_id, name="Dara")["token"])]

    def same_hand() -> list[str] | None:
        for token in others:  # Ali or Dara names trump when it is theirs (then all hold cards)
            v = http(gateway, "GET", f"/api/matches/{match_id}/view", token=token)["view"]
            if v["phase"] == "choosing_trump" and v["turn"] == v["seat"] and v["legal"]:
                http(gateway, "POST", f"/api/matches/{match_id}/commands",
                     command_for(v, v["legal"][0]), token=token)
        a, b = hand(first), hand(second)
        sa, sb = state(first), state(second)
        return a if a and a == b and sa.get("seat") and sa.get("seat") == sb.get("seat") else None

    try:
        cards = wait_for(same_hand, timeout=45, every=0.2, what="both tabs showing one seat's hand")
    except AssertionError:
        raise AssertionError(f"{state(first)} {hand(first)} / {state(second)} {hand(second)} / "
                             f"{http(gateway, 'GET', f'/api/matches/{match_id}')}") from None
    # the seat's own cards, as the server deals them to the token this browser holds
    token = first.evaluate(f"() => localStorage.getItem('hokm.token.{match_id}')")
    view = http(gateway, "GET", f"/api/matches/{match_id}/view", token=token)["view"]
    assert str(view["seat"]) == state(first)["seat"] and sorted(view["hand"]) == sorted(cards)
    names = [s["name"] for s in seats() if not s["empty"]]
    assert names.count("Cyrus") == 1, names


@pytest.mark.timeout(120)
def test_the_seat_link_takes_the_seat_to_another_device(new_client: Any, gateway: str) -> None:
    """"Play on another device" gives a link with the seat's token in the fragment (never sent
    to a server); opened in another browser it is that seat's table there, and the token
    leaves the address bar.  Both devices then hold the seat."""
    with Client(gateway) as client:
        created = client.create(seats=["human", "bot:easy", "bot:easy", "bot:easy"],
                                name="Ali", rules={"target": 7}, disconnect_timeout=0)
    match_id, token = str(created["match_id"]), str(created["token"])
    phone = open_table(new_client().page, match_id, token)
    phone.locator("details.seat-details summary").click()
    link = phone.locator("#seat-link").input_value()
    assert link.endswith(f"/m/{match_id}#seat={token}")
    laptop = new_client().page  # another browser: nothing stored
    laptop.goto(link)
    laptop.wait_for_function("() => !location.hash")
    assert laptop.url.endswith(f"/m/{match_id}")
    assert laptop.evaluate(f"() => localStorage.getItem('hokm.token.{match_id}')") == token

    def same_table() -> bool:
        view = http(gateway, "GET", f"/api/matches/{match_id}/view", token=token)["view"]
        return (state(laptop).get("seat") == str(view["seat"])
                and sorted(hand(laptop)) == sorted(view["hand"]))

    assert wait_for(same_table, 30, what="the seat's table on the other device")
