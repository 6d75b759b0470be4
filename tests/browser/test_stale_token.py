"""Browser test: a seat left on the player's other device while this page's socket was away.

QA: once under load a browser test logged a 401.  A socket that opens again (after a restart of
the server, a network gone) with the token of a seat left meanwhile is refused with close code
4401 (api.md: bad token), which says all there is to say; the table asked the view over HTTP
with that token as well, to learn the same thing, and the browser logged that 401 as a console
error.  The close code is taken at its word: the table watches on, no request is refused."""

from __future__ import annotations

import time
from typing import Any

import pytest

from .conftest import DESKTOP
from .helpers import http, noise, open_table
from .test_leave import alone_with_bots, dealt

pytestmark = pytest.mark.browser


@pytest.mark.timeout(120)
def test_a_socket_refused_for_a_seat_left_meanwhile_asks_nothing_more(
        new_client: Any, gateway: str) -> None:
    match_id, token = alone_with_bots(gateway)
    c = new_client(viewport=DESKTOP)
    page = c.page
    sockets: list[Any] = []
    hold: list[bool] = []  # while set, the server's frames do not reach the page

    def route(ws: Any) -> None:
        server = ws.connect_to_server()
        held = not sockets  # the first socket's frames only
        server.on_message(lambda m: None if hold and held else ws.send(m))
        sockets.append(ws)

    page.route_web_socket("**/api/matches/*/ws*", route)
    refused: list[str] = []
    page.on("response", lambda r: refused.append(f"{r.status} {r.url}")
            if r.status >= 400 else None)
    open_table(page, match_id, token)
    seat = dealt(page)
    # the player leaves on the other device while this page hears nothing; then its socket
    # closes (a server restart) and opens again with the token of the seat left
    hold.append(True)
    http(gateway, "POST", f"/api/matches/{match_id}/leave", {"replace_with": "bot:medium"}, token)
    first = len(sockets)
    sockets[-1].close(code=1012, reason="restart")
    page.locator("#toast").filter(has_text="a computer player has your seat").wait_for()
    page.wait_for_function("() => document.querySelector('.table-page')?.dataset.seat === ''")
    assert len(sockets) > first  # (it did open again, and was refused)
    assert page.evaluate(f"() => localStorage.getItem('hokm.token.{match_id}')") is None
    assert refused == [], refused
    summary = http(gateway, "GET", f"/api/matches/{match_id}")
    assert summary["seats"][seat]["bot"] == "medium"


@pytest.mark.timeout(120)
def test_a_start_page_open_while_a_tab_leaves_asks_nothing_of_the_seat_left(
        new_client: Any, gateway: str) -> None:
    """A start page open beside the table checks that the browser's tokens still hold their
    seats (the recent list): one asked while the table's leave was on its way (its answer not
    come yet, the token still stored) was refused with a 401, logged as a console error.  The
    table forgets the token before it sends the leave (and keeps it again if refused)."""
    match_id, token = alone_with_bots(gateway)
    c = new_client(viewport=DESKTOP)
    table = open_table(c.page, match_id, token)
    dealt(table)
    start = c.context.new_page()
    start.on("console", c._console)
    refused: list[str] = []
    start.on("response", lambda r: refused.append(f"{r.status} {r.url}")
             if r.status >= 400 else None)
    start.goto("/")
    item = start.locator(f"#recent-list li[data-match='{match_id}']")
    item.get_by_role("link", name="Back to the table").wait_for()
    held: list[Any] = []
    table.route("**/api/matches/*/leave", lambda route: held.append((route, route.fetch())))
    table.get_by_role("button", name="Leave the table").click()
    table.get_by_role("button", name="Leave and give my seat to a bot").click()
    deadline = time.monotonic() + 15
    while not held:  # the leave done on the server, its answer held back
        assert time.monotonic() < deadline
        table.wait_for_timeout(50)
    # another tab of this browser changes what it remembers: the start page reads it again
    table.evaluate("(id) => localStorage.setItem('hokm.recent', "
                   "JSON.stringify([id, 'zzzzzzzzzzzzzzzz']))", match_id)
    item.get_by_role("link", name="Watch").wait_for()
    route, response = held[0]
    route.fulfill(response=response)
    table.wait_for_function("() => document.querySelector('.table-page')?.dataset.seat === ''")
    assert [r for r in refused if "zzzz" not in r] == [], refused
    c.errors[:] = [e for e in c.errors if "404" not in e]  # (the match that never was)


@pytest.mark.timeout(120)
def test_a_leave_refused_keeps_the_token(new_client: Any, gateway: str) -> None:
    """The token forgotten as the leave is sent is kept again when the leave is refused (429:
    no bots-only slot free): the seat is still the player's, in a reload too."""
    match_id, token = alone_with_bots(gateway)
    c = new_client(viewport=DESKTOP)
    table = open_table(c.page, match_id, token)
    seat = dealt(table)
    table.route("**/api/matches/*/leave", lambda route: route.fulfill(
        status=429, headers={"Retry-After": "60"}, content_type="application/json",
        body='{"error": {"code": "rate_limited", "message": "busy"}}'))
    table.get_by_role("button", name="Leave the table").click()
    table.get_by_role("button", name="Leave and give my seat to a bot").click()
    table.locator("#toast").filter(has_text="You cannot leave yet").wait_for()
    assert table.evaluate(f"() => localStorage.getItem('hokm.token.{match_id}')") == token
    table.reload()
    assert dealt(table) == seat
    c.errors[:] = [e for e in c.errors if "429" not in e]  # (the refusal, logged)


@pytest.mark.timeout(120)
def test_a_table_opened_with_a_dead_token_logs_no_error(new_client: Any, gateway: str) -> None:
    """QA: opening the table with the token of a seat left on another device logged "Failed to
    load resource: the server responded with a status of 401": the page asked its first view
    over HTTP with the dead token.  The first view comes by the socket, whose close code 4401
    says the token holds no seat without a word in the console; the page says the seat is no
    longer valid, and nothing is refused."""
    match_id, token = alone_with_bots(gateway)
    http(gateway, "POST", f"/api/matches/{match_id}/leave", {"replace_with": "bot:medium"}, token)
    c = new_client(viewport=DESKTOP)
    page = c.page
    logged, refused = noise(page)
    open_table(page, match_id, token)
    page.get_by_text("This browser's seat at the match is no longer valid").wait_for()
    page.wait_for_load_state("networkidle")  # (whatever the page asked has been answered)
    assert logged == [], logged
    assert refused == [], refused
    assert page.evaluate(f"() => localStorage.getItem('hokm.token.{match_id}')") is None
