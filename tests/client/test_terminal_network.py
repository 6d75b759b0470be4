"""``hokm play`` when the server stops answering in the middle of a match (QA: a choice made
while it was down said "Refused (network): POST http://HOST/api/matches/.../commands: All
connection attempts failed", though nothing was refused, and kept saying it once the client
was connected again).  Now the choice says the server does not answer and to choose again once
connected; the words go when the view comes back, and the choice then works.  A hint and
leaving the seat say "the server does not answer" as well."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


from hokmclient import Client, LocalServer
from tests.conftest import wait_for
from tests.hokm_command import HOKM, ROOT

from .proxy import Proxy
from .test_play_terminal import SOLO, deck
from .test_terminal_narrow import until, words
from .tmux import Terminal

NOT_SENT = "The server does not answer: your choice may not have reached it."
SENDING = "Sending… the server does not answer yet: trying again for a few seconds."


def _at_the_choice_of_trump(server: LocalServer, proxy: Proxy,
                            terminal: list[Terminal]) -> tuple[Terminal, Callable[[], Any]]:
    """A solo match whose Hakem is Tess, in ``hokm play`` through ``proxy``, at her choice of
    trump and connected: her terminal, and the trump her view holds, asked of the server."""
    client = Client(server.url)
    created = client.create(seats=SOLO, name="Tess", first_hakem=0, decks=[deck(21)])
    mid, token = str(created["match_id"]), str(created["token"])
    term = Terminal([HOKM, "play", f"{proxy.url}/m/{mid}", f"--token={token}"],
                    env={"NO_COLOR": "1"})
    terminal.append(term)
    until(term, lambda s: "Choose trump: " in s and "● connected" in s, "the choice of trump")
    return term, lambda: client.view(mid, token)["view"]["trump"]


def test_a_choice_while_the_server_is_down_says_so_and_goes_when_back(
        server: LocalServer, proxy: Proxy, terminal: list[Terminal]) -> None:
    term, trump = _at_the_choice_of_trump(server, proxy, terminal)
    proxy.cut()
    until(term, lambda s: "reconnecting" in s, "the header saying the socket is gone")
    # a hint, and leaving the seat, say so too (not the request's method and address)
    term.type("?")
    screen = until(term, lambda s: "No hint: the server does not answer." in words(s),
                   "the hint not answered")
    assert "GET" not in screen and "/api/" not in words(screen), screen
    term.type("L")
    until(term, lambda s: "Press L again to leave" in words(s), "the question to leave")
    term.type("L")
    screen = until(term, lambda s: "You are still seated: the server does not answer."
                   in words(s), "the leave not answered")
    assert "POST" not in screen and "/api/" not in words(screen), screen
    term.type("S")
    term.keys("Enter")
    # said at once, while the client tries (an audit's finding: ~10 s of nothing)
    until(term, lambda s: SENDING in words(s), "the choice being sent")
    screen = until(term, lambda s: NOT_SENT in words(s), "the choice not sent")
    said = words(screen)
    assert "Refused" not in said and "POST" not in said and "/api/" not in said, screen
    assert trump() is None  # nothing arrived
    proxy.restore()
    screen = until(term, lambda s: "● connected" in s and NOT_SENT not in words(s),
                   "the words gone once connected again")
    assert "Choose trump: " in screen, screen
    term.type("S")
    term.keys("Enter")
    wait_for(lambda: trump() == "S", timeout=30,
             what="the trump chosen once back", seen=term.screen)
    assert "Traceback" not in term.history()


def test_a_server_back_without_the_match_ends_hokm_play_in_a_line(
        server: LocalServer, proxy: Proxy, terminal: list[Terminal]) -> None:
    """The server comes back without the match (restarted with its data lost: here the proxy
    goes on to another server): the socket is refused for good (4404), and ``hokm play`` ends
    saying so in a line with status 1 (it said "reconnecting…" for ever)."""
    term, _ = _at_the_choice_of_trump(server, proxy, terminal)
    with LocalServer(cwd=ROOT) as other:
        proxy.target_port = int(other.url.rsplit(":", 1)[1])
        proxy.cut()
        until(term, lambda s: "reconnecting" in s, "the header saying the socket is gone")
        proxy.restore()
        wait_for(lambda: term.exit_status() is not None, timeout=60,
                 what="hokm play ending", seen=term.screen)
    assert term.exit_status() == 1
    said = words(term.history())
    assert "hokm play: there is no such match" in said, said
    assert "Traceback" not in said, said
