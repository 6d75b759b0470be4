"""``hokm replay LINK`` in a real terminal (tmux): a finished match move by move, every hand
shown, each step what ``GET /api/matches/{id}/replay?step=k`` says; the keys move a step, a
trick, a round; a decision's analysis line names a costly move's mark where the analysis says
its ``cost``; a match not over, a match that is not there, a server that does not answer are
one line and status 1 (nothing of an unfinished match is shown), a bad link status 2; ``--help``
lists every key the viewer binds.

The finished match is cheap and always the same: four human seats played by the test over HTTP
(each the first of its legal choices), on stacked decks: round 1 on ``deck(CONTESTED)``, whose
play has moves that cost the round (the analysis says so: the test reads it and fails if no
move costs anything), every later round on a deck that gives the Hakem's side every trick
(a kot of seven tricks), so the match ends in four rounds and its analysis takes about a
second (the client tests' server has a small solver budget, ``conftest.py``)."""

from __future__ import annotations

import contextlib
import io
import os
import signal
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from hokmclient import Client, LocalServer, card_text, command_for, free_port
from hokmclient.cards import RANKS
from hokm import cli
from hokm.cli import main, subcommands
from hokmplay.replay import ReplayApp
from hokmplay.review import COST_WORDS, MARKS
from tests.conftest import wait_for

from .test_play_terminal import HOKM, deck
from .test_terminal_narrow import shrink, until
from .tmux import Terminal, command_pid, modes

NAMES = ["Ana", "Bob", "Cy", "Dee"]
CONTESTED = 4
"""The seed of round 1's deck: its play has moves that cost the round."""


def sweep() -> list[str]:
    """A deck (docs/api.md, stacked decks) whose Hakem holds the seven top spades and the
    partner the six others: the Hakem names spades (the first suit) and leads its spades, and
    its side wins seven tricks in a row."""
    hakem = "AS KS QS JS TS 9S 8S AH KH QH JH TH 9H".split()
    partner = "7S 6S 5S 4S 3S 2S AC KC QC JC TC 9C 8C".split()
    rest = "8H 7H 6H 5H 4H 3H 2H 7C 6C 5C 4C 3C 2C".split() + [r + "D" for r in RANKS]
    left, right = rest[:13], rest[13:]
    cards: list[str] = []
    for a, b in ((0, 5), (5, 9), (9, 13)):
        cards += hakem[a:b] + left[a:b] + partner[a:b] + right[a:b]
    return cards


@pytest.fixture(scope="module")
def finished(server: LocalServer) -> tuple[str, dict[str, Any]]:
    """The finished match's id and its analysis (done)."""
    with Client(server.url) as client:
        created = client.create(players=4, seats=["human"] * 4, name=NAMES[0], first_hakem=0,
                                decks=[deck(CONTESTED)] + [sweep()] * 8)
        mid = str(created["match_id"])
        tokens = [str(created["token"])]
        tokens += [str(client.join(mid, name=name)["token"]) for name in NAMES[1:]]
        view = client.view(mid, tokens[0])["view"]
        while view["phase"] != "match_over":
            seat = view["hakem"] if view["phase"] == "choosing_trump" else view["turn"]
            mine = client.view(mid, tokens[seat])["view"]
            view = client.command(mid, tokens[seat], command_for(mine, mine["legal"][0]))["view"]
        analysis = wait_for(lambda: (a := client.analysis(mid))["status"] == "done" and a,
                            timeout=60, every=0.1, what="the analysis")
    return mid, analysis


def flat(screen: str) -> str:
    """The screen's words one space apart (a line the terminal wrapped reads as one)."""
    return " ".join(screen.split())


def trick_text(view: dict[str, Any]) -> str:
    cards = view["trick"]
    return "Trick: " + (",  ".join(f"{NAMES[c['seat']]} {card_text(c['card'])}" for c in cards)
                        if cards else "no card played yet")


