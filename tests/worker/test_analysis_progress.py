"""``hokm analyze MATCH --local``: the progress counts to its total, and the total is every
decision the analysis reports.  In the talon game the discards and the draws are decisions too
(``worker/analysis/core.py``): the total once counted only the trumps and the cards played, so
the progress ran past it (``analysed 413 of 217 decisions``)."""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import fakeredis

from services.matches import MatchService
from services.store.journal import DataFolder
from services.store.redis_streams import RedisStore
from tests.services.test_variant_rooms import open_room, random_to_end

HOKM = str(Path(sys.executable).parent / "hokm")
ROOT = Path(__file__).resolve().parents[2]
FAST = {"HOKM_ANALYSIS_BOT": "medium", "HOKM_ANALYSIS_NODES": "3000"}
PROGRESS = re.compile(r"analysed (\d+) of (\d+) decisions")


def finished_in_folder(folder: Path, rules: dict[str, Any], seed: int) -> str:
    """A match of ``rules`` played to its end at random, kept in the data folder ``folder``."""
    server = fakeredis.FakeServer()
    data = DataFolder.open(folder, server)
    try:
        service = MatchService(RedisStore(fakeredis.FakeRedis(server=server)))
        match_id, _ = open_room(service, rules)
        random_to_end(service, match_id, random.Random(seed))
    finally:
        data.close()
    return match_id


def test_the_talon_games_progress_ends_at_its_total_which_counts_every_decision(
        tmp_path: Path) -> None:
    rules = {"players": 2, "two_player": "talon"}
    match_id = finished_in_folder(tmp_path / "data", rules, seed=1)
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("HOKM_")}, **FAST}
    result = subprocess.run([HOKM, "analyze", match_id, "--local", "--data",
                             str(tmp_path / "data")], env=env, cwd=ROOT, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    # the progress goes to stderr: stdout is the report alone (the finding: `hokm analyze M >
    # report.txt` began with ten progress lines)
    assert not any(PROGRESS.search(line) for line in lines), result.stdout
    assert lines[0].startswith(f"Match {match_id}: "), lines[:3]
    steps = [(int(m[1]), int(m[2])) for line in result.stderr.splitlines()
             if (m := PROGRESS.fullmatch(line))]
    assert steps, result.stderr
    totals = {total for _, total in steps}
    assert len(totals) == 1, steps
    (total,) = totals
    assert all(done <= total for done, _ in steps), steps
    assert steps[-1] == (total, total)
    # the summary's decisions column, one row per player ("Name, seat N"; nobody changed
    # seats here, so one a seat), adds up to the total
    head = next(i for i, line in enumerate(lines)
                if line.split()[:2] == ["player", "decisions"])
    rows = [re.fullmatch(r"(.+), seat (\d+) +(\d+) +(\d+) +(\d+) +(\d+)", line.strip())
            for line in lines[head + 1:head + 1 + rules["players"]]]
    assert all(rows), lines[head:]
    assert [int(m[2]) for m in rows if m] == list(range(rules["players"]))
    assert sum(int(m[3]) for m in rows if m) == total
