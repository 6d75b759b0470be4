"""The room's ``turn_timeout`` in the browser: a player at the table (the page open, its socket
alive) who does not act sees, once fewer than 20 s of their turn are left, "A stand-in plays
in N s" beside "Your turn: play a card"; when the time is up the seat's stand-in makes the move
and the page says so (the finding: a player who walked away with the tab in front held the table for
good); the seat's next turn, given only the grace, says why its clock is short."""

from __future__ import annotations

import re
from typing import Any

import pytest

from .helpers import http, open_table, state, wait_my_turn
from .test_agent import SUIT_NAME, card_name

pytestmark = pytest.mark.browser

COUNTDOWN = re.compile(r"A stand-in plays in (\d+) s")
GRACE_COUNTDOWN = re.compile(r"A stand-in plays in \d+ s \(your last turn ran out: 10 s a turn "
                             r"until you play\)")


@pytest.mark.timeout(180)
def test_the_countdown_shows_and_the_stand_in_is_told(new_client: Any, gateway: str) -> None:
    # two humans (the other one over HTTP only: seated, away, and played for by its own
    # stand-in after a second) and two bots; a limit of ten seconds, so the countdown shows
    # from the start of the player's turn
    created = http(gateway, "POST", "/api/matches",
                   {"seats": ["human", "human", "bot:easy", "bot:easy"], "name": "Here",
                    "rules": {"teams": "as_seated"}, "disconnect_timeout": 1,
                    "turn_timeout": 10})
    match_id, token, seat = created["match_id"], created["token"], created["seat"]
    http(gateway, "POST", f"/api/matches/{match_id}/join", {"name": "Other"})
    page = open_table(new_client().page, match_id, token)
    wait_my_turn(page, timeout=60_000)
    version = int(state(page)["version"])
    limit = page.locator("#turn-limit")
    limit.wait_for(state="visible", timeout=15_000)
    shown = COUNTDOWN.fullmatch(limit.inner_text())
    assert shown and 0 < int(shown.group(1)) <= 10, limit.inner_text()
    # nobody acts: the stand-in makes the move, the seat stays the player's, and the page
    # tells the player (the countdown gone)
    toast = page.locator("#toast").filter(has_text="Your time was up")
    toast.wait_for(timeout=45_000)
    records = http(gateway, "GET", f"/api/matches/{match_id}/events?since={version}",
                   token=token)["events"]
    assert records[0]["actor"] == seat and records[0]["stand_in"] is True
    # the toast names the move: the card played, or the trump named
    move = next(e for e in records[0]["events"] if e["type"] in ("card_played", "trump_chosen"))
    did = (f"played the {card_name(move['card'])}" if move["type"] == "card_played"
           else f"chose {SUIT_NAME[move['suit']].capitalize()} as trump")
    assert toast.inner_text() == f"Your time was up: a stand-in {did} for you."
    view = http(gateway, "GET", f"/api/matches/{match_id}/view", token=token)["view"]
    assert view["seat"] == seat and view["seats"][seat]["bot"] is None
    # the seat's next turn gets only the grace (here the room's 10 s, shorter than 15 s) and
    # its countdown says why it is short (QA: the next turn's short clock read as a defect)
    page.wait_for_function(
        "v => { const d = document.querySelector('.table-page')?.dataset;"
        " return !!d && d.myTurn === 'true' && Number(d.version) > v; }",
        arg=version + 1, timeout=60_000)
    limit.wait_for(state="visible", timeout=15_000)
    assert GRACE_COUNTDOWN.fullmatch(limit.inner_text()), limit.inner_text()


def two_human_room(gateway: str, turn_timeout: int,
                   disconnect_timeout: int = 1) -> tuple[str, str]:
    """A room of two humans (the second joined by the API) and two bots, seated as joined,
    with ``turn_timeout`` and ``disconnect_timeout``: its id and the first player's token."""
    created = http(gateway, "POST", "/api/matches",
                   {"seats": ["human", "human", "bot:easy", "bot:easy"], "name": "Here",
                    "rules": {"teams": "as_seated"}, "disconnect_timeout": disconnect_timeout,
                    "turn_timeout": turn_timeout})
    match_id, token = created["match_id"], created["token"]
    http(gateway, "POST", f"/api/matches/{match_id}/join", {"name": "Other"})
    return match_id, token


