"""Numbers in the page's language: in Persian every number the client fills into a text (a step,
a round, a score, a seat, a deal) is written in Persian digits, as the fixed texts of fa.json
are; the card faces keep their printed ranks (2 to 10, as on a deck), and are left out here."""

from __future__ import annotations

import re
from typing import Any

import pytest

from .conftest import PHONE
from .helpers import http

pytestmark = pytest.mark.browser

ASCII_DIGITS_JS = """(sel) => {
  const out = [];
  const walk = document.createTreeWalker(document.querySelector(sel), NodeFilter.SHOW_TEXT);
  for (let n; (n = walk.nextNode());) {
    if (n.parentElement.closest('.card, [hidden]')) continue;
    if (/[0-9]/.test(n.textContent)) out.push(n.textContent.trim());
  }
  for (const el of document.querySelectorAll(sel + ' [aria-label], ' + sel + ' [aria-valuetext]'))
    for (const a of ['aria-label', 'aria-valuetext']) {
      const v = el.getAttribute(a);
      if (v && /[0-9]/.test(v) && !el.closest('.card')) out.push('@' + a + ': ' + v);
    }
  return out;
}"""
"""The texts (and accessible names) under ``sel`` with ASCII digits, card faces left out."""


@pytest.mark.timeout(120)
def test_the_persian_replay_writes_its_numbers_in_persian_digits(
        new_client: Any, gateway: str, finished_match: str) -> None:
    last = int(http(gateway, "GET", f"/api/matches/{finished_match}")["version"])
    page = new_client(viewport=PHONE, locale="fa-IR").page
    page.goto(f"/replay/{finished_match}?step={last}")
    page.wait_for_function("() => document.documentElement.dir === 'rtl'")
    page.locator("#rp-counter").get_by_text(re.compile("[۰-۹]+ از [۰-۹]+")).wait_for()
    assert page.evaluate(ASCII_DIGITS_JS, "main") == []


@pytest.mark.timeout(60)
def test_the_persian_start_page_writes_its_numbers_in_persian_digits(new_client: Any) -> None:
    page = new_client(viewport=PHONE, locale="fa-IR").page
    page.goto("/")
    page.wait_for_function("() => document.documentElement.dir === 'rtl'")
    page.locator("#r-deal").wait_for(state="attached")
    labels = page.locator("#r-deal option").evaluate_all("os => os.map(o => o.textContent)")
    assert labels == ["۵-۴-۴", "۵-۳-۳-۲"], labels
    assert page.locator("#r-deal option").evaluate_all("os => os.map(o => o.value)") == [
        "5-4-4", "5-3-3-2"]
    assert page.evaluate(ASCII_DIGITS_JS, "main") == []
