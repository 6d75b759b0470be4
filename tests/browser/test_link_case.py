"""A match link typed with capitals (a phone capitalises ``/m/abc123`` as ``/m/ABC123``) opens
the match the server made with the lowercase id: pasted into the start page's join field, and
opened as the page's address (the gateway redirects it).  QA: ids differing only in case were
another match for the terminal client and the API."""

from __future__ import annotations

import re
from typing import Any

import pytest

from hokmclient import Client

pytestmark = pytest.mark.browser


def test_a_link_in_capitals_opens_the_match_on_its_lowercase_page(
        new_client: Any, gateway: str) -> None:
    with Client(gateway) as client:
        created = client.create(seats=["human", "human", "bot:easy", "bot:easy"], name="Tess")
    mid = str(created["match_id"])
    page = new_client().page
    page.goto("/")
    page.locator("#join-link").fill(f"{gateway}/m/{mid.upper()}")
    page.locator("#join-link").press("Enter")
    page.wait_for_url(re.compile(rf"/m/{mid}$"))
    page.get_by_role("heading", name="Join the match").wait_for()
    page.get_by_text("There is no match with this link.").wait_for(state="detached")
    # the address itself, opened in capitals: the page of the lowercase id
    page.goto(f"/m/{mid.upper()}?watch=1")
    page.wait_for_url(re.compile(rf"/m/{mid}(\?watch=1)?$"))
    assert mid.upper() not in page.url
