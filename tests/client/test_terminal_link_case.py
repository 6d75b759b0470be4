"""``hokm play`` with a match link typed in capitals (a phone capitalises ``/m/abc123``): the
server's ids are lowercase, and the link's id is taken lowercased (QA: refused as "not a
link")."""

from __future__ import annotations

from hokmclient import Client, LocalServer

from .test_play_terminal import HOKM, deck
from .test_terminal_narrow import until
from .tmux import Terminal


def test_hokm_play_takes_a_link_in_capitals_as_the_lowercase_match(
        server: LocalServer, terminal: list[Terminal]) -> None:
    """QA: ``hokm play http://HOST/m/ABC123`` (a link a phone capitalised) was refused as "not
    a link"; the server's ids are lowercase, and the link's is taken lowercased."""
    client = Client(server.url)
    created = client.create(seats=["human", "human", "bot:easy", "bot:easy"], name="Tess",
                            first_hakem=1, decks=[deck(21)])
    mid = str(created["match_id"])
    term = Terminal([HOKM, "play", f"{server.url}/m/{mid.upper()}", "--name", "Ali"],
                    env={"NO_COLOR": "1"})
    terminal.append(term)
    screen = until(term, lambda s: "you are seat 1" in s, "Ali's table")
    assert f"match {mid} " in screen, screen
    assert client.summary(mid)["seats"][1]["name"] == "Ali"
