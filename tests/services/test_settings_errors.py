"""A HOKM_ setting that is not valid is refused in one line that names the variable and says
what it must be (exit status 2), at the start of ``hokm serve`` and ``hokm worker`` (the
analysis's settings too, which only the analysis jobs use: a server started with a bad
``HOKM_ANALYSIS_BOT`` used to answer every analysis request ``202`` for ever) and by
``hokm analyze``; an empty value is the default.  Also refused: a 0 that would leave the
server unusable (where 0 is not "off"), a trusted proxy that is no address or network (it
used to crash ``hokm serve`` after its start line, or to be ignored), and a Redis URL that is
none (it used to exit 1 with a message naming no variable)."""

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
from services.store.connect import FORMS
from services.store.journal import DataFolder
from services.store.redis_streams import RedisStore
from tests.services.test_audit import finished_match

HOKM = str(Path(sys.executable).parent / "hokm")
PROXIES = "IP addresses or networks separated by commas, such as 10.0.0.5,10.1.0.0/16"
ROOT = Path(__file__).resolve().parents[2]
UNREACHABLE = "redis://127.0.0.1:1/0"
UNKNOWN_QUERY = "a Redis URL whose query parameters redis-py knows for redis:// ('foo' is not one)"
CLUSTER_QUERY = "a Redis Cluster URL without query parameters ('foo' would be ignored)"

BAD = [
    ("HOKM_RATE_PER_ADDRESS", "abc", "a number of 0 or more"),
    ("HOKM_RATE_PER_TOKEN", "-1", "a number of 0 or more"),
    ("HOKM_BOT_TIMEOUT", "nan", "a number above 0"),
    ("HOKM_BOT_TIMEOUT", "0", "a number above 0"),
    ("HOKM_BOT_THINK_S", "1s", "a number of 0 or more"),
    ("HOKM_MAX_BODY", "16k", "a whole number of 1024 or more"),
    ("HOKM_MAX_BODY", "0", "a whole number of 1024 or more"),
    ("HOKM_REQUEST_TIMEOUT", "0", "a number above 0"),
    ("HOKM_KEEP_ALIVE", "0", "a number of 1 or more"),
    ("HOKM_CREATE_WINDOW", "0", "a number above 0"),
    ("HOKM_REPLICA_WAIT_MS", "0", "a whole number of 1 or more"),
    ("HOKM_TRUSTED_PROXIES", "10.0.0.0/33", f"{PROXIES} ('10.0.0.0/33' is neither)"),
    ("HOKM_TRUSTED_PROXIES", "notanip", f"{PROXIES} ('notanip' is neither)"),
    ("HOKM_TRUSTED_PROXIES", "10.0.0.5, bogus", f"{PROXIES} ('bogus' is neither)"),
    ("HOKM_TRUSTED_PROXIES", "*,10.0.0.5", f"{PROXIES} ('*' is neither)"),
    ("HOKM_REDIS_URL", "foo://x", f"a Redis URL: {FORMS}"),
    ("HOKM_REDIS_URL", "redis://127.0.0.1:port/0",
     "a Redis URL (Port could not be cast to integer value as 'port')"),
    ("HOKM_REDIS_URL", "redis+cluster://a:7000,b",
     "a Redis Cluster URL whose seed nodes are each host:port ('b' is not)"),
    ("HOKM_QUEUE_URL", "bar", f"a Redis URL: {FORMS}"),
    # an unknown query parameter failed at the first command ("unexpected error: TypeError")
    ("HOKM_REDIS_URL", "redis://127.0.0.1:6415/0?foo=bar", UNKNOWN_QUERY),
    ("HOKM_QUEUE_URL", "redis://127.0.0.1:6415/0?foo=bar", UNKNOWN_QUERY),
    ("HOKM_REDIS_URL", "redis://h/0?ssl_certfile=c.pem",  # (TLS only: rediss://)
     "a Redis URL whose query parameters redis-py knows for redis:// ('ssl_certfile' is not "
     "one)"),
    ("HOKM_REDIS_URL", "redis+cluster://a:7000?foo=bar", CLUSTER_QUERY),  # (was ignored)
    # a database that is not a number was read as 0, a cluster's database ignored
    ("HOKM_REDIS_URL", "redis://127.0.0.1:6415/abc",
     "a Redis URL whose database is a number ('abc' is not)"),
    ("HOKM_QUEUE_URL", "rediss://h:6379/db1", "a Redis URL whose database is a number ('db1' "
                                              "is not)"),
    # no host: redis-py read it as localhost:6379, whatever Redis runs there (an audit's
    # finding of session 37)
    ("HOKM_REDIS_URL", "redis://", "a Redis URL that names its host (redis://HOST:PORT)"),
    ("HOKM_QUEUE_URL", "rediss://:6380/1",
     "a Redis URL that names its host (rediss://HOST:PORT)"),
    ("HOKM_REDIS_URL", "redis+cluster://a:7000,b:7001/2",
     "a Redis Cluster URL with no database but 0 ('2': a cluster has only database 0)"),
    ("HOKM_REDIS_URL", "redis+cluster://a:7000,b:7001/?socket_timeout=1",
     "a Redis Cluster URL without query parameters ('socket_timeout' would be ignored)"),
    ("HOKM_CONNECTIONS_PER_ADDRESS", "1.5", "a whole number of 0 or more"),
    ("HOKM_IDLE_TTL", "a day", "a number of 0 or more"),
    ("HOKM_REPLICA_ACKS", "-2", "a whole number of 0 or more"),
    ("HOKM_ANALYSIS_NODES", "abc", "a whole number of 0 or more"),
    ("HOKM_ANALYSIS_BOT", "nope", "one of hard, medium, expert"),
    ("HOKM_ANALYSIS_TTL", "0", "a number above 0"),
    # too large: some would reach Redis as expiry times it refuses (every create a 500)
    ("HOKM_IDLE_TTL", "1e20", "a number of at most 1,000,000,000"),
    ("HOKM_FINISHED_TTL", "1e20", "a number of at most 1,000,000,000"),
    ("HOKM_CREATE_WINDOW", "1e20", "a number of at most 1,000,000,000"),
    ("HOKM_REPLICA_ACKS", "100000000000000000000", "a number of at most 1,000,000,000"),
    ("HOKM_BOT_THINK_S", "61", "a number of at most 60"),
    ("HOKM_WORKER_METRICS_PORT", "70000", "a port, 1 to 65535 (0: off)"),
    # the digits of other scripts and underscores, which int() and float() read (an audit's
    # finding; the command lines' options refuse them)
    ("HOKM_BOT_MATCHES", "\u0663", "a whole number of 0 or more"),
    ("HOKM_MAX_BODY", "1_0000", "a whole number of 1024 or more"),
    ("HOKM_IDLE_TTL", "\u0661\u0660", "a number of 0 or more"),
    ("HOKM_RATE_PER_ADDRESS", "5_0", "a number of 0 or more"),
    ("HOKM_ALLOW_STACKED_DECKS", "maybe", "1 or 0 (on or off)"),  # (read as off)
] + [("HOKM_QUEUE", bad, "a queue name of letters, digits and _.:- (64 at most)")
     for bad in ("my queue", "bots{1}", "\u0635\u0641", "-bots", "q" * 65)
] + [("HOKM_PUBLIC_URL", bad, "an http:// or https:// address of the site's root, e.g. "
                              "https://hokm.example")
     for bad in ("hokm.example", "ftp://hokm.example", "https://", "https://hokm.example/play",
                 "https://hokm.example/?a=1", "https://u:p@hokm.example", "https://h:99999",
                 "https://h:0", "https://ho km.example")]


