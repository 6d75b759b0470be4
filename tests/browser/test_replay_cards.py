"""The replay viewer names the cards of the talon game and the draw for the first Hakem once the
match is over (laid aside; kept and laid aside in a draw from the talon; every card turned),
in the page's language; while the match is live it shows a seat no more than the replay
endpoint gives it (another seat's laid-aside cards only as a count, its draws without cards).
The three-player game's card out of play is among the deal's facts, and trump is the table's
suit badge (its sign, in its colour, and its name)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from hokmclient import Seat

from .conftest import DESKTOP
from .helpers import http
from .test_analysis import bots_only_match

pytestmark = pytest.mark.browser

SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_EN = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
RANK_EN = {"A": "Ace", "K": "King", "Q": "Queen", "J": "Jack", "T": "Ten", "9": "Nine",
           "8": "Eight", "7": "Seven", "6": "Six", "5": "Five", "4": "Four", "3": "Three",
           "2": "Two"}
PERSIAN = str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")
ANY_CARD = re.compile(r"[♠♥♦♣]|\b(?:spades|hearts|diamonds|clubs)\b")


def face(card: str, lang: str = "en") -> str:
    """A card as the step line writes it: its face ("10♥"), Persian digits in Persian."""
    rank = "10" if card[0] == "T" else card[0]
    return (rank.translate(PERSIAN) if lang == "fa" else rank) + SYMBOL[card[1]]


def faces(cards: list[str], lang: str = "en") -> str:
    return ("، " if lang == "fa" else ", ").join(face(c, lang) for c in cards)


def records(base: str, match_id: str, token: str | None = None) -> list[dict[str, Any]]:
    """The match's records as ``GET /events`` gives them to ``token`` (everything once over)."""
    return list(http(base, "GET", f"/api/matches/{match_id}/events", token=token)["events"])


def first(recs: list[dict[str, Any]], kind: str, **where: Any) -> tuple[int, dict[str, Any]]:
    """The version and the event of the first record holding an event ``kind`` (``where``:
    fields it must have)."""
    for r in recs:
        for e in r["events"]:
            if e["type"] == kind and all(e.get(k) == v for k, v in where.items()):
                return int(r["version"]), e
    raise AssertionError(f"no {kind} {where} among the records")


def step_text(page: Any, match_id: str, version: int) -> str:
    """The step line of the replay at ``version`` (the page opened there)."""
    page.goto(f"/replay/{match_id}?step={version}")
    # the line is filled once the step's answer is shown (a fresh page: this step's)
    page.wait_for_function("() => document.querySelector('#rp-events')?.textContent.trim()")
    assert page.locator("#rp-slider").input_value() == str(version)
    return str(page.locator("#rp-events").inner_text())


@pytest.fixture(scope="module")
def talon_match(gateway: str) -> str:
    return bots_only_match(gateway, 2, two_player="talon")


@pytest.mark.timeout(180)
@pytest.mark.parametrize("lang", ["en", "fa"])
def test_a_finished_talon_match_names_its_talon_and_draw_cards(
        new_client: Any, gateway: str, talon_match: str, lang: str) -> None:
    recs = records(gateway, talon_match)  # a stranger's: the match is over, nothing hidden
    page = new_client(viewport=DESKTOP, locale={"en": "en-US", "fa": "fa-IR"}[lang]).page
    words = {
        "en": ("The ace draw ({}):", "lays aside {}", "keeps {}, lays aside {}"),
        "fa": ("قرعهٔ آس ({}):", "کنار می‌گذارد: {}", "{} را نگه می‌دارد، {} را کنار می‌گذارد"),
    }[lang]
    # the draw for the first Hakem: every card turned, in order
    version, drawn = first(recs, "hakem_drawn")
    said = step_text(page, talon_match, version)
    assert words[0].format(faces([card for _, card in drawn["draw"]], lang)) in said, said
    # each seat's cards laid aside (the Hakem's 3, then the other's 2)
    for seat in (0, 1):
        version, laid = first(recs, "cards_discarded", seat=seat)
        assert isinstance(laid["cards"], list) and len(laid["cards"]) in (2, 3), laid
        said = step_text(page, talon_match, version)
        assert words[1].format(faces(laid["cards"], lang)) in said, said
    # each seat's draw from the talon: the card kept and the one laid aside
    for seat in (0, 1):
        version, drew = first(recs, "talon_drawn", seat=seat)
        said = step_text(page, talon_match, version)
        assert words[2].format(face(drew["kept"], lang), face(drew["discarded"], lang)) in said, (
            said)
        if lang == "en":  # a screen reader hears the cards in words, not the signs' names
            kept = drew["kept"]
            counter = page.locator("#rp-counter").inner_text()
            assert f"{RANK_EN[kept[0]]} of {SUIT_EN[kept[1]]}" in counter, counter


