"""Layout: nothing covers the trick or the hand when the player is asked to act (desktop, tablet,
phone), and long names (up to the server's ``MAX_NAME``) fit."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from engine.names import MAX_NAME

from tests.conftest import wait_for

from .conftest import DESKTOP, PHONE
from .helpers import click_one_move, http, humans_match, open_table, state
from .test_toast_hand import hakem_room

pytestmark = pytest.mark.browser

TABLET = {"width": 768, "height": 1024}
LAYOUTS = {"desktop": DESKTOP, "tablet": TABLET, "phone": PHONE}

# On the player's turn: for the trick area, every card of the hand, every trump button and the
# talon game's buttons, the element at its centre (scrolled into view first) must be that element
# or inside it.  Read in one go with the table's state, so the check and the state belong to the
# same rendering.
UNCOVERED_JS = """
() => {
  const page = document.querySelector('.table-page');
  if (!page || page.dataset.myTurn !== 'true') return null;
  const describe = (el) => el ? `${el.tagName.toLowerCase()}.${[...el.classList].join('.')}` +
    (el.closest('.banner') ? ' (in .banner)' : '') : 'nothing';
  const targets = [document.querySelector('.trick'),
    ...document.querySelectorAll(
      '.hand-cards button.card, .trump-choice button.suit-btn, .talon-choice button')];
  const problems = [];
  let hand = 0;
  for (const el of targets) {
    if (!el) { problems.push('no trick area'); continue; }
    el.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    const r = el.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    const hit = document.elementFromPoint(x, y);
    if (el.matches('button.card')) hand++;
    if (!r.width || !r.height || !hit || !(hit === el || el.contains(hit))) {
      problems.push(`${el.dataset.card || el.dataset.suit || 'trick'} at (${x | 0}, ${y | 0}) ` +
        `is covered by ${describe(hit)}`);
    }
  }
  return { version: page.dataset.version, round: Number(page.dataset.round),
    phase: page.dataset.phase, hand,
    status: document.querySelector('#turn-status').textContent, problems };
}
"""


@pytest.mark.timeout(600)
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_nothing_covers_the_trick_or_the_hand_on_the_players_turn(
        new_client: Any, layout: str) -> None:
    # real motion; on the phone (the least room) real pauses too: the ace draw and round
    # results stay up for seconds.  The other two keep the pauses in proportion, at the
    # tests' pace (the same overlaps, in a fraction of the time: a round took ~35 s each)
    c = new_client(viewport=LAYOUTS[layout], reduced=False, fast=layout != "phone")
    page = c.page
    page.goto("/")
    page.get_by_role("button", name="Play solo").click()
    page.wait_for_url(re.compile(r"/m/[\w-]+$"))
    checks: list[dict[str, Any]] = []
    deadline = time.monotonic() + 540
    # a whole first round (ace draw, thirteen tricks, the result) and a decision in the second
    while not (checks and checks[-1]["round"] >= 2) and state(page).get("phase") != "match_over":
        assert time.monotonic() < deadline, f"{layout}: too slow; state {state(page)}"
        seen = page.evaluate(UNCOVERED_JS)
        if seen is not None:
            assert not seen["problems"], (
                f"{layout}, version {seen['version']} ({seen['phase']}, status "
                f"{seen['status']!r}): " + "; ".join(seen["problems"]))
            assert seen["hand"] > 0
            checks.append(seen)
        # a move only after its turn was checked (a turn shown between the look and the
        # click was played unchecked: six checks in a round, a failure under load)
        if seen is None or not click_one_move(page):
            time.sleep(0.05)
    # a round ends when a team has seven tricks: at least seven own decisions came before round 2
    assert len({ch["version"] for ch in checks}) >= 7, checks
    assert checks[-1]["round"] >= 2


LAYOUT_JS = """
() => {
  const names = [...document.querySelectorAll('.seat .name')];
  const bad = [];
  const board = document.querySelector('.board').getBoundingClientRect();
  for (const el of names) {
    const seat = el.closest('.seat').getBoundingClientRect(), r = el.getBoundingClientRect();
    const out = (a, b) => a.left < b.left - 0.5 || a.right > b.right + 0.5;
    if (out(r, seat)) bad.push(`${el.textContent}: out of its seat`);
    if (out(seat, board)) bad.push(`${el.textContent}: its seat is out of the table`);
  }
  return { width: document.documentElement.scrollWidth, bad,
    names: names.map((el) => ({ text: el.textContent, height: el.getBoundingClientRect().height,
      cut: el.scrollWidth > el.clientWidth, overflow: getComputedStyle(el).textOverflow })) };
}
"""


def assert_names_fit(page: Any, long: str, where: str) -> None:
    seen = page.evaluate(LAYOUT_JS)
    assert seen["width"] <= PHONE["width"], f"{where}: the page is {seen['width']}px wide"
    assert not seen["bad"], f"{where}: {seen['bad']}"
    longs = [n for n in seen["names"] if n["text"] == long]
    shorts = [n for n in seen["names"] if len(n["text"]) < 12]
    assert longs and shorts, seen["names"]
    for n in longs:  # on one line like a short name, cut with an ellipsis (the text is whole)
        assert n["cut"] and n["overflow"] == "ellipsis", (where, n)
        assert abs(n["height"] - shorts[0]["height"]) <= 1, (where, n, shorts[0])


@pytest.mark.timeout(180)
def test_name_fields_take_the_servers_longest_name_and_it_fits(
        new_client: Any, gateway: str) -> None:
    long = "W" * MAX_NAME  # the widest letter, and no space to wrap at
    c = new_client(viewport=PHONE)
    page = c.page
    page.goto("/")
    field = page.get_by_label("Your name")
    assert field.evaluate("el => el.maxLength") == MAX_NAME
    field.press_sequentially(long + "WWWWW")  # typed: the browser stops at maxlength
    assert field.input_value() == long
    page.get_by_role("button", name="Play solo").click()  # the server takes it
    page.wait_for_url(re.compile(r"/m/[\w-]+$"))
    page.locator(".seat.me .name").get_by_text(long, exact=True).wait_for()
    assert_names_fit(page, long, "solo")
    # the invite page's field too: a room with an open seat, its host named at the limit as well
    m = http(gateway, "POST", "/api/matches", {
        "players": 4, "seats": ["human", "human", "bot:easy", "bot:easy"], "name": long})
    page.goto(f"/m/{m['match_id']}")
    page.get_by_role("heading", name="Join the match").wait_for()
    join = page.get_by_label("Your name")
    assert join.evaluate("el => el.maxLength") == MAX_NAME
    assert join.input_value() == long  # remembered from the start page
    page.get_by_role("button", name="Take a seat").click()
    page.wait_for_function(
        "n => [...document.querySelectorAll('.seat .name')].filter(e => e.textContent === n)"
        ".length === 2", arg=long)
    assert_names_fit(page, long, "room")


IN_VIEW_JS = """
() => {
  const els = [...document.querySelectorAll(
    '.hand-cards button.card, .trump-choice button.suit-btn')];
  const out = els.filter((e) => {
    const r = e.getBoundingClientRect();
    return r.top < 0 || r.bottom > innerHeight || r.left < 0 || r.right > innerWidth;
  }).map((e) => `${e.dataset.card || e.dataset.suit} at ${e.getBoundingClientRect().top | 0}` +
    `-${e.getBoundingClientRect().bottom | 0} (screen ${innerHeight})`);
  return { out, cards: document.querySelectorAll('.hand-cards button.card').length };
}
"""
"""The hand's cards and the trump buttons that are not wholly on the screen as it is."""


