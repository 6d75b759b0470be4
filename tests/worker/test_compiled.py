"""The mypyc-compiled hot modules (``setup.py``) are current and choose exactly as the source."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from worker.policies import MODE, _compiled

ROOT = Path(__file__).resolve().parents[2]

_PLAY = """
import json, random
from engine import Rules
from worker.policies import MODE, policy_for
from tests.worker.helpers import Table, random_deck
choices = []
for level in ("hard", "medium"):
    bot, other = policy_for(level), policy_for("heuristic")
    rng = random.Random(8)
    for deal in range(2):
        table = Table(Rules.from_dict({"must_trump": deal == 1}), hakem=deal)
        table.deal(random_deck(rng))
        while table.live:
            seat = table.state.turn
            policy = bot if seat % 2 == 0 else other
            choice = policy.choose(table.view(seat), table.histories[seat],
                                   random.Random(len(choices)))
            choices.append(choice)
            table.act(choice)
print(json.dumps([MODE, choices]))
"""


def _play(pure: bool) -> tuple[str, list[str]]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("HOKM_PURE", None)
    if pure:
        env["HOKM_PURE"] = "1"
    out = subprocess.run([sys.executable, "-W", "ignore", "-c", _PLAY], env=env, cwd=ROOT,
                         capture_output=True, text=True, timeout=240, check=True)
    mode, choices = json.loads(out.stdout)
    return mode, choices


def test_compiled_modules_match_their_source() -> None:
    """Where a build exists it was made from the current source and is the one in use."""
    if _compiled.compiled() and not _compiled.pure():
        assert _compiled.stale() == []
        assert MODE == "compiled"
        assert len(_compiled.compiled()) == len(_compiled.HOT)


def test_compiled_and_plain_python_choose_alike() -> None:
    """Whole rounds of hard and medium bots (two rule sets): the same card at every decision."""
    compiled_mode, compiled_choices = _play(pure=False)
    pure_mode, pure_choices = _play(pure=True)
    assert pure_mode == "python"
    assert compiled_mode == ("compiled" if _compiled.compiled() else "python")
    assert len(compiled_choices) > 40
    assert compiled_choices == pure_choices


@pytest.mark.parametrize(("value", "on"), [
    ("1", True), ("yes", True), (" TRUE ", True), ("on", True),
    ("", False), ("0", False), ("no", False), ("Off", False), ("false", False)])
def test_hokm_pure_takes_the_words_of_every_switch(
        monkeypatch: pytest.MonkeyPatch, value: str, on: bool) -> None:
    """``HOKM_PURE`` reads as every HOKM_ switch (only ``1`` counted: ``yes`` kept the
    compiled bots, unsaid)."""
    monkeypatch.setenv("HOKM_PURE", value)
    assert _compiled.pure() is on


def test_a_hokm_pure_that_is_no_switch_is_read_as_on_and_said(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOKM_PURE", "maybe")
    with pytest.warns(RuntimeWarning, match="HOKM_PURE must be 1 or 0"):
        assert _compiled.pure() is True
