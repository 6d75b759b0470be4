"""Browser test: a right-to-left player name is bidi-isolated wherever the client puts it
into text, so the words, numbers and Latin text around it keep their order ("علی plays the
7♠" was drawn with the 7 before the name; "Hand of علی 3"...).  Every name is either the whole
text of an isolating element (``<bdi>``, ``dir="auto"``) or wrapped in FSI...PDI
(U+2068...U+2069, ``isolated`` in i18n.js), which the checks below read from the DOM: in the
turn line, the seat labels, the waiting room, the replay's event lines and result, and the
start page's recent matches."""

from __future__ import annotations

import time
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import DESKTOP
from .helpers import finish_humans_match, http, humans_match, open_table, wait_phase

NAMES = ["علی", "رضا", "مریم", "سارا"]

AUDIT = r"""(names) => {
  // each place a name is put into text that is not isolated: [the text, the element's tag]
  const bad = [];
  const isolating = (el) => el && (el.tagName === "BDI"
    || (el.hasAttribute("dir") && el !== document.documentElement));
  const check = (text, el, what) => {
    for (const name of names) {
      let at = text.indexOf(name);
      while (at >= 0) {
        const whole = text.trim() === name && isolating(el);
        const marked = text[at - 1] === "\u2068" && text[at + name.length] === "\u2069";
        if (!whole && !marked) bad.push([what, text, el ? el.tagName + "." + el.className : ""]);
        at = text.indexOf(name, at + 1);
      }
    }
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  let seen = 0;
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (names.some((x) => n.data.includes(x))) seen += 1;
    check(n.data, n.parentElement, "text");
  }
  for (const el of document.body.querySelectorAll("[aria-label],[title]")) {
    for (const attr of ["aria-label", "title"]) {
      const v = el.getAttribute(attr);
      // a label that is the name alone is read as it is: only a name in a sentence counts
      if (v && !names.includes(v.trim())) check(v, null, attr);
    }
  }
  return { bad, seen };
}"""


def audit(page: Any) -> int:
    """Fail on any name not isolated in ``page``; the number of text nodes naming a player."""
    found = page.evaluate(AUDIT, NAMES)
    assert found["bad"] == [], found["bad"]
    return int(found["seen"])


@pytest.mark.timeout(120)
@pytest.mark.parametrize("locale", ["en-US", "fa-IR"])
def test_the_table_isolates_every_name(new_client: Any, gateway: str, locale: str) -> None:
    page = new_client(viewport=DESKTOP, locale=locale).page
    match_id, tokens = humans_match(gateway, 4, NAMES)
    deadline = time.monotonic() + 30  # the ace draw and the deal follow the last join
    while (view := http(gateway, "GET", f"/api/matches/{match_id}/view", token=tokens[0])["view"]
           )["phase"] != "choosing_trump":
        assert time.monotonic() < deadline, view["phase"]
        time.sleep(0.05)
    hakem = view["hakem"]
    seat_of = {}
    for token in tokens:
        seat_of[http(gateway, "GET", f"/api/matches/{match_id}/view", token=token)["view"]["seat"]
                ] = token
    viewer = next(s for s in seat_of if s != hakem)
    open_table(page, match_id, seat_of[viewer])
    wait_phase(page, "choosing_trump")
    who = page.locator("#turn-status .who")
    who.wait_for()
    summary = http(gateway, "GET", f"/api/matches/{match_id}")
    # (expect: each view redraws the turn line, and a style read from the element just
    # replaced is empty, a CI failure)
    expect(who).to_have_text(summary["seats"][hakem]["name"])
    expect(who).to_have_attribute("dir", "auto")
    expect(who).to_have_css("unicode-bidi", "isolate")
    page.locator(".seat .name").first.wait_for()
    assert audit(page) >= 4  # the seat labels, the turn line, the score table...


@pytest.mark.timeout(240)
def test_the_waiting_room_the_replay_and_the_recent_list_isolate_every_name(
        new_client: Any, gateway: str) -> None:
    client = new_client(viewport=DESKTOP)
    page = client.page
    # a room still waiting: its seat list, on the table and on the start page
    created = http(gateway, "POST", "/api/matches", {"seats": ["human"] * 4, "name": NAMES[0]})
    room = str(created["match_id"])
    http(gateway, "POST", f"/api/matches/{room}/join", {"name": NAMES[1]})
    open_table(page, room, str(created["token"]))
    page.locator(".seat-list bdi").first.wait_for()
    assert audit(page) >= 2
    # a finished match: its replay at the end (the result, the event lines) and its analysis
    match_id, by_seat = finish_humans_match(gateway, 4, NAMES)
    page.goto(f"/replay/{match_id}?step=99999")
    page.wait_for_function("() => /\u2068/.test(document.body.textContent)")
    assert audit(page) >= 4
    # the start page's recent matches: the finished one (its winners) and the waiting room
    page.goto("/")
    page.evaluate("([ids, toks]) => { localStorage.setItem('hokm.recent', JSON.stringify(ids));"
                  " ids.forEach((id, i) => localStorage.setItem('hokm.token.' + id, toks[i])); }",
                  [[match_id, room], [by_seat[0], str(created["token"])]])
    page.goto("/")
    page.locator("#recent-list li").nth(1).wait_for()
    page.get_by_text("won by").wait_for()
    page.locator("#recent-list li", has_text="Waiting").wait_for()
    assert audit(page) >= 2
