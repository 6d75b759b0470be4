"""``hokm play`` in a small real terminal (tmux, a 60x16 pane, as a player on a laptop split
might have it): the three-player Hakem's 17 cards wrap between cards, the header between
words, and a card refused at the keyboard still shows its message.  In a 30x10 window the
trick, the hand, whose turn it is, trump and the score stay on the screen (the notes and the
keys give way), and a 12x5 one asks for a larger window."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hokmclient import Client, LocalServer, card_text, my_turn, parse_card
from hokmclient.cards import SUIT_SYMBOL
from tests.conftest import wait_for

from .test_play_terminal import HOKM, deck, solo_in_terminal
from .test_screen_fit import hand_rows as shown_hand
from .tmux import Terminal

COLUMNS, ROWS = 60, 16


def shrink(term: Terminal, columns: int, rows: int) -> None:
    """Resize the terminal's window (the client hears of it by SIGWINCH)."""
    term._run("resize-window", "-t", "play", "-x", str(columns), "-y", str(rows))
    wait_for(lambda: term._run("display-message", "-p", "-t", "play",
                               "#{pane_width}x#{pane_height}").strip() == f"{columns}x{rows}",
             timeout=30, what="the pane resized")


def until(term: Terminal, test: Callable[[str], bool], what: str) -> str:
    """Wait for a screen that passes ``test`` and return it; fail showing the last screen."""
    def probe() -> str | None:
        screen = term.screen()
        return screen if test(screen) else None
    try:
        return wait_for(probe, timeout=30, what=what)
    except AssertionError as failed:
        raise AssertionError(f"{failed}; the screen:\n{term.screen()}") from None


def hand_rows(screen: str) -> list[str] | None:
    """The hand's rows as the screen shows them (``test_screen_fit.hand_rows``), or None
    before the hand is on the screen."""
    return shown_hand(screen) if "\nYour hand: " in "\n" + screen else None


def shows_hand(screen: str, view: dict[str, Any]) -> bool:
    rows = hand_rows(screen)
    return rows is not None and "Your turn" in screen and [
        parse_card(t.strip("()[]")) for row in rows for t in row.split()] == view["hand"]


def test_a_narrow_terminal_wraps_between_cards_and_keeps_the_message(
        server: LocalServer, terminal: list[Terminal]) -> None:
    client = Client(server.url)
    created = client.create(players=3, rules={"players": 3},
                            seats=["human", "bot:easy", "bot:easy"], name="Tess",
                            first_hakem=0, decks=[deck(21)])
    mid, token = created["match_id"], created["token"]
    term = Terminal([HOKM, "play", created["invite_url"], f"--token={token}"])
    terminal.append(term)
    shrink(term, COLUMNS, ROWS)
    wait_for(lambda: "Choose trump: " in term.screen(), timeout=30, what="the choice of trump")
    term.type("S")
    term.keys("Enter")
    view = wait_for(lambda: (v := client.view(mid, token)["view"])["phase"] == "playing"
                    and my_turn(v) and v, timeout=30, what="the Hakem's lead")
    assert len(view["hand"]) == 17
    screen = until(term, lambda s: shows_hand(s, view), "the 17 cards, whole, on the screen")
    rows = hand_rows(screen) or []
    assert len(rows) > 1, screen  # 17 cards do not fit in 60 columns: the hand wrapped ...
    # ... between cards, and the header between words
    assert "you are seat 0" in " ".join(screen.split()), screen
    assert f"match {mid}" in screen
    # a card that is not the seat's to play, typed: the refusal and the keys stay in sight
    other = next(c for c in deck(1) if c not in view["legal"])
    term.type(other)
    term.keys("Enter")
    words = f"{card_text(other)} is not in your hand."
    screen = until(term, lambda s: words in s, "the refusal on the screen")
    lines = screen.rstrip("\n").splitlines()
    assert len(lines) <= ROWS and lines[-2] == words, screen
    assert lines[-1] == "?: hint · L: leave to a bot · F1: all keys · Ctrl+C: quit", screen
    assert "Your turn" in screen and shows_hand(screen, view)
    assert client.view(mid, token)["view"]["version"] == view["version"]  # nothing was sent
    term.keys("C-c")
    wait_for(lambda: term.exit_status() is not None, timeout=30, what="hokm play quitting")
    assert term.exit_status() == 0 and "Traceback" not in term.screen()