def hakem_token(base: str, match_id: str, tokens: list[str]) -> str:
    """The token of the seat choosing trump, once the first Hakem is drawn."""
    def choosing() -> str | None:
        for token in tokens:
            v = http(base, "GET", f"/api/matches/{match_id}/view", token=token)["view"]
            if v["phase"] == "choosing_trump" and v["turn"] == v["seat"]:
                return token
        return None
    return wait_for(choosing, timeout=30, every=0.1, what="a Hakem choosing trump")


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("players", "viewport"), [
    (2, {"width": 390, "height": 844}), (4, PHONE)], ids=["two-390x844", "four-360x740"])
def test_a_hakem_on_a_phone_sees_the_five_cards_with_the_trump_buttons(
        new_client: Any, gateway: str, players: int, viewport: dict[str, int]) -> None:
    """Choosing trump on a phone, the Hakem's five cards are on the screen with the four suit
    buttons, without scrolling (the empty trick gives up its height meanwhile)."""
    match_id, tokens = humans_match(gateway, players, ["Dara", "Roxana", "Kian", "Shirin"])
    token = hakem_token(gateway, match_id, tokens)
    page = new_client(viewport=viewport).page
    page.goto("/")
    page.evaluate("([id, tok]) => localStorage.setItem('hokm.token.' + id, tok)",
                  [match_id, token])
    page.goto(f"/m/{match_id}")
    page.wait_for_function(
        "() => document.querySelectorAll('.trump-choice button.suit-btn').length === 4"
        " && document.querySelectorAll('.hand-cards button.card').length === 5")
    seen = page.evaluate(IN_VIEW_JS)
    assert seen["cards"] == 5 and not seen["out"], seen
    covered = page.evaluate(UNCOVERED_JS)  # and nothing covers them
    assert covered is not None and not covered["problems"], covered


