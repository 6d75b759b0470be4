"""``hokm play`` in a real terminal: tmux runs it in a pseudo-terminal, the test types keys
(arrows and Enter, and cards typed as ``QH``) and reads the screen with ``capture-pane``.  It
plays the first round of a solo match as the Hakem (naming trump by the keyboard), and at every
decision the screen must show what the seat's view (read over HTTP with the same token) says:
the hand with the unplayable cards marked, trump, tricks, score, the open trick, whose turn; and
no card the view does not hold.  Then ``--bot`` without a terminal plays a match to its end, and
bad links and unreachable servers are one line."""

from __future__ import annotations

import os
import random
import re
import signal
import socket
from typing import Any


import pytest

from hokmclient import (Client, LocalServer, card_text, command_for, free_port, my_turn,
                        parse_card)
from hokmclient.cards import RANKS, SUIT_SYMBOL, SUITS
from tests.conftest import run_async, wait_for
from tests.hokm_command import HOKM, parallel, run

from .tmux import Terminal, command_pid, modes

SOLO = ["human", "bot:easy", "bot:easy", "bot:easy"]
CARD_ON_SCREEN = re.compile(r"(10|[2-9AKQJ])[♠♥♦♣]")
RED_FOREGROUND = re.compile(r"\x1b\[(?:[0-9;]*;)?(?:31|91|38;5;(?:1|9|160|196))[;m]")
BLACK_FOREGROUND = re.compile(r"\x1b\[(?:[0-9;]*;)?(?:30|38;5;(?:0|16)|38;2;0;0;0)[;m]")
FOREGROUND = re.compile(r"\x1b\[(?:[0-9;]*;)?(?:3[0-7]|9[0-7]|38;[0-9;]+)[;m]")


def deck(seed: int) -> list[str]:
    cards = [r + s for s in SUITS for r in RANKS]
    random.Random(seed).shuffle(cards)
    return cards


def play_until(client: Client, match_id: str, tokens: list[str], done: Any,
               timeout: float = 120) -> None:
    """Play the match over HTTP, every seat its first legal choice at its turn, until
    ``done(view)`` holds for the view of a seat (``tokens``: every seat's)."""
    def step() -> bool:
        for token in tokens:
            view = client.view(match_id, token)["view"]
            if done(view):
                return True
            if my_turn(view):
                client.command(match_id, token, command_for(view, view["legal"][0]))
                return False
        return False
    wait_for(step, timeout=timeout, every=0, what="the moves")


def line_of(screen: str, start: str) -> str | None:
    for line in screen.splitlines():
        if line.startswith(start):
            return line
    return None


def hand_on(screen: str) -> list[tuple[str, str]] | None:
    """The hand line as (card code, mark) pairs: mark "" playable, "(" not, "[" selected."""
    line = line_of(screen, "Your hand: ")
    if line is None:
        return None
    out = []
    for token in line[len("Your hand: "):].split():
        mark = token[0] if token[0] in "([" else ""
        code = parse_card(token.strip("()[]"))
        if code is None:
            return None
        out.append((code, mark))
    return out


def names(view: dict[str, Any]) -> list[str]:
    return ["you" if s == view["seat"] else view["seats"][s]["name"] for s in range(4)]


def shows(screen: str, view: dict[str, Any]) -> bool:
    """Does the screen show this view of the seat's decision?"""
    hand = hand_on(screen)
    if hand is None or [c for c, _ in hand] != view["hand"]:
        return False
    if view["phase"] == "playing":
        marks = {c: m for c, m in hand}
        if {c for c, m in marks.items() if m == "("} != set(view["hand"]) - set(view["legal"]):
            return False
        if [c for c, m in marks.items() if m == "["] not in ([c] for c in view["legal"]):
            return False
    else:
        line = line_of(screen, "Choose trump: ")
        if line is None or line.count("[") != 1:
            return False
    us, them = view["tricks"][view["seat"] % 2], view["tricks"][1 - view["seat"] % 2]
    score_us, score_them = (view["score"][view["seat"] % 2],
                            view["score"][1 - view["seat"] % 2])
    named = names(view)
    trick = line_of(screen, "Trick: ") or ""
    wanted = [f"{named[p['seat']]} {card_text(p['card'])}" for p in view["trick"]]
    return ("Your turn" in screen
            and f"Tricks this round  us {us} · them {them}" in screen
            and f"Score  us {score_us} · them {score_them}" in screen
            and (view["trump"] is None or f"Trump {SUIT_SYMBOL[view['trump']]}" in screen)
            and all(w in trick for w in wanted)
            and (bool(wanted) or "no card played yet" in trick))


