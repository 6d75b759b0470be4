"""The bot kit's example (``examples/bot.py``, run as a user runs it) joins a match from its
invite link and plays it to its end against the server's bots in every game: four players, two
(the simple game and the talon game, where it must lay cards aside and keep or discard the
talon's top card) and three; it prints the result by side (``docs/api.md``: four players play in
two teams, ``seat % 2``; two and three players one seat a side, side = seat) and stays about
thirty lines."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hokmclient import Client, LocalServer

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
    assert len(EXAMPLE.read_text().splitlines()) <= 40