def shows(screen: str, answer: dict[str, Any]) -> bool:
    """Does the screen show the replay's ``answer``: its step, its trick, every hand?"""
    view = answer["view"]
    if f"step {answer['step']} of " not in screen or trick_text(view) not in screen:
        return False
    for seat, hand in enumerate(view["hands"]):
        line = next((x for x in screen.splitlines() if f"{NAMES[seat]} (seat {seat}" in x), "")
        shown = line.split("):", 1)[-1].split()
        if shown != ([card_text(c) for c in hand] or ["no", "cards"]):
            return False
    return True


def test_the_replay_steps_as_the_api_and_marks_a_costly_move_in_80_columns(
        server: LocalServer, terminal: list[Terminal],
        finished: tuple[str, dict[str, Any]]) -> None:
    mid, analysis = finished
    client = Client(server.url)
    events = client.events(mid, 0)["events"]
    tricks = [r["version"] for r in events if any(e["type"] == "trick_won" for e in r["events"])]
    deals = [r["version"] for r in events if any(e["type"] == "round_started" for e in r["events"])]
    moves = [m for r in analysis["rounds"] for m in r["moves"]]
    costly = [m for m in moves if m["cost"] is not None]
    assert costly, "round 1's deck has a costly move"
    move = costly[0]
    at = int(move["version"])
    term = Terminal([HOKM, "replay", f"{server.url}/replay/{mid.upper()}", "--step", str(at)],
                    env={"NO_COLOR": "1"})
    terminal.append(term)
    shrink(term, 80, 24)

    def on(step: int) -> str:
        answer = client.replay(mid, step)
        return until(term, lambda s: shows(s, answer), f"step {step} as the API replays it")

    # the costly move's verdict: its mark and words, the best choices, the hard bot's
    said = f"Analysis: {NAMES[move['seat']]} played {card_text(move['played'])} " \
           f"{MARKS[move['cost']]} {COST_WORDS[move['cost']]} · best: " \
           f"{', '.join(card_text(c) for c in move['best'])} · hard bot: " \
           f"{card_text(move['bot']['choice'])}"
    screen = until(term, lambda s: said in flat(s), "the costly move's verdict")
    assert "round-win chance for team" in flat(screen), screen
    on(at)
    term.keys("Right")
    on(at + 1)
    term.keys("Left", "Left")
    on(at - 1)
    won = next(t for t in tricks if t > at - 1)
    term.keys("]")  # the next trick won: its four cards the last trick, the table empty
    screen = on(won)
    last = client.replay(mid, won)["view"]["last_trick"]
    assert f"won by {NAMES[last['winner']]}" in screen and "Trick: no card played yet" in screen
    term.keys("[")
    on(max([t for t in tricks if t < won], default=0))
    term.keys("PageDown")  # the next deal
    deal = next(d for d in deals if d > max([t for t in tricks if t < won], default=0))
    screen = on(deal)
    assert "dealt, Hakem" in screen, screen
    # a move as good as the best: said so, and no mark
    fine = next(m for m in moves if m["version"] > deal and m["cost"] is None
                and m["played"] in m["best"])
    term.keys(*["Right"] * (fine["version"] - deal))
    screen = on(fine["version"])
    assert "as good as the best" in flat(screen), screen
    assert not any(f" {mark} cost" in flat(screen) for mark in MARKS.values()), screen
    term.keys("End")  # the last step: the summary per player, the API's counts
    screen = flat(until(term, lambda s: "The whole match, per player" in s, "the summary"))
    for seat in analysis["seats"]:
        row = seat["players"][0]
        counts = " · ".join(f"{MARKS[c]} {row[f'cost_{c}']}" for c in MARKS)
        assert f"{NAMES[seat['seat']]}, seat {seat['seat']}: {row['moves']} moves · " \
               f"{counts}" in screen, screen
    term.keys("q")
    assert wait_for(lambda: term.exit_status() is not None, timeout=10,
                    what="hokm replay ends") and term.exit_status() == 0