def known_cards(view: dict[str, Any]) -> set[str]:
    """The cards a seat may see: its hand, the open trick and the last trick."""
    seen = set(view["hand"]) | {p["card"] for p in view["trick"]}
    if view["last_trick"]:
        seen |= {p["card"] for p in view["last_trick"]["cards"]}
    return seen


def selected(screen: str, view: dict[str, Any]) -> int:
    """The index in ``legal`` of the choice the screen has selected."""
    if view["phase"] == "choosing_trump":
        line = line_of(screen, "Choose trump: ") or ""
        letter = re.search(r"\[[♠♥♦♣] \w+ \(([SHDC])\)\]", line)
        assert letter, line
        return list(view["legal"]).index(letter.group(1))
    hand = hand_on(screen) or []
    return list(view["legal"]).index(next(c for c, m in hand if m == "["))


def solo_in_terminal(server: LocalServer, terminal: list[Terminal], first_hakem: int,
                     seed: int) -> tuple[Client, str, str, Terminal]:
    """A solo match (Tess and three easy bots, dealt from ``deck(seed)``, its first Hakem
    ``first_hakem``) and ``hokm play`` at Tess's seat in a terminal without colours: the
    client, the match, Tess's token and the terminal."""
    client = Client(server.url)
    created = client.create(seats=SOLO, name="Tess", first_hakem=first_hakem,
                            decks=[deck(seed)])
    token = str(created["token"])
    term = Terminal([HOKM, "play", created["invite_url"], f"--token={token}"],
                    env={"NO_COLOR": "1"})
    terminal.append(term)
    return client, str(created["match_id"]), token, term


def test_hokm_play_plays_a_round_by_keystrokes_and_shows_the_view(
        server: LocalServer, terminal: list[Terminal]) -> None:
    client = Client(server.url)
    created = client.create(seats=SOLO, name="Tess", first_hakem=0, decks=[deck(21)])
    mid, token = created["match_id"], created["token"]
    term = Terminal([HOKM, "play", created["invite_url"], f"--token={token}"])
    terminal.append(term)
    decisions = typed = 0
    while True:
        view = wait_for(lambda: ((v := client.view(mid, token)["view"])["result"] is not None
                        and v) or (my_turn(v) and v), timeout=60,
                        what="the seat's turn (or the end of the round)")
        if view["result"] is not None:
            break
        try:
            screen = wait_for(lambda v=view: (s := term.screen()) and shows(s, v) and s,
                              timeout=30, what=f"the screen showing version {view['version']}")
        except AssertionError as failed:
            raise AssertionError(f"{failed}; the view {view}; the screen:\n{term.screen()}"
                                 ) from None
        if decisions == 0:  # hearts and diamonds in red where the terminal has colours, and
            coloured = term.screen(colours=True)  # spades and clubs in the terminal's own
            assert RED_FOREGROUND.search(coloured)  # colour: they were black (000000),
            assert not BLACK_FOREGROUND.search(coloured)  # unreadable on a dark terminal
            assert "♠" in coloured or "♣" in coloured
        on_screen = {parse_card(m.group(0)) for m in CARD_ON_SCREEN.finditer(screen)}
        assert on_screen <= known_cards(view), on_screen - known_cards(view)
        legal = list(view["legal"])
        if view["phase"] == "choosing_trump":
            target = legal.index("H")  # hearts, chosen with the arrows
        else:
            target = decisions % len(legal)
        choice = legal[target]
        if view["phase"] == "playing" and decisions % 2:
            term.type(choice if decisions % 4 == 1 else card_text(choice).lower())
            typed += 1
        else:
            moves = (target - selected(screen, view)) % len(legal)
            term.keys(*(["Right"] * moves))
        term.keys("Enter")
        wait_for(lambda v=view: client.view(mid, token)["view"]["version"] > v["version"],
                 timeout=30, what="the move being made")
        made = client.events(mid, view["version"], token)["events"][0]
        assert made["actor"] == view["seat"], made
        if view["phase"] == "choosing_trump":
            assert made["events"][0]["type"] == "trump_chosen"
            assert made["events"][0]["suit"] == "H"
        else:
            assert made["events"][0]["type"] == "card_played"
            assert made["events"][0]["card"] == choice
        decisions += 1
    result = view["result"]
    # the trump, then one card a trick until a side had seven; every other card typed
    assert decisions - 1 == sum(result["tricks"]) >= 7 and typed == decisions // 2
    won = result["winner"]
    team = "we" if won == view["seat"] % 2 else "they"  # (the subject: "us won" before)
    tricks = f"{result['tricks'][won]}-{result['tricks'][1 - won]}"  # the winner's first
    wait_for(lambda: f"Round 1: {team} won {result['points']} point" in term.screen()
             and f"(tricks {tricks})" in term.screen(),
             timeout=30, what="the round's result on the screen")
    term.keys("C-c")
    wait_for(lambda: term.exit_status() is not None, timeout=30, what="hokm play quitting")
    assert term.exit_status() == 0
    assert "Traceback" not in term.screen()


