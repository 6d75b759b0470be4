"""The bot kit's example (``examples/bot.py``, run as a user runs it) joins a match from its
invite link and plays it to its end against the server's bots in every game: four players, two
(the simple game and the talon game, where it must lay cards aside and keep or discard the
talon's top card) and three; it prints the result by side (``docs/api.md``: four players play in
two teams, ``seat % 2``; two and three players one seat a side, side = seat) and stays about
forty lines of code.  It keeps playing when the match moves on between its view and its command (a
player leaves and comes back just before it, every other command: QA's bot died of
``stale_version``).  Everyday mistakes get a usage line (exit 2) or a one-line error (exit 1),
never a traceback: no link, a match that does not exist or is over, something that is not an
invite link."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hokmclient import Client, LocalServer
from tests.conftest import wait_for

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "bot.py"

GAMES: dict[str, dict[str, Any]] = {
    "four players": {"seats": ["human", "human", "bot:easy", "bot:easy"]},
    "two players, simple": {"players": 2, "seats": ["human", "human"]},
    "two players, talon": {"players": 2, "seats": ["human", "human"],
                           "rules": {"two_player": "talon"}},
    "three players": {"players": 3, "seats": ["human", "human", "bot:easy"]},
}


@pytest.mark.parametrize("game", list(GAMES))
def test_the_example_bot_plays_every_game_and_prints_the_result_by_side(
        server: LocalServer, game: str) -> None:
    client = Client(server.url)
    created = client.create(name="Host", **GAMES[game])
    client.leave(created["match_id"], created["token"], "bot:easy")  # one open seat left
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOKM_")}
    done = subprocess.run([sys.executable, str(EXAMPLE), created["invite_url"], "Example"],
                          capture_output=True, text=True, timeout=240, env=env,
                          cwd=EXAMPLE.parent)
    assert done.returncode == 0, done.stderr
    summary = client.summary(created["match_id"])
    assert summary["phase"] == "match_over"
    seat = [s["name"] for s in summary["seats"]].index("Example")
    score, won = summary["score"], summary["winner"]
    sides = 2 if game == "four players" else GAMES[game]["players"]
    assert len(score) == sides and won in range(sides)
    others = [points for side, points in enumerate(score) if side != won]
    assert all(score[won] > points for points in others)
    # the winner's score first, then the rest; one seat a side but with four (seat % 2)
    side = seat % 2 if game == "four players" else seat
    who = "team" if game == "four players" else "player"  # the finding: "team" for one seat
    assert done.stdout.strip() == (
        f"match over: {who} {won} won {'-'.join(map(str, [score[won], *others]))}"
        f" (I was seat {seat}, {who} {side})")
    if game == "two players, talon":  # it laid cards aside and drew from the talon
        events = client.events(created["match_id"], 0)["events"]
        kinds = {e["type"] for record in events if record.get("actor") == seat
                 for e in record["events"]}
        assert {"cards_discarded", "talon_drawn"} <= kinds, kinds
    assert len(_code_lines()) <= 40


def _code_lines() -> list[str]:
    """The example's lines of code: neither blank nor its module docstring."""
    text = EXAMPLE.read_text()
    code = text[text.index('"""', 3) + 3:]
    return [line for line in code.splitlines() if line.strip()]


CHURN = """
import os, runpy, sys
from hokmclient import Client, Seat
api, match = Client(os.environ["CHURN_URL"]), os.environ["CHURN_MATCH"]
token = [os.environ["CHURN_TOKEN"]]
sent, decide = [0], Seat.decide
def churned(seat, choice, view=None):
    sent[0] += 1
    if sent[0] % 2 and sent[0] < 24:  # the other player leaves and comes back: the version
        at = api.view(match, token[0])["view"]["seat"]  # moves past the view's (the ace draw
        api.leave(match, token[0])                      # may have moved its seat)
        token[0] = api.join(match, name="Churn", seat=at)["token"]
    elif sent[0] == 24:  # then a bot takes the seat: the match ends sooner than with a stand-in
        api.leave(match, token[0], "bot:easy")
    return decide(seat, choice, view)
Seat.decide = churned
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""
"""The example run with its every other command preceded by a seat change (deterministically:
each of those commands is for a view one seat change old), for its first 24 commands."""


def test_the_example_bot_decides_again_when_a_player_leaves_and_returns_before_its_command(
        server: LocalServer) -> None:
    client = Client(server.url)
    # the churning player's seat has no socket: a stand-in plays its turns at once
    created = client.create(name="Churn", seats=["human", "human", "bot:easy", "bot:easy"],
                            disconnect_timeout=0.01)
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("HOKM_")},
           "CHURN_URL": server.url, "CHURN_MATCH": created["match_id"],
           "CHURN_TOKEN": created["token"]}
    done = subprocess.run([sys.executable, "-c", CHURN, str(EXAMPLE), created["invite_url"],
                           "Example"], capture_output=True, text=True, timeout=240, env=env,
                          cwd=EXAMPLE.parent)
    assert done.returncode == 0, done.stderr  # before: ApiError: stale_version
    assert done.stdout.startswith("match over: team "), done.stdout
    assert client.summary(created["match_id"])["phase"] == "match_over"
    events = client.events(created["match_id"], 0)["events"]
    left = [e for record in events for e in record["events"] if e["type"] == "seat_left"]
    assert len(left) >= 12  # the bot met a moved match at least that often


def _run_example(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOKM_")}
    return subprocess.run([sys.executable, str(EXAMPLE), *args], capture_output=True, text=True,
                          timeout=60, env=env, cwd=EXAMPLE.parent)


def test_the_example_bot_answers_everyday_mistakes_in_one_line(server: LocalServer) -> None:
    client = Client(server.url)
    over = client.create(name="Host", seats=["human", "bot:easy", "bot:easy", "bot:easy"])
    client.leave(over["match_id"], over["token"], "bot:easy")  # bots alone: to its end
    wait_for(lambda: client.summary(over["match_id"])["phase"] == "match_over", 120,
             what="a match of bots to end")
    usage = "usage: python examples/bot.py INVITE_LINK [NAME]"
    for args, code, said in [
            ((), 2, usage),
            ((over["invite_url"], "Bot", "extra"), 2, usage),
            ((f"{server.url}/m/nonexist",), 1, "bot.py: not_found: "),
            ((over["invite_url"],), 1, "bot.py: match_over: "),
            (("notaurl",), 1, "bot.py: 'notaurl' is not an invite link (http://HOST/m/MATCH)"),
            ((server.url,), 1, "is not an invite link")]:
        done = _run_example(*args)
        assert (done.returncode, done.stdout) == (code, ""), (args, done.stderr)
        assert len(done.stderr.splitlines()) == 1 and said in done.stderr, (args, done.stderr)
