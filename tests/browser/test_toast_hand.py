"""The toast never covers the player's hand, and "More time" stays one line (QA: on the desktop
table the toast, fixed at the bottom, could lie over the cards; on a 375x667 phone the Persian
label of "More time" wrapped onto two lines).  The toast goes to the side of the screen away
from the hand (``ui.js``, ``toastAvoid``), wherever the page is scrolled; both are measured
with bounding boxes at the Hakem's trump choice, with the countdown and "More time" showing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import wait_for

from .helpers import http, open_table
from .test_a11y_toast import strings
from .test_turn_limit import two_human_room

pytestmark = pytest.mark.browser

TOAST_OVER_HAND_JS = """
async (text) => {
  const { toast } = await import('/static/ui.js');
  toast(text, 600000);
  const frames = () => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)));
  const hand = document.querySelector('section.hand');
  const box = document.getElementById('toast-box');
  const out = [];
  const where = [['top', () => scrollTo(0, 0)],
    ['hand in view', () => hand.scrollIntoView({ block: 'nearest' })],
    ['hand centred', () => hand.scrollIntoView({ block: 'center' })],
    ['bottom', () => scrollTo(0, document.documentElement.scrollHeight)]];
  for (const [name, go] of where) {
    go();
    await frames();
    const t = box.getBoundingClientRect(), r = hand.getBoundingClientRect();
    const seen = Math.min(r.bottom, innerHeight) - Math.max(r.top, 0);
    if (seen > 0 && r.left < t.right && t.left < r.right && r.top < t.bottom && t.top < r.bottom)
      out.push(`${name}: toast ${t.top | 0}-${t.bottom | 0} over ${r.top | 0}-${r.bottom | 0}`);
  }
  return { covered: out, shown: box.classList.contains('show'), height: innerHeight };
}
"""
"""Show a toast of ``text`` and, with the page scrolled to the top, the hand in view, the hand
in the middle and the bottom: where the toast's box lies over the hand's (while any of the hand
is on the screen)."""

ONE_LINE_JS = """
(countdowns) => {
  const b = document.getElementById('more-time'), limit = document.getElementById('turn-limit');
  const shown = limit.textContent;
  const out = [];
  for (const text of countdowns) {  // every countdown the label may stand beside
    limit.textContent = text;
    const range = document.createRange();
    range.selectNodeContents(b);
    const rects = [...range.getClientRects()].filter((r) => r.width > 0);
    const lines = new Set(rects.map((r) => Math.round(r.top))).size;
    const cs = getComputedStyle(b), box = b.getBoundingClientRect();
    const pad = parseFloat(cs.paddingTop) + parseFloat(cs.paddingBottom)
      + parseFloat(cs.borderTopWidth) + parseFloat(cs.borderBottomWidth);
    const line = Math.max(...rects.map((r) => r.height));
    const c = limit.getBoundingClientRect();
    // one line: one row of text, the button less than two lines high inside its padding, and
    // beside the countdown (in its row), not pushed under it
    const oneLine = lines === 1 && box.height - pad < 2 * line;
    const beside = box.top < c.bottom && c.top < box.bottom;
    if (!oneLine || !beside || box.left < 0 || box.right > innerWidth)
      out.push(`beside "${text}": ${lines} line(s), ${box.height | 0} px high at ` +
        `${box.top | 0} (the countdown ${c.top | 0}-${c.bottom | 0}), ` +
        `${box.left | 0}-${box.right | 0} of ${innerWidth}`);
  }
  limit.textContent = shown;
  return { text: b.textContent, out };
}
"""
"""The "More time" button beside each countdown in ``countdowns`` (the label's texts): where
its label takes more than one line or goes under the countdown (the box wrapped: in Persian on
a 375 px phone "More time" went to a line of its own), or the button leaves the screen."""

HURRIED_JS = """
() => {
  const page = document.querySelector('.table-page'), limit = document.getElementById('turn-limit');
  return page?.dataset.myTurn === 'true' && page.dataset.phase === 'choosing_trump'
    && document.querySelectorAll('.hand-cards button.card').length > 0 && limit && !limit.hidden
    && document.getElementById('more-time').checkVisibility();
}
"""
"""The Hakem at the trump choice, its five cards shown, with the countdown and "More time"."""


def hakem_room(gateway: str) -> tuple[str, str]:
    """A room of two humans and two bots (``two_human_room``, a turn limit of 19 s: the
    countdown shows from the turn's start; no away stand-in, which would name trump for the
    player before the page opens) whose ace draw made the first player the Hakem:
    its id and that player's token.  (The draw is the server's: rooms are made until one
    does, 60 at most; the chance that none does is (3/4)^60, about 3 in a million.)"""
    def dealt(match_id: str, token: str) -> dict[str, Any] | None:
        view = http(gateway, "GET", f"/api/matches/{match_id}/view", token=token)["view"]
        return dict(view) if view["phase"] != "waiting" else None

    for _ in range(60):
        match_id, token = two_human_room(gateway, 19, disconnect_timeout=0)
        view = wait_for(lambda m=match_id, t=token: dealt(m, t), timeout=30,
                        what="the ace draw")
        if view["phase"] == "choosing_trump" and view["turn"] == view["seat"]:
            return match_id, token
    raise AssertionError("no room of 60 made its first player the Hakem")


@pytest.mark.timeout(180)
@pytest.mark.parametrize("viewport, lang, locale", [
    ({"width": 1280, "height": 800}, "en", "en-US"),
    ({"width": 375, "height": 667}, "fa", "fa-IR"),
], ids=["desktop-en", "phone-fa"])
def test_the_toast_keeps_off_the_hand_and_more_time_is_one_line(
        new_client: Any, gateway: str, shots: Any, viewport: dict[str, int], lang: str,
        locale: str) -> None:
    """At the trump choice (the Hakem's five cards low on the screen, under the choice of suit)
    with the countdown showing: "More time" is one line beside every countdown, and a long
    toast keeps off the hand wherever the page is scrolled."""
    match_id, token = hakem_room(gateway)
    page = open_table(new_client(viewport=viewport, locale=locale).page, match_id, token)
    page.wait_for_function(HURRIED_JS, timeout=30_000)
    words = strings(lang)
    countdowns = [words["limit.countdown"].replace("{s}", str(s)) for s in range(1, 20)]
    label = page.evaluate(ONE_LINE_JS, countdowns)
    assert label["text"] == words["limit.more_time"] and label["out"] == [], label
    # a long message (the longest of the table's toasts), as a toast comes at any moment
    found = page.evaluate(TOAST_OVER_HAND_JS, words["leave.busy"].replace("{n}", "60"))
    page.screenshot(path=str(shots / f"toast-hand-{viewport['width']}-{lang}.png"))
    assert found["shown"] and found["covered"] == [], json.dumps(found, ensure_ascii=False)
