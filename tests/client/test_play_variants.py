"""``hokm play`` in a real terminal (tmux, as ``test_play_terminal.py``) for the two- and
three-player games: the talon game played by keystrokes from the Hakem's seat against an
opponent the test plays over HTTP (trump, the three cards laid aside with Space and Enter,
every keep-or-discard of the talon by the arrows or by typing K / D, then the cards to the
round's end), the screen showing at every decision what the seat's view holds and never a
card it does not (the opponent's hand and discards, the talon below the top card); and a
spectator of a three-player match sees three seats, one side each, and the card out of
play."""

from __future__ import annotations

from typing import Any

from hokmclient import Client, LocalServer, card_text, command_for, my_turn, parse_card
from tests.conftest import wait_for

from .test_play_terminal import CARD_ON_SCREEN, HOKM, Terminal, deck, known_cards, line_of

TALON = {"players": 2, "two_player": "talon"}


def seen_by(view: dict[str, Any]) -> set[str]:
    """What the seat may see: its hand, the tricks on the table, its own discards and the
    talon's top card when it is the seat's to draw."""
    talon = view.get("talon") or {}
    return (known_cards(view) | set(talon.get("discarded") or [])
            | ({talon["top"]} if talon.get("top") else set()))


def screen_cards(screen: str) -> set[str]:
    return {c for m in CARD_ON_SCREEN.finditer(screen) if (c := parse_card(m.group(0)))}


def marked_on(screen: str) -> list[str]:
    """The hand's cards marked to lay aside (``*`` before the card)."""
    return [code for code, mark in marks(screen) if mark == "*"]


def marks(screen: str) -> list[tuple[str, str]]:
    """The hand line as (card, mark): "*" marked, "[" selected (``[*`` both), "" otherwise."""
    line = line_of(screen, "Your hand: ") or ""
    out = []
    for token in line[len("Your hand: "):].split():
        mark = "*" if "*" in token else "[" if token.startswith("[") else ""
        code = parse_card(token.strip("()[]*"))
        if code is not None:
            out.append((code, mark))
    return out


def selected_card(screen: str) -> str | None:
    line = line_of(screen, "Your hand: ") or ""
    start = line.find("[")
    if start < 0:
        return None
    return parse_card(line[start + 1:line.index("]", start)].strip("*"))


def talon_room(server: LocalServer, terminal: list[Terminal]
               ) -> tuple[Client, str, str, str, Terminal]:
    """A talon game of two humans on a stacked deck: Tess (the Hakem) plays in ``hokm play``,
    Otto through the client.  The client, the match, Tess's token, Otto's, the terminal."""
    client = Client(server.url)
    created = client.create(players=2, rules=TALON, seats=["human", "human"], name="Tess",
                            first_hakem=0, decks=[deck(5)])
    mid, token = created["match_id"], created["token"]
    other = client.join(mid, name="Otto")
    term = Terminal([HOKM, "play", created["invite_url"], f"--token={token}"])
    terminal.append(term)
    return client, mid, token, other["token"], term