@pytest.mark.timeout(240)
def test_a_seat_of_a_live_talon_match_sees_no_card_of_the_other_seats_talon(
        new_client: Any, gateway: str) -> None:
    with Seat.create(gateway, seats=["human", "bot:easy"], players=2,
                     rules={"players": 2, "two_player": "talon", "target": 7},
                     name="Tester") as seat:
        token = str(seat.created["token"])  # type: ignore[index]
        match_id = seat.match_id
        mine: list[dict[str, Any]] = []
        for view in seat.turns(timeout=60):
            mine = records(gateway, match_id, token)
            bot = [e["type"] for r in mine for e in r["events"]
                   if e["type"] in ("cards_discarded", "talon_drawn") and e["seat"] != view["seat"]]
            own = [e["type"] for r in mine for e in r["events"]
                   if e["type"] == "cards_discarded" and e["seat"] == view["seat"]]
            if {"cards_discarded", "talon_drawn"} <= set(bot) and own:
                break  # the bot laid cards aside and drew, and the seat laid its own aside
            if view["phase"] == "discarding":
                seat.decide(view["hand"][:view["talon"]["discard"]], view)
            elif view["phase"] == "drawing":
                seat.decide("keep", view)
            else:
                seat.decide(view["legal"][0], view)
        me = int(seat.view["seat"])
        assert http(gateway, "GET", f"/api/matches/{match_id}")["phase"] != "match_over"
        page = new_client(viewport=DESKTOP).page
        page.goto("/")
        page.evaluate("([id, tok]) => localStorage.setItem('hokm.token.' + id, tok)",
                      [match_id, token])
        # the bot's talon decisions: what the replay endpoint gives the seat, and no card more
        version, laid = first(mine, "cards_discarded", seat=1 - me)
        answer = http(gateway, "GET", f"/api/matches/{match_id}/replay?step={version}",
                      token=token)
        hidden = [e for e in answer["events"] if e["type"] == "cards_discarded"]
        assert hidden and all(e["cards"] in (2, 3) for e in hidden), answer["events"]
        said = step_text(page, match_id, version)
        assert f"lays {laid['cards']} cards aside" in said, said
        counter = page.locator("#rp-counter").inner_text()
        assert not ANY_CARD.search(said) and not ANY_CARD.search(counter), (said, counter)
        version, drew = first(mine, "talon_drawn", seat=1 - me)
        assert "kept" not in drew and "discarded" not in drew, drew
        said = step_text(page, match_id, version)
        counter = page.locator("#rp-counter").inner_text()
        assert "draws from the talon" in said and "keeps" not in said, said
        assert not ANY_CARD.search(said) and not ANY_CARD.search(counter), (said, counter)
        # the seat's own cards laid aside are its to see: the endpoint gives them, and so does
        # the page (it shows what it gets, no less)
        version, own = first(mine, "cards_discarded", seat=me)
        assert isinstance(own["cards"], list), own
        said = step_text(page, match_id, version)
        assert f"lays aside {faces(own['cards'])}" in said, said


@pytest.fixture(scope="module")
def three_match(gateway: str) -> str:
    return bots_only_match(gateway, 3)


@pytest.mark.timeout(120)
def test_the_three_player_replay_shows_the_card_out_of_play(
        new_client: Any, gateway: str, three_match: str) -> None:
    page = new_client(viewport=DESKTOP).page
    version, _ = first(records(gateway, three_match), "trump_chosen")
    step_text(page, three_match, version)
    removed = page.locator("#rp-removed")
    removed.wait_for()
    assert removed.inner_text().startswith("2♣"), removed.inner_text()
    term = page.locator("dl.facts dt").filter(has_text="Out of play")
    assert term.count() == 1
    # the four-player game takes no card out: no such line
    four = bots_only_match(gateway, 4)
    step_text(page, four, 1)
    assert page.locator("#rp-removed").count() == 0
    assert page.locator("dl.facts dt").filter(has_text="Out of play").count() == 0


@pytest.mark.timeout(120)
def test_the_replay_shows_trump_as_the_tables_suit_badge(
        new_client: Any, gateway: str, three_match: str) -> None:
    version, chosen = first(records(gateway, three_match), "trump_chosen")
    suit = chosen["suit"]
    page = new_client(viewport=DESKTOP).page
    step_text(page, three_match, version)
    badge = page.locator("#rp-trump .suit-badge")
    badge.wait_for()
    colour = "red" if suit in "HD" else "black"
    assert colour in (badge.get_attribute("class") or "").split()
    assert badge.inner_text().strip() == f"{SYMBOL[suit]} {SUIT_EN[suit].capitalize()}"
    # the sign is decoration: the badge reads as the suit's name
    assert badge.locator("[aria-hidden='true']").inner_text().strip() == SYMBOL[suit]
