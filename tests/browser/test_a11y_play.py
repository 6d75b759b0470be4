"""Keyboard and screen-reader use of the table and the replay, in the real browser: what the live
regions say, where the keyboard focus goes, what the accessibility tree exposes."""

from __future__ import annotations

import re
from itertools import pairwise
import time
from typing import Any

import pytest

from hokmclient import Seat

from .conftest import DESKTOP
from tests.conftest import wait_for

from .helpers import (
    HAND_ENABLED, RECORDER, SUIT_ENABLED, recorded, start_solo, state, wait_my_turn,
)

pytestmark = pytest.mark.browser

RANK = "(Ace|King|Queen|Jack|Ten|Two|Three|Four|Five|Six|Seven|Eight|Nine)"
SUIT = "(hearts|spades|diamonds|clubs)"

def solo_table(new_client: Any) -> Any:
    c = new_client(viewport=DESKTOP)
    c.context.add_init_script(RECORDER)
    page = c.page
    start_solo(page, "Ana")
    return page


def keyboard_to_a_card(page: Any) -> None:
    """Wait for the player's turn to play a card; a trump choice on the way is made by keys."""
    deadline = time.monotonic() + 40
    while True:
        wait_my_turn(page)
        if page.locator(HAND_ENABLED).count() and state(page).get("phase") == "playing":
            return
        suits = page.locator(SUIT_ENABLED)
        if suits.count():
            before = state(page)["version"]
            suits.first.focus()
            page.keyboard.press("Enter")
            page.wait_for_function(
                "v => document.querySelector('.table-page').dataset.version !== v", arg=before)
        assert time.monotonic() < deadline, state(page)
        time.sleep(0.05)


@pytest.mark.timeout(180)
def test_a_card_played_by_keyboard_keeps_focus_and_the_others_cards_are_announced(
        new_client: Any) -> None:
    page = solo_table(new_client)
    keyboard_to_a_card(page)
    # the trick lists its cards only, each read once (no blank items, no picture read apart)
    trick = page.locator(".table-page .trick")
    filled = page.locator(".table-page .trick li.filled").count()
    snap = trick.aria_snapshot()
    assert snap.count("listitem") == filled, snap
    assert "img" not in snap, snap
    # the Hakem's crown and the connection's dot are decorative
    assert page.locator(".table-page .badge.hakem").count() == 1
    assert "♛" not in page.locator(".table-page .board").aria_snapshot()
    assert "●" not in page.locator("#conn-status").aria_snapshot()
    # play a card with the keyboard: focus never falls to <body> nor stays on a disabled card
    card = page.locator(HAND_ENABLED).first
    played = card.get_attribute("data-card")
    card.focus()
    page.evaluate("() => { window.__a11y.watch = true; }")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "c => !document.querySelector(`.hand-cards [data-card='${c}']`)", arg=played)
    rec = recorded(page)
    assert not rec["badFocus"], rec["badFocus"]
    assert page.evaluate("() => !!document.activeElement.closest('.hand-cards')")
    # the others' cards are told as the cards are named ("Kian plays the Queen of hearts"), and
    # their turns are not told one by one
    plays = re.compile(rf"^(?!Ana ).+ plays the {RANK} of {SUIT}")

    def told_or_play_on() -> bool:
        """Another's card told yet?  If the turn is Ana's again first (her card took a trick
        whose other cards were on the table before the page's first view: nothing was told),
        she plays on by the keyboard, so the others play."""
        if any(plays.search(s) for s in recorded(page)["said"]):
            return True
        if page.locator(HAND_ENABLED).count() and state(page).get("phase") == "playing":
            page.locator(HAND_ENABLED).first.focus()
            page.keyboard.press("Enter")
            page.wait_for_function("() => !document.querySelector('" + HAND_ENABLED + "')")
        return False

    wait_for(told_or_play_on, 60, 0.05, what="another player's card in the live region")
    said = recorded(page)["said"]
    assert not [s for s in said if "is playing" in s], said
    assert not [s for s in said if s.startswith("Ana plays")], said


def finished_with_token(base: str) -> tuple[str, str]:
    """A solo match played to its end with the client library: its id and the player's token."""
    with Seat.create(base, seats=["human"] + ["bot:easy"] * 3, rules={"target": 7},
                     name="Ana") as seat:
        for view in seat.turns(timeout=60):
            seat.decide(view["legal"][0], view)
        return str(seat.match_id), str(seat.token)


