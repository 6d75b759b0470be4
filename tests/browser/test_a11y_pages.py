"""Accessibility of the pages around the table (the start page, moving between pages), read from
chromium's own accessibility tree (CDP) where a name or a description is the point."""

from __future__ import annotations

import re
from typing import Any

import pytest

from .conftest import DESKTOP
from .helpers import open_room, start_solo

pytestmark = pytest.mark.browser


def ax(page: Any, selector: str) -> dict[str, str]:
    """The accessible name and description chromium computes for the element at ``selector``."""
    cdp = page.context.new_cdp_session(page)
    try:
        root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
        assert node, f"no {selector}"
        got = cdp.send("Accessibility.getPartialAXTree",
                       {"nodeId": node, "fetchRelatives": False})["nodes"][0]
    finally:
        cdp.detach()
    return {k: " ".join(str(got.get(k, {}).get("value", "")).split())
            for k in ("name", "description")}


def test_the_start_pages_hints_describe_their_fields(new_client: Any) -> None:
    page = new_client(viewport=DESKTOP).page
    page.goto("/")
    page.locator("#r-away").wait_for(state="attached")
    for field in ("player-name", "r-deal", "r-teams", "r-turn", "r-away"):
        hint = page.locator(f"p.hint#{field}-hint").inner_text().strip()
        assert hint, field
        assert ax(page, f"#{field}")["description"] == " ".join(hint.split()), field


def test_a_house_rules_box_is_named_by_the_rule_and_described_once(new_client: Any) -> None:
    page = new_client(viewport=DESKTOP).page
    page.goto("/")
    page.locator("#r-double_sar").wait_for(state="attached")
    for rule, name in (("must_trump", "Must trump"), ("satat", "Satat"), ("bavney", "Bavney"),
                       ("double_sar", "Double sar")):
        desc = " ".join(page.locator(f"#r-{rule}-desc").inner_text().split())
        got = ax(page, f"#r-{rule}")
        assert got == {"name": name, "description": desc}, rule
    # the games' radios are built the same way
    assert ax(page, "#game-three")["name"] == "Three players"


def test_bavney_and_double_sar_say_when_one_unticks_the_other(new_client: Any) -> None:
    page = new_client(viewport=DESKTOP).page
    page.goto("/")
    said = "#announce"
    page.get_by_role("checkbox", name="Bavney").check()
    page.get_by_role("checkbox", name="Double sar").check()
    page.wait_for_function(
        "() => document.querySelector('#announce').textContent.includes("
        "'Bavney was unticked: it cannot be played with Double sar.')", timeout=5_000)
    assert not page.get_by_role("checkbox", name="Bavney").is_checked()
    page.get_by_role("checkbox", name="Bavney").check()
    page.wait_for_function(
        "() => document.querySelector('#announce').textContent.includes("
        "'Double sar was unticked: it cannot be played with Bavney.')", timeout=5_000)
    assert not page.get_by_role("checkbox", name="Double sar").is_checked()
    # unticking or ticking a box alone says nothing
    lines = page.locator(f"{said} p").count()
    page.get_by_role("checkbox", name="Bavney").uncheck()
    page.get_by_role("checkbox", name="Satat").check()
    assert page.locator(f"{said} p").count() == lines


# Buttons and links named by aria-label whose name does not contain the words they show (what is
# aria-hidden is not shown as words: glyphs, card faces).
LABEL_MISMATCHES = """() => [...document.querySelectorAll('button[aria-label], a[aria-label]')]
  .filter((el) => el.getClientRects().length)
  .map((el) => {
    const copy = el.cloneNode(true);
    copy.querySelectorAll('[aria-hidden=true]').forEach((n) => n.remove());
    return [copy.textContent.replace(/\\s+/g, ' ').trim(), el.getAttribute('aria-label')];
  })
  .filter(([shown, name]) => shown && !name.toLowerCase().includes(shown.toLowerCase()))"""


@pytest.mark.parametrize("locale", ["en-US", "fa-IR"])
def test_a_buttons_name_contains_the_words_it_shows(new_client: Any, locale: str) -> None:
    page = new_client(viewport=DESKTOP, locale=locale).page
    page.goto("/")
    page.locator("#brand-link[aria-label]").wait_for(state="attached")
    page.locator("#r-away").wait_for(state="attached")
    assert page.evaluate(LABEL_MISMATCHES) == []
    if locale != "en-US":
        return
    # the waiting room's "Give to a bot" for the open seat (seat 3 by default)
    open_room(page, "Host", {})
    give = page.locator("button[data-bot-seat]")
    give.first.wait_for()
    assert give.evaluate_all("els => els.map(e => e.getAttribute('aria-label'))") == [
        "Give to a bot: Seat 3"]
    assert page.evaluate(LABEL_MISMATCHES) == []


