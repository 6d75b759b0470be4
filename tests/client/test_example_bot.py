"""The bot kit's example (``examples/bot.py``, run as a user runs it) joins a match from its
invite link and plays it to its end against the server's bots; it stays about thirty lines."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from hokmclient import Client, LocalServer

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "bot.py"


def test_the_example_bot_plays_a_match_to_its_end(server: LocalServer) -> None:
    client = Client(server.url)
    created = client.create(seats=["human", "human", "bot:easy", "bot:easy"], name="Host")
    client.leave(created["match_id"], created["token"], "bot:easy")  # one open seat left
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOKM_")}
    done = subprocess.run([sys.executable, str(EXAMPLE), created["invite_url"], "Example"],
                          capture_output=True, text=True, timeout=240, env=env,
                          cwd=EXAMPLE.parent)
    assert done.returncode == 0, done.stderr
    summary = client.summary(created["match_id"])
    assert summary["phase"] == "match_over" and summary["winner"] in (0, 1)
    seat = [s["name"] for s in summary["seats"]].index("Example")
    score, won = summary["score"], summary["winner"]
    assert score[won] > score[1 - won]  # the winner's score first, as bots.md shows it
    assert done.stdout.strip() == (f"match over: team {won} won {score[won]}-"
                                   f"{score[1 - won]} (I was seat {seat}, team {seat % 2})")
    assert len(EXAMPLE.read_text().splitlines()) <= 40
