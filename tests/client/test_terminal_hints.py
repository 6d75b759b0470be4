"""``?`` in ``hokm play`` asks for a hint (rules.md, "Hints for learners"; the browser had them,
the terminal did not): at the seat's turn the message names the suggestion as the screen names
it, gives the server's English reason and the hints left, and the selection moves to it; with
the three used, or when it is not the seat's turn, a line says so (no traceback)."""

from __future__ import annotations

from typing import Any

from hokmclient import Client, LocalServer, card_text, my_turn
from hokmclient.cards import SUIT_NAME, SUIT_SYMBOL
from hokmplay.app import HINTS_AGAIN, hint_text
from tests.conftest import wait_for

from .test_play_terminal import HOKM, selected, shows, solo_in_terminal
from .test_terminal_narrow import until, words
from .tmux import Terminal

EXHAUSTED = HINTS_AGAIN


def my_turn_on_screen(client: Client, mid: str, token: str, term: Terminal) -> dict[str, Any]:
    """Wait for the seat's next decision and for the screen to show it; the view."""
    view: dict[str, Any] = wait_for(
        lambda: (v := client.view(mid, token)["view"]) and my_turn(v) and v,
        timeout=60, what="the seat's turn")
    until(term, lambda s: shows(s, view), f"the screen showing version {view['version']}")
    return view


def ask_and_play(client: Client, mid: str, token: str, term: Terminal, since: int,
                 left: int) -> None:
    """At the seat's turn: ``?`` shows the server's hint (suggestion, reason, ``left``) and
    selects it; Enter makes the hinted move."""
    view = my_turn_on_screen(client, mid, token, term)
    advice = client.hint(mid, token, since)  # (asking does not use a hint: deciding does)
    suggestion = str(advice["suggestion"])
    named = (f"choose {SUIT_SYMBOL[suggestion]} {SUIT_NAME[suggestion]} as trump"
             if view["phase"] == "choosing_trump" else f"play {card_text(suggestion)}")
    legal = list(view["legal"])
    if len(legal) > 1 and legal[selected(term.screen(), view)] == suggestion:
        term.keys("Right")  # away from the suggestion, for ? to move the selection back
        until(term, lambda s: legal[selected(s, view)] != suggestion, "another choice selected")
    term.type("?")
    screen = until(term, lambda s: f"Hint: {named}." in words(s), "the hint on the screen")
    said = words(screen)
    assert advice["reason"] and words(advice["reason"]) in said, (advice, screen)
    assert f"({left} hint{'' if left == 1 else 's'} left)" in said, screen
    assert "?: hint" in said, screen  # the keys' line lists it
    assert legal[selected(screen, view)] == suggestion, screen  # selected
    assert client.view(mid, token)["view"]["version"] == view["version"]  # nothing was sent
    term.keys("Enter")
    wait_for(lambda: client.view(mid, token)["view"]["version"] > view["version"],
             timeout=30, what="the hinted move being made")
    made = client.events(mid, view["version"], token)["events"][0]["events"][0]
    assert made.get("suit", made.get("card")) == suggestion, made


def test_question_mark_shows_the_hint_selects_it_and_counts_down(
        server: LocalServer, terminal: list[Terminal]) -> None:
    client, mid, token, term = solo_in_terminal(server, terminal, 0, 21)
    since = my_turn_on_screen(client, mid, token, term)["version"]  # the first ? is here
    assert client.view(mid, token)["view"]["phase"] == "choosing_trump"
    ask_and_play(client, mid, token, term, since, 2)  # the trump, as Hakem
    ask_and_play(client, mid, token, term, since, 1)  # then cards
    assert "Traceback" not in term.screen()


def test_question_mark_after_three_hinted_decisions_says_none_are_left(
        server: LocalServer, terminal: list[Terminal]) -> None:
    client, mid, token, term = solo_in_terminal(server, terminal, 0, 21)
    since = my_turn_on_screen(client, mid, token, term)["version"]
    for left in (2, 1, 0):
        ask_and_play(client, mid, token, term, since, left)
    view = my_turn_on_screen(client, mid, token, term)
    term.type("?")
    screen = until(term, lambda s: EXHAUSTED in words(s), "the hints exhausted")
    assert "Hint:" not in screen and "Traceback" not in screen, screen
    assert client.view(mid, token)["view"]["version"] == view["version"]  # nothing was sent
    # again: three more hints from here (the browser's Restart hints), still nothing sent
    ask_and_play(client, mid, token, term, view["version"], 2)


def test_question_mark_when_it_is_not_the_seats_turn_says_so(
        server: LocalServer, terminal: list[Terminal]) -> None:
    """A room waiting for its second player: nothing to decide, so no hint, and one line."""
    client = Client(server.url)
    created = client.create(seats=["human", "human", "bot:easy", "bot:easy"], name="Tess")
    term = Terminal([HOKM, "play", created["invite_url"], f"--token={created['token']}"],
                    env={"NO_COLOR": "1"})
    terminal.append(term)
    until(term, lambda s: "Waiting for players" in s, "the room waiting")
    term.type("?")
    screen = until(term, lambda s: "A hint is for your turn: press ? when it is yours."
                   in words(s), "the not-your-turn line")
    assert "Hint:" not in screen and "Traceback" not in screen, screen


def test_the_talon_games_hints_are_named_as_the_screen_names_its_choices() -> None:
    reason = {"reason": "Because.", "remaining": 1}
    assert hint_text({"phase": "drawing"}, {**reason, "suggestion": "keep"}) \
        == "Hint: keep it. Because. (1 hint left)"
    assert hint_text({"phase": "discarding"}, {**reason, "suggestion": "TD 2C"}) \
        == "Hint: lay aside 10♦ 2♣. Because. (1 hint left)"
    assert hint_text({"phase": "choosing_trump"}, {"suggestion": "S", "remaining": 0}) \
        == "Hint: choose ♠ spades as trump. (0 hints left)"
