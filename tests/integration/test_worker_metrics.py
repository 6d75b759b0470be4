"""``hokm worker``'s ``GET /metrics`` (``HOKM_WORKER_METRICS_PORT``, worker/metrics.py): two real
worker processes on the real Redis play a match of four bots, and the exported figures are both
processes' together (every move of the log counted once); a bad or busy port stops the command
with one line; the metrics' folder does not outlive the worker."""

from __future__ import annotations

import fcntl
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
from worker.metrics import FOLDER_PREFIX, LOCK, remove_dead_folders

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
    assert busy.returncode == 1  # a port in use: not carried out (README), as hokm serve
    assert "HOKM_WORKER_METRICS_PORT: cannot listen on port" in busy.stderr
    assert "Traceback" not in busy.stderr and len(busy.stderr.strip().splitlines()) == 1


def test_a_killed_workers_folder_is_removed_by_the_next_worker_and_a_live_ones_is_not(
        env: dict[str, str], tmp_path: Path) -> None:
    """A worker killed with SIGKILL cannot remove its folder; the next worker with metrics on
    removes it as it starts (by the time its port answers), and a third one, started while
    the second runs, leaves the second's alone."""
    workers: list[subprocess.Popen[str]] = []

    def start() -> tuple[subprocess.Popen[str], Path]:
        """A ``hokm worker`` with metrics on, once its port answers, and its folder."""
        port = free_port()
        worker = subprocess.Popen([sys.executable, "-m", "hokm", "worker"],
                                  env={**env, "HOKM_WORKER_METRICS_PORT": str(port)},
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        workers.append(worker)
        wait_for(lambda: samples(port) is not None, 20, 0.05, "the worker's metrics port")
        (folder,) = tmp_path.glob(f"{FOLDER_PREFIX}{worker.pid}-*")  # named with its pid
        assert (folder / LOCK).is_file()
        return worker, folder

    try:
        killed, killed_folder = start()
        killed.kill()
        assert killed.wait(timeout=30) == -signal.SIGKILL
        assert killed_folder.is_dir(), "SIGKILL: the worker could not remove its folder"
        _, live_folder = start()
        wait_for(lambda: not killed_folder.exists(), 10, 0.05, "the killed worker's folder gone")
        assert live_folder.is_dir()
        _, newer_folder = start()  # its port answers: it has looked at every folder
        assert live_folder.is_dir() and newer_folder.is_dir(), "a live worker's folder stays"
    finally:
        errors = []
        for worker in workers:
            if worker.poll() is None:
                worker.send_signal(signal.SIGTERM)
            errors.append(worker.communicate(timeout=30)[1])
    assert [w.returncode for w in workers] == [-signal.SIGKILL, 0, 0], errors
    assert not list(tmp_path.glob(f"{FOLDER_PREFIX}*")), "the live ones remove theirs at the end"


def test_only_a_folder_whose_lock_can_be_taken_is_removed(tmp_path: Path) -> None:
    """The lock decides, not the pid in the name (a dead worker's pid may be another process's
    by now): a folder named with this live process's pid whose lock nobody holds is removed; a
    held lock, a folder without a lock file (being made, or of an older version) and a file
    that is no folder are left."""
    def folder(name: str, lock: bool = True) -> Path:
        path = tmp_path / f"{FOLDER_PREFIX}{name}"
        path.mkdir()
        (path / "counter_1.db").write_bytes(b"figures")
        if lock:
            (path / LOCK).touch()
        return path

    reused = folder(f"{os.getpid()}-dead")
    held = folder("1-held")
    no_lock = folder("2-old", lock=False)
    stray = tmp_path / f"{FOLDER_PREFIX}file"
    stray.write_text("not a folder")
    with open(held / LOCK) as holder:
        fcntl.flock(holder, fcntl.LOCK_EX)  # as a running worker (or its fork) holds it
        assert remove_dead_folders(str(tmp_path)) == [str(reused)]
    assert not reused.exists()
    assert held.is_dir() and no_lock.is_dir() and stray.is_file()
    assert remove_dead_folders(str(tmp_path)) == [str(held)]  # its holder ended