def test_the_talon_game_by_keystrokes(server: LocalServer, terminal: list[Terminal]) -> None:
    client, mid, token, other_token, term = talon_room(server, terminal)
    kinds: list[str] = []
    typed = 0
    while True:
        view = client.view(mid, token)["view"]
        them = client.view(mid, other_token)["view"]
        if view["result"] is not None:
            break
        if my_turn(them):  # the opponent, over HTTP: two cards aside, alternate draws
            legal = them["legal"]
            choice: Any = (legal[:2] if them["phase"] == "discarding" else
                           legal[them["version"] % 2] if them["phase"] == "drawing" else
                           legal[-1])
            client.command(mid, other_token, command_for(them, choice))
            continue
        if not my_turn(view):
            wait_for(lambda v=view: client.view(mid, token)["view"]["version"] > v["version"]
                     or my_turn(client.view(mid, other_token)["view"]), timeout=30,
                     what="a turn")
            continue
        phase = view["phase"]
        screen = wait_for(lambda v=view: (s := term.screen()) and _shows(s, v) and s,
                          timeout=30, what=f"the screen showing version {view['version']}")
        assert screen_cards(screen) <= seen_by(view), screen_cards(screen) - seen_by(view)
        assert "Otto (seat 1" in screen and "partner" not in screen
        if phase == "choosing_trump":
            term.type("S")
            term.keys("Enter")
        elif phase == "discarding":
            assert "Lay 3 cards aside" in screen
            wanted = view["legal"][1:4]
            term.keys("Enter")  # nothing marked yet: refused on the screen, nothing sent
            wait_for(lambda: "Mark exactly 3 cards" in term.screen(), timeout=30,
                     what="the refusal of an empty discard")
            for card in wanted[:2]:  # two marked with the arrows and Space
                _select(term, view, card)
                term.keys("Space")
                wait_for(lambda c=card: c in marked_on(term.screen()), timeout=30,
                         what=f"{card} marked")
            term.type(wanted[2])  # the third typed
            term.keys("Enter")
            wait_for(lambda w=wanted: set(marked_on(term.screen())) == set(w), timeout=30,
                     what="three cards marked")
            term.keys("Enter")
        elif phase == "drawing":
            top = view["talon"]["top"]
            assert line_of(screen, "Top of the talon: ") is not None
            assert f"Top of the talon: {card_text(top)}" in screen
            if view["version"] % 3 == 0:
                term.type("d" if view["version"] % 2 else "K")
                typed += 1
            else:
                on = line_of(screen, "Top of the talon: ") or ""
                if "[keep it]" in on and view["version"] % 2:
                    term.keys("Right")
                    wait_for(lambda: "[discard it]" in term.screen(), timeout=30,
                             what="discard selected")
            term.keys("Enter")
        else:
            term.type(view["legal"][0])
            term.keys("Enter")
        wait_for(lambda v=view: client.view(mid, token)["view"]["version"] > v["version"],
                 timeout=30, what=f"the {phase} decision being made")
        made = client.events(mid, view["version"], token)["events"][0]
        assert made["actor"] == view["seat"], made
        event = made["events"][0]
        kinds.append(event["type"])
        if phase == "discarding":
            assert sorted(event["cards"]) == sorted(view["legal"][1:4])
        if phase == "drawing":
            assert view["talon"]["top"] in (event["kept"], event["discarded"])
    assert kinds[:2] == ["trump_chosen", "cards_discarded"]
    assert kinds.count("talon_drawn") == 11 and typed >= 3  # the Hakem draws 11 times
    assert kinds.count("card_played") >= 7
    result = view["result"]
    who = "you" if result["winner"] == 0 else "Otto"
    wait_for(lambda: f"Round 1: {who} won {result['points']} point" in term.screen(),
             timeout=30, what="the round's result on the screen")
    term.keys("C-c")
    wait_for(lambda: term.exit_status() is not None, timeout=30, what="hokm play quitting")
    assert term.exit_status() == 0 and "Traceback" not in term.screen()


def _select(term: Terminal, view: dict[str, Any], card: str) -> None:
    """Move the selection to ``card`` with the arrows."""
    legal = list(view["legal"])
    at = selected_card(term.screen())
    assert at is not None
    term.keys(*(["Right"] * ((legal.index(card) - legal.index(at)) % len(legal))))
    wait_for(lambda: selected_card(term.screen()) == card, timeout=30,
             what=f"{card} selected")


PROMPT = {"choosing_trump": "Your turn, Hakem", "discarding": "Lay 3 cards aside",
          "drawing": "Your draw", "playing": "Your turn:"}


def _shows(screen: str, view: dict[str, Any]) -> bool:
    """Does the screen show this view of the seat's decision: the hand, the prompt of the
    phase, the tricks per player?"""
    tricks = " · ".join(f"{n} {t}" for n, t in zip(("you", "Otto"), view["tricks"], strict=True))
    return ([code for code, _ in marks(screen)] == view["hand"]
            and PROMPT[view["phase"]] in screen and f"Tricks this round  {tricks}" in screen)