@pytest.mark.parametrize(("value", "read"), [
    ("https://hokm.example", "https://hokm.example"), ("https://hokm.example/",
                                                       "https://hokm.example"),
    ("http://10.0.0.5:8000", "http://10.0.0.5:8000"), ("http://[::1]:8000", "http://[::1]:8000")])
def test_a_public_url_is_read(no_settings: pytest.MonkeyPatch, value: str, read: str) -> None:
    no_settings.setenv("HOKM_PUBLIC_URL", value)
    assert Settings.from_env().public_url == read


@pytest.mark.parametrize("url", [
    "redis://h:6379", "redis://h:6379/", "redis://h:6379/3", "redis://h/0?socket_keepalive=yes&"
    "client_name=hokm", "rediss://h/0?ssl_cert_reqs=none", "unix:///tmp/r.sock?db=2",
    "redis+cluster://a:7000,b:7001/", "redis+cluster://a:7000/0"])
def test_store_urls_redis_py_reads_are_read(no_settings: pytest.MonkeyPatch, url: str) -> None:
    no_settings.setenv("HOKM_REDIS_URL", url)
    no_settings.setenv("HOKM_QUEUE_URL", "redis://q:6379/1?health_check_interval=5")
    assert Settings.from_env().redis_url == url


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
    for name in ("HOKM_QUEUE", "HOKM_DATA"):  # text settings: an empty queue name was used
        no_settings.setenv(name, "")
    assert Settings.from_env() == default
    assert (default.queue, default.redis_url, default.queue_url, default.trusted_proxies) == \
        ("hokm-bots", None, None, ())
    no_settings.setenv("HOKM_QUEUE", "  ")
    assert Settings.from_env().queue == "hokm-bots"
    assert (default.rate_per_address, default.max_body, default.analysis_bot,
            default.analysis_nodes, default.analysis_ttl_s) == (50.0, 16384, "hard", None, 60.0)
    no_settings.setenv("HOKM_RATE_PER_ADDRESS", "0")
    no_settings.setenv("HOKM_ANALYSIS_BOT", "medium")
    no_settings.setenv("HOKM_ANALYSIS_NODES", "3000")
    no_settings.setenv("HOKM_ANALYSIS_TTL", "0.5")
    read = Settings.from_env()
    assert (read.rate_per_address, read.analysis_bot, read.analysis_nodes,
            read.analysis_ttl_s) == (0.0, "medium", 3000, 0.5)


