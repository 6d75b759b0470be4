"""What the table says to a screen reader, and how its keys and pauses behave, on a server of
this module's own that takes stacked decks: the player (seat 0) is the first Hakem and holds
every spade, names spades and leads them, so every round is a kot of seven tricks won by the
player, and every round ends with the same result."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hokmclient import NO_LIMITS, Client, LocalServer
from hokmclient.cards import RANKS, SUITS

from .conftest import DESKTOP, FAST_PACE
from .helpers import HAND_ENABLED, RECORDER, SUIT_ENABLED, open_table, recorded, state

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
EN = json.loads((ROOT / "services/gateway/static/i18n/en.json").read_text())


@pytest.fixture(scope="module")
def stacked() -> Iterator[str]:
    """A server that takes stacked decks (the session's gateway, as a player meets it, does not)."""
    with LocalServer(env={**NO_LIMITS, "HOKM_ALLOW_STACKED_DECKS": "1"}, cwd=ROOT) as server:
        yield server.url


def hakem_sweeps() -> list[str]:
    """A deck that deals every spade to the Hakem ``h`` (``deck[0:5]``, ``deck[20:24]``,
    ``deck[36:40]``; docs/api.md "Stacked decks")."""
    spades = [r + "S" for r in RANKS]
    others = iter(r + s for s in SUITS if s != "S" for r in RANKS)
    deck = [""] * 52
    for at, card in zip([*range(0, 5), *range(20, 24), *range(36, 40)], spades, strict=True):
        deck[at] = card
    return [card or next(others) for card in deck]


def sweeping_match(base: str) -> tuple[str, str]:
    """A match of the player (seat 0, the first Hakem, every spade) and three easy bots:
    four kots make it (2 points each, target 7).  Returns the match id and the token."""
    with Client(base) as client:
        created = client.create(seats=["human"] + ["bot:easy"] * 3, name="Tester",
                                rules={"target": 7}, first_hakem=0,
                                decks=[hakem_sweeps() for _ in range(4)])
    return str(created["match_id"]), str(created["token"])


def table(new_client: Any, base: str, lang: str = "en",
          fast: bool = True) -> tuple[Any, str]:
    """The player's table of a new sweeping match, the live region recorded."""
    match_id, token = sweeping_match(base)
    c = new_client(viewport=DESKTOP, fast=fast)
    c.context.add_init_script(RECORDER)
    if lang != "en":
        c.context.add_init_script(f"localStorage.setItem('hokm.lang', '{lang}')")
    page = open_table(c.page, match_id, token, base)
    page.locator(".table-page").wait_for()
    return page, match_id


def play_sweeping(page: Any, timeout: float = 400) -> None:
    """Name spades and play the first playable card (the highest spade) until the match is
    over."""
    deadline = time.monotonic() + timeout
    while state(page).get("phase") != "match_over":
        assert time.monotonic() < deadline, state(page)
        target = page.locator(f"{SUIT_ENABLED}[data-suit='S'], {HAND_ENABLED}").first
        try:
            target.click(timeout=1000)
        except Exception:  # nothing to do yet, or the table moved on meanwhile: look again
            time.sleep(0.05)


def round_results(base: str, match_id: str) -> list[dict[str, Any]]:
    """The result of every round of the match, in order, from its public records."""
    with Client(base) as client:
        records = client.events(match_id, 0)["events"]
    return [e for r in records for e in r["events"] if e["type"] == "round_ended"]


@pytest.mark.timeout(600)
def test_each_round_result_is_said_once_as_the_round_ends(
        new_client: Any, stacked: str) -> None:
    page, match_id = table(new_client, stacked)
    play_sweeping(page)
    page.locator(".banner.over").wait_for()
    results = round_results(stacked, match_id)
    assert len(results) == 4 and len({json.dumps(r) for r in results}) == 1, results
    # the player's side won every round: "Kot: We took seven tricks ... (7–0): 2 points"
    kot = EN["result.kot"].format(team="We", tricks="7–0", points=2)
    at = recorded(page)["at"]
    told = [(line["round"], line["phase"]) for line in at for _ in range(line["text"].count(kot))]
    # once a round, as it ends (the last one with the match)
    assert told == [("1", "round_over"), ("2", "round_over"), ("3", "round_over"),
                    ("4", "match_over")], at
    # the match's result, once
    over = EN["over.won"].format(score="8–0")
    assert sum(line["text"].count(over) for line in at) == 1, at
    # the player hears "you", not their own name (a11y QA: "Tester wins the trick")
    said = " ".join(line["text"] for line in at)
    assert EN["announce.trick_won_you"] in said
    assert EN["announce.trick_won"].format(name="Tester") not in said
    assert EN["announce.five_you"].format(round=2) in said
    assert EN["announce.five"].format(round=2, name="Tester") not in said


@pytest.mark.timeout(120)
def test_reduced_motion_keeps_the_pauses(new_client: Any, stacked: str) -> None:
    """Reduced motion takes the movement away, not the time to read a trick (the pauses were
    multiplied by the tests' pace)."""
    page, _ = table(new_client, stacked, fast=False)  # reduced motion, no pace of the tests
    assert page.evaluate("() => matchMedia('(prefers-reduced-motion: reduce)').matches")
    page.wait_for_function("() => document.querySelector('.table-page').dataset.pace")
    assert state(page)["pace"] == "1"
    fast, _ = table(new_client, stacked)  # the tests' own pace ("hokm.pace")
    fast.wait_for_function("() => document.querySelector('.table-page').dataset.pace")
    assert state(fast)["pace"] == FAST_PACE


def focused(page: Any, attr: str) -> str:
    return str(page.evaluate(f"() => document.activeElement.dataset.{attr}"))


@pytest.mark.timeout(120)
@pytest.mark.parametrize("lang", ["en", "fa"])
def test_arrow_keys_move_between_the_trump_suits(new_client: Any, stacked: str,
                                                  lang: str) -> None:
    """As in the hand: left and right (mirrored right-to-left), down and up, Home and End."""
    page, _ = table(new_client, stacked, lang)
    suits = page.locator(SUIT_ENABLED)
    suits.first.wait_for()
    order = suits.evaluate_all("bs => bs.map(b => b.dataset.suit)")
    last = len(order) - 1
    suits.first.focus()
    on, back = ("ArrowLeft", "ArrowRight") if lang == "fa" else ("ArrowRight", "ArrowLeft")
    for key, at in ((on, 1), ("ArrowDown", 2), ("ArrowUp", 1), (back, 0), (back, last),
                    ("Home", 0), ("End", last)):
        page.keyboard.press(key)
        assert focused(page, "suit") == order[at], key


@pytest.mark.timeout(120)
def test_a_focused_card_has_the_two_tone_ring(new_client: Any, stacked: str) -> None:
    """The yellow outline and the dark ring of every focused control, on a card too (the
    card's own shadow replaced the dark ring)."""
    page, _ = table(new_client, stacked)
    page.locator(f"{SUIT_ENABLED}[data-suit='S']").focus()
    page.keyboard.press("Enter")
    card = page.locator(HAND_ENABLED).first
    card.wait_for()
    card.focus()
    ring = card.evaluate("""b => { const s = getComputedStyle(b);
        return { visible: b.matches(':focus-visible'),
                 outline: s.outlineStyle + ' ' + s.outlineColor, shadow: s.boxShadow }; }""")
    assert ring["visible"], ring
    assert ring["outline"] == "solid rgb(255, 191, 71)", ring
    assert "rgb(0, 0, 0) 0px 0px 0px 5px" in ring["shadow"], ring
