"""A connection that dies without a word (a phone whose network goes silent: no FIN, no RST,
the packets just stop) is noticed by the table, which says so and reconnects.

The page is loaded through a small TCP relay (:class:`Relay`, the idea of the tester's
``proxy.py``): while it is cut, every byte in either direction is held (connections stay open,
new ones are accepted but get nothing), so the browser's WebSocket stays OPEN with nobody at
the other end; on restore the held bytes flow again.  The client pings every 25 s and gives a
socket 10 s to answer (``api.js``); ``online`` and ``visibilitychange`` ping at once, so the
test dispatches ``online`` instead of waiting for the next ping."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from hokmclient import Client

from tests.conftest import wait_for

from .helpers import HAND_ENABLED, click_one_move, http, play_until, state, wait_my_turn

pytestmark = pytest.mark.browser

LOST = "Connection lost, reconnecting…"
# the client's pong deadline (10 s) with room for a loaded machine, in ms
NOTICED_WITHIN = 20_000


class Relay:
    """A TCP relay on a free local port to ``upstream`` (host, port), run by an event loop in a
    thread of its own.  :meth:`cut` holds every byte in both directions without closing
    anything; :meth:`restore` lets them flow again."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.loop = asyncio.new_event_loop()
        self.flowing: asyncio.Event | None = None
        self.writers: set[asyncio.StreamWriter] = set()
        self.server: asyncio.Server | None = None
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.port = int(self._call(self._start()))

    def _call(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(10)

    async def _start(self) -> int:
        self.flowing = asyncio.Event()
        self.flowing.set()
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        return int(self.server.sockets[0].getsockname()[1])

    async def _pipe(self, r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        assert self.flowing is not None
        try:
            while data := await r.read(65536):
                await self.flowing.wait()  # cut: hold the bytes (and read no more)
                w.write(data)
                await w.drain()
            await self.flowing.wait()
        except (ConnectionError, OSError):
            pass
        finally:
            w.close()

    async def _handle(self, cr: asyncio.StreamReader, cw: asyncio.StreamWriter) -> None:
        assert self.flowing is not None
        self.writers.add(cw)
        try:
            await self.flowing.wait()  # a connection made while cut hangs until restored
            ur, uw = await asyncio.open_connection(*self.upstream)
        except (ConnectionError, OSError):
            cw.close()
            self.writers.discard(cw)
            return
        self.writers.add(uw)
        await asyncio.gather(self._pipe(cr, uw), self._pipe(ur, cw))
        self.writers.discard(cw)
        self.writers.discard(uw)

    async def _set(self, on: bool) -> None:
        assert self.flowing is not None
        if on:
            self.flowing.set()
        else:
            self.flowing.clear()

    def cut(self) -> None:
        self._call(self._set(False))

    def restore(self) -> None:
        self._call(self._set(True))

    async def _stop(self) -> None:
        assert self.server is not None
        self.server.close()
        for w in list(self.writers):
            w.transport.abort()
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def close(self) -> None:
        self._call(self._stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@pytest.fixture
def relay(gateway: str) -> Iterator[Relay]:
    parts = urlsplit(gateway)
    r = Relay((parts.hostname or "127.0.0.1", int(parts.port or 80)))
    try:
        yield r
    finally:
        r.close()


def seated_solo(gateway: str, relay: Relay, page: Any) -> tuple[str, str]:
    """A solo match (one human, three easy bots; no stand-in ever takes the seat), its table
    open in ``page`` through the relay, at the player's turn.  Returns (match id, token)."""
    with Client(gateway) as client:
        created = client.create(seats=["human"] + ["bot:easy"] * 3, name="Cyrus",
                                rules={"target": 7}, disconnect_timeout=0)
    match_id, token = str(created["match_id"]), str(created["token"])
    page.add_init_script(f"localStorage.setItem('hokm.token.{match_id}', '{token}')")
    page.goto(f"{relay.url}/m/{match_id}")
    wait_my_turn(page, timeout=60_000)
    page.wait_for_function("() => document.querySelector('#conn-status')?.className"
                           ".includes('open')")
    return match_id, token


def wait_lost(page: Any) -> None:
    """The page says the connection is lost (and not "Connected") within the deadline."""
    page.wait_for_function(
        "lost => { const c = document.querySelector('#conn-status');"
        " return c && c.textContent === lost && !c.className.includes('open'); }",
        arg=LOST, timeout=NOTICED_WITHIN)


def wait_caught_up(page: Any, gateway: str, match_id: str, token: str) -> dict[str, Any]:
    """Connected again, and showing the server's version and turn (asked directly, not
    through the relay).  Returns the server's view."""
    page.wait_for_function("() => document.querySelector('#conn-status')?.className"
                           ".includes('open')", timeout=30_000)
    assert page.locator("#conn-status").inner_text() == "Connected"
    seen: dict[str, Any] = {}

    def same() -> bool:
        r = http(gateway, "GET", f"/api/matches/{match_id}/view", token=token)
        v = r["view"]
        s = state(page)
        mine = v["turn"] == v["seat"] and bool(v["legal"])
        seen.update(view=v, page=s)
        return s.get("version") == str(r["version"]) and s.get("myTurn") == str(mine).lower()

    wait_for(same, timeout=30, every=0.1, what="the page showing the server's state")
    return dict(seen["view"])


@pytest.mark.timeout(150)
def test_a_silent_connection_is_noticed_and_the_table_reconnects(
        new_client: Any, gateway: str, relay: Relay) -> None:
    page = new_client().page
    match_id, token = seated_solo(gateway, relay, page)
    assert page.locator("#conn-status").inner_text() == "Connected"
    page.locator(".seat.me .dot.on").wait_for()
    relay.cut()
    # the phone is back on a network (or the tab comes to the front): the page checks its socket
    page.evaluate("() => window.dispatchEvent(new Event('online'))")
    wait_lost(page)
    # the player's own dot says so too (a QA finding: it stayed green, from the last view)
    mine = page.locator(".seat.me .dot")
    assert mine.get_attribute("class") == "dot off"
    assert mine.get_attribute("aria-label") == "not connected"
    relay.restore()
    view = wait_caught_up(page, gateway, match_id, token)
    page.locator(".seat.me .dot.on").wait_for()
    # still the player's turn (no stand-in: disconnect_timeout 0), and the table works again
    assert state(page)["myTurn"] == "true", view
    shown = int(state(page)["version"])
    play_until(page, lambda p: int(state(p)["version"]) > shown, timeout=30)


@pytest.mark.timeout(150)
def test_a_move_on_a_silent_connection_is_not_dropped_without_a_word(
        new_client: Any, gateway: str, relay: Relay) -> None:
    page = new_client().page
    match_id, token = seated_solo(gateway, relay, page)
    relay.cut()
    page.wait_for_selector(f"{HAND_ENABLED}, .trump-choice button.suit-btn:not([disabled])")
    assert click_one_move(page)
    # no answer: the player is told, and the page finds the socket dead by itself
    page.wait_for_function(
        "() => /no answer/i.test(document.getElementById('toast')?.textContent || '')",
        timeout=NOTICED_WITHIN)
    wait_lost(page)
    relay.restore()
    wait_caught_up(page, gateway, match_id, token)