FOCUSED_HEADING = """() => { const ae = document.activeElement;
  return ae && ae.tagName === 'H1' && ae.tabIndex === -1 ? ae.textContent : null; }"""


def test_moving_between_pages_takes_the_focus_to_the_new_pages_heading(new_client: Any) -> None:
    page = new_client(viewport=DESKTOP).page
    page.goto("/")
    start = page.locator("h1").inner_text()
    page.locator("a[data-link][href='/how-to-play']").last.click()
    page.wait_for_url("**/how-to-play")
    # the page's contents (loaded after it opens) leave the focus on its heading
    page.locator("#examples").wait_for()
    page.wait_for_function(f"() => ({FOCUSED_HEADING})() === "
                           "document.querySelector('#howto-h').textContent", timeout=5_000)
    page.go_back()
    page.wait_for_url(lambda u: u.endswith("/"))
    page.wait_for_function(f"t => ({FOCUSED_HEADING})() === t", arg=start, timeout=5_000)
    # the top bar's link too, and the page opened by its address keeps the browser's focus
    page.locator("#nav-howto").click()
    page.wait_for_url("**/how-to-play")
    page.locator("#examples").wait_for()
    page.wait_for_function(f"() => ({FOCUSED_HEADING})() !== null", timeout=5_000)
    page.goto("/how-to-play")
    page.locator("#examples").wait_for()
    assert page.evaluate("() => document.activeElement === document.body")


FOCUS_LOG = """
window.__moves = [];
document.addEventListener('focusin', (e) => {
  const el = e.target;
  window.__moves.push(el.tagName + (el.id ? '#' + el.id : '') + ' ' + el.textContent.trim());
}, true);
"""


def test_entering_a_match_moves_the_focus_once(new_client: Any) -> None:
    """Into a match, the focus goes once, to the page's heading: not first to <main> emptied
    by the page left (the finding: Back from how to play, reached by a click, put it there
    before the table's heading), and not to a heading rebuilt once the join page's summary
    comes."""
    c = new_client(viewport=DESKTOP)
    c.context.add_init_script(FOCUS_LOG)
    page = c.page
    start_solo(page, "Mover")
    match_id = page.url.rstrip("/").rsplit("/", 1)[1]
    table_h1 = page.locator(".table-page h1").text_content()
    page.locator("#nav-howto").click()
    page.locator("#examples").wait_for()
    page.wait_for_function(f"() => ({FOCUSED_HEADING})() !== null", timeout=5_000)
    page.evaluate("() => { window.__moves = []; }")
    page.go_back()  # the browser's Back: no key or pointer press in the page
    page.wait_for_function(f"t => ({FOCUSED_HEADING})() === t", arg=table_h1, timeout=10_000)
    assert page.evaluate("() => window.__moves") == [f"H1 {table_h1}"]
    # a newcomer's way in: the invite link typed on the start page leads to the join page
    other = new_client(viewport=DESKTOP)
    other.context.add_init_script(FOCUS_LOG)
    page = other.page
    page.goto("/")
    page.locator("#join-link").fill(f"/m/{match_id}")
    page.evaluate("() => { window.__moves = []; }")
    page.locator("#join-link").press("Enter")
    page.locator(".join-page .seat-list").wait_for()  # the summary came
    title = page.locator("#join-title").text_content()
    assert title == "Watch the match"  # (every seat is taken)
    page.wait_for_function(f"t => ({FOCUSED_HEADING})() === t", arg=title, timeout=5_000)
    # (the heading, kept when the summary comes, was focused while it read "Join the match")
    assert page.evaluate("() => window.__moves") == ["H1#join-title Join the match"]