def test_a_spectator_of_three_players_sees_three_sides_and_the_card_out(
        server: LocalServer, terminal: list[Terminal]) -> None:
    client = Client(server.url)
    created = client.create(players=3, rules={"players": 3}, seats=["human", "human", "human"],
                            name="Ann", first_hakem=1, decks=[deck(8)])
    for name in ("Bo", "Cy"):
        client.join(created["match_id"], name=name)
    term = Terminal([HOKM, "play", created["invite_url"], "--spectate"], env={"NO_COLOR": "1"})
    terminal.append(term)
    screen = wait_for(lambda: (s := term.screen()) and "Spectating" in s and s, timeout=30,
                      what="the spectator's table")
    assert "Score  Ann 0 · Bo 0 · Cy 0" in screen, screen
    assert "Bo (seat 1, away, Hakem) 5 cards" in screen, screen  # nobody is connected
    assert "Ann (seat 0, away) 0 cards" in screen and "Cy (seat 2, away) 0 cards" in screen
    assert "team" not in screen and "partner" not in screen
    assert line_of(screen, "Out of play: 2♣") is not None
    assert screen_cards(screen) == {"2C"}  # the Hakem's five are not public; the 2 is


def test_a_local_bot_plays_the_talon_game_to_its_end_without_a_terminal(
        server: LocalServer) -> None:
    """``--bot`` in the talon game: the policy's discards and draws go through the library's
    commands; the match ends, and the last line names the winner by name, not by team."""
    from tests.hokm_command import run

    client = Client(server.url)
    created = client.create(players=2, rules=TALON, seats=["human", "human"], name="Host")
    client.leave(created["match_id"], created["token"], "bot:easy")
    done = run("play", created["invite_url"], "--bot", "easy", "--name", "Local")
    assert done.returncode == 0, done.stderr
    summary = client.summary(created["match_id"])
    assert summary["phase"] == "match_over"
    won, score = summary["winner"], summary["score"]
    names = [s["name"] for s in summary["seats"]]
    assert "Local" in names
    lines = done.stdout.splitlines()
    # each side is one seat here (side i is seat i): the player's own is "you"
    winner = "you" if names[won] == "Local" else names[won]
    assert lines[-1] == f"Match over: {winner} won, {score[won]}-{score[1 - won]}."
    assert "team" not in done.stdout
    # a round is only played after both seats laid cards aside and the talon was drawn
    assert sum(1 for line in lines if line.startswith("  trick: ")) >= 7


def test_a_hint_at_the_discard_marks_the_cards_it_names(
        server: LocalServer, terminal: list[Terminal]) -> None:
    """A walkthrough's finding: in the talon game ``?`` named the cards to lay aside but left
    the player's own marks, so Enter laid aside the cards marked before (the trumps the hint
    said to keep).  The hint marks its cards in their place, says so, and Enter lays them."""
    client, mid, token, _, term = talon_room(server, terminal)
    view = client.view(mid, token)["view"]
    wait_for(lambda: _shows(term.screen(), view), timeout=30, what="the choice of trump")
    term.type("S")
    term.keys("Enter")
    view = wait_for(lambda: (v := client.view(mid, token)["view"])["phase"] == "discarding"
                    and v, timeout=30, what="the discard")
    wait_for(lambda: _shows(term.screen(), view), timeout=30, what="the discard's screen")
    term.type(view["legal"][0])  # one card marked by the player first
    term.keys("Enter")
    wait_for(lambda: marked_on(term.screen()) == [view["legal"][0]], timeout=30,
             what="the player's mark")
    term.type("?")
    screen = wait_for(lambda: (s := term.screen()) and "Marked for you" in s and s,
                      timeout=30, what="the hint")
    said = " ".join(screen.split()).split("Hint: lay aside ", 1)[1].split(".", 1)[0]
    hinted = [parse_card(c) for c in said.split()]
    assert len(hinted) == 3 and all(hinted), said
    assert sorted(marked_on(screen)) == sorted(hinted), screen  # the hint's, and only those
    term.keys("Enter")
    wait_for(lambda: client.view(mid, token)["view"]["version"] > view["version"],
             timeout=30, what="the discard made")
    made = client.events(mid, view["version"], token)["events"][0]["events"][0]
    assert made["type"] == "cards_discarded" and sorted(made["cards"]) == sorted(hinted)