@pytest.mark.timeout(180)
def test_more_time_by_keyboard_gives_the_full_limit_once(new_client: Any, gateway: str) -> None:
    """WCAG 2.2.1: beside the countdown a "More time" button (reached and pressed by keyboard,
    named by its text) gives the turn the room's full limit again, once: it goes for the turn,
    the seat's turn limit says so, and no stand-in plays at the turn's first deadline."""
    match_id, token = two_human_room(gateway, 19)
    page = open_table(new_client().page, match_id, token)
    wait_my_turn(page, timeout=60_000)
    version = int(state(page)["version"])
    page.locator("#turn-limit").wait_for(state="visible", timeout=15_000)
    more = page.get_by_role("button", name="More time")
    more.wait_for(state="visible", timeout=5_000)
    assert "More time" in (more.get_attribute("aria-label") or more.inner_text())
    more.focus()  # a button: in the tab order
    assert page.evaluate("() => document.activeElement.id") == "more-time"
    before = http(gateway, "GET", f"/api/matches/{match_id}/view", token=token)["turn_limit"]
    page.keyboard.press("Enter")
    more.wait_for(state="hidden", timeout=5_000)
    page.locator("#announce p").filter(
        has_text=re.compile(r"You have more time: \d+ s\.")).first.wait_for(
        state="attached", timeout=5_000)
    after = http(gateway, "GET", f"/api/matches/{match_id}/view", token=token)
    assert after["version"] == version and after["turn_limit"]["extended"] is True
    assert after["turn_limit"]["left_ms"] > before["left_ms"]
    # the countdown runs on (under 20 s) without the button: once a turn
    page.locator("#turn-limit").wait_for(state="visible", timeout=5_000)
    assert more.is_hidden()


PHONE_HURRIED_JS = """
() => {
  const page = document.querySelector('.table-page'), limit = document.getElementById('turn-limit');
  if (page?.dataset.myTurn !== 'true' || page.dataset.phase !== 'playing' || !limit
      || limit.hidden || !document.getElementById('more-time').checkVisibility()) return null;
  const cards = [...document.querySelectorAll('.hand-cards button.card')];
  const out = cards.filter((e) => {
    const r = e.getBoundingClientRect();
    return r.top < 0 || r.bottom > innerHeight || r.left < 0 || r.right > innerWidth;
  }).map((e) => `${e.dataset.card} at ${e.getBoundingClientRect().top | 0}` +
    `-${e.getBoundingClientRect().bottom | 0} (screen ${innerHeight})`);
  const status = document.getElementById('turn-status').innerText + ' | ' + limit.innerText;
  return { cards: cards.length, out, status };
}
"""
"""At the player's card turn with the countdown and "More time" showing (the page not
scrolled): the cards of the hand out of the screen, and the status line with the countdown."""

TOAST_OVER_CARDS_JS = """
() => {
  const box = document.getElementById('toast-box');
  if (!box?.classList.contains('show')) return null;
  const covered = [];
  for (const y of [0, document.documentElement.scrollHeight]) {  // the top, then the hand in view
    scrollTo(0, y);
    const t = box.getBoundingClientRect();
    for (const c of document.querySelectorAll('.hand-cards button.card')) {
      const r = c.getBoundingClientRect();
      if (r.left < t.right && t.left < r.right && r.top < t.bottom && t.top < r.bottom)
        covered.push(`${c.dataset.card} (scrolled to ${scrollY | 0})`);
    }
  }
  return covered;
}
"""
"""While a toast shows: the hand's cards its box overlaps, the page scrolled to the top and to
the bottom (the hand in view)."""


@pytest.mark.timeout(180)
@pytest.mark.parametrize("lang, locale, your_turn", [
    ("en", "en-US", "Your turn"), ("fa", "fa-IR", "نوبت شما")])
