"""Small screens (a phone held upright, 360 x 640, and sideways, 640 x 360) and what a screen
reader is given of the analysis's graph."""

from __future__ import annotations

from typing import Any

import pytest

from .helpers import play_until, start_solo
from .test_a11y_play import finished_with_token
from .test_analysis import bots_only_match, canned_analysis, serve_canned

pytestmark = pytest.mark.browser

PHONES = {"upright": {"width": 360, "height": 640}, "sideways": {"width": 640, "height": 360}}


@pytest.mark.timeout(180)
def test_the_match_over_panel_fits_a_phone_upright_and_sideways(
        new_client: Any, gateway: str) -> None:
    match_id, token = finished_with_token(gateway)
    for how, viewport, locale in [(how, vp, loc) for how, vp in PHONES.items()
                                  for loc in ("en-US", "de-DE", "fa-IR")]:
        page = new_client(viewport=viewport, locale=locale).page
        page.goto("/")
        page.evaluate("([id, tok]) => localStorage.setItem(`hokm.token.${id}`, tok)",
                      [match_id, token])
        page.goto(f"/m/{match_id}")
        page.locator(".banner.over #watch-replay").wait_for()
        page.wait_for_function("l => document.documentElement.lang === l", arg=locale[:2])
        seen = page.evaluate("""() => ({
          panel: document.querySelector('.banner.over').getBoundingClientRect().height,
          screen: innerHeight,
          wide: document.documentElement.scrollWidth - document.documentElement.clientWidth,
          // a button's label on one line: no taller than its one-line minimum (44 px)
          tall: [...document.querySelectorAll('.banner.over .actions .button')]
            .filter((b) => b.getBoundingClientRect().height > 50).map((b) => b.textContent) })""")
        # the heading and every button of the panel in sight at once, nothing sideways
        assert seen["panel"] <= seen["screen"], (how, locale, seen)
        assert seen["wide"] <= 0, (how, locale, seen)
        assert not seen["tall"], (how, locale, seen)
        assert page.locator(".banner.over .actions .button").count() == 4, (how, locale)


@pytest.mark.timeout(180)
def test_the_graphs_marks_are_seen_not_read_as_the_sliders_content(
        new_client: Any, gateway: str) -> None:
    match_id = bots_only_match(gateway)
    page = new_client(viewport=PHONES["upright"]).page
    serve_canned(page, canned_analysis(gateway, match_id), pending=0)
    page.goto(f"/replay/{match_id}?analysis=1&step=40")
    chart = page.locator("svg.an-chart")
    chart.wait_for()
    assert page.locator("svg.an-chart .an-pt-mark").count() > 0  # the marks are drawn
    # the slider is read by its name and value ("Now: 42% for …"), not as "? ?! ??" (the
    # costly moves' buttons below name each mark's move)
    snap = chart.aria_snapshot()
    assert "?" not in snap, snap
    assert page.get_by_role("slider", name="Round 1").count() == 1
    assert page.locator(".an-costly button.an-jump").count() > 0


# Each time a round's result panel shows: the most lines any of its paragraphs takes.
RESULT_LINES = """
window.__resultLines = [];
document.addEventListener('DOMContentLoaded', () => new MutationObserver(() => {
  const b = document.querySelector('.board > .banner.result:not([hidden])');
  if (!b || !b.querySelector('p')) return;
  const lines = (p) => { const r = document.createRange(); r.selectNodeContents(p);
    return new Set([...r.getClientRects()].map((q) => Math.round(q.bottom))).size; };
  window.__resultLines.push(Math.max(...[...b.querySelectorAll('p')].map(lines)));
}).observe(document.body, { childList: true, subtree: true, attributes: true }));
"""


@pytest.mark.timeout(240)
def test_a_rounds_result_on_a_phone_is_not_broken_word_by_word(new_client: Any) -> None:
    c = new_client(viewport=PHONES["upright"])
    c.context.add_init_script(RESULT_LINES)
    page = c.page
    start_solo(page, "Ana")
    play_until(page, lambda p: p.evaluate("() => window.__resultLines.length > 0"), 180)
    # "They win the round 7–3: 1 point" took three or four lines of the middle column
    lines = page.evaluate("() => window.__resultLines")
    assert max(lines) <= 2, lines
