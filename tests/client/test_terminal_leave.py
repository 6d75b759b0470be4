"""``hokm play`` leaves the seat to a bot in the middle of a match (QA: the browser had "Leave
the table", the terminal only Ctrl+C, which keeps the seat and holds the table for the away
timeout).  ``L`` asks first (nothing is sent; Esc takes it back), a second ``L`` hands the seat
to a medium bot (``POST .../leave``, ``replace_with``) and ``hokm play`` ends cleanly, saying
so and how to watch on; the token, which no longer works, is not offered to take the seat
back."""

from __future__ import annotations

import pytest

from hokmclient import ApiError, LocalServer
from tests.conftest import wait_for

from .test_play_terminal import solo_in_terminal
from .test_terminal_narrow import until, words
from .tmux import Terminal

ASK = "Press L again to leave"


def test_l_twice_leaves_the_seat_to_a_bot_and_ends(server: LocalServer,
                                                    terminal: list[Terminal]) -> None:
    client, mid, token, term = solo_in_terminal(server, terminal, 0, 21)
    screen = until(term, lambda s: "Choose trump: " in s, "the choice of trump")
    assert "L: leave to a bot" in words(screen), screen  # the keys' line says so
    # the first L asks (and says what happens); nothing is sent
    term.type("L")
    screen = until(term, lambda s: ASK in words(s), "the question")
    assert "a computer player takes your seat" in words(screen), screen
    assert client.summary(mid)["seats"][0]["bot"] is None
    # Esc takes it back: the next L asks again, it does not leave
    term.keys("Escape")
    until(term, lambda s: ASK not in words(s), "the question gone")
    term.type("L")
    until(term, lambda s: ASK in words(s), "the question again")
    assert client.summary(mid)["seats"][0]["bot"] is None and term.exit_status() is None
    # the second L leaves: a medium bot has the seat, hokm play ends and says so
    term.type("L")
    wait_for(lambda: term.exit_status() is not None, timeout=30, what="hokm play ending")
    assert term.exit_status() == 0
    said = words(term.history())
    assert "You left the table: a computer player (medium) has your seat" in said, said
    assert f"hokm play {server.url}/m/{mid} --spectate" in said, said
    assert "--token" not in said and "Traceback" not in said, said
    assert client.summary(mid)["seats"][0]["bot"] == "medium"
    with pytest.raises(ApiError) as refused:  # the token no longer opens the seat
        client.view(mid, token)
    assert refused.value.code == "bad_token", refused.value
