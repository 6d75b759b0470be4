"""Accessibility of the table's looks in the real browser: text zoomed alone (WCAG 1.4.4) and what
colour alone would say (WCAG 1.4.1, 1.4.11)."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import DESKTOP
from .helpers import humans_match, open_table, start_solo, wait_phase

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


# The WCAG contrast ratio of two CSS colours, and the colours behind an element: the first
# ancestor's opaque background colour, or every stop of its gradient (the felt).
CONTRAST_JS = """
window.__lum = (c) => { const [r, g, b] = c.match(/[\\d.]+/g).slice(0, 3).map((x) => {
  const v = Number(x) / 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
window.__ratio = (a, b) => { const [x, y] = [__lum(a), __lum(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05); };
window.__alpha = (c) => { const m = c.match(/[\\d.]+/g); return m.length > 3 ? Number(m[3]) : 1; };
window.__behind = (el) => { for (let e = el.parentElement; e; e = e.parentElement) {
  const s = getComputedStyle(e), stops = s.backgroundImage.match(/rgba?\\([^)]*\\)/g);
  if (stops) return stops;
  if (__alpha(s.backgroundColor) === 1) return [s.backgroundColor]; }
  return ['rgb(255, 255, 255)']; };
window.__worst = (c, el) => Math.min(...__behind(el).map((b) => __ratio(c, b)));
"""


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
