"""``hokm play`` shows the trick that ended a round until the next round's first trick is won.
The next deal's view has no last trick, and the round's end passes in a moment when bots (or
fast players) play its last cards, so the trick that decided the round was never on the
terminal's screen (a walkthrough's finding).  A match of four humans driven over HTTP (stacked
decks), watched in a real terminal: at the next round's trump choice the screen names the last
trick of round 1, as the match's records have it; once round 2's first trick is won, that
trick is the last one shown."""

from __future__ import annotations

from typing import Any

from hokmclient import Client, LocalServer, card_text

from .test_play_terminal import HOKM, deck, play_until
from .test_terminal_narrow import until
from .tmux import Terminal


def last_trick_of(records: list[dict[str, Any]], round_number: int) -> tuple[list[str], int]:
    """The cards (in play order) and the winner of round ``round_number``'s last trick, from
    the match's public records."""
    now = 0
    trick: list[str] = []
    last: tuple[list[str], int] = ([], -1)
    for record in records:
        for e in record["events"]:
            if e["type"] == "round_started":
                now, trick = e["round"], []
            elif e["type"] == "card_played" and now == round_number:
                trick.append(e["card"])
            elif e["type"] == "trick_won" and now == round_number:
                last, trick = (trick, e["seat"]), []
    return last


def trick_line(screen: str, start: str) -> str:
    return next(line for line in screen.splitlines() if line.startswith(start))


def test_the_trick_that_ended_a_round_stays_on_the_screen_into_the_next_deal(
        server: LocalServer, terminal: list[Terminal]) -> None:
    client = Client(server.url)
    names = ["Ann", "Bob", "Cy", "Di"]
    created = client.create(seats=["human"] * 4, name=names[0], first_hakem=0,
                            rules={"teams": "as_seated"},
                            decks=[deck(40 + i) for i in range(30)])
    mid = str(created["match_id"])
    tokens = [str(created["token"])]
    tokens += [str(client.join(mid, name=n)["token"]) for n in names[1:]]
    term = Terminal([HOKM, "play", created["invite_url"], "--spectate"],
                    env={"NO_COLOR": "1"})
    terminal.append(term)
    until(term, lambda s: "Trick: " in s, "the table")

    play_until(client, mid, tokens, lambda v: v["round"] == 2)
    cards, winner = last_trick_of(client.events(mid)["events"], 1)
    assert len(cards) == 4, cards
    screen = until(term, lambda s: "Last trick of round 1: " in s and "round 2" in s,
                   "the last trick of round 1 at the next deal")
    line = trick_line(screen, "Last trick of round 1: ")
    at = [line.index(card_text(c)) for c in cards]
    assert at == sorted(at), line  # every card, in the order played
    assert line.endswith(f"-> won by {names[winner]}"), line

    play_until(client, mid, tokens, lambda v: v["round"] == 2 and v.get("last_trick"))
    cards, winner = last_trick_of(client.events(mid)["events"], 2)
    screen = until(term, lambda s: "Last trick: " in s and "round 1:" not in s,
                   "round 2's first trick as the last one")
    line = trick_line(screen, "Last trick: ")
    assert [line.index(card_text(c)) for c in cards] == sorted(
        line.index(card_text(c)) for c in cards), line
    assert line.endswith(f"-> won by {names[winner]}"), line
