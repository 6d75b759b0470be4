"""``hokm arena --rules``: the house rules are checked as rules of the game that ``--players``
and ``--two-player`` name (not always as the four-player game's), and a ``players`` or
``two_player`` given both as an option and in ``--rules`` must agree, as the API requires
(``players and rules.players disagree``).  Run as the real command: a refusal is one line on
stderr and exit status 2, never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from worker import arena

HOKM = str(Path(sys.executable).parent / "hokm")
ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOKM_")}
    return subprocess.run([HOKM, "arena", "heuristic", "random", "--deals", "1", "--quiet",
                           *args], env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


def one_line_refusal(result: subprocess.CompletedProcess[str]) -> str:
    where = f"{result.args[1:]}: rc {result.returncode}, stderr {result.stderr!r}"
    assert result.returncode == 2, where
    assert "Traceback" not in result.stderr + result.stdout, where
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hokm arena: "), where
    return lines[0]


@pytest.mark.parametrize(("args", "game"), [
    (("--players", "3", "--rules", '{"deal": "5-4-4-4"}'),
     {"players": 3, "deal": "5-4-4-4"}),
    (("--players", "2", "--rules", '{"two_player": "talon"}'),
     {"players": 2, "two_player": "talon"}),
    (("--players", "2", "--two-player", "talon", "--rules", '{"deal": "talon"}'),
     {"players": 2, "two_player": "talon", "deal": "talon"}),
    (("--players", "3", "--rules", '{"players": 3, "satat": true}'),
     {"players": 3, "satat": True}),
    (("--rules", '{"players": 2, "two_player": "talon"}', "--two-player", "talon"),
     {"players": 2, "two_player": "talon"}),
])
def test_rules_of_the_game_the_options_name_are_accepted(args: tuple[str, ...],
                                                         game: dict[str, Any]) -> None:
    result = run(*args)
    assert result.returncode == 0, result.stderr
    first, *_, last = result.stdout.strip().splitlines()
    assert last.startswith("RESULT a_round_rate=")
    shown = json.loads(first.split(" rules ", 1)[1].rsplit("; bot code", 1)[0])
    assert shown == game  # the game played is the one asked for


@pytest.mark.parametrize(("args", "words"), [
    (("--rules", '{"players": 3}', "--players", "4"), "--players 4 and --rules players 3"),
    (("--players", "2", "--rules", '{"players": 4}'), "--players 2 and --rules players 4"),
    (("--two-player", "simple", "--rules", '{"players": 2, "two_player": "talon"}'),
     '--two-player simple and --rules two_player "talon"'),
])
def test_a_game_named_twice_differently_is_refused(args: tuple[str, ...], words: str) -> None:
    line = one_line_refusal(run(*args))
    assert words in line and "disagree" in line


@pytest.mark.parametrize(("args", "words"), [
    (("--players", "3", "--rules", '{"deal": "5-4-4"}'), "deal must be one of 5-4-4-4"),
    (("--players", "2", "--two-player", "talon", "--rules", '{"deal": "5-4-4"}'),
     "deal must be one of talon"),
    (("--players", "2", "--rules", '{"teams": "as_seated"}'), "teams"),
    (("--rules", '{"deal": "5-4-4-4"}'), "deal must be one of 5-4-4, 5-3-3-2"),
    (("--players", "3", "--two-player", "talon"), "two_player"),
])
def test_rules_the_game_does_not_play_are_refused_in_one_line(args: tuple[str, ...],
                                                              words: str) -> None:
    assert words in one_line_refusal(run(*args))


def test_game_rules() -> None:
    assert arena.game_rules(None) == {}
    assert arena.game_rules({"deal": "5-4-4-4"}, 3) == {"deal": "5-4-4-4", "players": 3}
    assert arena.game_rules({"players": 2}, None, "talon") == {"players": 2,
                                                               "two_player": "talon"}
    with pytest.raises(arena.RulesDisagree):
        arena.game_rules({"players": 3}, 4)
    with pytest.raises(ValueError, match="deal"):
        arena.game_rules({"deal": "talon"}, 2)  # the simple game by default
