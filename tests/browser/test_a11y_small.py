"""Small screens: a phone held upright (360 x 640) and sideways (640 x 360)."""

from __future__ import annotations

from typing import Any

import pytest

from .test_a11y_play import finished_with_token

pytestmark = pytest.mark.browser

PHONES = {"upright": {"width": 360, "height": 640}, "sideways": {"width": 640, "height": 360}}


@pytest.mark.timeout(180)
def test_the_match_over_panel_fits_a_phone_upright_and_sideways(
        new_client: Any, gateway: str) -> None:
    match_id, token = finished_with_token(gateway)
    for how, viewport in PHONES.items():
        page = new_client(viewport=viewport).page
        page.goto("/")
        page.evaluate("([id, tok]) => localStorage.setItem(`hokm.token.${id}`, tok)",
                      [match_id, token])
        page.goto(f"/m/{match_id}")
        page.locator(".banner.over #watch-replay").wait_for()
        seen = page.evaluate("""() => ({
          panel: document.querySelector('.banner.over').getBoundingClientRect().height,
          screen: innerHeight,
          wide: document.documentElement.scrollWidth - document.documentElement.clientWidth,
          // a button's label on one line: no taller than its one-line minimum (44 px)
          tall: [...document.querySelectorAll('.banner.over .actions .button')]
            .filter((b) => b.getBoundingClientRect().height > 50).map((b) => b.textContent) })""")
        # the heading and every button of the panel in sight at once, nothing sideways
        assert seen["panel"] <= seen["screen"], (how, seen)
        assert seen["wide"] <= 0, (how, seen)
        assert not seen["tall"], (how, seen)
        assert page.locator(".banner.over .actions .button").count() == 4, how
