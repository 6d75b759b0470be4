"""The embedded default keeps its matches in its data folder: ``hokm serve --data DIR`` killed
with SIGKILL in the middle of a match and started again has the match at the same version, and
the match goes on (the human plays, the bots reply; a bots-only match resumes by itself).
``hokm verify`` / ``replay`` / ``export`` read the folder without a Redis, and a tampered
journal fails verification."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import fakeredis
import httpx
import msgpack
import pytest

from services.store import journal, keys
from services.store.codec import decode, encode
from services.store.port import Record
from services.store.redis_streams import RedisStore
from tests.conftest import wait_for

HOKM = str(Path(sys.executable).parent / "hokm")
ROOT = Path(__file__).resolve().parents[2]


class Server:
    """One ``hokm serve --port 0 --data DIR`` subprocess; ``url`` from the line it prints."""

    def __init__(self, data: Path, think_s: float = 0.0) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("HOKM_")}
        env.update(HOKM_RATE_PER_ADDRESS="0", HOKM_RATE_PER_TOKEN="0",
                   HOKM_BOT_THINK_S=str(think_s))
        self.proc = subprocess.Popen([HOKM, "serve", "--port", "0", "--data", str(data)],
                                     env=env, cwd=ROOT, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        self.errors: list[str] = []
        """What the server wrote to stderr (drained all along: a full pipe would block it)."""
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_errors, daemon=True).start()
        first = self._line(60)
        found = re.search(r"running at (http://\S+/)", first)
        assert found, f"unexpected first line: {first!r}"
        self.url = found.group(1).rstrip("/")
        self.second = self._line(10)
        self.http = httpx.Client(base_url=self.url, timeout=30)
        wait_for(lambda: self._ready(), timeout=30, what="the server answering")

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def _read_errors(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.errors.append(line)

    def stderr_tail(self) -> str:
        return "".join(self.errors[-40:])

    def _line(self, timeout: float) -> str:
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            self.proc.kill()
            self.proc.wait(timeout=30)
            raise AssertionError(f"hokm serve printed nothing: {self.stderr_tail()}"
                                 ) from None

    def _ready(self) -> bool:
        try:
            return self.http.get("/readyz").status_code == 200
        except httpx.HTTPError:
            return False

    def summary(self, match_id: str) -> dict[str, Any]:
        answer = self.http.get(f"/api/matches/{match_id}")
        assert answer.status_code == 200, answer.text
        return answer.json()  # type: ignore[no-any-return]

    def view(self, match_id: str, token: str) -> dict[str, Any]:
        answer = self.http.get(f"/api/matches/{match_id}/view",
                               headers={"authorization": f"Bearer {token}"})
        assert answer.status_code == 200, answer.text
        return answer.json()["view"]  # type: ignore[no-any-return]

    def kill(self) -> None:
        self.http.close()
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)


@pytest.fixture
def servers() -> Iterator[list[Server]]:
    started: list[Server] = []
    yield started
    for server in started:
        if server.proc.poll() is None:
            server.kill()


def my_turn(server: Server, match_id: str, token: str) -> dict[str, Any] | None:
    view = server.view(match_id, token)
    if view["phase"] == "match_over":
        raise AssertionError("the match ended before the test could play")
    return view if view["turn"] == view["seat"] and view["legal"] else None


def play_once(server: Server, match_id: str, token: str) -> int:
    """Wait for the human's turn, make the first legal move; returns the version after it."""
    view = wait_for(lambda: my_turn(server, match_id, token), timeout=60,
                    what="the human's turn")
    move = ({"type": "choose_trump", "suit": view["legal"][0]} if view["phase"] ==
            "choosing_trump" else {"type": "play", "card": view["legal"][0]})
    answer = server.http.post(f"/api/matches/{match_id}/commands",
                              headers={"authorization": f"Bearer {token}"},
                              json={**move, "version": view["version"]})
    assert answer.status_code == 200, answer.text
    return int(answer.json()["version"])


