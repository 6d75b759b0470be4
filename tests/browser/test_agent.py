"""An AI agent in a browser (seed 000): a whole match played from an invite link to the match
result using only the accessibility tree, as a browser-driving agent or a screen reader meets
the page: elements are found by role and accessible name (``get_by_role``) and read from the
tree (``aria_snapshot``); no CSS selector, no test id, no ``data-*`` attribute, no script.

At each of its decisions the agent reads the trick on the table and the score, and they must be
what the server's public view says (followed beside it with the client library, as a
spectator); it names trump when it is Hakem; at the end it reads the result."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from hokmclient import NO_LIMITS, Client, LocalServer, Seat, card_text
from hokmclient.cards import RANKS, SUITS

from tests.conftest import wait_for

from .conftest import DESKTOP

pytestmark = pytest.mark.browser

RANK_NAME = {"A": "Ace", "K": "King", "Q": "Queen", "J": "Jack", "T": "Ten", "9": "Nine",
             "8": "Eight", "7": "Seven", "6": "Six", "5": "Five", "4": "Four", "3": "Three",
             "2": "Two"}
SUIT_NAME = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
NAMED = re.compile(r'^\s*- \'?(\w+) "(.*)"')


def card_name(card: str) -> str:
    """How the page names a card to assistive technology: "Queen of hearts"."""
    return f"{RANK_NAME[card[0]]} of {SUIT_NAME[card[1]]}"


def named(locator: Any, role: str, timeout: float | None = None) -> list[str]:
    """The accessible names of the ``role`` nodes under ``locator``, read from its tree."""
    return [m.group(2) for line in locator.aria_snapshot(timeout=timeout).splitlines()
            if (m := NAMED.match(line)) and m.group(1) == role]


def rows(table: Any) -> dict[str, list[str]]:
    """A table's rows by their header: "Us" -> ["Us", tricks, points]."""
    return {name.split()[0]: name.split() for name in named(table, "row")}


@pytest.fixture(scope="module")
def stacked() -> Iterator[str]:
    """A server of this test's own that takes a stacked first deal, so the agent is the first
    Hakem (the session's gateway, as a player meets it, does not)."""
    with LocalServer(env={**NO_LIMITS, "HOKM_ALLOW_STACKED_DECKS": "1"},
                     cwd=Path(__file__).resolve().parents[2]) as server:
        yield server.url


