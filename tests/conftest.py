"""Shared fixtures.  Tests that need the real Redis (127.0.0.1:6379, or HOKM_TEST_REDIS_URL)
fail, rather than skip, when it does not answer: a skipped test would count as a pass.

``make test`` runs the suite in two pytest-xdist workers (``-n 2 --dist loadfile``: a test file's
tests run in one worker, so module fixtures start once).  Tests flush the numbered databases
they use, so two workers must not share a Redis: the first worker (``gw0``, or a run without
xdist) uses the machine's Redis, every other worker a private ``redis-server`` of its own,
started in ``pytest_configure`` and stopped in ``pytest_unconfigure``."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import hypothesis
import pytest
import redis

from hokmclient import free_port as free_port  # one helper for tests and benchmarks

from tests.cluster_fixture import Cluster, ClusterFactory, start_cluster

T = TypeVar("T")

REDIS_URL = os.environ.get("HOKM_TEST_REDIS_URL", "redis://127.0.0.1:6379")

# Hypothesis's 200-ms deadline is a timing assertion, which the suite does not make (two workers
# and their browsers share two cores): no deadline for any property test.
hypothesis.settings.register_profile("hokm", deadline=None)
hypothesis.settings.load_profile("hokm")


def redis_db_url(db: int) -> str:
    return f"{REDIS_URL.rstrip('/')}/{db}"


def real_redis_client(db: int) -> redis.Redis:
    client = redis.Redis.from_url(redis_db_url(db))
    try:
        client.ping()
    except redis.RedisError as exc:
        pytest.fail(f"these tests need Redis at {REDIS_URL} ({exc}); .ci/run starts one")
    return client


def wait_for(predicate: Callable[[], T | None], timeout: float = 5.0, every: float = 0.01,
             what: str = "condition", seen: Callable[[], object] | None = None) -> T:
    """Poll ``predicate`` until it returns something truthy and return that; fail the test with
    an AssertionError once ``timeout`` seconds have passed without it (the way to wait for
    something: never a fixed sleep).  The failure names ``what`` was awaited and the last state:
    ``seen()`` if given (what the test compares, say), else the predicate's last answer."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            last = seen() if seen is not None else value
            raise AssertionError(f"{what} not met within {timeout} s; last seen: {last!r}")
        time.sleep(every)


def run_async(coro: Any, timeout: float = 600.0) -> Any:
    """Run ``coro`` to its end on a fresh event loop in a thread of its own and return its
    result: the main thread may already have a loop running (Playwright's sync API keeps one
    for the browser tests' session, in the same pytest process).  ``timeout`` bounds the wait
    for the thread (a coroutine must carry its own deadlines; this one only keeps a stuck loop
    from hanging the run)."""
    import asyncio
    import concurrent.futures

    pool = concurrent.futures.ThreadPoolExecutor(1)
    try:
        return pool.submit(asyncio.run, coro).result(timeout=timeout)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


class PrivateRedis:
    """A redis-server of our own on a free port, in a temporary folder (durability, crashes)."""

    def __init__(self, folder: Path, *args: str) -> None:
        self.folder = folder
        self.port = free_port()
        self.args = args
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        exe = shutil.which("redis-server")
        if exe is None:
            pytest.fail("redis-server is not installed (.ci/run installs it)")
        self.proc = subprocess.Popen(
            [exe, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.folder),
             "--save", "", *self.args],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        client = redis.Redis(port=self.port)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                return
            except redis.ConnectionError as exc:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        f"private redis-server on port {self.port} did not answer within 10 s "
                        f"(exit code {self.proc.poll()}; the last ping: {exc})") from None
                time.sleep(0.02)

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()  # SIGKILL: no chance to flush anything
            self.proc.wait()
            self.proc = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"


_worker_redis: list[PrivateRedis] = []


def pytest_configure(config: pytest.Config) -> None:
    """A private Redis for every xdist worker after the first (see the module's docstring).

    And Ctrl+C as in a terminal: a suite started in the background of a shell script (``&``
    without job control) inherits SIGINT ignored, and so would every process the tests start,
    which the tests of Ctrl+C then wait on in vain (``hokm`` keeps an ignored SIGINT ignored)."""
    global REDIS_URL
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if worker in ("", "gw0") or "HOKM_TEST_REDIS_URL" in os.environ:
        return
    server = PrivateRedis(Path(tempfile.mkdtemp(prefix=f"hokm-redis-{worker}-")),
                          "--appendonly", "no")
    server.start()
    _worker_redis.append(server)
    REDIS_URL = f"redis://127.0.0.1:{server.port}"


def pytest_unconfigure(config: pytest.Config) -> None:
    for server in _worker_redis:
        server.kill()
        shutil.rmtree(server.folder, ignore_errors=True)
    _worker_redis.clear()


@pytest.fixture
def private_redis() -> Iterator[type[PrivateRedis]]:
    folders: list[PrivateRedis] = []

    def make(*args: str) -> PrivateRedis:
        server = PrivateRedis(Path(tempfile.mkdtemp(prefix="hokm-redis-")), *args)
        folders.append(server)
        return server

    yield make  # type: ignore[misc]
    for server in folders:
        server.kill()
        shutil.rmtree(server.folder, ignore_errors=True)


# -- Redis Cluster (tests/cluster_fixture.py) ------------------------------------------------


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[Cluster]:
    """One real six-node Redis Cluster shared by the whole run, started on first use (a few
    seconds).  Every test using it starts from an empty cluster (``_flush_redis_cluster``); a
    fixture of wider scope must not keep data in it.  Tests that break nodes use
    ``private_cluster`` instead."""
    cluster = start_cluster()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(autouse=True)
def _flush_redis_cluster(request: pytest.FixtureRequest) -> None:
    """FLUSHALL on every primary of the shared cluster before each test that uses it (nothing
    at all for the other tests), failing the test if the shared cluster is no longer healthy."""
    if "redis_cluster" in request.fixturenames:
        cluster: Cluster = request.getfixturevalue("redis_cluster")
        problems = cluster.problems()
        if problems:
            pytest.fail(f"the shared Redis Cluster is broken (a test must use private_cluster "
                        f"to break nodes): {'; '.join(problems)}", pytrace=False)
        cluster.flush()


@pytest.fixture
def private_cluster() -> Iterator[ClusterFactory]:
    """A factory of clusters of the test's own (``private_cluster(node_timeout_ms=...)``), for
    tests that kill or partition nodes; every cluster it made is stopped after the test."""
    started: list[Cluster] = []

    def make(**options: Any) -> Cluster:
        cluster = start_cluster(**options)
        started.append(cluster)
        return cluster

    yield make
    for cluster in started:
        cluster.stop()
