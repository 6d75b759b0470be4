"""Toasts (the page's transient notices: an error, "link copied", a stand-in's move) can be
dismissed and paused (WCAG 2.2.1, 1.4.13): a dismiss button beside the message, reached with
the pointer and with Tab, and Escape from anywhere; at least ``TOAST_MIN_MS`` on screen, and not
timed out while the pointer or the focus is on the button.  The live region (``#toast``) still
holds the message alone, so what a screen reader says is unchanged.  Timers run on Playwright's
clock (``page.clock``): no test waits for a toast's seconds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import DESKTOP

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
I18N = ROOT / "services/gateway/static/i18n"
LANGS = ("en", "de", "sv", "nl", "es", "fa")
TOAST_MIN_MS = 8000
"""ui.js's ``TOAST_MIN_MS``: the least a toast stays."""


def strings(code: str) -> dict[str, str]:
    return dict(json.loads((I18N / f"{code}.json").read_text(encoding="utf-8")))


def start_page(new_client: Any, lang: str = "en") -> Any:
    c = new_client(viewport=DESKTOP)
    if lang != "en":
        c.context.add_init_script(f"localStorage.setItem('hokm.lang', '{lang}')")
    page = c.page
    page.clock.install()
    page.goto("/")
    page.locator("#join-link").wait_for()
    return page


def bad_link(page: Any) -> str:
    """Submit a join link that is no link: the start page's toast; returns its text."""
    page.locator("#join-link").fill("?")
    page.locator("#join-link").press("Enter")
    page.locator("#toast-box.show").wait_for()
    return str(page.locator("#toast").text_content())


def shown(page: Any) -> bool:
    return bool(page.evaluate("() => document.getElementById('toast-box').classList"
                              ".contains('show')"))


def gone(page: Any) -> None:
    """The toast is hidden: no message in the live region, the button out of the tab order."""
    assert not shown(page)
    assert page.locator("#toast").text_content() == ""
    assert page.locator("#toast-close").is_hidden()


def test_a_toast_is_dismissed_with_escape_the_keyboard_or_the_pointer(new_client: Any) -> None:
    page = start_page(new_client)
    message = bad_link(page)
    en = strings("en")
    assert message == en["start.join_invalid"]
    # what a screen reader reads is the message alone: the button is outside every live region
    assert page.evaluate("() => !document.getElementById('toast-close')"
                         ".closest('[aria-live], [role=status], [role=log], [role=alert]')")
    assert page.get_by_role("button", name=en["toast.dismiss"]).is_visible()
    # Escape, wherever the focus is (here the field the page put it back on): it stays there
    assert page.evaluate("() => document.activeElement.id") == "join-link"
    page.keyboard.press("Escape")
    gone(page)
    assert page.evaluate("() => document.activeElement.id") == "join-link"
    # the keyboard: Tab reaches the button; Enter dismisses, and the focus goes back
    bad_link(page)
    before = None
    for _ in range(80):
        if page.evaluate("() => document.activeElement.id") == "toast-close":
            break
        before = page.evaluate("() => document.activeElement.outerHTML")
        page.keyboard.press("Tab")
    else:
        raise AssertionError("Tab never reached the dismiss button")
    page.keyboard.press("Enter")
    gone(page)
    assert page.evaluate("() => document.activeElement.outerHTML") == before
    # the pointer
    bad_link(page)
    page.locator("#toast-close").click()
    gone(page)


def test_a_toast_stays_long_enough_and_waits_while_the_pointer_is_on_it(
        new_client: Any) -> None:
    page = start_page(new_client)
    bad_link(page)
    page.clock.run_for(TOAST_MIN_MS - 500)
    assert shown(page)  # (it was 4.5 s)
    page.clock.run_for(1000)
    gone(page)
    bad_link(page)
    page.locator("#toast-close").hover()
    page.clock.run_for(10 * TOAST_MIN_MS)
    assert shown(page)  # held while the pointer is on it
    page.mouse.move(5, 5)
    page.clock.run_for(TOAST_MIN_MS - 500)
    assert shown(page)  # its whole time again once the pointer left
    page.clock.run_for(1000)
    gone(page)


@pytest.mark.parametrize("lang", [code for code in LANGS if code != "en"])
def test_the_dismiss_button_is_labelled_in_every_language(new_client: Any, lang: str) -> None:
    label = strings(lang)["toast.dismiss"]
    assert label and label != strings("en")["toast.dismiss"]
    page = start_page(new_client, lang)
    bad_link(page)
    assert page.get_by_role("button", name=label, exact=True).is_visible()
