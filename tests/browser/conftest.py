"""Browser tests: Playwright driving Debian's chromium against a real ``hokm serve`` subprocess.

The gateway runs in its embedded mode (in-process fakeredis and bot worker) on a free port, with
no ``HOKM_*`` setting of the test environment (``HOKM_ALLOW_STACKED_DECKS`` and ``HOKM_REDIS_URL``
in particular), so the tests see exactly what a player sees.  Its data folder is a fresh
temporary folder removed at teardown, and the per-address limits are set here (every test
browser comes from 127.0.0.1), so the suite never depends on their defaults; so is a cheap
post-match analysis (the medium search: the page shows the same).  Screenshots go
to ``artifacts/screenshots/`` (git-ignored).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hokmclient import LocalServer

from .helpers import finish_match_over_http

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "screenshots"
CHROMIUM = os.environ.get("HOKM_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--no-first-run", "--disable-sync",
]
PHONE = {"width": 360, "height": 740}
DESKTOP = {"width": 1280, "height": 800}
FAST_PACE = "0.05"
"""The tests' pace (``fast``): the table's pauses multiplied by the least it takes (table.js,
``paceSetting``); at 0.15 a match played by clicking took about twice as long."""

try:
    from playwright import sync_api
except ImportError:  # pragma: no cover - the dev extras install it
    sync_api = None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if Path(str(item.fspath)).parent == here:
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def gateway() -> Iterator[str]:
    """The base URL of a ``hokm serve`` started for this test session (the client library's
    :class:`LocalServer`: no ``HOKM_*`` setting but these, a fresh data folder removed at
    teardown, its output in ``artifacts/gateway.log``)."""
    (ROOT / "artifacts").mkdir(exist_ok=True)
    with open(ROOT / "artifacts" / "gateway.log", "w") as log:
        # (the analysis a cheap one, as tests/gateway/test_analysis.py's: the hard search's
        # analysis of a whole match took half the server's CPU in the browser tests)
        server = LocalServer(env={"HOKM_CREATES_PER_WINDOW": "1000",
                                  "HOKM_BOT_MATCHES_PER_ADDRESS": "100",
                                  "HOKM_CONNECTIONS_PER_ADDRESS": "0",  # 0: no limit
                                  "HOKM_ANALYSIS_BOT": "medium", "HOKM_ANALYSIS_NODES": "500"},
                             log=log, cwd=ROOT, timeout=30)
        try:
            server.start()
        except RuntimeError as exc:
            raise RuntimeError(f"hokm serve did not start: see artifacts/gateway.log ({exc})"
                               ) from None
        try:
            yield server.url
        finally:
            server.stop(10)


@pytest.fixture(scope="session")
def finished_match(gateway: str) -> str:
    """A solo match played to its end over HTTP (for the replay viewer), once per session."""
    return finish_match_over_http(gateway)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if sync_api is None:
        # fail, not skip: a skipped browser test would count as a pass
        pytest.fail("playwright is not installed (pip install -e '.[dev]')")
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing (apt-get install chromium; .ci/run does it)")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


class Client:
    """One browser context (one player) with its console errors collected."""

    def __init__(self, browser: Any, base: str, viewport: dict[str, int], reduced: bool,
                 locale: str, fast: bool = True) -> None:
        self.base = base
        self.context = browser.new_context(
            viewport=viewport, reduced_motion="reduce" if reduced else "no-preference",
            locale=locale, base_url=base)
        if fast:  # the table's pauses at FAST_PACE of a player's (table.js, "hokm.pace")
            # (every document of the context runs it: one without storage, such as another
            # site's page framing ours or about:blank, must not raise)
            self.context.add_init_script(
                f"try {{ localStorage.setItem('hokm.pace', '{FAST_PACE}'); }} catch (e) {{ }}")
        self.context.set_default_timeout(15_000)
        self.errors: list[str] = []
        self.page = self.context.new_page()
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))

    def _console(self, msg: Any) -> None:
        if msg.type == "error":
            self.errors.append(f"console: {msg.text}")


@pytest.fixture
def new_client(browser: Any, gateway: str) -> Iterator[Callable[..., Client]]:
    """new_client(viewport=DESKTOP, reduced=True, locale="en-US", fast=reduced) -> Client
    (``fast``: the table's pauses shortened, as reduced motion did before it kept them).  At
    the end every page must have been free of console errors."""
    made: list[Client] = []

    def make(viewport: dict[str, int] = DESKTOP, reduced: bool = True,
             locale: str = "en-US", fast: bool | None = None) -> Client:
        c = Client(browser, gateway, viewport, reduced, locale,
                   reduced if fast is None else fast)
        made.append(c)
        return c

    yield make
    errors = [e for c in made for e in c.errors]
    for c in made:
        c.context.close()
    assert not errors, "console errors:\n" + "\n".join(errors)


@pytest.fixture(scope="session")
def shots() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