@pytest.mark.timeout(180)
@pytest.mark.parametrize(("viewport", "locale"), [
    ({"width": 375, "height": 667}, "en-US"), ({"width": 360, "height": 640}, "fa-IR"),
    ({"width": 320, "height": 568}, "en-US"), ({"width": 320, "height": 568}, "es-ES")],
    ids=["375x667-en", "360x640-fa", "320x568-en", "320x568-es"])
def test_a_hakem_on_a_short_phone_sees_the_five_cards_with_the_trump_choice(
        new_client: Any, gateway: str, viewport: dict[str, int], locale: str) -> None:
    """QA: at 375 x 667 the five cards lay under the screen's edge (y 647-709, only their
    corners showing) below the choice of trump.  With two bots at the table (their badges
    make the seats taller) and the countdown showing, on phones shorter than 740 px in
    English and Persian: the five cards and the four suit buttons are wholly on the screen
    without scrolling, and nothing covers them.  At 320 x 568 (an audit: the cards at y
    597-659) the page scrolls down to them, the buttons kept on the screen."""
    match_id, token = hakem_room(gateway)
    page = open_table(new_client(viewport=viewport, locale=locale).page, match_id, token)
    page.wait_for_function(
        "() => document.querySelectorAll('.trump-choice button.suit-btn').length === 4"
        " && document.querySelectorAll('.hand-cards button.card').length === 5")
    if viewport["height"] >= 640:  # (at 320 x 568 the page scrolls to the cards: below)
        assert page.evaluate("() => scrollY") == 0
    else:
        page.wait_for_function("() => document.activeElement.matches('.suit-btn')")
    seen = page.evaluate(IN_VIEW_JS)
    assert seen["cards"] == 5 and not seen["out"], seen
    covered = page.evaluate(UNCOVERED_JS)
    assert covered is not None and not covered["problems"], covered


@pytest.mark.timeout(180)
def test_a_hakem_on_a_laptop_sees_the_five_cards_with_the_trump_choice(
        new_client: Any, gateway: str) -> None:
    """A walkthrough's finding: at 1280 x 800 the five cards lay half below the fold under the
    choice of trump (y 727-829), the empty trick keeping its full height.  The page as it
    opens shows the four suit buttons and the five cards whole, and nothing covers them."""
    match_id, token = hakem_room(gateway)
    page = open_table(new_client(viewport=DESKTOP).page, match_id, token)
    page.wait_for_function(
        "() => document.querySelectorAll('.trump-choice button.suit-btn').length === 4"
        " && document.querySelectorAll('.hand-cards button.card').length === 5")
    seen = page.evaluate(IN_VIEW_JS)
    assert seen["cards"] == 5 and not seen["out"], seen
    covered = page.evaluate(UNCOVERED_JS)
    assert covered is not None and not covered["problems"], covered


@pytest.mark.timeout(180)
def test_the_cards_dealt_after_trump_come_in_from_the_left(new_client: Any, gateway: str
                                                           ) -> None:
    """A walkthrough's finding: the cards dealt in were numbered for their animation from the
    right, so the first cards of the hand (often the ones to play) showed last, about 1.2 s
    after "Your turn".  The eight cards dealt once trump is named come in left to right."""
    match_id, token = hakem_room(gateway)
    page = open_table(new_client(viewport=DESKTOP).page, match_id, token)
    page.locator(".trump-choice button.suit-btn").first.wait_for()
    page.wait_for_function("() => document.querySelectorAll('.hand-cards button.card')"
                           ".length === 5")
    page.locator(".trump-choice button.suit-btn").first.click()
    page.wait_for_function("() => document.querySelectorAll('.hand-cards button.card')"
                           ".length === 13")
    order = page.evaluate("() => [...document.querySelectorAll('.hand-cards button.card')]"
                          ".map((b) => b.style.getPropertyValue('--i')).filter((i) => i !== '')"
                          ".map(Number)")
    assert order == list(range(8)), order


STATUS_AND_HAND_JS = """
() => { const page = document.querySelector('.table-page');
  if (!page || page.dataset.myTurn !== 'true' || page.dataset.phase !== 'playing') return null;
  const bar = document.querySelector('.statusbar').getBoundingClientRect();
  const cards = [...document.querySelectorAll('.hand-cards button.card')]
    .map((b) => b.getBoundingClientRect());
  const hand = document.querySelector('.hand-cards').getBoundingClientRect();
  const focused = document.activeElement.getBoundingClientRect();
  return { version: page.dataset.version, scrollY: Math.round(scrollY), bar: Math.round(bar.top),
    out: cards.filter((r) => r.top < 0 || r.bottom > innerHeight).length, cards: cards.length,
    fits: hand.bottom - bar.top <= innerHeight,
    focusedIn: focused.top >= 0 && focused.bottom <= innerHeight };
}
"""


