"""``hokm play --help`` lists every key of the table (QA: it named only the arrows, Enter and
typing; ``?``, ``+``, ``L``, ``R`` and Space were on no list): each key the app binds has its
line, and a key added to the app without one fails here."""

from __future__ import annotations

import subprocess

from hokmclient import Client, LocalServer
from hokmplay.app import PlayApp
from hokmplay.keys import KEYS_HELP

from .test_play_terminal import HOKM, SOLO, deck
from .test_terminal_narrow import until
from .tmux import Terminal

BOUND = {"Keys.ControlQ": "Ctrl+Q", "Keys.ControlC": "Ctrl+C", "Keys.Left": "←",
         "Keys.Right": "→", "Keys.ControlH": "Backspace", "Keys.Escape": "Esc",
         "Keys.ControlM": "Enter", " ": "Space", "Keys.F1": "F1"}
"""The keys ``PlayApp`` binds, as the help names them."""
TYPED = ["?", "+", "L", "R", "QH", "S", "K / D"]
"""What the app reads from typed characters (``<any>``): the commands and the choices."""


def test_the_help_lists_every_key_the_table_binds() -> None:
    bindings = PlayApp._keys(object.__new__(PlayApp)).bindings
    bound = {str(k) for b in bindings for k in b.keys}
    assert bound == {*BOUND, "Keys.Any"}, bound  # a new key: name it in the help and here
    done = subprocess.run([HOKM, "play", "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    keys = done.stdout.split("keys at the table:", 1)
    assert len(keys) == 2, done.stdout
    listed = {line[2:].split("  ", 1)[0] for line in keys[1].splitlines()[1:]
              if line.startswith("  ") and not line.startswith("   ")}
    named = " ".join(listed) + " " + keys[1]
    for key in [*BOUND.values(), *TYPED]:
        assert key in named, (key, keys[1])
    for key in ("?", "+", "L", "R", "Space", "F1"):
        assert key in listed, (key, listed)


def test_a_spectator_types_nothing(server: LocalServer, terminal: list[Terminal]) -> None:
    """A spectator's keys make no choice: what they type is not shown as typed (QA: "Typed:
    qh" under a table that takes none); ``?`` says hints are for the players."""
    client = Client(server.url)
    created = client.create(seats=SOLO, name="Tess", first_hakem=0, decks=[deck(21)])
    term = Terminal([HOKM, "play", created["invite_url"], "--spectate"], env={"NO_COLOR": "1"})
    terminal.append(term)
    until(term, lambda s: "spectating" in s, "the spectator's table")
    term.type("qh")
    term.type("?")
    until(term, lambda s: "Hints are for the players." in s, "the hint refused")
    assert "Typed:" not in term.screen(), term.screen()


def test_f1_lists_the_keys_at_the_table_and_esc_goes_back(server: LocalServer,
                                                           terminal: list[Terminal]) -> None:
    """The footer names a few keys; F1 shows them all (the list of ``hokm play --help``)
    without leaving the match, and F1 or Esc goes back to the table, what was typed kept (the
    keys were listed only outside the match: a walkthrough's finding)."""
    client = Client(server.url)
    created = client.create(seats=SOLO, name="Tess", first_hakem=0, decks=[deck(21)])
    term = Terminal([HOKM, "play", created["invite_url"], f"--token={created['token']}"],
                    env={"NO_COLOR": "1"})
    terminal.append(term)
    screen = until(term, lambda s: "Choose trump: " in s, "the choice of trump")
    assert "F1: all keys" in screen, screen
    term.type("S")
    term.keys("F1")
    screen = until(term, lambda s: "keys at the table:" in s, "the list of keys")
    for row in KEYS_HELP.splitlines():
        assert row.rstrip() in screen, (row, screen)
    assert "F1 or Esc: back to the table." in screen and "Choose trump: " not in screen
    assert f"match {created['match_id']}" in screen  # (the match's line stays above)
    term.keys("Escape")
    screen = until(term, lambda s: "Choose trump: " in s, "the table again")
    assert "keys at the table:" not in screen and "Typed: S" in screen, screen
    term.keys("F1")
    until(term, lambda s: "keys at the table:" in s, "the list again")
    term.keys("F1")
    until(term, lambda s: "Choose trump: " in s and "keys at the table:" not in s,
          "F1 back to the table")
