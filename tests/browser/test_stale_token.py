"""Browser test: a seat left on the player's other device while this page's socket was away.

QA: once under load a browser test logged a 401.  A socket that opens again (after a restart of
the server, a network gone) with the token of a seat left meanwhile is refused with close code
4401 (api.md: bad token), which says all there is to say; the table asked the view over HTTP
with that token as well, to learn the same thing, and the browser logged that 401 as a console
error.  The close code is taken at its word: the table watches on, no request is refused."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import DESKTOP
from .helpers import http, open_table
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