def test_zero_is_off_where_a_limit_can_be_lifted_and_good_values_are_read(
        no_settings: pytest.MonkeyPatch) -> None:
    off = ("HOKM_RATE_PER_TOKEN", "HOKM_RATE_PER_ADDRESS", "HOKM_CREATES_PER_WINDOW",
           "HOKM_BOT_MATCHES", "HOKM_BOT_MATCHES_PER_ADDRESS", "HOKM_CONNECTIONS_PER_ADDRESS",
           "HOKM_IDLE_TTL", "HOKM_FINISHED_TTL", "HOKM_GC_FREEZE", "HOKM_GC_THAW",
           "HOKM_REPLICA_ACKS", "HOKM_BOT_THINK_S", "HOKM_ANALYSIS_NODES")
    for name in off:
        no_settings.setenv(name, "0")
    read = Settings.from_env()
    assert (read.rate_per_token, read.rate_per_address, read.creates_per_window,
            read.bot_matches, read.bot_matches_per_address, read.connections_per_address,
            read.idle_ttl_s, read.finished_ttl_s, read.gc_freeze_s, read.gc_thaw_s,
            read.replica_acks, read.bot_think_s, read.analysis_nodes) == (0,) * len(off)
    no_settings.setenv("HOKM_MAX_BODY", "1024")
    no_settings.setenv("HOKM_KEEP_ALIVE", "1")
    no_settings.setenv("HOKM_REQUEST_TIMEOUT", "0.5")
    no_settings.setenv("HOKM_QUEUE", " my-queue ")
    no_settings.setenv("HOKM_TRUSTED_PROXIES", " 10.0.0.5, 10.1.2.3/16,,::1 ,fd00::/8")
    no_settings.setenv("HOKM_REDIS_URL", "redis+cluster://a:7000,b:7001")
    no_settings.setenv("HOKM_QUEUE_URL", "redis://q:6379/0")
    read = Settings.from_env()
    assert (read.max_body, read.keep_alive_s, read.request_timeout_s, read.queue) == \
        (1024, 1.0, 0.5, "my-queue")
    # a network is written as the network (what uvicorn's forwarding-headers check reads)
    assert read.trusted_proxies == ("10.0.0.5", "10.1.0.0/16", "::1", "fd00::/8")
    assert (read.redis_url, read.queue_url) == ("redis+cluster://a:7000,b:7001",
                                                "redis://q:6379/0")
    no_settings.setenv("HOKM_TRUSTED_PROXIES", "*")
    assert Settings.from_env().trusted_proxies == ("*",)


def test_a_cluster_without_a_queue_url_is_refused_naming_it(
        no_settings: pytest.MonkeyPatch) -> None:
    no_settings.setenv("HOKM_REDIS_URL", "redis+cluster://:secret@a:7000")
    with pytest.raises(SettingError) as caught:
        Settings.from_env()
    assert caught.value.name == "HOKM_QUEUE_URL" and caught.value.code == 2
    assert "(it is not set)" in caught.value.message
    no_settings.setenv("HOKM_QUEUE_URL", "redis+cluster://:secret@b:7000")
    with pytest.raises(SettingError) as caught:
        Settings.from_env()
    assert caught.value.message.startswith("HOKM_QUEUE_URL must be a single Redis")
    assert "secret" not in caught.value.message  # the password is not printed


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
    # it printed its start line, then "unexpected error: ValueError ...", exit 1
    ("HOKM_TRUSTED_PROXIES", "10.0.0.0/33", f"{PROXIES} ('10.0.0.0/33' is neither)"),
    ("HOKM_MAX_BODY", "0", "a whole number of 1024 or more"),
    ("HOKM_REDIS_URL", "foo://x", f"a Redis URL: {FORMS}"),
    ("HOKM_REDIS_URL", "redis://127.0.0.1:1/0?foo=bar", UNKNOWN_QUERY),
    ("HOKM_REDIS_URL", "redis+cluster://127.0.0.1:1?foo=bar", CLUSTER_QUERY),
    ("HOKM_REDIS_URL", "redis://127.0.0.1:1/abc",
     "a Redis URL whose database is a number ('abc' is not)"),
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


