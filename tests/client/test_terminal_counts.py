"""``hokm play`` names a count of one card in the singular (QA: a match whose last round ended
7-5 left every seat with one card, and the table said "Kian (seat 2, bot) 1 cards").  A match of
four players driven over HTTP (every seat plays its first legal choice, the decks stacked: the
last round ends 7-5), then watched once over: every seat holds "1 card"."""

from __future__ import annotations

import re

from hokmclient import Client, LocalServer

from .test_play_terminal import HOKM, deck, play_until
from .test_terminal_narrow import until
from .tmux import Terminal


def test_one_card_is_one_card_not_one_cards(server: LocalServer,
                                            terminal: list[Terminal]) -> None:
    client = Client(server.url)
    created = client.create(seats=["human"] * 4, name="Ann", first_hakem=0,
                            rules={"teams": "as_seated"},
                            decks=[deck(8 + i) for i in range(30)])
    mid = str(created["match_id"])
    tokens = [str(created["token"])]
    tokens += [str(client.join(mid, name=n)["token"]) for n in ("Bob", "Cy", "Di")]

    play_until(client, mid, tokens, lambda v: v["phase"] == "match_over")
    view = client.view(mid, tokens[0])["view"]
    assert view["result"]["tricks"] in ([7, 5], [5, 7]), view["result"]  # one card each left
    term = Terminal([HOKM, "play", created["invite_url"], "--spectate"], env={"NO_COLOR": "1"})
    terminal.append(term)
    screen = until(term, lambda s: "Match over" in s, "the finished match")
    assert "1 cards" not in screen, screen
    assert len(re.findall(r"\(seat \d[^)]*\) 1 card\b", screen)) == 4, screen
