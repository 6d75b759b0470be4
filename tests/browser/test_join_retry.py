"""The page's create and join survive an answer lost to a brief outage: the request is stored
by the server, the page gets ``503 unavailable`` instead of the answer, and it sends the
request again with the same request key (api.js ``requestOnce``), so the player gets the seat
the first try took: one seat, a token that works (docs/api.md, *HTTP*)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from hokmclient import Client

from .helpers import http, start_solo

pytestmark = pytest.mark.browser

UNAVAILABLE = json.dumps({"error": {"code": "unavailable", "message": "the store is away"}})


class LoseFirstAnswer:
    """A route handler: the first request reaches the server (which stores it), and the page
    gets a 503 instead of its answer; the next ones pass.  Keeps each request's body and the
    answer the page never saw."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.lost: dict[str, Any] | None = None

    def __call__(self, route: Any) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        self.bodies.append(json.loads(route.request.post_data or "{}"))
        if self.lost is not None:
            route.continue_()
            return
        answer = route.fetch()
        assert answer.ok, answer.text()
        self.lost = answer.json()
        route.fulfill(status=503, content_type="application/json", body=UNAVAILABLE,
                      headers={"Retry-After": "1"})


def stored_token(page: Any, match_id: str) -> str:
    return str(page.evaluate(f"() => localStorage.getItem('hokm.token.{match_id}')"))


@pytest.mark.timeout(120)
def test_a_join_answered_503_takes_the_seat_it_was_given(new_client: Any, gateway: str
                                                         ) -> None:
    with Client(gateway) as client:
        created = client.create(seats=["human", "human", "bot:easy", "bot:easy"], name="Ali",
                                rules={"target": 7, "teams": "as_seated"})
    match_id = str(created["match_id"])
    c = new_client()
    page = c.page
    lose = LoseFirstAnswer()
    page.route(re.compile(rf".*/api/matches/{match_id}/join$"), lose)
    page.goto(f"/m/{match_id}")
    page.get_by_label("Your name").fill("Cyrus")
    page.get_by_role("button", name="Take a seat").click()
    page.wait_for_selector(".table-page")

    assert lose.lost is not None and len(lose.bodies) == 2  # the finding: one try, an error
    first, again = lose.bodies
    assert first["id"] == again["id"] and re.fullmatch(r"[\w-]{16,64}", first["id"])
    token = stored_token(page, match_id)
    assert token == lose.lost["token"]  # the seat the first try took, with its token
    view = http(gateway, "GET", f"/api/matches/{match_id}/view", token=token)["view"]
    assert view["seat"] == lose.lost["seat"] == 1
    names = [s["name"] for s in http(gateway, "GET", f"/api/matches/{match_id}")["seats"]]
    assert names.count("Cyrus") == 1, names
    # the browser logs the 503 it was given itself: expected here, nothing else
    c.errors[:] = [e for e in c.errors if "Failed to load resource" not in e]


@pytest.mark.timeout(120)
def test_a_solo_create_answered_503_plays_the_match_it_made(new_client: Any,
                                                           gateway: str) -> None:
    c = new_client()
    page = c.page
    lose = LoseFirstAnswer()
    page.route(re.compile(r".*/api/matches$"), lose)
    start_solo(page, "Roya")
    assert lose.lost is not None and len(lose.bodies) == 2
    assert lose.bodies[0]["id"] == lose.bodies[1]["id"]
    match_id = str(lose.lost["match_id"])
    assert page.url.endswith(f"/m/{match_id}")  # the match the first try made, not another
    token = stored_token(page, match_id)
    assert token == lose.lost["token"]
    # the token holds a seat (the ace draw may have moved it from 0), the match one Roya
    view = http(gateway, "GET", f"/api/matches/{match_id}/view", token=token)["view"]
    names = [s["name"] for s in http(gateway, "GET", f"/api/matches/{match_id}")["seats"]]
    assert names.count("Roya") == 1 and names[view["seat"]] == "Roya", names
    c.errors[:] = [e for e in c.errors if "Failed to load resource" not in e]
