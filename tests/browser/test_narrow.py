"""The narrowest phones (320 px) and the direction of the page.

At 320 x 640 no page scrolls sideways in any of the six languages (the start page, how to
play, tables in play with bots' badges, every level's at a side seat, the Hakem's trump
buttons, the end of a match, the invite page of a finished match, its replay and the
analysis), and no label of the top bar, a button, a badge or a seat is cut or broken in the
middle of a word (the finding: "Gemiddeld", Dutch for medium, broke in a side seat's badge).

The table is a picture of physical seats: the seat after the player in playing order sits to
the right in every language, Persian too.  The replay's step buttons follow the page's
direction (in Persian "first" is on the right, as the slider's start is), and their glyphs are
mirrored with them: each triangle points away from the slider, the bar of first and last on
the outer side."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import DESKTOP
from .helpers import finish_humans_match, http, humans_match, open_table
from .test_analysis import canned_analysis, serve_canned
from .test_layout import hakem_token

pytestmark = pytest.mark.browser

NARROW = {"width": 320, "height": 640}
LOCALES = {"en": "en-US", "fa": "fa-IR", "de": "de-DE", "sv": "sv-SE", "nl": "nl-NL",
           "es": "es-ES"}
NAMES = ["Dara", "Roxana", "Kian", "Shirin"]

LABELS = "button, .button, .badge, .seat, .topnav a, .topnav select"
"""What must show its words whole: every button, badge and seat, the top bar's link and the
language list."""

FIT_JS = """
(labels) => {
  const problems = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > innerWidth) problems.push(`the page is ${doc.scrollWidth}px wide`);
  const say = (el) => `${el.tagName.toLowerCase()}.${[...el.classList].join('.')} ` +
    JSON.stringify(el.textContent.trim().slice(0, 40));
  const shown = [...document.querySelectorAll(labels)].filter((el) => el.getClientRects().length);
  for (const el of shown) {
    const r = el.getBoundingClientRect();
    if (r.left < -0.5 || r.right > innerWidth + 0.5) {
      problems.push(`${say(el)} is off the screen (${r.left | 0} to ${r.right | 0})`);
    }
    if (getComputedStyle(el).display !== 'inline' && el.scrollWidth > el.clientWidth + 1) {
      problems.push(`${say(el)} is cut (${el.scrollWidth} > ${el.clientWidth})`);
    }
    // every word on one line: the boxes of its letters share a line
    const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node; (node = walk.nextNode());) {
      for (const m of node.data.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const boxes = [...range.getClientRects()].filter((b) => b.width && b.height);
        const apart = boxes.some((a) => boxes.some((b) => b.top >= a.bottom - 1));
        if (apart) problems.push(`${say(el)}: "${m[0]}" is broken over two lines`);
      }
    }
  }
  return { problems: [...new Set(problems)], labels: shown.length };
}
"""
"""What does not fit on the page as it is now."""


@pytest.fixture(scope="module")
def matches(gateway: str) -> dict[str, Any]:
    """A finished match of four humans (its tokens and the canned analysis), a room of four
    humans waiting for its Hakem's trump, and two solo matches against bots seated as they
    are (seat 1 on the right, 3 on the left): every level sits at a side seat in one of them."""
    over, tokens = finish_humans_match(gateway, 4, NAMES)
    choosing, seats = humans_match(gateway, 4, NAMES)
    solos = [http(gateway, "POST", "/api/matches", {
        "players": 4, "seats": ["human", *(f"bot:{level}" for level in levels)],
        "rules": {"teams": "as_seated"}, "name": "Dara"})
        for levels in (("medium", "expert", "easy"), ("hard", "medium", "expert"))]
    return {"over": (over, tokens[0]), "analysis": canned_analysis(gateway, over),
            "choosing": (choosing, hakem_token(gateway, choosing, seats)),
            "solos": [(str(solo["match_id"]), str(solo["token"])) for solo in solos]}


def misfits(page: Any, where: str) -> list[str]:
    """What does not fit on ``page`` (``where``: its name in the messages)."""
    seen = page.evaluate(FIT_JS, LABELS)
    assert seen["labels"] > 0, where
    return [f"{where}: {problem}" for problem in seen["problems"]]


@pytest.mark.timeout(240)
@pytest.mark.parametrize("lang", list(LOCALES))
def test_no_page_is_wider_than_a_320px_phone(
        new_client: Any, matches: dict[str, Any], lang: str) -> None:
    page = new_client(viewport=NARROW, locale=LOCALES[lang]).page
    over, over_token = matches["over"]
    problems: list[str] = []
    page.goto("/")
    page.wait_for_function("l => document.documentElement.lang === l", arg=lang)
    page.locator("#lang-select option").first.wait_for(state="attached")
    problems += misfits(page, "the start page")
    page.goto("/how-to-play")
    page.locator(".howto .example").first.wait_for()
    problems += misfits(page, "how to play")
    page.goto(f"/m/{over}")  # no token: the invite page of a finished match
    page.locator(f"a[href^='/replay/{over}']").first.wait_for()
    problems += misfits(page, "a finished match's invite page")
    side_levels = set()
    for solo in matches["solos"]:
        open_table(page, *solo)
        page.wait_for_function("() => document.querySelectorAll('.seat .badge.bot').length === 3"
                               " && document.querySelectorAll('.hand-cards .card').length > 0")
        problems += misfits(page, "a table against bots")
        side_levels.update(page.eval_on_selector_all(
            ".board .seat.pos-left .badge.bot, .board .seat.pos-right .badge.bot",
            "els => els.map((e) => e.title)"))
    assert len(side_levels) == 4, side_levels  # each level's name was in a side seat's badge
    open_table(page, *matches["choosing"])
    page.wait_for_function(
        "() => document.querySelectorAll('.trump-choice button.suit-btn').length === 4")
    problems += misfits(page, "the Hakem's trump choice")
    open_table(page, over, over_token)
    page.locator(".banner.over").wait_for()
    problems += misfits(page, "the end of a match")
    page.goto(f"/replay/{over}?step=40")
    page.locator(".replay .board .seat .name").first.wait_for()
    problems += misfits(page, "the replay")
    serve_canned(page, matches["analysis"], pending=0)
    page.goto(f"/replay/{over}?analysis=1&step=40")
    page.locator("#an-move").wait_for()
    page.locator("svg.an-chart").wait_for()
    problems += misfits(page, "the analysis")
    assert not problems, "\n".join(problems)


SIDES_JS = """
() => {
  const page = document.querySelector('.table-page');
  const me = Number(page.dataset.seat || 0);
  const seats = [...document.querySelectorAll('.board .seat:not([hidden])')];
  const n = seats.length;
  const x = (s) => {
    const r = document.querySelector(`.board .seat[data-seat="${s}"]`).getBoundingClientRect();
    return r.left + r.width / 2;
  };
  return { n, dir: document.documentElement.dir, me: x(me), next: x((me + 1) % n),
    before: x((me + n - 1) % n) };
}
"""
"""Where the player's seat, the next one in playing order and the one before it are drawn (the
middle of each, px from the left)."""


@pytest.mark.timeout(120)
@pytest.mark.parametrize("players", [3, 4])
def test_the_next_seat_sits_to_the_right_in_every_direction(
        new_client: Any, gateway: str, players: int) -> None:
    created = http(gateway, "POST", "/api/matches", {
        "players": players, "seats": ["human"] + ["bot:easy"] * (players - 1),
        "rules": {"players": players}, "name": "Dara"})
    seen = {}
    for lang in ("en", "fa"):
        page = new_client(viewport=DESKTOP, locale=LOCALES[lang]).page
        open_table(page, str(created["match_id"]), str(created["token"]))
        page.wait_for_function(
            "n => document.querySelectorAll('.board .seat:not([hidden]) .name').length === n",
            arg=players)
        seen[lang] = page.evaluate(SIDES_JS)
    assert seen["fa"]["dir"] == "rtl" and seen["en"]["dir"] == "ltr", seen
    for lang, s in seen.items():
        assert s["n"] == players, (lang, s)
        assert s["next"] > s["me"] > s["before"], (lang, s)


GLYPHS_JS = """
() => {
  const slider = document.querySelector('#rp-slider').getBoundingClientRect();
  const middle = slider.left + slider.width / 2;
  const out = {};
  for (const id of ['rp-first', 'rp-prev', 'rp-next', 'rp-last']) {
    const b = document.getElementById(id), r = b.getBoundingClientRect();
    const text = b.querySelector('[aria-hidden]').firstChild;
    const at = (ch) => {
      const i = text.data.indexOf(ch);
      if (i < 0) return null;
      const range = document.createRange();
      range.setStart(text, i);
      range.setEnd(text, i + 1);
      return range.getBoundingClientRect().left;
    };
    const arrow = text.data.includes('◀') ? '◀' : '▶';
    out[id] = { side: r.left + r.width / 2 < middle ? 'left' : 'right', arrow,
      bar: at('|') === null ? null : (at('|') < at(arrow) ? 'left' : 'right') };
  }
  return out;
}
"""
"""For each step button: the side of the slider it is on, the triangle it shows and on which
side of the triangle its bar is drawn."""


@pytest.mark.timeout(120)
def test_the_replays_step_buttons_point_where_they_go(
        new_client: Any, matches: dict[str, Any]) -> None:
    over, _ = matches["over"]
    for lang, first in (("en", "left"), ("fa", "right")):
        page = new_client(viewport=DESKTOP, locale=LOCALES[lang]).page
        page.goto(f"/replay/{over}?step=40")
        page.locator(".replay .board .seat .name").first.wait_for()
        seen = page.evaluate(GLYPHS_JS)
        assert seen["rp-first"]["side"] == seen["rp-prev"]["side"] == first, (lang, seen)
        for b in seen.values():  # the triangle points away from the slider, the bar outside it
            assert b["arrow"] == {"left": "◀", "right": "▶"}[b["side"]], (lang, seen)
        for bid in ("rp-first", "rp-last"):
            assert seen[bid]["bar"] == seen[bid]["side"], (lang, seen)
        assert seen["rp-prev"]["bar"] is None and seen["rp-next"]["bar"] is None, (lang, seen)


LINKS_JS = """() => ['join-link', 'invite-link', 'seat-link']
  .map((id) => document.getElementById(id)).filter(Boolean)
  .map((el) => [el.id, getComputedStyle(el).direction])"""
"""The address fields on the page, each with the direction it reads in."""


def test_an_address_reads_left_to_right_in_a_persian_page(new_client: Any, gateway: str) -> None:
    """QA: in Persian the waiting room's invite link showed "7.0.0.1:8400/m/8e70…", its start
    cut: the field took the page's right-to-left direction.  Every address field (the start
    page's join field, the invite link, the link for another device) reads left to right."""
    page = new_client(viewport=NARROW, locale="fa-IR").page
    page.goto("/")
    page.locator("#join-link").wait_for()
    assert page.evaluate("() => document.documentElement.dir") == "rtl"
    assert page.evaluate(LINKS_JS) == [["join-link", "ltr"]]
    created = http(gateway, "POST", "/api/matches", {
        "players": 4, "seats": ["human", "human", "bot:easy", "bot:easy"], "name": "Dara"})
    open_table(page, str(created["match_id"]), str(created["token"]))
    page.locator("#invite-link").wait_for()
    page.locator("#seat-link").wait_for(state="attached")
    assert page.evaluate(LINKS_JS) == [["invite-link", "ltr"], ["seat-link", "ltr"]]