def hokm(*args: str) -> tuple[int, str, str]:
    """``hokm ARGS`` in this process (in a thread: no event loop of the test's in the way):
    its exit status, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()

    def run() -> int:
        try:
            return main(list(args))
        except SystemExit as done:  # (--help)
            return int(done.code or 0)

    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            ThreadPoolExecutor(1) as pool:
        status = pool.submit(run).result(timeout=60)
    return status, out.getvalue(), err.getvalue()


def test_what_cannot_be_replayed_is_one_line(server: LocalServer, tmp_path: Path) -> None:
    """A match not over (nothing of it shown), a match that is not there, a server that does
    not answer: one line, status 2 for what cannot be shown (as the other commands), 1 for the
    server that does not answer."""
    with Client(server.url) as client:
        live = str(client.create(seats=["human"] * 4, name="Ana", first_hakem=0,
                                 decks=[deck(1)])["match_id"])
    cases = [([f"{server.url}/m/{live}"], 2, "is not over yet (match_not_over)"),
             ([f"{server.url}/m/nosuchmatch"], 2, "there is no match nosuchmatch"),
             ([f"http://127.0.0.1:{free_port()}/m/{live}"], 1, "cannot reach"),
             ([server.url + "/"], 2, "give a match's link"),
             ([f"{server.url}/x/{live}"], 2, "neither a server"),
             # an empty MATCH listed the data folder's matches, and a path with a folder's
             # options was refused as a link's replay would be (session 37's audit)
             ([""], 2, "MATCH is empty"),
             (["../x", "--data", str(tmp_path)], 2, "'../x' is not a match id"),
             ([f"{server.url}/m/{live}", "--data", str(tmp_path)], 2,
              "--data is for a match of the data folder")]
    for args, status, words in cases:
        got, out, err = hokm("replay", *args)
        assert got == status, (args, err)
        assert out == "" and len(err.strip().splitlines()) == 1, (args, out, err)
        assert words in err and "Traceback" not in err, (args, err)
        assert not any(s in err for s in "♠♥♦♣"), err  # (the live match's cards: none)


def test_hokm_analyze_takes_the_link_of_a_finished_match(
        server: LocalServer, finished: tuple[str, dict[str, Any]], tmp_path: Path) -> None:
    """``hokm analyze LINK`` reports the analysis that server made, as ``hokm analyze MATCH``
    reports a match of this machine (a walkthrough's finding: the link the match's end prints
    was read as a match id of the data folder, and refused as not there); what cannot be
    analysed is one line.  ``hokm replay LINK`` without a terminal names that command."""
    mid, analysis = finished
    link = f"{server.url}/m/{mid}"
    status, out, err = hokm("analyze", link)
    assert status == 0, err
    assert f"Match {mid}: {len(analysis['rounds'])} rounds analysed" in out.splitlines()
    costly = [m for one in analysis["rounds"] for m in one["moves"] if m["cost"]]
    assert costly and "Costly moves:" in out
    for move in costly:
        assert f"record {move['version']}, " in out, (move, out)
    for seat in analysis["seats"]:  # a row per player: their decisions, as the server counts
        counts = [str(seat[k]) for k in ("moves", "cost_trick", "cost_round", "cost_kot")]
        assert any(f"seat {seat['seat']} " in line and line.split()[-4:] == counts
                   for line in out.splitlines()), (seat, out)
    with Client(server.url) as client:
        live = str(client.create(seats=["human"] * 4, name="Ana", first_hakem=0,
                                 decks=[deck(1)])["match_id"])
    cases = [([f"{server.url}/m/{live}"], 2, "over"),
             ([f"{server.url}/m/nosuchmatch"], 2, "nosuchmatch"),
             ([f"http://127.0.0.1:{free_port()}/m/{live}"], 1, "does not answer"),
             ([server.url + "/"], 2, "give a match's link"),
             ([link, "--local"], 2, "--local is for a match id of this machine"),
             ([link, "--data", str(tmp_path)], 2, "--data is for a match id of this machine")]
    for args, want, words in cases:
        got, out, err = hokm("analyze", *args)
        assert got == want, (args, err)
        assert out == "" and len(err.strip().splitlines()) == 1, (args, out, err)
        assert words in err and "Traceback" not in err, (args, err)
    status, out, err = hokm("replay", link)  # (no terminal here: the analysis is named)
    assert status == 2 and f"hokm analyze {link} prints the analysis" in err, err


def test_the_help_lists_every_key_the_replay_binds() -> None:
    bindings = ReplayApp._keys(object.__new__(ReplayApp)).bindings
    named = {"Keys.ControlC": "Ctrl+C", "Keys.Left": "←", "Keys.Right": "→", "[": "[",
             "]": "]", "Keys.PageUp": "PgUp", "Keys.PageDown": "PgDn", "Keys.Home": "Home",
             "Keys.End": "End", "s": "s", "q": "q"}
    bound = {str(k) for b in bindings for k in b.keys}
    assert bound == set(named), bound  # a new key: name it in the help and here
    status, out, err = hokm("replay", "--help")
    assert status == 0, err
    keys = out.split("keys of the replay:", 1)
    assert len(keys) == 2, out
    listed = " ".join(line[2:].split("  ", 1)[0] for line in keys[1].splitlines()[1:]
                      if line.startswith("  ") and not line.startswith("   "))
    for key in named.values():
        assert key in listed, (key, keys[1])


@pytest.mark.parametrize("order", ["as listed", "reversed"])
def test_hokm_replay_takes_links_whatever_order_the_plugins_register_in(
        monkeypatch: pytest.MonkeyPatch, order: str) -> None:
    """``hokm replay`` is ``services.audit``'s command; ``hokmplay.cli`` adds the links to it
    in its ``extend``, called once every plugin registered, so the link viewer does not hang on
    the order of ``hokm.cli._PLUGINS`` (it did: registered first, it found no replay to
    extend, and a link was read as a match id of the data folder)."""
    plugins = dict(cli._PLUGINS)
    if order == "reversed":
        monkeypatch.setattr(cli, "_PLUGINS", dict(reversed(list(plugins.items()))))
    for only in (None, "replay"):
        replay = subcommands(cli.build_parser(only))["replay"]
        match = next(a for a in replay._actions if a.dest == "match")
        assert match.metavar == "MATCH|LINK", (order, only)
        assert replay.get_default("func").__module__ == "hokmplay.cli", (order, only)
    for only in (None, "analyze"):  # (hokm analyze LINK: hokm.analyze_link's extend)
        analyze = subcommands(cli.build_parser(only))["analyze"]
        match = next(a for a in analyze._actions if a.dest == "match")
        assert match.metavar == "MATCH|LINK", (order, only)
        assert analyze.get_default("func").__module__ == "hokm.analyze_link", (order, only)


def test_sigterm_closes_the_replay_as_its_quit_key_does(
        server: LocalServer, terminal: list[Terminal],
        finished: tuple[str, dict[str, Any]]) -> None:
    """SIGTERM ends the replay viewer with the terminal given back (it died in its full
    screen, an audit's finding), status 143 and no traceback."""
    mid, _ = finished
    term = Terminal([HOKM, "replay", f"{server.url}/replay/{mid}"], env={"NO_COLOR": "1"})
    terminal.append(term)
    until(term, lambda s: "step 0 of" in flat(s), "the replay")
    assert modes(term)[0] == 1
    os.kill(command_pid(term), signal.SIGTERM)
    assert wait_for(lambda: term.exit_status() is not None, timeout=30,
                    what="hokm replay ends") and term.exit_status() == 143
    wait_for(lambda: modes(term)[0] == 0, timeout=10, what="the terminal given back")
    assert "Traceback" not in term.history()
