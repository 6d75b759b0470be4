"""The replay's five controls (|◀ ◀ slider ▶ ▶|) stay on one row on a phone (360 to 375 px
wide), in either direction, each inside the page."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.browser

CONTROLS = ("#rp-first", "#rp-prev", "#rp-slider", "#rp-next", "#rp-last")


@pytest.mark.timeout(120)
@pytest.mark.parametrize("width", [360, 375])
@pytest.mark.parametrize("locale", ["en-US", "fa-IR"])
def test_the_replay_controls_keep_to_one_row_on_a_phone(
        new_client: Any, finished_match: str, width: int, locale: str) -> None:
    page = new_client(viewport={"width": width, "height": 740}, locale=locale).page
    page.goto(f"/replay/{finished_match}?step=1")
    page.locator("#rp-slider:not([disabled])").wait_for()
    boxes = [page.locator(sel).bounding_box() for sel in CONTROLS]
    middles = [b["y"] + b["height"] / 2 for b in boxes]
    assert max(middles) - min(middles) < 2, dict(zip(CONTROLS, boxes, strict=True))
    for sel, b in zip(CONTROLS, boxes, strict=True):
        assert b["x"] >= 0 and b["x"] + b["width"] <= width, (sel, b)
        assert b["width"] >= 44 and b["height"] >= 44, (sel, b)  # still a finger's target
    assert boxes[2]["width"] >= 80, boxes[2]  # the slider keeps room to slide
