"""Security headers (services/gateway/headers.py): on every answer, the client works under its
Content-Security-Policy (no violation on any page), and no other site can frame the table."""

from __future__ import annotations

import http.server
import re
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from services.gateway.headers import CSP

from .conftest import DESKTOP, PHONE
from .helpers import click_one_move, state, wait_my_turn

pytestmark = pytest.mark.browser

# Every violation of the page's policy is handed to Python (a binding survives navigations; the
# init script runs in every new document before the client's modules).
LISTEN_JS = """
addEventListener('securitypolicyviolation', (e) => {
  const t = e.target;
  window.__hokmCsp({ directive: e.effectiveDirective, blocked: e.blockedURI, source: e.sourceFile,
    line: e.lineNumber, page: location.pathname + location.search,
    control: !!(t && t.dataset && t.dataset.cspControl) });
}, true);
"""
# The control: an inline style attribute, which style-src 'self' refuses.  It proves the listener
# is live on the page, and, reported after anything the page did before, it closes each page.
CONTROL_JS = """
() => {
  const d = document.createElement('div');
  d.dataset.cspControl = '1';
  document.body.append(d);
  d.setAttribute('style', 'color: rgb(255, 0, 0)');
  return getComputedStyle(d).color;  // the div stays: the report names it once it is sent
}
"""


def directives(policy: str) -> dict[str, str]:
    out = {}
    for part in policy.split(";"):
        name, _, value = part.strip().partition(" ")
        if name:
            out[name] = value.strip()
    return out


def assert_security_headers(headers: dict[str, str], what: str) -> None:
    """``headers`` as Playwright gives them (lower-case names)."""
    assert headers.get("content-security-policy") == CSP, what
    d = directives(headers["content-security-policy"])
    assert d.get("frame-ancestors") == "'none'", what
    assert d.get("script-src") == "'self'" and d.get("style-src") == "'self'", what
    assert d.get("default-src") == "'self'" and d.get("connect-src") == "'self'", what
    assert "unsafe" not in headers["content-security-policy"], what
    assert headers.get("x-content-type-options") == "nosniff", what
    assert headers.get("x-frame-options") == "DENY", what
    assert headers.get("referrer-policy") == "no-referrer", what


@pytest.mark.timeout(120)
def test_every_answer_carries_the_security_headers(new_client: Any, finished_match: str) -> None:
    c = new_client(viewport=DESKTOP)
    page = c.page
    answers: list[Any] = []
    page.on("response", lambda r: answers.append(r) if r.url.startswith(c.base) else None)
    for path in ("/", f"/m/{finished_match}", f"/replay/{finished_match}",
                 f"/how-to-play?match={finished_match}"):
        r = page.goto(path)
        assert r is not None and r.status == 200, path
        assert_security_headers(r.all_headers(), path)
    page.locator(".room-rules h2").wait_for()  # the how-to page has fetched the room's rules
    # the pages' own requests too: modules, the stylesheet, language files, API answers
    kinds = set()
    for r in answers:
        assert_security_headers(r.all_headers(), r.url)
        kinds.add(r.request.resource_type)
    assert {"document", "script", "stylesheet", "fetch"} <= kinds, kinds
    # and an error answer
    r = page.request.get("/api/matches/no-such-match")
    assert r.status == 404
    assert_security_headers(r.headers, "404")


