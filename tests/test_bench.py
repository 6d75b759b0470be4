"""The benchmark scripts (bench/README.md) as a user meets them: a bad option or a Redis that
does not answer is one clear line and exit status 2, never a traceback; a run ends with its
``RESULT`` line and leaves no key behind.  The figures themselves are not checked here."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import redis

from tests.conftest import real_redis_client, redis_db_url

ROOT = Path(__file__).resolve().parent.parent
DB = 15
UNREACHABLE = "redis://127.0.0.1:1/0"  # nothing listens on port 1


def bench(*args: str, env: dict[str, str] | None = None,
          timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "bench" / args[0]), *args[1:]],
                          cwd=ROOT, env={**os.environ, **(env or {})}, capture_output=True,
                          text=True, timeout=timeout)


def last_line(text: str) -> str:
    return text.strip().splitlines()[-1]


@pytest.mark.parametrize("args", [
    ("engine.py", "0"), ("engine.py", "100", "x"), ("store.py", "0"),
    ("store.py", "--idle-s", "-1"), ("load.py", "--slices", "0"), ("load.py", "--kinds", "foo"),
    ("load.py", "--phases", "lat"), ("failover.py", "--matches", "0"),
    ("bots.py", "--moves", "0"), ("fairness.py", "--blocks", "0"),
    ("socket_lag.py", "--moves", "0"), ("analysis.py", "--repeats", "0"),
    ("analysis.py", "--bot", "nosuch"), ("analysis_calibration.py", "--jobs", "0"),
    ("analysis_calibration.py", "--players", "nosuch"), ("analysis_calibration.py", "--seats", "5"),
])
def test_a_bad_option_is_one_line_of_usage(args: tuple[str, ...]) -> None:
    out = bench(*args, env={"HOKM_BENCH_REDIS_URL": UNREACHABLE})
    assert out.returncode == 2, out
    assert "Traceback" not in out.stderr
    assert f"{args[0]}: error: argument" in last_line(out.stderr)


@pytest.mark.parametrize("args", [
    ("store.py", "1"), ("fairness.py", "--moves", "1"),
    ("load.py", "--redis", UNREACHABLE, "--ref-redis", UNREACHABLE),
])
def test_an_unreachable_redis_is_one_line(args: tuple[str, ...]) -> None:
    out = bench(*args, env={"HOKM_BENCH_REDIS_URL": UNREACHABLE})
    assert out.returncode == 2, out
    assert "Traceback" not in out.stderr
    assert last_line(out.stderr).startswith(f"{args[0]}: cannot reach Redis: ")


def test_engine_ends_with_its_result_line(tmp_path: Path) -> None:
    # a stand-in for the workspace's reference loop, which a clone elsewhere (CI's) has not
    stand_in = tmp_path / "bare_round.py"
    stand_in.write_text("def round_(rng):\n    return [7, int(rng.random() * 7)]\n")
    out = bench("engine.py", "50", "1", env={"HOKM_BENCH_BARE": str(stand_in)})
    assert out.returncode == 0, out
    assert last_line(out.stdout).startswith("RESULT ratio=")


def keys_left(client: redis.Redis) -> int:
    return int(client.dbsize())


def test_store_leaves_no_key_and_ends_with_its_result_line() -> None:
    client = real_redis_client(DB)
    client.flushdb()
    out = bench("store.py", "1", "--idle-s", "0.2",
                env={"HOKM_BENCH_REDIS_URL": redis_db_url(DB)})
    assert out.returncode == 0, out
    fields = [f.split("=")[0] for f in last_line(out.stdout).split()]
    assert fields == ["RESULT", "replay_ratio", "append_ratio", "bytes_per_match",
                      "tail_wake_ms", "follower_idle_cps"]
    assert keys_left(client) == 0  # the idle follower's 1,110 matches were left


def test_fairness_leaves_no_key_and_ends_with_its_result_line() -> None:
    client = real_redis_client(DB)
    client.flushdb()
    out = bench("fairness.py", "--moves", "1", "--flood", "1", "--blocks", "1", "--think", "0",
                env={"HOKM_BENCH_REDIS_URL": redis_db_url(DB)})
    assert out.returncode == 0, out
    fields = [f.split("=")[0] for f in last_line(out.stdout).split()]
    assert fields == ["RESULT", "idle_p50_ms", "flood_p50_ms", "idle_p95_ms", "flood_p95_ms",
                      "p95_ratio"]
    assert keys_left(client) == 0


@pytest.mark.parametrize("seats", ["2", "4"])
def test_the_calibration_ends_with_its_result_line(seats: str) -> None:
    """The analysis's calibration, in the game of four and of two (``--seats``: the mover's
    bias, which draws the two-player graph as a saw)."""
    out = bench("analysis_calibration.py", "--deals", "1", "--jobs", "1", "--seats", seats)
    assert out.returncode == 0, out
    fields = [f.split("=")[0] for f in last_line(out.stdout).split()]
    assert fields == ["RESULT", "brier", "brier_base", "n", "skill", "partner_gap", "mover_bias"]
    assert ("graph's saw" in out.stdout) == (seats == "2"), out.stdout


def test_the_calibrations_saw_pairs_decisions_in_the_order_they_were_made(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The two-player saw compares each estimate with the other player's next one: the rows
    stay in play order within a deal (a whole sort put them in seat order and measured seat 0's
    last estimate against seat 1's first: session 38's 0.087)."""
    import importlib.util

    monkeypatch.syspath_prepend(str(ROOT / "bench"))  # (its benchcli, as a script finds it)
    spec = importlib.util.spec_from_file_location(
        "analysis_calibration", ROOT / "bench" / "analysis_calibration.py")
    assert spec is not None and spec.loader is not None
    calibration = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(calibration)
    # (deal, seat, tricks played, cards in hand, the mover's estimate for itself, won)
    deal0 = [(0, 0, 0, 13, 0.6, 1), (0, 1, 0, 13, 0.5, 0), (0, 0, 1, 12, 0.7, 1),
             (0, 1, 1, 12, 0.2, 0)]
    deal1 = [(1, 1, 0, 13, 0.4, 1), (1, 0, 0, 13, 0.5, 0)]
    rows = calibration.in_play_order(iter([deal1, deal0]))
    assert rows == deal0 + deal1
    # in seat 0's terms: 0.6 then 0.5, 0.7, 0.8; and 0.6 then 0.5 (seat 0's less seat 1's)
    expected = ((0.6 - 0.5) + (0.7 - 0.5) + (0.7 - 0.8) + (0.5 - 0.6)) / 4
    assert calibration.alternation(rows) == pytest.approx(expected)