@pytest.mark.timeout(180)
def test_match_over_panel_takes_the_focus(new_client: Any, gateway: str) -> None:
    match_id, token = finished_with_token(gateway)
    c = new_client(viewport=DESKTOP)
    page = c.page
    page.goto("/")
    page.evaluate("([id, tok]) => localStorage.setItem(`hokm.token.${id}`, tok)", [match_id, token])
    page.goto(f"/m/{match_id}")
    page.locator(".banner.over").wait_for()
    page.wait_for_function("() => document.activeElement.closest('.banner.over')")
    assert re.search(r"won|lost", page.evaluate("() => document.activeElement.textContent"))
    page.keyboard.press("Tab")  # a player's likeliest next step first: the next match
    assert page.evaluate("() => document.activeElement.id") == "rematch"
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.id") == "watch-replay"
    # then the analysis: where each round was won or lost (it was reachable only from the
    # start page's list or the replay)
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.id") == "see-analysis"
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(rf"/replay/{match_id}\?analysis=1"))
    assert page.get_by_role("button", name="Hide the analysis").get_attribute(
        "aria-expanded") == "true"


@pytest.mark.timeout(180)
def test_replay_by_keyboard_keeps_focus_and_says_the_move(
        new_client: Any, finished_match: str) -> None:
    c = new_client(viewport=DESKTOP)
    c.context.add_init_script(RECORDER)
    page = c.page
    page.goto(f"/replay/{finished_match}")
    page.wait_for_function("() => /\\d/.test(document.querySelector('#rp-counter')?.textContent)")
    # before the deal the facts say the first round, not "Round 0"
    assert page.locator(".replay .scoreboard h2").inner_text() == "Round 1"
    page.locator("#rp-last").focus()
    page.evaluate("() => { window.__a11y.watch = true; }")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.querySelector('#rp-last').disabled")
    assert page.evaluate("() => document.activeElement.id") == "rp-slider"
    # a crown is not read
    assert page.locator(".replay .badge.hakem").count() == 1
    assert "♛" not in page.locator(".replay .board").aria_snapshot()
    page.locator("#rp-first").focus()
    page.keyboard.press("Enter")
    page.wait_for_function("() => /step=0$/.test(location.search)")
    page.wait_for_function("() => document.querySelector('#rp-first').disabled")
    assert page.evaluate("() => document.activeElement.id") == "rp-slider"
    assert not recorded(page)["badFocus"]
    # the live counter says the move shown, not only its number
    page.keyboard.press("ArrowRight")  # the slider's own key: one step on
    page.wait_for_function("() => /step=1$/.test(location.search)")
    moves = page.locator("#rp-events").inner_text().strip()
    assert moves
    page.wait_for_function("m => document.querySelector('#rp-counter').textContent.includes(m)",
                           arg=moves)
    # an empty place of the trick is not in the tree
    trick = page.locator(".replay .trick").aria_snapshot()
    assert trick.count("listitem") == page.locator(".replay .trick li.filled").count(), trick


@pytest.mark.timeout(60)
def test_language_list_applies_the_choice_on_enter_or_leaving_not_on_each_arrow(
        new_client: Any) -> None:
    c = new_client(viewport=DESKTOP)
    c.context.add_init_script(RECORDER)
    page = c.page
    page.goto("/")
    page.get_by_role("button", name="Play solo").wait_for()
    page.evaluate("() => { window.__a11y.langs = []; }")  # the page's own first setting
    codes = page.eval_on_selector_all("#lang-select option", "os => os.map(o => o.value)")
    start = codes.index(page.evaluate("() => document.documentElement.lang"))
    target = codes[(start + 2) % len(codes)]
    sel = page.locator("#lang-select")
    sel.focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    assert sel.input_value() == target
    page.keyboard.press("Enter")
    page.wait_for_function("t => document.documentElement.lang === t", arg=target)
    # only the chosen language was applied (none of the ones passed on the way)
    assert recorded(page)["langs"] == [target]
    # back by arrows and leaving the list: applied on leaving
    sel.focus()
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")
    page.keyboard.press("Tab")
    page.wait_for_function("t => document.documentElement.lang === t", arg=codes[start])
    assert recorded(page)["langs"] == [target, codes[start]]