def test_a_spectator_without_colour_sees_the_public_table(
        server: LocalServer, terminal: list[Terminal]) -> None:
    client = Client(server.url)
    created = client.create(seats=SOLO, name="Seen", first_hakem=0, decks=[deck(4)])
    term = Terminal([HOKM, "play", created["invite_url"], "--spectate"], env={"NO_COLOR": "1"})
    terminal.append(term)
    screen = wait_for(lambda: (s := term.screen()) and "Spectating" in s and s, timeout=30,
                      what="the spectator's table")
    assert "Waiting for you" not in screen and "Your turn" not in screen
    assert "team 0 (seats 0, 2) 0 · team 1 (seats 1, 3) 0" in screen
    assert "Seen (seat 0" in screen and "Hakem" in screen
    assert not CARD_ON_SCREEN.search(screen)  # the Hakem's five cards are not public
    assert not FOREGROUND.search(term.screen(colours=True))  # NO_COLOR: plain text



def test_a_spectator_sees_a_bot_renamed_when_a_player_takes_its_name(
        server: LocalServer, terminal: list[Terminal]) -> None:
    """A player who joins under the name of a bot at the table keeps it and the bot is renamed
    (``seat_renamed``): a spectator already watching sees the bot's new name, never two Kians."""
    client = Client(server.url)
    created = client.create(seats=["human", "human", "bot:easy", "bot:easy"], name="Ali",
                            rules={"teams": "as_seated"})
    term = Terminal([HOKM, "play", created["invite_url"], "--spectate"], env={"NO_COLOR": "1"})
    terminal.append(term)
    wait_for(lambda: "Kian (seat 2, bot" in term.screen(), timeout=30,
             what="the bot Kian at seat 2", seen=term.screen)
    client.join(created["match_id"], name="Kian")
    screen = wait_for(lambda: (s := term.screen()) and "Kian (seat 1" in s and s, timeout=30,
                      what="the player Kian at seat 1", seen=term.screen)
    assert "Kian (seat 2" not in screen and screen.count("Kian (seat") == 1, screen
    assert re.search(r"\w+ \(seat 2, bot", screen), screen


def open_seat_match(client: Client) -> dict[str, Any]:
    """A match of three easy bots and one open seat (the creator gives its seat to a bot)."""
    created = client.create(seats=["human", "human", "bot:easy", "bot:easy"], name="Host")
    client.leave(created["match_id"], created["token"], "bot:easy")
    return created