def words(text: str) -> str:
    """``text`` with its runs of spaces and line breaks as one space (a wrapped line read
    whole again)."""
    return " ".join(text.split())


def test_a_small_window_keeps_the_trick_and_the_hand(
        server: LocalServer, terminal: list[Terminal]) -> None:
    """A solo match of four at 30x10: at the player's turn, with the bots' three cards on the
    table, the screen still shows the trick, the whole hand, whose turn it is, trump and the
    score (the help, the last trick and the table's seats give way); at 12x5 it asks for a
    larger window, and grown again it shows everything."""
    client, mid, token, term = solo_in_terminal(server, terminal, 1, 7)
    view = wait_for(lambda: (v := client.view(mid, token)["view"])["phase"] == "playing"
                    and my_turn(v) and v, timeout=60, what="the seat's turn to play")
    assert len(view["trick"]) == 3 and len(view["hand"]) == 13
    names = {s: ("you" if s == view["seat"] else view["seats"][s]["name"]) for s in range(4)}
    trick = "Trick: " + ", ".join(f"{names[p['seat']]} {card_text(p['card'])}"
                                  for p in view["trick"])
    shrink(term, 30, 10)

    def shows_the_play(screen: str) -> bool:
        text = words(screen)
        return (shows_hand(screen, view) and trick in text
                and f"Trump {SUIT_SYMBOL[view['trump']]}" in text and "Score us 0 · them 0" in text)

    screen = until(term, shows_the_play, "the trick, the hand, trump and the score at 30x10")
    lines = screen.rstrip("\n").splitlines()
    assert len(lines) <= 10 and max(len(line) for line in lines) <= 30, screen
    assert "Ctrl+C" not in screen and "Last" not in screen, screen
    shrink(term, 12, 5)
    until(term, lambda s: words(s) == "Make the window larger to play.", "the one-line request")
    shrink(term, 110, 36)
    until(term, lambda s: shows_the_play(s) and "Ctrl+C: quit" in s, "the whole screen again")
    term.keys("C-c")
    wait_for(lambda: term.exit_status() is not None, timeout=30, what="hokm play quitting")
    assert term.exit_status() == 0


def test_a_small_spectators_window_keeps_the_seat_to_move(
        server: LocalServer, terminal: list[Terminal]) -> None:
    """A spectator of two players at 30x10 (Dara, the Hakem, to choose trump, in the seat a
    spectator sees at the bottom): the table keeps Dara's line, the one to move, not 22 columns
    in (it showed the other seat's line and dropped Dara's), and at 12x5 it asks for a larger
    window "to watch"."""
    client = Client(server.url)
    created = client.create(players=2, rules={"players": 2}, seats=["human", "bot:easy"],
                            name="Dara", first_hakem=0, decks=[deck(3)])
    term = Terminal([HOKM, "play", created["invite_url"], "--spectate"], env={"NO_COLOR": "1"})
    terminal.append(term)
    until(term, lambda s: "Spectating" in s and "▶ Dara (seat 0" in s, "the spectator's table")
    shrink(term, 30, 10)
    screen = until(term, lambda s: "Spectating: no hand is shown." in s and "Hokm" not in s,
                   "the table at 30x10")
    lines = screen.rstrip("\n").splitlines()
    assert len(lines) <= 10 and max(len(line) for line in lines) <= 30, screen
    assert "▶ Dara (seat 0" in words(screen), screen
    assert any(line.startswith("▶ Dara (seat 0") for line in lines), screen  # no wide indent
    shrink(term, 12, 5)
    until(term, lambda s: words(s) == "Make the window larger to watch.", "the one-line request")
    term.keys("C-c")
    wait_for(lambda: term.exit_status() is not None, timeout=30, what="hokm play quitting")
    assert term.exit_status() == 0
