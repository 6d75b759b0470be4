"""A HOKM_ setting that is not valid is refused in one line that names the variable and says
what it must be (exit status 2), at the start of ``hokm serve`` and ``hokm worker`` (the
analysis's settings too, which only the analysis jobs use: a server started with a bad
``HOKM_ANALYSIS_BOT`` used to answer every analysis request ``202`` for ever) and by
``hokm analyze``; an empty value is the default."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import fakeredis
import pytest

from services.matches import MatchService
from services.settings import ANALYSIS_BOTS, SettingError, Settings
from services.store.journal import DataFolder
from services.store.redis_streams import RedisStore
from tests.services.test_audit import finished_match

HOKM = str(Path(sys.executable).parent / "hokm")
ROOT = Path(__file__).resolve().parents[2]
UNREACHABLE = "redis://127.0.0.1:1/0"

BAD = [
    ("HOKM_RATE_PER_ADDRESS", "abc", "a number of 0 or more"),
    ("HOKM_RATE_PER_TOKEN", "-1", "a number of 0 or more"),
    ("HOKM_BOT_TIMEOUT", "nan", "a number of 0 or more"),
    ("HOKM_BOT_THINK_S", "1s", "a number of 0 or more"),
    ("HOKM_MAX_BODY", "16k", "a whole number of 0 or more"),
    ("HOKM_CONNECTIONS_PER_ADDRESS", "1.5", "a whole number of 0 or more"),
    ("HOKM_IDLE_TTL", "a day", "a number of 0 or more"),
    ("HOKM_REPLICA_ACKS", "-2", "a whole number of 0 or more"),
    ("HOKM_ANALYSIS_NODES", "abc", "a whole number of 0 or more"),
    ("HOKM_ANALYSIS_BOT", "nope", "one of hard, medium, expert"),
    ("HOKM_ANALYSIS_TTL", "0", "a number above 0"),
]


def clean_env(**extra: str) -> dict[str, str]:
    return {**{k: v for k, v in os.environ.items() if not k.startswith("HOKM_")}, **extra}


def one_line(out: str, err: str, code: int) -> str:
    where = f"rc {code}, stdout {out!r}, stderr {err!r}"
    assert code == 2, where
    assert "Traceback" not in out + err, where
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hokm "), where
    return lines[0]


@pytest.fixture
def no_settings(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in os.environ:
        if name.startswith("HOKM_"):
            monkeypatch.delenv(name)
    return monkeypatch


@pytest.mark.parametrize(("name", "value", "must"), BAD)
def test_from_env_names_the_variable_and_what_it_must_be(
        no_settings: pytest.MonkeyPatch, name: str, value: str, must: str) -> None:
    no_settings.setenv(name, value)
    with pytest.raises(SettingError) as caught:
        Settings.from_env()
    assert caught.value.name == name and caught.value.code == 2
    assert caught.value.message == f"{name} must be {must} (got {value!r})"


def test_empty_values_are_the_defaults_and_good_ones_are_read(
        no_settings: pytest.MonkeyPatch) -> None:
    default = Settings.from_env()
    for name, _, _ in BAD:
        no_settings.setenv(name, "")
    assert Settings.from_env() == default
    assert (default.rate_per_address, default.max_body, default.analysis_bot,
            default.analysis_nodes, default.analysis_ttl_s) == (50.0, 16384, "hard", None, 60.0)
    no_settings.setenv("HOKM_RATE_PER_ADDRESS", "0")
    no_settings.setenv("HOKM_ANALYSIS_BOT", "medium")
    no_settings.setenv("HOKM_ANALYSIS_NODES", "3000")
    no_settings.setenv("HOKM_ANALYSIS_TTL", "0.5")
    read = Settings.from_env()
    assert (read.rate_per_address, read.analysis_bot, read.analysis_nodes,
            read.analysis_ttl_s) == (0.0, "medium", 3000, 0.5)


def test_the_analysis_config_uses_the_same_checks(no_settings: pytest.MonkeyPatch) -> None:
    from worker.analysis.core import AnalysisConfig
    from worker.analysis.jobs import BOTS, config
    from worker.policies import MEDIUM

    assert tuple(BOTS) == ANALYSIS_BOTS  # every value the settings accept has its search
    assert config() == AnalysisConfig()
    no_settings.setenv("HOKM_ANALYSIS_BOT", "medium")
    no_settings.setenv("HOKM_ANALYSIS_NODES", "3000")
    assert config() == AnalysisConfig(nodes=3000, bot=MEDIUM)
    no_settings.setenv("HOKM_ANALYSIS_BOT", "nope")
    with pytest.raises(SettingError, match="HOKM_ANALYSIS_BOT must be one of hard, medium"):
        config()


@pytest.mark.parametrize(("name", "value", "must"), [
    ("HOKM_ANALYSIS_BOT", "nope", "one of hard, medium, expert"),
    ("HOKM_RATE_PER_ADDRESS", "abc", "a number of 0 or more"),
])
def test_serve_refuses_to_start(tmp_path: Path, name: str, value: str, must: str) -> None:
    """The server never starts (before: it ran, and every analysis stayed pending)."""
    proc = subprocess.Popen([HOKM, "serve", "--port", "0", "--data", str(tmp_path / "data")],
                            env=clean_env(**{name: value}), cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stderr is not None
        first = proc.stdout.readline()  # "" once it exits; the address if it started
        assert "running at" not in first, first
        code = proc.wait(timeout=60)
        line = one_line(first + proc.stdout.read(), proc.stderr.read(), code)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    assert line == f"hokm serve: {name} must be {must} (got {value!r})"


def test_worker_refuses_to_start() -> None:
    result = subprocess.run([HOKM, "worker", "--burst"], cwd=ROOT, capture_output=True,
                            text=True, timeout=60,
                            env=clean_env(HOKM_REDIS_URL=UNREACHABLE, HOKM_ANALYSIS_BOT="nope"))
    line = one_line(result.stdout, result.stderr, result.returncode)
    assert line == "hokm worker: HOKM_ANALYSIS_BOT must be one of hard, medium, expert " \
                   "(got 'nope')"


@pytest.fixture
def data(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A data folder holding one finished match."""
    server = fakeredis.FakeServer()
    folder = DataFolder.open(tmp_path / "data", server)
    match_id = finished_match(MatchService(RedisStore(fakeredis.FakeRedis(server=server))), 5)
    folder.close()
    yield tmp_path / "data", match_id


@pytest.mark.parametrize(("name", "value", "must"), [
    ("HOKM_ANALYSIS_NODES", "abc", "a whole number of 0 or more"),
    ("HOKM_ANALYSIS_BOT", "nope", "one of hard, medium, expert"),
])
def test_analyze_local_names_the_variable(data: tuple[Path, str], name: str, value: str,
                                          must: str) -> None:
    folder, match_id = data
    result = subprocess.run([HOKM, "analyze", match_id, "--local", "--data", str(folder)],
                            cwd=ROOT, capture_output=True, text=True, timeout=120,
                            env=clean_env(**{name: value}))
    line = one_line(result.stdout, result.stderr, result.returncode)
    assert line == f"hokm analyze: {name} must be {must} (got {value!r})"