@pytest.mark.parametrize(("env", "said"), [
    ({"HOKM_ANALYSIS_BOT": "nope"}, "HOKM_ANALYSIS_BOT must be one of hard, medium, expert "
                                    "(got 'nope')"),
    ({"HOKM_REDIS_URL": "foo://"}, f"HOKM_REDIS_URL must be a Redis URL: {FORMS} "
                                   "(got 'foo://')"),
    ({"HOKM_QUEUE_URL": "bar"}, f"HOKM_QUEUE_URL must be a Redis URL: {FORMS} (got 'bar')"),
    ({"HOKM_REDIS_URL": "redis://127.0.0.1:1/0?foo=bar"},
     f"HOKM_REDIS_URL must be {UNKNOWN_QUERY} (got 'redis://127.0.0.1:1/0?foo=bar')"),
    ({"HOKM_QUEUE_URL": "redis://127.0.0.1:1/0?foo=bar"},
     f"HOKM_QUEUE_URL must be {UNKNOWN_QUERY} (got 'redis://127.0.0.1:1/0?foo=bar')"),
])
def test_worker_refuses_to_start(env: dict[str, str], said: str) -> None:
    result = subprocess.run([HOKM, "worker", "--burst"], cwd=ROOT, capture_output=True,
                            text=True, timeout=60,
                            env=clean_env(**{"HOKM_REDIS_URL": UNREACHABLE, **env}))
    line = one_line(result.stdout, result.stderr, result.returncode)
    assert line == f"hokm worker: {said}"


@pytest.mark.parametrize("command", [("replay", "m"), ("export", "m"), ("verify", "m"),
                                     ("analyze", "x")])
@pytest.mark.parametrize(("url", "must"), [("foo://x", f"a Redis URL: {FORMS}"),
                                           ("redis://127.0.0.1:1/0?foo=bar", UNKNOWN_QUERY)])
def test_the_audit_commands_name_a_bad_redis_url(command: tuple[str, ...], url: str,
                                                 must: str) -> None:
    result = subprocess.run([HOKM, *command], cwd=ROOT, capture_output=True, text=True,
                            timeout=60, env=clean_env(HOKM_REDIS_URL=url))
    line = one_line(result.stdout, result.stderr, result.returncode)
    assert line == f"hokm {command[0]}: HOKM_REDIS_URL must be {must} (got {url!r})"


def test_analyze_names_a_bad_queue_url_before_it_reaches_for_a_redis() -> None:
    result = subprocess.run([HOKM, "analyze", "abcdef0123456789"], cwd=ROOT, capture_output=True,
                            text=True, timeout=60,
                            env=clean_env(HOKM_REDIS_URL=UNREACHABLE, HOKM_QUEUE_URL="bar"))
    line = one_line(result.stdout, result.stderr, result.returncode)
    assert line == f"hokm analyze: HOKM_QUEUE_URL must be a Redis URL: {FORMS} (got 'bar')"


@pytest.mark.redis
def test_an_empty_queue_name_is_the_default_queue() -> None:
    """``HOKM_QUEUE=`` served the queues "" and "-bots-only"."""
    from tests.conftest import real_redis_client, redis_db_url

    real_redis_client(12).flushdb()  # (a database no other test uses) nothing queued: burst ends
    result = subprocess.run([HOKM, "worker", "--burst"], cwd=ROOT, capture_output=True,
                            text=True, timeout=120,
                            env=clean_env(HOKM_REDIS_URL=redis_db_url(12), HOKM_QUEUE=""))
    assert result.returncode == 0, result.stderr
    first = result.stdout.splitlines()[0]
    assert "playing bot turns from hokm-bots, hokm-bots-bots-only" in first, first


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


def test_every_setting_read_is_in_the_readme_table() -> None:
    """Each variable ``services/settings.py`` reads (by its quoted name) has a row in the
    README's settings table, whose first cell names one or more (HOKM_ANALYSIS_TTL had none)."""
    import re

    source = (ROOT / "services" / "settings.py").read_text()
    read = set(re.findall(r'"(HOKM_[A-Z0-9_]+)"', source))
    rows = [line.split("|")[1] for line in (ROOT / "README.md").read_text().splitlines()
            if line.startswith("| `HOKM_")]
    documented = {name for cell in rows for name in re.findall(r"`(HOKM_[A-Z0-9_]+)`", cell)}
    assert len(read) >= 30, read  # (the pattern finds them)
    assert read - documented == set()