@pytest.mark.timeout(300)
def test_a_small_phone_keeps_the_status_line_in_sight_at_each_turn(new_client: Any) -> None:
    """A walkthrough's finding: at 320 x 568, from the second turn on the page sat 141 px down
    (the hand scrolled into view), "Your turn" and the countdown above the screen and the top
    seat's card cut.  At each of the player's turns to play, as the page is (nothing scrolled
    by the test), the card to play is on the screen, and wherever the hand fits under the status
    line (from a few tricks on), the status line is too, with every card of the hand."""
    page = new_client(viewport={"width": 320, "height": 568}, locale="de-DE").page
    page.goto("/")
    page.get_by_role("button", name="Allein spielen").click()
    page.wait_for_url(re.compile(r"/m/[\w-]+$"))
    seen: list[dict[str, Any]] = []
    deadline = time.monotonic() + 240
    while sum(1 for now in seen if now["fits"]) < 3:
        assert time.monotonic() < deadline, seen
        now = page.evaluate(STATUS_AND_HAND_JS)
        if now is None or (seen and now["version"] == seen[-1]["version"]):
            if not click_one_move(page):  # (the trump, as Hakem; else nothing to do yet)
                time.sleep(0.05)
            continue
        # (the turn's scrolling is done in the rendering that showed the turn)
        assert now["focusedIn"], seen + [now]
        assert not now["fits"] or (now["bar"] >= 0 and now["out"] == 0), seen + [now]
        seen.append(now)
        click_one_move(page)


LANDSCAPE = {"640x360": {"width": 640, "height": 360}, "844x390": {"width": 844, "height": 390}}

TRICK_IN_VIEW_JS = """
() => { const r = document.querySelector('.trick').getBoundingClientRect();
  return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight ? null
    : `the trick at ${r.top | 0}-${r.bottom | 0} (screen ${innerHeight})`; }
"""
"""Whether the trick's area is wholly on the screen as it is (None) or where it is."""


@pytest.mark.timeout(180)
@pytest.mark.parametrize(("size", "locale"), [("640x360", "en-US"), ("844x390", "fa-IR")])
def test_a_phone_held_sideways_shows_the_trick_and_the_whole_hand_at_once(
        new_client: Any, size: str, locale: str) -> None:
    """QA: at 640 x 360 (a phone held sideways) the player's turn said "Your turn" and showed
    no card: the hand lay at 630-711 px, under the screen's edge, and scrolled down to it the
    trick went off the top.  On the player's turn to play, the page as it opened (not
    scrolled) shows the trick and every card of the hand wholly, and nothing covers them."""
    page = new_client(viewport=LANDSCAPE[size], locale=locale).page
    page.goto("/")
    page.locator("#player-name").fill("Ana")
    page.locator("input[name=level][value=easy]").check()
    page.locator("button.primary").first.click()  # "Play solo", in the page's language
    page.wait_for_url(re.compile(r"/m/[\w-]+$"))

    def to_play() -> bool:  # the first turn to play a card (a trump to name first: named)
        seen = state(page)
        if seen.get("myTurn") == "true" and seen.get("phase") == "playing":
            return True
        if seen.get("phase") == "choosing_trump":
            click_one_move(page)
        return False

    wait_for(to_play, 60, 0.05, what="the player's turn to play a card")
    assert page.evaluate("() => scrollY") == 0
    seen = page.evaluate(IN_VIEW_JS)
    assert seen["cards"] >= 12 and not seen["out"], seen
    assert page.evaluate(TRICK_IN_VIEW_JS) is None
    covered = page.evaluate(UNCOVERED_JS)
    assert covered is not None and not covered["problems"], covered


@pytest.mark.timeout(180)
@pytest.mark.parametrize(("size", "locale"), [("640x360", "de-DE"), ("640x360", "fa-IR")])
def test_a_hakem_on_a_phone_held_sideways_sees_the_five_cards_with_the_trump_choice(
        new_client: Any, gateway: str, size: str, locale: str) -> None:
    """The same sideways, at the trump choice with the countdown showing (German's and
    Persian's instructions are the longest): the five cards and the four suit buttons are
    wholly on the screen without scrolling, and nothing covers them."""
    match_id, token = hakem_room(gateway)
    page = open_table(new_client(viewport=LANDSCAPE[size], locale=locale).page, match_id, token)
    page.wait_for_function(
        "() => document.querySelectorAll('.trump-choice button.suit-btn').length === 4"
        " && document.querySelectorAll('.hand-cards button.card').length === 5")
    page.locator("#turn-limit").wait_for()
    assert page.evaluate("() => scrollY") == 0
    seen = page.evaluate(IN_VIEW_JS)
    assert seen["cards"] == 5 and not seen["out"], seen
    covered = page.evaluate(UNCOVERED_JS)
    assert covered is not None and not covered["problems"], covered