class Csp:
    """The policy violations a page reports, split into the test's controls and the rest."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.seen: list[dict[str, Any]] = []
        self.controls = 0
        client.page.expose_binding("__hokmCsp", lambda _source, v: self.seen.append(v))
        client.page.add_init_script(LISTEN_JS)

    def close_page(self, where: str) -> None:
        """Make the control violation on the current page and wait until it is reported."""
        page = self.client.page
        color = page.evaluate(CONTROL_JS)
        assert color != "rgb(255, 0, 0)", f"{where}: the inline style was applied (no CSP?)"
        self.controls += 1
        deadline = time.monotonic() + 10
        while sum(v["control"] for v in self.seen) < self.controls:
            assert time.monotonic() < deadline, f"{where}: the control violation was not reported"
            page.wait_for_timeout(50)
        others = [v for v in self.seen if not v["control"]]
        assert not others, f"CSP violations (by {where}): {others}"


@pytest.mark.timeout(420)
def test_no_page_breaks_the_content_security_policy(new_client: Any, finished_match: str) -> None:
    # with every animation and pause, the pauses at the tests' pace (the same code runs)
    c = new_client(viewport=PHONE, reduced=False, fast=True)
    csp = Csp(c)
    page = c.page
    page.goto("/")
    page.get_by_role("button", name="Play solo").wait_for()
    page.get_by_label("Language").select_option("fa")  # a language file fetched, RTL applied
    page.wait_for_function("() => document.documentElement.dir === 'rtl'")
    page.get_by_label("زبان").select_option("en")
    page.get_by_role("button", name="Play solo").wait_for()
    csp.close_page("the start page")
    # a room waiting for players: the invite panel
    page.get_by_role("button", name="Create the room").click()
    page.get_by_role("heading", name="Waiting for players").wait_for()
    csp.close_page("the waiting room")
    # a solo match: the ace draw, dealt cards, hints, tricks, a round's result, the next deal
    page.goto("/")
    page.get_by_role("button", name="Play solo").click()
    page.wait_for_url(re.compile(r"/m/[\w-]+$"))
    solo = page.url.rsplit("/", 1)[1]
    wait_my_turn(page)
    page.get_by_role("button", name=re.compile("^Hints")).click()
    for left in (2, 1, 0):  # follow the three hints (each shown before its move is made)
        page.locator(".hint-box").get_by_text(f"Hints left: {left}").wait_for()
        page.locator(".hinted").click()
    deadline = time.monotonic() + 300
    while int(state(page).get("round") or 1) < 2 and state(page).get("phase") != "match_over":
        assert time.monotonic() < deadline, f"the round did not end: {state(page)}"
        if not click_one_move(page):
            page.wait_for_timeout(50)
    wait_phase_or_turn(page)
    # the three hints were used: the table says so, without asking the server (no 409 logged)
    page.locator(".hint-box").get_by_text("You have used your three hints").wait_for()
    csp.close_page("the table")
    page.goto(f"/how-to-play?match={solo}")
    page.locator(".room-rules h2").wait_for()
    page.locator(".example [role=img]").first.wait_for()
    csp.close_page("how to play")
    page.goto(f"/replay/{finished_match}?step=40")
    page.locator("#rp-counter").get_by_text("Step 40 of").wait_for()
    page.get_by_role("button", name="Step forward").click()
    page.wait_for_function("() => /step=41$/.test(location.search)")
    csp.close_page("the replay viewer")
    page.goto(f"/m/{finished_match}")  # no seat here: the summary of a finished match
    page.get_by_role("heading", name="Match over").wait_for()
    page.get_by_role("link", name="Watch the replay").wait_for()
    csp.close_page("the join page")
    page.goto("/api")  # the API's page for people: its stylesheet applied, not refused
    page.get_by_role("heading", name="Hokm API v1").wait_for()
    assert page.evaluate("getComputedStyle(document.body).maxWidth") == "960px"
    csp.close_page("the API page")
    # the browser logged each control violation as a console error, and nothing else about CSP
    logged = [e for e in c.errors if "Content Security Policy" in e]
    assert len(logged) == csp.controls, logged
    c.errors[:] = [e for e in c.errors if "Content Security Policy" not in e]


@pytest.mark.timeout(120)
def test_documents_without_an_icon_get_the_apps_and_log_nothing(new_client: Any) -> None:
    """A browser asks ``/favicon.ico`` of a document that names no icon (a JSON answer opened
    in a tab): it is the app's icon, not a 404 logged in the console (new_client's check)."""
    c = new_client(viewport=DESKTOP)
    page = c.page
    icons: list[int] = []
    page.on("requestfinished", lambda r: icons.append(r.response().status)
            if r.url.endswith("/favicon.ico") else None)
    for path in ("/healthz", "/openapi.json"):
        r = page.goto(path)
        assert r is not None and r.status == 200, path
    r = page.request.get("/favicon.ico")
    assert r.status == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert b"<svg" in r.body()
    assert all(s == 200 for s in icons), icons


def wait_phase_or_turn(page: Any) -> None:
    """The second round is on screen: its deal has come (the player's turn or a bot's)."""
    page.wait_for_function(
        "() => ['choosing_trump', 'playing', 'match_over']"
        ".includes(document.querySelector('.table-page')?.dataset.phase)")


@pytest.fixture
def other_site() -> Iterator[str]:
    """A site on another origin (another port) with pages that frame a given address."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path, _, query = self.path.partition("?")
            if path == "/frame":  # ?src=<address to frame>
                src = query.removeprefix("src=")
                body = (f'<!doctype html><title>framing</title><iframe id="f" src="{src}" '
                        'width="600" height="400" onload="document.body.dataset.loaded=1">'
                        '</iframe>')
            else:
                body = '<!doctype html><title>inner</title><p id="inner">framed fine</p>'
            data = body.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://localhost:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def framed(page: Any, site: str, src: str) -> Any:
    """Open the other site's page framing ``src``; returns the iframe's frame once it loaded."""
    page.goto(f"{site}/frame?src={src}")
    page.wait_for_function("() => document.body.dataset.loaded === '1'")
    frame = page.locator("#f").element_handle().content_frame()
    assert frame is not None
    return frame


@pytest.mark.timeout(60)
def test_another_site_cannot_frame_the_table(new_client: Any, other_site: str,
                                             finished_match: str) -> None:
    c = new_client(viewport=DESKTOP)
    page = c.page
    # the control: the other site frames a page of its own, which loads
    inner = framed(page, other_site, "/inner")
    assert inner.locator("#inner").inner_text() == "framed fine"
    # the table does not: the browser refuses it for frame-ancestors 'none'
    table = f"{c.base}/m/{finished_match}"
    with page.expect_console_message(lambda m: "frame-ancestors 'none'" in m.text,
                                     timeout=15_000) as refused:
        frame = framed(page, other_site, table)
    assert c.base in refused.value.text
    assert not frame.url.startswith(c.base), frame.url
    assert frame.evaluate(
        "() => !document.querySelector('#app, .topbar, script[src*=\"/static/\"]')")
    c.errors[:] = [e for e in c.errors if "frame-ancestors 'none'" not in e]