def test_taking_a_seat_or_watching_from_the_invite_page_focuses_the_tables_heading(
        new_client: Any) -> None:
    """QA: the table replaces the invite page without a navigation, and the focus was left on
    <body> (a seated friend's until the first turn, a watcher's for good) where the host, who
    arrives by navigation, lands on the table's heading.  Both ways in by keyboard now land
    there too."""
    host = new_client(viewport=DESKTOP).page
    link = open_room(host, "Host", {"Seat 3": "human"})
    table_h1 = host.locator(".table-page h1").text_content()
    friend = new_client(viewport=DESKTOP).page
    friend.goto(link)
    friend.locator("#join-name").fill("Keys")
    friend.locator("#join-name").press("Tab")
    assert friend.evaluate("() => document.activeElement.id") == "take-seat"
    friend.keyboard.press("Enter")
    friend.locator(".table-page").wait_for()
    friend.wait_for_function(f"t => ({FOCUSED_HEADING})() === t", arg=table_h1, timeout=5_000)
    watcher = new_client(viewport=DESKTOP).page
    watcher.goto(link)
    watcher.locator("#watch").focus()
    watcher.keyboard.press("Enter")
    watcher.locator(".table-page").wait_for()
    watcher.wait_for_function(f"t => ({FOCUSED_HEADING})() === t", arg=table_h1, timeout=5_000)


NAMES_JS = """() => [...document.querySelectorAll('[aria-label], [title], [alt]')]
  .flatMap((e) => ['aria-label', 'title', 'alt'].map((a) => e.getAttribute(a)).filter(Boolean))"""
"""Every name given by an attribute on the page (a landmark's, a glyph-only button's)."""


def names_in(page: Any, lang: str) -> set[str]:
    page.goto("/")
    page.wait_for_function("l => document.documentElement.lang === l", arg=lang)
    page.locator("#player-name").wait_for()
    return set(page.evaluate(NAMES_JS))


@pytest.mark.parametrize("locale", ["fa-IR", "de-DE", "sv-SE", "nl-NL", "es-ES"])
def test_the_names_of_the_page_shell_are_in_the_pages_language(new_client: Any,
                                                               locale: str) -> None:
    """QA: the top bar's navigation was named "Main" in every language (index.html's
    aria-label, which the language switch never set): a Persian screen reader said "Main
    navigation" on every page.  No name the start page gives by attribute (the top bar's, the
    toast's dismiss button, the page's own) is left in English in another language."""
    english = names_in(new_client(viewport=DESKTOP).page, "en")
    assert len(english) >= 3, english  # the brand link, the navigation, the dismiss button
    page = new_client(viewport=DESKTOP, locale=locale).page
    assert not names_in(page, locale[:2]) & english
    assert page.get_by_role("navigation").get_attribute("aria-label") not in english


def test_the_persian_page_names_the_game_in_persian(new_client: Any) -> None:
    """QA: in Persian the top bar's name of the game, the window's title ("Hokm — نوبت شما")
    and the brand link's name stayed in Latin letters beside "حکم بازی کنید".  They say حکم
    (the brand link's name still contains the words it shows, WCAG 2.5.3); English keeps
    Hokm."""
    page = new_client(viewport=DESKTOP, locale="fa-IR").page
    page.goto("/")
    page.locator("#player-name").wait_for()
    brand = page.locator("#brand-link")
    assert brand.inner_text().split() == ["♠♥", "حکم"]
    assert brand.get_attribute("aria-label") == "حکم، صفحهٔ اصلی"
    assert page.title().startswith("حکم — ") and not re.search("[A-Za-z]", page.title())
    page.get_by_role("link", name="آموزش بازی").first.click()
    page.wait_for_url("**/how-to-play")
    page.wait_for_function("() => document.title.startsWith('حکم — ')")
    page.locator("#lang-select").select_option("en")
    page.wait_for_function("() => document.title === 'Hokm — How to play'")
    assert brand.inner_text().split() == ["♠♥", "Hokm"]


def test_the_waiting_room_does_not_count_cards_nobody_holds(new_client: Any) -> None:
    """QA: in the waiting room every seat, the open ones too, was read "Open seat, 0 cards"
    ("Kian, Bot · Medium, 0 cards"): nobody holds a card before the deal.  A seat says its
    cards once there are cards to count."""
    page = new_client(viewport=DESKTOP).page
    open_room(page, "Host", {})
    page.locator(".table-page[data-phase=waiting]").wait_for()
    seats = page.locator(".board .seat:not([hidden])")
    assert seats.count() == 4
    texts = seats.evaluate_all("els => els.map((e) => e.textContent)")
    assert not [x for x in texts if "cards" in x], texts
