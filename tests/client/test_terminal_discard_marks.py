"""``hokm play`` in a real terminal (tmux), the talon game's discard: the Hakem lays 3 cards
aside, so a fourth mark, by Space or by a typed card, is refused with a message and nothing
changes (as the browser refuses a card too many); Enter then lays the three aside."""

from __future__ import annotations

from typing import Any

from hokmclient import LocalServer, card_text, command_for, my_turn
from tests.conftest import wait_for

from .test_play_variants import marked_on, selected_card, talon_room
from .test_terminal_narrow import until
from .tmux import Terminal


def flat(screen: str) -> str:
    """The screen's words with one space between them (a wrapped line joined again)."""
    return " ".join(screen.split())


def test_a_mark_beyond_the_cards_to_lay_aside_is_refused(
        server: LocalServer, terminal: list[Terminal]) -> None:
    client, mid, token, other_token, term = talon_room(server, terminal)
    wait_for(lambda: "Your turn, Hakem" in term.screen(), timeout=30, what="the choice of trump")
    term.type("S")
    term.keys("Enter")

    def my_discard() -> dict[str, Any] | None:
        view = client.view(mid, token)["view"]
        them = client.view(mid, other_token)["view"]
        if my_turn(them) and them["phase"] == "discarding":  # the opponent lays its own aside
            client.command(mid, other_token, command_for(them, them["legal"][:2]))
        return view if my_turn(view) and view["phase"] == "discarding" else None

    view = wait_for(my_discard, timeout=30, what="the Hakem's discard")
    assert view["talon"]["discard"] == 3
    legal = list(view["legal"])
    screen = until(term, lambda s: "(0 of 3 marked)" in flat(s) and bool(selected_card(s)),
                   "the discard's prompt")
    at = legal.index(selected_card(screen) or "")
    wanted = [legal[(at + i) % len(legal)] for i in range(5)]
    term.keys("Space", "Right", "Space", "Right", "Space", "Right", "Space")
    refused = (f"You already marked 3 cards: unmark one (Space on a marked card) before "
               f"marking {card_text(wanted[3])}.")
    screen = until(term, lambda s: refused in flat(s), "the fourth mark refused")
    assert "(3 of 3 marked)" in flat(screen) and marked_on(screen) == wanted[:3], screen
    term.type(wanted[4])  # a fourth card typed: refused the same way
    term.keys("Enter")
    refused_typed = refused.replace(card_text(wanted[3]), card_text(wanted[4]))
    screen = until(term, lambda s: refused_typed in flat(s), "the typed fourth mark refused")
    assert "(3 of 3 marked)" in flat(screen) and marked_on(screen) == wanted[:3], screen
    assert client.view(mid, token)["view"]["version"] == view["version"]  # nothing was sent
    term.keys("Enter")  # the three marked are laid aside
    wait_for(lambda: client.view(mid, token)["view"]["version"] > view["version"], timeout=30,
             what="the discard being made")
    made = client.events(mid, view["version"], token)["events"][0]
    assert made["actor"] == view["seat"] and made["events"][0]["type"] == "cards_discarded"
    assert sorted(made["events"][0]["cards"]) == sorted(wanted[:3])
    term.keys("C-c")
    wait_for(lambda: term.exit_status() is not None, timeout=30, what="hokm play quitting")
    assert term.exit_status() == 0 and "Traceback" not in term.screen()