def test_hokm_play_with_a_local_bot_and_no_terminal_plays_the_match_to_its_end(
        server: LocalServer) -> None:
    client = Client(server.url)
    created = open_seat_match(client)
    done = run("play", created["invite_url"], "--bot", "easy", "--name", "Local")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("hokm play: seat ") and "local easy bot" in lines[0]
    summary = client.summary(created["match_id"])
    assert summary["phase"] == "match_over"
    won, score = summary["winner"], summary["score"]
    seat = [s["name"] for s in summary["seats"]].index("Local")
    assert lines[-1] == (f"Match over: {'we' if won == seat % 2 else 'they'} won, "
                         f"{score[won]}-{score[1 - won]}.")
    assert sum(1 for line in lines if line.startswith("  trick: ")) >= 13
    assert "Local" in [s["name"] for s in summary["seats"]]
    assert "--token=" not in done.stderr  # the match is over: no seat to take back


@pytest.mark.parametrize("game", [[], ["--players", "3"], ["--game", "talon"],
                                  ["--rules", '{"players": 3}'],
                                  ["--players", "2", "--rules", '{"players": 2}']],
                         ids=["four", "three", "talon", "three_by_rules", "two_both"])
def test_hokm_play_creates_a_solo_match_from_the_servers_address(
        server: LocalServer, game: list[str]) -> None:
    """The README's first command: ``hokm play SERVER`` (no match link) creates a match of the
    seat and bots of its level, in every game (here with a local bot in the seat and no
    terminal: a line per trick), and plays it to its end."""
    done = run("play", server.url, "--bot", "easy", "--level", "easy", "--name", "Solo", *game)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    first = done.stdout.splitlines()[0]
    found = re.match(r"hokm play: seat (\d) in match (\w+) on ", first)
    assert found, first
    # (the draw for the first Hakem may move the creator to another seat of four)
    seat, summary = int(found.group(1)), Client(server.url).summary(found.group(2))
    named = " ".join(game)
    players = 3 if "3" in named else 2 if "talon" in named or "2" in named else 4
    assert summary["phase"] == "match_over" and len(summary["seats"]) == players
    assert summary["rules"]["players"] == players
    if "talon" in game:
        assert summary["rules"]["two_player"] == "talon"
    assert summary["seats"][seat]["name"] == "Solo" and summary["seats"][seat]["bot"] is None
    assert all(s["bot"] == "easy" for i, s in enumerate(summary["seats"]) if i != seat)


def test_hokm_play_opens_a_solo_match_in_a_terminal(server: LocalServer,
                                                    terminal: list[Terminal]) -> None:
    """``hokm play SERVER`` in a terminal: the table of a new solo match, the seat's hand."""
    term = Terminal([HOKM, "play", server.url, "--name", "Tess"], env={"NO_COLOR": "1"})
    terminal.append(term)
    screen = wait_for(lambda: (s := term.screen()) and (hand_on(s) or "Hakem" in s) and s,
                      timeout=60, what="the table of the new match")
    assert "Traceback" not in screen and "error" not in screen.lower(), screen
    assert "Invite link" not in screen  # every seat is taken: the link would only say so
    term.keys("C-c")
    wait_for(lambda: term.exit_status() is not None, timeout=30, what="hokm play quitting")
    assert "connecting to" not in term.history()  # the line before the table went with it


