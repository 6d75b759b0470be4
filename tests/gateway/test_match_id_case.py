"""A match id spelt with capitals (a link typed on a phone: ``/m/ABC123``) names the match the
server made with the lowercase id (QA: the terminal refused such a link as "not a link", the
API answered ``404``).  The API's routes and the socket take it lowercased; a page redirects
to the id as the server made it (its address, stored token and recent entry are the match's
one); anything that is not letters and digits is still ``404 not_found``."""

from __future__ import annotations

from .helpers import SEATS4, Gateway, create, recv


def test_an_id_in_capitals_is_the_match_on_every_route(gw: Gateway) -> None:
    made = create(gw, seats=SEATS4)
    mid, token = made["match_id"], made["token"]
    upper = mid.upper()
    assert upper != mid
    summary = gw.get(f"/api/matches/{upper}")
    assert summary.status_code == 200, summary.text
    assert summary.json()["match_id"] == mid
    view = gw.get(f"/api/matches/{upper}/view", headers={"Authorization": f"Bearer {token}"})
    assert view.status_code == 200 and view.json()["view"]["match_id"] == mid, view.text
    joined = gw.post(f"/api/matches/{upper}/join", json={"name": "Ali"})
    assert joined.status_code == 200 and joined.json()["seat"] == 1, joined.text
    with gw.websocket_connect(f"/api/matches/{upper}/ws?token={token}") as ws:
        frame = recv(ws)
        assert frame["type"] == "view" and frame["view"]["match_id"] == mid, frame
        assert frame["view"]["seat"] == 0
    for bad in ("ABC", "a_b", "%C3%80b", "x" * 65):
        r = gw.get(f"/api/matches/{bad}")
        assert r.status_code == 404 and r.json()["error"]["code"] == "not_found", (bad, r.text)


def test_a_page_in_capitals_redirects_to_the_lowercase_id(gw: Gateway) -> None:
    for page in ("/m/", "/replay/"):
        r = gw.get(f"{page}ABC123", follow_redirects=False)
        assert r.status_code == 308 and r.headers["location"] == f"{page}abc123", r.headers
        r = gw.get(f"{page}aBc9?watch=1", follow_redirects=False)
        assert r.status_code == 308 and r.headers["location"] == f"{page}abc9?watch=1"
        r = gw.get(f"{page}abc123", follow_redirects=False)
        assert r.status_code == 200, r.status_code  # the page itself
