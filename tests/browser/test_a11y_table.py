"""Accessibility of the table's looks in the real browser: text zoomed alone (WCAG 1.4.4) and what
colour alone would say (WCAG 1.4.1, 1.4.11)."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import DESKTOP
from .helpers import start_solo, wait_phase

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