def test_hokm_play_says_it_is_connecting_at_once(terminal: list[Terminal]) -> None:
    """A server that takes the connection and never answers: the terminal says at once what
    ``hokm play`` waits for (QA: it stayed blank for the requests' whole timeout), without the
    password a link may hold (an audit's finding: the error's line hid it, this one not)."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)  # connections are taken (the backlog) and never answered
        where = f"127.0.0.1:{silent.getsockname()[1]}"
        term = Terminal([HOKM, "play", f"http://ann:s3cret@{where}"])
        terminal.append(term)
        wait_for(lambda: f"connecting to http://ann:***@{where} …" in term.screen(),
                 timeout=10, what="the connecting line", seen=term.screen)
        assert "s3cret" not in term.history()


def test_hokm_play_refuses_in_one_line(server: LocalServer) -> None:
    cases = [
        (("play", "ftp://nowhere/"), 2, "not an http(s) link"),
        (("play", "http://127.0.0.1:1/", "--spectate"), 2, "need a match link"),
        (("play", f"{server.url}/m/abc", "--spectate", "--bot", "easy"), 2, "no seat to play"),
        (("play", "http://127.0.0.1:1/", "--bot", "easy"), 1, "cannot reach the server"),
        # a word alone is no link (it was read as http://notaurl/ and unreachable: 1) ...
        (("play", "notaurl", "--bot", "easy"), 2, "'notaurl' is not a link"),
        # ... while a link to a host name that does not resolve may be a name server that is
        # down: a server that cannot be reached
        (("play", "http://notaurl.invalid/", "--bot", "easy"), 1, "cannot reach the server"),
        (("play", f"{server.url}/m/nosuchmatch", "--spectate"), 2, "no such match"),
        (("play", f"{server.url}/m/nosuchmatch", "--bot", "easy"), 2, "no such match"),
        (("play", f"{server.url}/m/nosuchmatch"), 2, "needs a terminal"),
        (("play", f"{server.url}/m/abc", "--spectate", "--token", "abc"), 2,
         "a spectator has no --token"),
        # (--name was ignored unsaid: a walkthrough's finding)
        (("play", f"{server.url}/m/abc", "--token", "abc", "--name", "Ann", "--bot", "easy"), 2,
         "--name names a new seat: a seat taken back with --token keeps its name"),
        (("play", server.url, "--game", "talon", "--players", "4", "--bot", "easy"), 2,
         "--game talon is a two-player game: it cannot go with --players 4"),
        (("play", server.url, "--players", "3", "--game", "simple", "--bot", "easy"), 2,
         "--game simple is a two-player game: it cannot go with --players 3"),
        # --players / --game and --rules naming different games (QA: --players won silently)
        (("play", server.url, "--bot", "easy", "--players", "2", "--rules", '{"players": 3}'),
         2, "--players 2 and --rules players 3 disagree"),
        (("play", server.url, "--bot", "easy", "--game", "talon", "--rules",
          '{"two_player": "simple"}'), 2, '--game talon and --rules two_player "simple" disagree'),
        (("play", server.url, "--bot", "easy", "--game", "talon", "--rules", '{"players": 3}'),
         2, "--game talon is a two-player game: it cannot go with --rules players 3"),
        # rules the server refuses are bad input too (an audit's finding: status 1)
        (("play", server.url, "--bot", "easy", "--rules", '{"bogus": 1}'), 2, "bad_rules"),
        (("play", server.url, "--bot", "easy", "--rules", '{"target": -5}'), 2, "bad_rules"),
    ]
    # (side by side: the two unreachable servers take ~12 s each of the client's retries)
    results = parallel([args for args, _, _ in cases], timeout=60)
    for (args, code, words), done in zip(cases, results, strict=True):
        where = f"{args}: {done.returncode} {done.stderr!r}"
        assert done.returncode == code, where
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("hokm play") and words in lines[0], where
        assert "Traceback" not in done.stderr + done.stdout
        # the address is said once (the client's network error names it as well)
        assert lines[0].count("127.0.0.1:1/") <= 1, where


@pytest.mark.timeout(300)
def test_r_at_the_end_of_a_match_plays_again_at_the_same_table(
        server: LocalServer, terminal: list[Terminal]) -> None:
    """``hokm play SERVER --bot easy`` in a terminal plays a solo match to its end; R there
    asks for the rematch (``POST .../rematch``) and the table of the next match follows, its
    bots the same, its score at nothing."""
    term = Terminal([HOKM, "play", server.url, "--bot", "easy", "--level", "easy", "--name",
                     "Tess"], env={"NO_COLOR": "1"})
    terminal.append(term)
    link = re.compile(r"Hokm  match (\w+) ·")
    first = wait_for(lambda: link.search(term.screen()), timeout=60, what="the table")
    old = first.group(1)
    over = wait_for(lambda: (s := term.screen()) and "Press R to play again" in s and s,
                    timeout=240, what="the end of the match")
    assert "Match over" in over
    term.type("r")
    new = wait_for(lambda: (m := link.search(term.screen())) and m.group(1) != old and m,
                   timeout=60, what="the rematch's table").group(1)
    # (its score is not checked: with no think time the bots and this seat's own --bot may
    # have finished rounds of it by the time a screen or the summary is read)
    client = Client(server.url)
    assert client.summary(old)["rematch"] == new
    summary = client.summary(new)
    assert sorted(str(s["bot"]) for s in summary["seats"]) == ["None", "easy", "easy", "easy"]
    assert summary["phase"] != "waiting"
    assert "Traceback" not in term.screen()


def test_seat_is_the_creators_seat_of_a_solo_match_and_a_missing_seat_is_said(
        server: LocalServer, terminal: list[Terminal]) -> None:
    """``--seat`` of a solo match is the seat the creator sits at (QA: it was ignored); a seat
    the match has not is refused in one line naming its seats, before (solo) or after (a link)
    asking the server, rather than the bare ``bad_request (no such seat)``."""
    term = Terminal([HOKM, "play", server.url, "--players", "2", "--seat", "1", "--name",
                     "Tess"], env={"NO_COLOR": "1"})
    terminal.append(term)
    wait_for(lambda: "you are seat 1" in term.screen(), timeout=60, what="seat 1 of the match",
             seen=term.screen)
    link = Client(server.url).create(players=2, seats=["human", "human"],
                                     name="Host")["invite_url"]
    for args, code, words in [
            ((server.url, "--players", "2", "--seat", "3"), 2,
             "--seat 3: a match of 2 players has seats 0 to 1"),
            ((link, "--seat", "3"), 2, "--seat 3: this match has seats 0 to 1")]:
        done = run("play", *args, "--bot", "easy", timeout=60)
        where = f"{args}: {done.returncode} {done.stderr!r}"
        assert done.returncode == code and done.stderr.strip().endswith(words), where
        assert len(done.stderr.strip().splitlines()) == 1, where


def test_the_invite_link_shows_while_a_seat_is_open(server: LocalServer,
                                                   terminal: list[Terminal]) -> None:
    """A room with a seat open to anyone shows its invite link (the solo match, every seat
    taken, does not: ``test_hokm_play_opens_a_solo_match_in_a_terminal``)."""
    link = Client(server.url).create(seats=["human", "human", "human", "bot:easy"],
                                     name="Host")["invite_url"]
    term = Terminal([HOKM, "play", link, "--name", "Tess"], env={"NO_COLOR": "1"})
    terminal.append(term)
    wait_for(lambda: f"Invite link: {link}" in term.screen() and "Waiting for players"
             in term.screen(), timeout=60, what="the link of the open room", seen=term.screen)


def test_plus_says_no_turn_limit_runs_in_a_solo_match(server: LocalServer,
                                                      terminal: list[Terminal]) -> None:
    """``+`` (more time) at the seat's turn where no turn limit runs (a player alone with
    bots) says so on the status line (QA: it did nothing visible)."""
    term = solo_in_terminal(server, terminal, 0, 7)[3]
    wait_for(lambda: "Choose trump" in term.screen(), timeout=60, what="the seat's turn",
             seen=term.screen)
    term.type("+")
    wait_for(lambda: "No turn limit runs here" in term.screen(), timeout=30,
             what="the answer to +", seen=term.screen)



def took_back(term: Terminal, client: Client, server: LocalServer, mid: str, seat: int) -> None:
    """Check that ``term``'s command ended saying how to take its seat back (the line that
    takes ``seat`` of ``mid`` back, whose token does), without a traceback."""
    told = term._run("capture-pane", "-p", "-J", "-S", "-", "-t", "play")  # (lines unwrapped)
    said = re.search(rf"To take this seat back: hokm play {re.escape(server.url)}/m/{mid} "
                     r"--token=(\S+)", told)
    assert said, told
    assert "Traceback" not in told
    assert client.view(mid, said.group(1))["view"]["seat"] == seat  # the token takes it back
    # and what becomes of the seat's turns meanwhile, by the room's disconnect_timeout (60 s)
    assert "Meanwhile, from 60 s away, a stand-in plays your turns (the seat stays yours)." \
        in told, told


def test_ctrl_c_without_a_terminal_prints_the_token_that_takes_the_seat_back(
        server: LocalServer, terminal: list[Terminal]) -> None:
    """``hokm play --bot`` with no terminal for input (lines on the screen, the keyboard's
    Ctrl+C as the only key) stopped by Ctrl+C: as at the table, it says how to take the seat
    back (it ended with nothing: the seat left without its token)."""
    client = Client(server.url)
    created = client.create(seats=["human", "human", "human", "bot:easy"], name="Host")
    mid = created["match_id"]
    # a seat of a match that waits for its third player: the local bot has nothing to play
    term = Terminal([HOKM, "play", created["invite_url"], "--bot", "easy", "--name", "Piped"],
                    env={"NO_COLOR": "1"}, stdin="/dev/null")
    terminal.append(term)
    wait_for(lambda: f"hokm play: seat 1 in match {mid}" in term.screen(), timeout=60,
             what="the first line", seen=term.screen)
    term.keys("C-c")
    wait_for(lambda: term.exit_status() is not None, timeout=30, what="hokm play quitting",
             seen=term.history)
    assert term.exit_status() == 130
    took_back(term, client, server, mid, 1)


@pytest.mark.parametrize("table", [True, False], ids=["table", "lines"])
def test_sigterm_gives_the_terminal_back_and_prints_the_token_that_takes_the_seat_back(
        server: LocalServer, terminal: list[Terminal], table: bool) -> None:
    """SIGTERM (a ``kill``) ends ``hokm play`` as its quit key does: the table's full screen
    closed and the cursor shown again, the line that takes the seat back printed, status 143.
    It died with the terminal left in the game's screen, the cursor hidden, and the token lost
    (an audit's finding).  The same without a terminal (``--bot``: the trick lines)."""
    client = Client(server.url)
    created = client.create(seats=["human", "human", "human", "bot:easy"], name="Host")
    mid = created["match_id"]
    command = [HOKM, "play", created["invite_url"], "--name", "Kill"]
    term = Terminal(command if table else [*command, "--bot", "easy"], env={"NO_COLOR": "1"},
                    stdin=None if table else "/dev/null")
    terminal.append(term)
    shown = "Waiting for players" if table else f"hokm play: seat 1 in match {mid}"
    wait_for(lambda: shown in term.screen(), timeout=60, what="the table", seen=term.screen)
    if table:
        assert modes(term) == (1, 0)  # the game's screen, no cursor
    os.kill(command_pid(term), signal.SIGTERM)
    wait_for(lambda: term.exit_status() is not None, timeout=30, what="hokm play ending",
             seen=term.history)
    assert term.exit_status() == 143
    # the shell's screen (as after the quit key: tmux's cursor flag of a pane whose command
    # ended reads 0 either way, so the cursor is not checked)
    wait_for(lambda: modes(term)[0] == 0, timeout=10, what="the terminal given back",
             seen=lambda: str(modes(term)))
    took_back(term, client, server, mid, 1)


def test_joining_a_finished_match_says_how_to_replay_it(server: LocalServer) -> None:
    """``hokm play LINK`` of a match that is over: bad input (status 2), and the command that
    shows it (it said "the server refused: match_over", status 1: an audit's finding)."""
    client = Client(server.url)
    created = client.create(players=2, seats=["bot:easy", "bot:easy"],
                            rules={"players": 2, "target": 7})
    mid = str(created["match_id"])
    wait_for(lambda: client.summary(mid)["phase"] == "match_over", timeout=120,
             what="the bots' match to end")
    done = run("play", f"{server.url}/m/{mid}", "--bot", "easy", timeout=60)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == (f"hokm play: this match is over: hokm replay "
                                   f"{server.url}/m/{mid} shows it move by move"), done.stderr


def test_the_quit_line_says_what_becomes_of_the_seats_turns(server: LocalServer) -> None:
    """By the room's ``disconnect_timeout``: a stand-in plays from that many seconds away, or
    (0) the table waits; nothing when the server does not answer at once."""
    from types import SimpleNamespace

    from hokmplay.cli import away_words

    client = Client(server.url)
    said = []
    for limit, seats in ((0, 2), (12.5, 2), (12.5, 1)):
        made = client.create(seats=["human"] * seats + ["bot:easy"] * (4 - seats),
                             disconnect_timeout=limit)
        if seats == 2:
            client.join(made["match_id"], name="Bo")
        seat = SimpleNamespace(client=SimpleNamespace(base=server.url),
                               match_id=made["match_id"])
        said.append(run_async(away_words(seat), 30))  # type: ignore[arg-type]
    gone = SimpleNamespace(client=SimpleNamespace(base=f"http://127.0.0.1:{free_port()}"),
                           match_id="abc")
    said.append(run_async(away_words(gone), 30))  # type: ignore[arg-type]
    assert said == [
        "Meanwhile the table waits for you: this room never plays an away seat's turns.",
        "Meanwhile, from 12.5 s away, a stand-in plays your turns (the seat stays yours).",
        # (a solo table: the stand-in would play on to bots alone, which an address may have
        # only a few of at a time, the server's bots-only limit)
        "Meanwhile, from 12.5 s away, a stand-in plays your turns (the seat stays yours). "
        "With nobody else at this table, it waits for you instead while too many of your "
        "tables already play on without anyone.",
        None]


def test_a_choice_typed_out_of_turn_is_told_to_wait(server: LocalServer,
                                                    terminal: list[Terminal]) -> None:
    """A choice typed and entered while another seat decides says so (it was dropped without
    a word: a walkthrough's finding), and nothing is sent."""
    from hokmplay.app import NOT_YET

    client = Client(server.url)
    created = client.create(seats=["human", "human", "bot:easy", "bot:easy"], name="Host",
                            first_hakem=0, decks=[deck(31)], rules={"teams": "as_seated"})
    mid = str(created["match_id"])
    joined = client.join(mid, name="Late")
    hakem = client.view(mid, str(created["token"]))["view"]["hakem"]
    mine = next(t for t in (str(created["token"]), str(joined["token"]))
                if client.view(mid, t)["view"]["seat"] != hakem)
    term = Terminal([HOKM, "play", f"{server.url}/m/{mid}", f"--token={mine}"],
                    env={"NO_COLOR": "1"})
    terminal.append(term)
    wait_for(lambda: "to choose trump" in term.screen(), timeout=60,
             what="another seat's trump to wait for", seen=term.screen)
    version = client.view(mid, mine)["view"]["version"]
    term.type("js")
    term.keys("Enter")
    wait_for(lambda: NOT_YET in " ".join(term.screen().split()), timeout=30,
             what="the word that it is not the seat's turn", seen=term.screen)
    assert client.view(mid, mine)["view"]["version"] == version  # nothing was sent
    # typing a new choice clears what the last Enter said (it stayed under the new one)
    term.type("q")
    wait_for(lambda: "Typed: q" in term.screen() and NOT_YET not in " ".join(
        term.screen().split()), timeout=30, what="the answer cleared", seen=term.screen)


def test_a_player_who_leaves_to_a_bot_is_said_at_the_others_table(
        server: LocalServer, terminal: list[Terminal]) -> None:
    """A player at the table leaves and a computer player takes the seat: the others' table
    says so (it only renamed the seat: a walkthrough's finding)."""
    client = Client(server.url)
    created = client.create(seats=["human", "human", "bot:easy", "bot:easy"], name="Host",
                            rules={"teams": "as_seated"})
    mid = str(created["match_id"])
    joined = client.join(mid, name="Late")
    term = Terminal([HOKM, "play", f"{server.url}/m/{mid}", f"--token={created['token']}"],
                    env={"NO_COLOR": "1"})
    terminal.append(term)
    wait_for(lambda: "Late" in term.screen(), timeout=60, what="the table with Late",
             seen=term.screen)
    client.leave(mid, str(joined["token"]), replace_with="bot:easy")
    seat = int(joined["seat"])
    bot = wait_for(lambda: (s := client.summary(mid)["seats"][seat])["bot"] and s["name"],
                   timeout=30, what="the bot in Late's seat")
    wait_for(lambda: f"Late left: a computer player, {bot}, plays seat {seat} from now on."
             in " ".join(term.screen().split()), timeout=30, what="the word of it",
             seen=term.screen)
