"""``hokm worker``'s ``GET /metrics`` (``HOKM_WORKER_METRICS_PORT``, worker/metrics.py): two real
worker processes on the real Redis play a match of four bots, and the exported figures are both
processes' together (every move of the log counted once); a bad or busy port stops the command
with one line; the metrics' folder does not outlive the worker."""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis
from prometheus_client.parser import text_string_to_metric_families

from services.bots import RQScheduler
from services.matches import MatchService
from services.store.redis_streams import RedisStore
from tests.conftest import free_port, real_redis_client, redis_db_url, wait_for

DB = 9
pytestmark = pytest.mark.redis


@pytest.fixture
def env(tmp_path: Path) -> Iterator[dict[str, str]]:
    client = real_redis_client(DB)
    client.flushdb()
    yield {**os.environ, "HOKM_REDIS_URL": redis_db_url(DB),
           "HOKM_QUEUE": f"test-metrics-{secrets.token_hex(4)}", "HOKM_BOT_TIMEOUT": "2",
           "TMPDIR": str(tmp_path)}
    client.flushdb()


def samples(port: int) -> dict[tuple[str, frozenset[tuple[str, str]]], float] | None:
    try:
        text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=2).text
    except httpx.TransportError:
        return None  # not listening yet
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def test_two_processes_export_every_move_once(env: dict[str, str], tmp_path: Path) -> None:
    port = free_port()
    worker = subprocess.Popen([sys.executable, "-m", "hokm", "worker", "--processes", "2"],
                              env={**env, "HOKM_WORKER_METRICS_PORT": str(port)},
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: samples(port) is not None, 20, 0.05, "the worker's metrics port")
        assert list(tmp_path.glob("hokm-worker-metrics-*")), "the multi-process folder"
        client = redis.Redis.from_url(env["HOKM_REDIS_URL"])
        service = MatchService(RedisStore(client), scheduler=RQScheduler(
            client, env["HOKM_QUEUE"], 2.0))
        # two matches at once: a job chains its match's next turns only while no other job
        # waits, so both processes get turns to play
        matches = [service.create(seats=["bot:easy", "bot:medium", "bot:easy",
                                         "bot:medium"])["match_id"] for _ in range(2)]
        wait_for(lambda: all(service.load(m).state.match.secret is not None for m in matches),
                 120, 0.05, "the matches' end")
        moves = sum(1 for m in matches for r in service.store.read(m) if r.actor is not None)
        assert moves > 100

        def exported() -> dict[tuple[str, frozenset[tuple[str, str]]], float] | None:
            got = samples(port)
            played = got.get(("hokm_bot_turns_total", frozenset({("outcome", "played")})))
            return got if got is not None and played == moves else None

        got = wait_for(exported, 10, 0.05, f"{moves} turns exported")
        decided = {dict(labels)["level"]: value for (name, labels), value in got.items()
                   if name == "hokm_bot_decision_seconds_count"}
        assert set(decided) == {"easy", "medium"}
        assert sum(decided.values()) >= moves  # (a refused move was decided too)
        pids = {p for p in (f.name.rsplit("_", 1)[-1] for f in
                            tmp_path.glob("hokm-worker-metrics-*/*.db"))}
        assert len(pids) >= 2, f"both processes wrote figures: {pids}"
    finally:
        worker.send_signal(signal.SIGTERM)
        out, err = worker.communicate(timeout=30)
    assert worker.returncode == 0, err
    assert f"metrics on port {port}" in out
    assert not list(tmp_path.glob("hokm-worker-metrics-*")), "the folder is removed at the end"


def test_a_bad_port_stops_the_worker_in_one_line(env: dict[str, str]) -> None:
    bad = subprocess.run([sys.executable, "-m", "hokm", "worker"], capture_output=True,
                         text=True, timeout=60,
                         env={**env, "HOKM_WORKER_METRICS_PORT": "70000"})
    assert bad.returncode == 2
    assert bad.stderr.strip().splitlines() == [
        "hokm worker: HOKM_WORKER_METRICS_PORT must be a port, 1 to 65535 (0: off) "
        "(got '70000')"]
    with socket.socket() as taken:
        taken.bind(("0.0.0.0", 0))
        taken.listen()
        busy = subprocess.run([sys.executable, "-m", "hokm", "worker"], capture_output=True,
                              text=True, timeout=60,
                              env={**env, "HOKM_WORKER_METRICS_PORT":
                                   str(taken.getsockname()[1])})
    assert busy.returncode == 2
    assert "HOKM_WORKER_METRICS_PORT: cannot listen on port" in busy.stderr
    assert "Traceback" not in busy.stderr and len(busy.stderr.strip().splitlines()) == 1
