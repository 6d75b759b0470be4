"""Accessibility of the table's looks in the real browser: text zoomed alone (WCAG 1.4.4) and what
colour alone would say (WCAG 1.4.1, 1.4.11)."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import DESKTOP
from .helpers import CONTRAST_JS, humans_match, open_table, start_solo, wait_phase

pytestmark = pytest.mark.browser


def test_text_at_200_percent_gives_the_table_no_sideways_scroll(new_client: Any) -> None:
    page = new_client(viewport=DESKTOP).page
    cdp = page.context.new_cdp_session(page)
    # the browser's text size alone at 200 % (as its font settings would), the page not zoomed
    cdp.send("Page.setFontSizes", {"fontSizes": {"standard": 32, "fixed": 26}})
    start_solo(page, "Zoomed")
    wait_phase(page, "choosing_trump", "playing")
    page.locator("table.score tbody tr").first.wait_for()
    page.wait_for_function("() => getComputedStyle(document.querySelector('table.score'))"
                           ".fontSize !== '' && parseFloat(getComputedStyle(document.body)"
                           ".fontSize) >= 32")
    sizes = page.evaluate("""() => { const d = document.documentElement;
      const side = document.querySelector('.table-page .side');
      const score = document.querySelector('table.score');
      return { scroll: d.scrollWidth, client: d.clientWidth,
               side: side.clientWidth, score: score.getBoundingClientRect().width }; }""")
    assert sizes["scroll"] <= sizes["client"], sizes
    assert sizes["score"] <= sizes["side"], sizes


@pytest.mark.timeout(90)
def test_online_and_offline_seats_differ_in_shape_and_contrast(
        new_client: Any, gateway: str) -> None:
    # four human seats, only the first at the table: the three others are offline
    match_id, tokens = humans_match(gateway, 4, ["Host", "Bea", "Cyrus", "Dara"])
    c = new_client(viewport=DESKTOP)
    c.context.add_init_script(CONTRAST_JS)
    page = open_table(c.page, match_id, tokens[0])
    page.locator(".seat .dot.on").first.wait_for()
    page.locator(".seat .dot.off").first.wait_for()
    got = page.evaluate("""() => [...document.querySelectorAll('.seat .dot')].map((d) => {
      const s = getComputedStyle(d), fill = __alpha(s.backgroundColor) === 1;
      return { on: d.classList.contains('on'), filled: fill, behind: __behind(d),
               mark: __worst(fill ? s.backgroundColor : s.borderTopColor, d),
               ring: parseFloat(s.borderTopWidth) }; })""")
    on = [d for d in got if d["on"]]
    off = [d for d in got if not d["on"]]
    assert on and len(off) == 3, got
    # the shape says it: a filled dot for online, a hollow ring for offline
    assert all(d["filled"] for d in on) and not any(d["filled"] for d in off), got
    # and each is seen: 3:1 at least against what is behind it
    assert all(d["mark"] >= 3 for d in got), got
    assert all(d["ring"] >= 2 for d in off), got
