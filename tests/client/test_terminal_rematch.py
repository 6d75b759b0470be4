"""The end of a match in ``hokm play``, as the browser's match-over panel has it: the replay's
link, and a rematch another player asked for (QA: the other player's terminal kept offering
"play again" with no word of the rematch waiting; a spectator of the finished match had no way
to it).  The summary is asked every few seconds (table.js ``lookForRematch``): a player is told
R joins it, a spectator the command that watches it; R refused because the rematch is full
says so in the browser's words, with that command."""

from __future__ import annotations

import os
import subprocess

import pytest

from hokmclient import Client, LocalServer
from tests.conftest import wait_for
from tests.hokm_command import HOKM, ROOT

from .test_terminal_narrow import until, words
from .tmux import Terminal

READY = "A rematch is ready: press R to join it"


def wait_words(term: Terminal, text: str, what: str, timeout: float = 60) -> str:
    def probe() -> str | None:
        said = words(term.screen())
        return said if text in said else None
    try:
        return str(wait_for(probe, timeout=timeout, what=what))
    except AssertionError as failed:
        raise AssertionError(f"{failed}; the screen:\n{term.screen()}") from None


@pytest.mark.timeout(420)
def test_a_rematch_asked_elsewhere_is_offered_and_a_full_one_is_said(
        server: LocalServer, terminal: list[Terminal]) -> None:
    client = Client(server.url)
    created = client.create(seats=["human", "human", "bot:easy", "bot:easy"], name="Tess")
    mid, tess = str(created["match_id"]), str(created["token"])
    ali = str(client.join(mid, name="Ali")["token"])
    # Tess in a terminal, her seat played by a local bot; Ali's by hokm play without one
    term = Terminal([HOKM, "play", created["invite_url"], f"--token={tess}", "--bot", "easy"],
                    env={"NO_COLOR": "1"})
    terminal.append(term)
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOKM_")}
    other = subprocess.Popen([HOKM, "play", created["invite_url"], f"--token={ali}", "--bot",
                              "easy"], env=env, cwd=ROOT, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        over = wait_words(term, "Press R to play again at this table", "the end", timeout=300)
        assert other.wait(timeout=60) == 0
    finally:
        if other.poll() is None:
            other.kill()
    assert f"The replay: hokm replay {server.url}/replay/{mid} (or the link in a browser)" \
        in " ".join(over.split()), over
    assert READY not in over
    # Ali asks for the rematch (the browser's Play again): Tess's terminal offers it
    new = str(client.rematch(mid, ali)["match_id"])
    assert client.summary(mid)["rematch"] == new
    wait_words(term, READY, "the rematch offered")
    # a spectator of the finished match is told how to watch it
    watcher = Terminal([HOKM, "play", f"{server.url}/m/{mid}", "--spectate"],
                       env={"NO_COLOR": "1"})
    terminal.append(watcher)
    wait_words(watcher, f"A rematch is ready: hokm play {server.url}/m/{new} --spectate "
               "watches it.", "the spectator's line")
    # Ali gives Tess's held seat to a bot: R is refused as full, said as the browser says it
    held = [i for i, s in enumerate(client.summary(new)["seats"]) if s.get("held")]
    assert len(held) == 1, client.summary(new)
    ali_new = str(client.rematch(mid, ali)["token"])
    client.seat_bot(new, ali_new, held[0], "easy")
    term.type("r")
    said = wait_words(term, "The rematch is full", "the rematch refused")
    assert (f"The rematch is full: every seat is taken. You can watch it: hokm play "
            f"{server.url}/m/{new} --spectate." in said), said
    assert READY not in said and "Press R" not in said, said
    assert term.exit_status() is None and "Traceback" not in said
    term.keys("C-c")
    until(term, lambda s: term.exit_status() is not None, "hokm play ending")


@pytest.mark.timeout(300)
def test_a_rematch_whose_open_seat_is_kept_shows_no_invite_link(
        server: LocalServer, terminal: list[Terminal]) -> None:
    """At a rematch whose open seat is kept for the last match's player, the table showed
    "Invite link: ..." that nobody else could use meanwhile (the join page says the seat is
    held): it says the seat is kept instead, and the message goes once the player takes it."""
    from tests.browser.helpers import finish_humans_match

    mid, tokens = finish_humans_match(server.url, 2, ["Alice", "Bob"])
    client = Client(server.url)
    # Alice at the finished match's table: R takes her to the rematch, Bob's seat kept for him
    term = Terminal([HOKM, "play", f"{server.url}/m/{mid}", f"--token={tokens[0]}"],
                    env={"NO_COLOR": "1"})
    terminal.append(term)
    wait_words(term, "Press R to play again at this table", "the end")
    term.type("r")
    until(term, lambda s: client.summary(mid)["rematch"] is not None, "the rematch made")
    summary = client.summary(str(client.summary(mid)["rematch"]))
    assert [s["held"] for s in summary["seats"]].count(True) == 1 and summary["held_for"] > 0
    said = wait_words(term, "No invite link for now: the open seat is kept for the last "
                      "match's player.", "the kept seat said")
    assert "Invite link" not in said and "Traceback" not in said, said
    # the last match's player takes the kept seat: every seat is taken, nothing to say
    client.rematch(mid, tokens[1])
    until(term, lambda s: "No invite link" not in words(s) and "Bob" in words(s),
          "the seat taken")
    assert "Invite link" not in words(term.screen())
    term.keys("C-c")
    until(term, lambda s: term.exit_status() is not None, "hokm play ending")