HAND_STOPS_JS = """() => [...document.querySelectorAll('.hand-cards button.card:not([disabled])')]
  .filter((b) => b.tabIndex >= 0).map((b) => b.dataset.card)"""
"""The enabled cards of the hand that Tab stops on."""


@pytest.mark.timeout(180)
def test_the_hand_is_one_tab_stop_and_the_arrows_move_within_it(new_client: Any) -> None:
    """QA: every card of the hand was its own Tab stop (13 presses to get past a full hand).
    The hand is one stop (roving tabindex): the card focused last; the arrows move along the
    cards, Tab leaves the hand and Shift+Tab comes back to the same card."""
    page = solo_table(new_client)
    deadline = time.monotonic() + 90
    while True:  # a turn with a choice of cards (one legal card says nothing of the stops)
        keyboard_to_a_card(page)
        if page.locator(HAND_ENABLED).count() >= 2:
            break
        only = page.locator(HAND_ENABLED).first.get_attribute("data-card")
        page.locator(HAND_ENABLED).first.focus()
        page.keyboard.press("Enter")
        page.wait_for_function(
            "c => !document.querySelector(`.hand-cards [data-card='${c}']`)", arg=only)
        assert time.monotonic() < deadline, state(page)
    first = page.locator(HAND_ENABLED).first.get_attribute("data-card")
    assert page.evaluate(HAND_STOPS_JS) == [first]
    page.locator(HAND_ENABLED).first.focus()
    page.keyboard.press("ArrowRight")
    second = page.evaluate("() => document.activeElement.dataset.card")
    assert second != first and second in page.locator(HAND_ENABLED).evaluate_all(
        "els => els.map(e => e.dataset.card)")
    assert page.evaluate(HAND_STOPS_JS) == [second]
    page.keyboard.press("Tab")
    assert page.evaluate("() => !document.activeElement.closest('.hand-cards')")
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("() => document.activeElement.dataset.card") == second


HINT_LOG = """
document.addEventListener('DOMContentLoaded', () => {
  window.__hints = [];
  new MutationObserver((ms) => {
    for (const m of ms) {
      if (!m.target.matches || !m.target.matches('.hint-box') || !m.addedNodes.length) continue;
      window.__hints.push([...m.addedNodes].map((n) => n.textContent).join(' | '));
    }
  }).observe(document.body, { childList: true, subtree: true });
});
"""
"""Installed before every page: each text put into the hint box (a polite live region: what a
screen reader says), in ``window.__hints``."""


def play_a_card_by_keyboard(page: Any) -> None:
    """At the player's turn to play: the first enabled card, by Enter; back when the next
    turn to play comes (the others' cards, several views, between)."""
    keyboard_to_a_card(page)
    card = page.locator(HAND_ENABLED).first
    played = card.get_attribute("data-card")
    card.focus()
    page.keyboard.press("Enter")
    page.wait_for_function(
        "c => !document.querySelector(`.hand-cards [data-card='${c}']`)", arg=played)
    keyboard_to_a_card(page)


@pytest.mark.timeout(180)
def test_the_hint_box_says_its_text_once_not_at_every_view(new_client: Any) -> None:
    """QA: the hints' box is a polite live region, and it was filled anew at every view of
    the table: a screen reader heard "Switch hints on to get a suggestion ..." again after
    every card anyone played (38 times in eight moves), and with hints on "A suggestion
    appears when it is your turn." as often.  A text is put in only when it changes."""
    c = new_client(viewport=DESKTOP)
    c.context.add_init_script(HINT_LOG)
    page = c.page
    start_solo(page, "Ana")
    play_a_card_by_keyboard(page)
    off = page.evaluate("() => window.__hints")
    assert off == ["Switch hints on to get a suggestion for your next three decisions."], off
    page.locator("#hints-toggle").focus()
    page.keyboard.press("Enter")
    page.locator(".hint-box").filter(has_text="Suggestion:").wait_for()
    play_a_card_by_keyboard(page)  # the suggestion, then a wait through the others' cards
    page.locator(".hint-box").filter(has_text="Suggestion:").wait_for()
    said = page.evaluate("() => window.__hints")[len(off):]
    again = [a for a, b in pairwise(said) if a == b]
    assert not again, said
    assert sum("appears when it is your turn" in s for s in said) <= 2, said