def test_an_agent_plays_a_whole_match_by_roles_and_names(new_client: Any, stacked: str) -> None:
    client = Client(stacked)
    rng = random.Random(7)
    # seat 1 is left open for the agent and is the first Hakem: it must name trump
    created = client.create(seats=["human", "human", "bot:easy", "bot:easy"], name="Host",
                            rules={"target": 7}, first_hakem=1,
                            decks=[partner_sweeps(rng) for _ in range(4)])
    client.leave(created["match_id"], created["token"], "bot:easy")
    agent = new_client(viewport=DESKTOP)
    page = agent.page
    page.goto(created["invite_url"])
    page.get_by_role("textbox", name="Your name").fill("Agent")
    page.get_by_role("button", name="Take a seat").click()
    table = page.get_by_role("region", name="Hokm table")
    table.wait_for()
    hand = table.get_by_role("group", name=re.compile(r"^Your hand"))
    playable = hand.get_by_role("button", disabled=False)
    choose = table.get_by_role("region", name="Choose trump")
    over = table.get_by_role("heading", name=re.compile(r"^You (won|lost) the match"))
    trick_list = table.get_by_role("list", name="Cards on the table")
    score = table.get_by_role("table", name=re.compile(r"^Playing to 7 points"))
    turn = table.get_by_role("status", name="Turn")
    with Seat.spectate(created["invite_url"]) as watcher:
        me = watcher.wait(lambda v: "Agent" in [s["name"] for s in v["seats"]], timeout=30)
        seat = [s["name"] for s in me["seats"]].index("Agent")
        ours, theirs = seat % 2, 1 - seat % 2
        trumps = cards = 0
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            playable.first.or_(choose).or_(over).first.wait_for(timeout=60_000)
            if over.is_visible():
                break
            view = watcher.wait(lambda v: v["turn"] == seat or v["phase"] == "choosing_trump",
                                timeout=30)
            if choose.is_visible():
                suits = choose.get_by_role("button", disabled=False)
                try:
                    suit = named(choose, "button", timeout=5000)[0]
                    suits.first.click(timeout=5000)
                except (PlaywrightTimeout, IndexError):
                    # the panel went away (or was emptied) while the agent looked (the page
                    # moved on to a newer view): look again; the count of trump choices is
                    # checked at the end
                    continue
                trumps += 1
                watcher.wait(lambda v, s=suit: (v["trump"] or "") and SUIT_NAME[v["trump"]]
                             == s.lower(), timeout=30)
                continue
            # the agent reads what is on the table and the score: the server's public view
            expected = sorted(f"{name_of(view, p['seat'])}: {card_name(p['card'])}"
                              for p in view["trick"])
            wait_for(lambda e=expected: sorted(
                n for n in named(trick_list, "listitem") if ": " in n) == e, 10, 0.05,
                f"the trick read as {expected} "
                f"({[card_text(p['card']) for p in view['trick']]})",
                lambda: named(trick_list, "listitem"))
            wanted = {"Us": ["Us", str(view["tricks"][ours]), str(view["score"][ours])],
                      "Them": ["Them", str(view["tricks"][theirs]), str(view["score"][theirs])]}
            wait_for(lambda w=wanted: {k: rows(score).get(k) for k in w} == w, 10, 0.05,
                     f"the score rows {wanted}", lambda: rows(score))
            assert "Your turn" in turn.inner_text()
            held = f"Your hand, {view['hand_counts'][seat]} cards"  # public: the count only
            wait_for(lambda h=held: h in named(table, "group"), 10, 0.05, f"a group {held!r}",
                     lambda: named(table, "group"))
            before = view["version"]
            playable.first.click()
            cards += 1
            watcher.wait(lambda v, b=before: v["version"] > b, timeout=30)
        else:
            raise AssertionError("the match did not end in time")
        final = watcher.wait(lambda v: v["phase"] == "match_over", timeout=30)
    won = final["winner"] == ours
    assert over.inner_text() == ("You won the match!" if won else "You lost the match")
    # the score as the page shows it once it has caught up (its views are paced: a CI run read
    # the table while it was drawn again, empty, as the match-over panel came up)
    expected = {"Us": str(final["score"][ours]), "Them": str(final["score"][theirs])}

    def points() -> dict[str, str]:
        return {k: v[2] for k, v in rows(score).items() if k in ("Us", "Them")}

    wait_for(lambda: points() == expected, 10, 0.05, f"the points {expected}", points)
    # four kots of seven tricks with the agent as Hakem: it named trump four times and played
    # seven cards a round
    assert won and final["score"][ours] == 8
    assert seat == 1 and trumps == hakems(client, created["match_id"]).count(seat) == 4
    assert cards == 28


def partner_sweeps(rng: random.Random) -> list[str]:
    """A deck that deals every spade to seat 3, the partner of the agent (seat 1, the Hakem):
    the agent names spades (its first choice), leads the first trick, the partner trumps it
    and then leads spades to the seventh trick, so every round is a kot of seven tricks and
    at every later decision the agent reads two cards on the table.  Four such rounds make
    the match (2 points each).  Dealing order: docs/api.md (Hakem ``h`` = 1, seat 3 is
    ``h+2``: ``deck[10:15]``, ``deck[28:32]``, ``deck[44:48]``)."""
    spades = [r + "S" for r in RANKS]
    others = [r + s for s in SUITS if s != "S" for r in RANKS]
    rng.shuffle(spades)
    rng.shuffle(others)
    partner = [*range(10, 15), *range(28, 32), *range(44, 48)]
    deck = [""] * 52
    for at, card in zip(partner, spades, strict=True):
        deck[at] = card
    rest = iter(others)
    return [card or next(rest) for card in deck]


def name_of(view: dict[str, Any], seat: int) -> str:
    return str(view["seats"][seat]["name"])


def hakems(client: Client, match_id: str) -> list[int]:
    """The Hakem of every round of the finished match (from its public records)."""
    records = client.events(match_id, 0)["events"]
    return [e["hakem"] for r in records for e in r["events"] if e["type"] == "round_started"]