def hokm(*args: str, data: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOKM_")}
    return subprocess.run([HOKM, *args, "--data", str(data)], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_a_match_killed_mid_play_is_there_after_a_restart_and_goes_on(
        tmp_path: Path, servers: list[Server]) -> None:
    first = Server(tmp_path)
    servers.append(first)
    assert str(tmp_path) in first.second  # the folder is printed at start
    created = first.http.post("/api/matches", json={
        "seats": ["human", "bot:easy", "bot:easy", "bot:easy"], "name": "Tester",
        "disconnect_timeout": 0})
    assert created.status_code == 201, created.text
    match_id, token = created.json()["match_id"], created.json()["token"]
    for _ in range(3):
        play_once(first, match_id, token)
    # stop it while the match waits for the human: nothing may move until it plays again
    before = wait_for(lambda: my_turn(first, match_id, token), timeout=60, what="a human turn")
    version = first.summary(match_id)["version"]
    assert before["version"] == version
    busy = subprocess.run([HOKM, "serve", "--port", "0", "--data", str(tmp_path)],
                          capture_output=True, text=True, timeout=60,
                          env={k: v for k, v in os.environ.items() if not k.startswith("HOKM_")})
    assert busy.returncode == 1 and "in use by another hokm serve" in busy.stderr
    assert len(busy.stderr.strip().splitlines()) == 1 and "Traceback" not in busy.stderr
    assert "running at" not in busy.stdout
    first.kill()

    second = Server(tmp_path)
    servers.append(second)
    assert second.summary(match_id)["version"] == version
    after = second.view(match_id, token)
    assert after["hand"] == before["hand"] and after["turn"] == before["seat"]
    mine = play_once(second, match_id, token)
    assert mine == version + 1
    # a card that takes the trick gives the human the next lead: play on until a bot is to move
    while (view := second.view(match_id, token))["turn"] == view["seat"] \
            and view["version"] == mine:
        mine = play_once(second, match_id, token)
    # the bots play again after the restart: at least one of them replies to the human
    try:
        wait_for(lambda: second.summary(match_id)["version"] > mine, timeout=60,
                 what="a bot's reply after the restart")
    except AssertionError as exc:
        raise AssertionError(f"{exc}; the server said: {second.stderr_tail()}") from None
    play_once(second, match_id, token)
    second.kill()
    verified = hokm("verify", match_id, data=tmp_path)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert verified.stdout.startswith("OK: ")


def test_a_bots_only_match_resumes_by_itself_after_a_restart(
        tmp_path: Path, servers: list[Server]) -> None:
    first = Server(tmp_path, think_s=0.05)
    servers.append(first)
    created = first.http.post("/api/matches", json={"seats": ["bot:easy"] * 4})
    assert created.status_code == 201, created.text
    match_id = created.json()["match_id"]
    wait_for(lambda: first.summary(match_id)["version"] >= 20, timeout=60, what="bot moves")
    first.kill()
    # what the folder holds once the first server is gone: where the match stopped
    stored = RedisStore(fakeredis.FakeRedis(server=journal.load(tmp_path, match_id)))
    stopped_at = stored.version(match_id)
    assert stopped_at >= 20 and stored.read(match_id)[-1].events  # a whole last record
    second = Server(tmp_path)  # no thinking pause now: it runs to the end quickly
    servers.append(second)
    assert "1 unfinished match resumed" in second.second
    wait_for(lambda: second.summary(match_id)["phase"] == "match_over", timeout=240,
             every=0.2, what="the end of the match")
    assert second.summary(match_id)["version"] > stopped_at
    # audited while the server runs (the journal is read without its lock)
    verified = hokm("verify", match_id, data=tmp_path)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "every deal matches the revealed secret" in verified.stdout
    replayed = hokm("replay", match_id, data=tmp_path)
    assert replayed.returncode == 0 and "MATCH OVER" in replayed.stdout
    second.kill()

    # tamper with one record of the journal: verification names it
    path = tmp_path / journal.JOURNAL
    reading = journal.read(path)
    log = keys.log(match_id).encode()
    changed = False
    for _, commands in reading.frames:
        for command in commands:
            if command[1] == b"xadd" and command[2] == log and command[3] == b"5-0":
                record = decode(5, command[5])
                command[5] = encode(Record(record.version, record.events, record.actor,
                                           record.command_id, record.time_ms + 60_000,
                                           record.prev))
                changed = True
    assert changed
    path.write_bytes(msgpack.packb({"hokm-journal": 1}) + b"".join(
        msgpack.packb([now, commands]) for now, commands in reading.frames))
    tampered = hokm("verify", match_id, data=tmp_path)
    assert tampered.returncode == 1
    assert "FAIL record 5:" in tampered.stdout and "was changed" in tampered.stdout