def test_on_a_small_phone_the_countdown_and_the_toast_leave_the_hand_in_view(
        new_client: Any, gateway: str, shots: Any, lang: str, locale: str,
        your_turn: str) -> None:
    """QA M5: on a 375x667 phone the countdown and "More time" pushed the hand down by a
    hundred pixels (its second row off the screen at the very moment the player is hurried),
    the status said "Your turn" twice, and the stand-in's toast, fixed at the bottom, covered
    most of the cards.  Now every card stays on the screen with the countdown showing, "Your
    turn" is said once, and the toast's box meets no card."""
    match_id, token = two_human_room(gateway, 10)  # the countdown shows from a turn's start
    page = open_table(new_client(viewport={"width": 375, "height": 667}, locale=locale).page,
                      match_id, token)
    seen = page.wait_for_function(PHONE_HURRIED_JS, timeout=90_000).json_value()
    page.screenshot(path=str(shots / f"phone-countdown-375-{lang}.png"))
    assert seen["cards"] > 0 and not seen["out"], seen
    assert seen["status"].count(your_turn) == 1, seen
    # nobody acts: the stand-in plays and says so in a toast
    page.locator("#toast").filter(has_text=re.compile(".")).wait_for(timeout=45_000)
    covered = page.evaluate(TOAST_OVER_CARDS_JS)
    page.screenshot(path=str(shots / f"phone-toast-375-{lang}.png"))
    assert covered == [], covered


# A WebSocket that never opens (the page retries it now and then): the page has only what it
# asks over HTTP.
NO_SOCKET = """window.WebSocket = class { constructor() { this.readyState = 0; } send() {}
  close() {} }; window.WebSocket.OPEN = 1;"""


@pytest.mark.timeout(180)
def test_a_page_without_its_socket_shows_the_countdown_from_its_first_view(
        new_client: Any, gateway: str) -> None:
    """The player's first page keeps the seat's socket (the turn's deadline is set and told
    there); a second page of the seat whose socket never opens shows the same countdown from
    the view it loads over HTTP (``turn_limit`` in ``GET /view``)."""
    match_id, token = two_human_room(gateway, 19)
    first = open_table(new_client().page, match_id, token)
    wait_my_turn(first, timeout=60_000)
    first.locator("#turn-limit").wait_for(state="visible", timeout=15_000)
    version = state(first)["version"]
    c = new_client()
    c.page.add_init_script(NO_SOCKET)
    second = open_table(c.page, match_id, token)
    wait_my_turn(second, timeout=15_000)
    assert state(second)["version"] == version
    limit = second.locator("#turn-limit")
    limit.wait_for(state="visible", timeout=15_000)
    shown = COUNTDOWN.fullmatch(limit.inner_text())
    assert shown and 0 < int(shown.group(1)) <= 19, limit.inner_text()


AWAY_LIMITS = {"After 30 seconds": 30, "After 1 minute": 60, "After 5 minutes": 300,
               "Never (the table waits)": 0}
"""The start page's choices of the room's ``disconnect_timeout`` (English labels), in order."""


@pytest.mark.parametrize("choice, seconds, away, away_seconds", [
    (None, 90, None, 60), ("No limit", 0, "After 30 seconds", 30),
    ("3 minutes", 180, "Never (the table waits)", 0), ("1 minute", 60, "After 5 minutes", 300)])
def test_the_room_form_sets_the_turn_and_away_limits(
        new_client: Any, gateway: str, choice: str | None, seconds: int, away: str | None,
        away_seconds: int) -> None:
    """The start page's room form offers the room's turn limit (90 s unless changed; "No
    limit" for a relaxed table) and how long an away player's seat waits for its stand-in (1
    minute unless changed; "Never" waits for the player), and sends both with the room: the
    public summary of the room created says each choice."""
    page = new_client().page
    page.goto("/")
    page.get_by_label("Your name").fill("Host")
    page.get_by_label("Seat 3").select_option("human")
    field = page.get_by_label("Turn limit")
    assert field.input_value() == "90"
    away_field = page.get_by_label("Stand-in for an away player")
    assert away_field.input_value() == "60"
    assert away_field.locator("option").all_inner_texts() == list(AWAY_LIMITS)
    assert away_field.locator("option").evaluate_all("os => os.map((o) => Number(o.value))") \
        == list(AWAY_LIMITS.values())
    if choice is not None:
        field.select_option(label=choice)
    if away is not None:
        away_field.select_option(label=away)
    page.get_by_role("button", name="Create the room").click()
    page.wait_for_url(re.compile(r"/m/[\w-]+$"))
    match_id = page.url.rstrip("/").rsplit("/", 1)[-1]
    summary = http(gateway, "GET", f"/api/matches/{match_id}")
    assert (summary["turn_timeout"], summary["disconnect_timeout"]) == (seconds, away_seconds)
