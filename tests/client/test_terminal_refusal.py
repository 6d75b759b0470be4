"""``hokm play`` says why a typed card cannot be played (it said "is not yours to play now" for
every reason): not in the hand, the suit led not followed, or the room's house rule; and why
it cannot take a seat of a rematch kept for a player of the last match."""

from __future__ import annotations

import re

from hokmclient import Client, LocalServer
from hokmplay.app import refusal
from tests.browser.helpers import finish_humans_match
from tests.hokm_command import run


def view(hand: list[str], trick: list[str]) -> dict[str, object]:
    return {"hand": hand, "trick": [{"seat": 1, "card": c} for c in trick]}


def test_the_reason_a_card_is_refused() -> None:
    hand = ["QH", "2H", "AS", "3C"]
    assert refusal(view(hand, []), "KD") == "K♦ is not in your hand."
    assert refusal(view(hand, ["TH"]), "AS") == (
        "A♠ cannot be played: follow the suit led, ♥ hearts.")
    # void in the suit led: a card refused all the same is the room's rule (must_trump)
    assert refusal(view(hand, ["TD"]), "QH") == "Q♥ cannot be played now (the room's rules)."


def test_the_reason_follows_satat_and_must_trump() -> None:
    """With ``satat`` the 2 of hearts is a trump (rules.md): a 2 of hearts led asks for trump,
    and a hand whose only heart is the 2 of hearts is void in hearts.  The refusal said "follow
    the suit led, hearts" where the rule at work was ``must_trump`` (or the trump led)."""
    rules = {"satat": True, "must_trump": True}

    def at(hand: list[str], led: str, **more: object) -> dict[str, object]:
        return {**view(hand, [led]), "trump": "S", "rules": {**rules, **more}}

    # void in hearts but for the 2 of hearts, a trump: must_trump forces it
    assert refusal(at(["2H", "5C", "7D"], "KH"), "5C") == (
        "5♣ cannot be played: you cannot follow suit, so you must play a trump, ♠ spades "
        "(house rule).")
    # the 2 of hearts led is a trump led: follow spades, not hearts
    assert refusal(at(["KH", "5S", "7D"], "2H"), "7D") == (
        "7♦ cannot be played: follow the suit led, ♠ spades.")
    assert refusal(at(["KH", "5S", "7D"], "2H"), "KH") == (
        "K♥ cannot be played: follow the suit led, ♠ spades.")
    # the 2 of hearts does not follow a heart led: the other hearts must be played first
    assert refusal(at(["2H", "4H", "7D"], "KH"), "2H") == (
        "2♥ cannot be played: follow the suit led, ♥ hearts.")
    # without satat the 2 of hearts is a plain heart
    assert refusal({**view(["2H", "5C"], ["KH"]), "trump": "S", "rules": {"must_trump": True}},
                   "5C") == "5♣ cannot be played: follow the suit led, ♥ hearts."
    # must_trump without satat, void in the suit led
    assert refusal({**view(["3S", "5C"], ["KH"]), "trump": "S", "rules": {"must_trump": True}},
                   "5C") == ("5♣ cannot be played: you cannot follow suit, so you must play a "
                             "trump, ♠ spades (house rule).")


def test_hokm_play_at_a_rematchs_held_seat_says_it_is_kept_and_for_how_long(
        server: LocalServer) -> None:
    """M1 (terminal): on a rematch whose open seat is kept for a player of the last match,
    ``hokm play LINK`` said "every seat of this match is taken" while the summary showed an
    open seat.  It says the seat is kept for a player of the last match and how many more
    seconds (the summary's ``held_for``), with the exit status of a taken seat (2: what the
    command names is not open to it, ``services/clitools.py``)."""
    match_id, tokens = finish_humans_match(server.url, 2, ["Alice", "Bob"])
    with Client(server.url) as client:
        made = client.rematch(match_id, tokens[0])
        assert client.summary(made["match_id"])["held_for"] > 0
    done = run("play", made["invite_url"], "--bot", "easy", "--name", "Mallory", timeout=60)
    assert done.returncode == 2, done.stderr  # a seat not open to it: bad input
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    found = re.fullmatch(r"hokm play: the open seat of this match is kept for a player of the "
                         r"last match for (\d+) more seconds \(--spectate watches it\)",
                         lines[0])
    assert found and 0 < int(found.group(1)) <= 300, lines[0]
    with Client(server.url) as client:  # nothing changed: the seat is still kept, still open
        summary = client.summary(made["match_id"])
    assert [s["held"] for s in summary["seats"]].count(True) == 1
    assert "Mallory" not in [s["name"] for s in summary["seats"]]
