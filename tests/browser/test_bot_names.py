"""The bots' names in the page's script: the server names its bots in Latin letters (``Dara``,
``Roxana``, ``Kian``, ``Shirin``), a label of the table that a Persian page writes in Persian
letters (``bot.<name>`` of i18n/fa.json), wherever a name is shown (the seats, the turn line,
the replay's event lines), from every answer and frame alike (``withBotNames``).  A player's
own name is never changed, even one that is a bot's name."""

from __future__ import annotations

from typing import Any

import pytest

from services.lobby import BOT_NAMES, BOT_NAMES_FA

from .conftest import DESKTOP
from .helpers import http, open_table

pytestmark = pytest.mark.browser


@pytest.mark.timeout(120)
@pytest.mark.parametrize("locale", ["fa-IR", "en-US"])
def test_a_persian_page_writes_the_bots_names_in_persian(
        new_client: Any, gateway: str, locale: str) -> None:
    # the player is named as a bot is in Latin letters: it keeps that name on every page
    created = http(gateway, "POST", "/api/matches", {
        "seats": ["human", "bot:easy", "bot:easy", "bot:easy"], "name": "Dara"})
    summary = http(gateway, "GET", f"/api/matches/{created['match_id']}")
    bots = [s["name"] for i, s in enumerate(summary["seats"]) if i != created["seat"]]
    assert set(bots) <= set(BOT_NAMES) and "Dara" not in bots, bots
    page = new_client(viewport=DESKTOP, locale=locale).page
    open_table(page, str(created["match_id"]), str(created["token"]))
    shown = {"fa-IR": [BOT_NAMES_FA[n] for n in bots], "en-US": bots}[locale]
    page.wait_for_function(
        "(want) => { const got = [...document.querySelectorAll('.seat .name')]"
        ".map((e) => e.textContent); return want.every((n) => got.includes(n)); }",
        arg=shown + ["Dara"])
    text = page.locator("main").inner_text()
    hidden = [n for n in bots if n in text] if locale == "fa-IR" else []
    assert hidden == [], hidden
    # the replay's board too, from the replay's answers (at the last step: the ace draw may
    # have swapped seats since the summary above)
    last = http(gateway, "GET", f"/api/matches/{created['match_id']}")["version"]
    page.goto(f"/replay/{created['match_id']}?step={last}")
    seated = http(gateway, "GET", f"/api/matches/{created['match_id']}/replay?step={last}",
                  token=str(created["token"]))["view"]["seats"]
    now = [s["name"] for s in seated if s["name"] != "Dara"]
    page.wait_for_function(
        "(want) => { const got = [...document.querySelectorAll('.seat-head .name')]"
        ".map((e) => e.textContent); return want.every((n) => got.includes(n)); }",
        arg=[BOT_NAMES_FA[n] if locale == "fa-IR" else n for n in now] + ["Dara"])
    if locale == "fa-IR":
        hidden = [n for n in bots if n in page.locator("main").inner_text()]
        assert hidden == [], hidden
