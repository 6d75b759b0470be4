"""Helpers for the browser tests: playing by clicking, and a few direct API calls with the
client library (to prepare a room, or a finished match for the replay viewer)."""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

from hokmclient import AsyncSeat, Client, Seat, over
from hokmclient.http import command_for
from tests.conftest import run_async

HAND_ENABLED = ".hand-cards button.card:not([disabled])"
SUIT_ENABLED = ".trump-choice button.suit-btn:not([disabled])"

# For an init script: the WCAG contrast ratio of two CSS colours (__ratio), and the colours behind
# an element (__behind): the first ancestor's opaque background colour, or every stop of its
# gradient (the felt).
CONTRAST_JS = """
window.__lum = (c) => { const [r, g, b] = c.match(/[\\d.]+/g).slice(0, 3).map((x) => {
  const v = Number(x) / 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
window.__ratio = (a, b) => { const [x, y] = [__lum(a), __lum(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05); };
window.__alpha = (c) => { const m = c.match(/[\\d.]+/g); return m.length > 3 ? Number(m[3]) : 1; };
window.__behind = (el) => { for (let e = el.parentElement; e; e = e.parentElement) {
  const s = getComputedStyle(e), stops = s.backgroundImage.match(/rgba?\\([^)]*\\)/g);
  if (stops) return stops;
  if (__alpha(s.backgroundColor) === 1) return [s.backgroundColor]; }
  return ['rgb(255, 255, 255)']; };
window.__worst = (c, el) => Math.min(...__behind(el).map((b) => __ratio(c, b)));
"""

# Installed before every page: the texts added to the live region (in `said`; in `at` each with
# the table's round and phase as the line was added), and every moment the keyboard
# focus was on <body> or on a disabled element while a watch is on (window.__a11y.watch).
RECORDER = """
window.__a11y = { said: [], at: [], badFocus: [], langs: [], watch: false };
const said = (text) => {
  if (!text) return;
  window.__a11y.said.push(text);
  const d = document.querySelector('.table-page')?.dataset || {};
  window.__a11y.at.push({ text, round: d.round, phase: d.phase });
};
const bad = () => {
  const ae = document.activeElement;
  if (window.__a11y.watch && (!ae || ae === document.body || ae.disabled)) {
    window.__a11y.badFocus.push(ae ? (ae.dataset.card || ae.tagName) : 'none');
  }
};
document.addEventListener('DOMContentLoaded', () => {
  const el = document.getElementById('announce');
  if (!el) return; // (a document of the origin that is not the app: open_table's /healthz)
  new MutationObserver((ms) => {
    for (const m of ms) {
      for (const n of m.addedNodes) said(n.textContent);
      if (m.type === 'characterData') said(m.target.textContent);
    }
  }).observe(el, { childList: true, subtree: true, characterData: true });
  new MutationObserver(bad)
    .observe(document.body, { childList: true, subtree: true, attributes: true });
  new MutationObserver(() => window.__a11y.langs.push(document.documentElement.lang))
    .observe(document.documentElement, { attributes: true, attributeFilter: ['lang'] });
  const tick = () => { bad(); requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
});
"""


def recorded(page: Any) -> dict[str, Any]:
    return dict(page.evaluate("() => window.__a11y"))


def state(page: Any) -> dict[str, str]:
    """The table's machine-readable state (data-* attributes of .table-page)."""
    return page.evaluate(
        "() => Object.assign({}, document.querySelector('.table-page')?.dataset || {})")


def wait_phase(page: Any, *phases: str, timeout: float = 30_000) -> None:
    page.wait_for_function(
        "ps => ps.includes(document.querySelector('.table-page')?.dataset.phase)",
        arg=list(phases), timeout=timeout)


def wait_my_turn(page: Any, timeout: float = 30_000) -> None:
    page.wait_for_function(
        "() => document.querySelector('.table-page')?.dataset.myTurn === 'true'", timeout=timeout)


def noise(page: Any) -> tuple[list[str], list[str]]:
    """What ``page`` logs (console errors and warnings, uncaught errors) and the requests it
    sees refused (status 400 or more), collected from now: a normal path leaves both empty."""
    logged: list[str] = []
    page.on("console", lambda m: logged.append(f"{m.type}: {m.text}")
            if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: logged.append(f"pageerror: {e}"))
    refused: list[str] = []
    page.on("response", lambda r: refused.append(f"{r.status} {r.url}")
            if r.status >= 400 else None)
    return logged, refused


def open_table(page: Any, match_id: str, token: str, base: str = "") -> Any:
    """``page`` at the table of ``match_id`` as the seat of ``token`` (stored as the page's
    own would be when it takes a seat); ``base``: a server other than the session's.  The
    token is stored from a page of the origin that runs none of the app (``/healthz``): the
    start page's recent list would ask about it meanwhile and forget it if its match is gone."""
    page.goto(f"{base}/healthz")
    page.evaluate("([id, tok]) => localStorage.setItem('hokm.token.' + id, tok)",
                  [match_id, token])
    page.goto(f"{base}/m/{match_id}")
    return page


def hand(page: Any) -> list[str]:
    return page.eval_on_selector_all(".hand-cards button.card",
                                     "els => els.map(e => e.dataset.card)")


def click_one_move(page: Any) -> str | None:
    """If the player has a decision, make it by clicking: a trump suit button or an enabled
    card.  Returns what was clicked (or None)."""
    for sel in (SUIT_ENABLED, HAND_ENABLED):
        loc = page.locator(sel)
        if loc.count():
            target = loc.first
            try:
                what = target.get_attribute("data-suit", timeout=500) or target.get_attribute(
                    "data-card", timeout=500)
                target.click(timeout=1500)
                return what
            except Exception:  # the table moved on between looking and clicking: look again
                return None
    return None


def open_room(page: Any, name: str, seats: dict[str, str], game: str | None = None) -> str:
    """Create a room from the start page (``game``: the label of a game other than four
    players; ``seats``: "Seat 2" -> "human" or "bot:<level>"), wait for its waiting panel and
    return the invite link."""
    page.goto("/")
    page.get_by_label("Your name").fill(name)
    if game:
        page.get_by_role("radio", name=game, exact=True).check()
    for label, value in seats.items():
        page.get_by_label(label).select_option(value)
    page.get_by_role("button", name="Create the room").click()
    page.wait_for_url(re.compile(r"/m/[\w-]+$"))
    page.get_by_role("heading", name="Waiting for players").wait_for()
    return str(page.get_by_label("Invite link").first.input_value())


def play_until(page: Any, done: Any, timeout: float, *, pause: float = 0.05) -> int:
    """Click moves until ``done(page)`` is true.  Returns the number of moves made."""
    moves = 0
    deadline = time.monotonic() + timeout
    while not done(page):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {moves} moves; state {state(page)}")
        if click_one_move(page):
            moves += 1
        else:
            time.sleep(pause)
    return moves


def http(base: str, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
    """One JSON request through the client library, which retries a 429 after its
    ``Retry-After`` (the server's rate limits are on in these tests)."""
    with Client(base) as client:
        return client.request(method, path, body, token)


def finish_match_over_http(base: str, level: str = "easy") -> str:
    """A solo match played to its end with the client library (legal[0] each turn, waiting
    for each turn on the WebSocket): a finished match for the replay viewer.  Returns the
    match id."""
    with Seat.create(base, seats=["human"] + [f"bot:{level}"] * 3, rules={"target": 7},
                     name="Replay") as seat:
        for view in seat.turns(timeout=60):
            seat.decide(view["legal"][0], view)
        return seat.match_id


def humans_match(base: str, players: int, names: list[str]) -> tuple[str, list[str]]:
    """A room of ``players`` human seats, every seat taken over HTTP (``names`` in seat order
    of joining).  Returns the match id and the players' tokens (the first is the creator's)."""
    with Client(base) as client:
        created = client.create(players=players, seats=["human"] * players,
                                rules={"players": players, "target": 7}, name=names[0])
        match_id = str(created["match_id"])
        tokens = [str(created["token"])]
        for name in names[1:players]:
            tokens.append(str(client.join(match_id, name=name)["token"]))
    return match_id, tokens


def finish_humans_match(base: str, players: int, names: list[str]) -> tuple[str, dict[int, str]]:
    """A match of human seats played to its end, every seat choosing ``legal[0]`` over its
    WebSocket (a few seconds: no request per view, so the per-address HTTP limit is not in the
    way; a command refused as too fast is sent again after a pause).  Returns the match id and
    the tokens by the seat each ended in (the ace draw may move the four-player seats)."""
    match_id, tokens = humans_match(base, players, names)

    async def play(token: str) -> tuple[int, str]:
        async with AsyncSeat.resume(f"{base}/m/{match_id}", token) as seat:
            while not over(view := await seat.turn()):
                at, refused = int(view["version"]), len(seat.errors)

                def answered(v: dict[str, Any], at: int = at, refused: int = refused) -> bool:
                    return int(v["version"]) > at or len(seat.errors) > refused

                await seat.send(command_for(view, view["legal"][0]))
                # the next view, or a refusal (a stale view: look again; too fast: pause)
                await seat.wait(answered)
                if len(seat.errors) > refused and seat.errors[-1].get("code") == "rate_limited":
                    await asyncio.sleep(0.1)
            return int(view["seat"]), token

    async def everyone() -> list[tuple[int, str]]:
        return list(await asyncio.wait_for(
            asyncio.gather(*(play(token) for token in tokens)), timeout=120))

    return match_id, dict(run_async(everyone(), timeout=150))


def start_solo(page: Any, name: str) -> None:
    """From the start page: ``name`` plays solo against easy bots; returns at the table's URL."""
    page.goto("/")
    page.get_by_label("Your name").fill(name)
    page.get_by_role("radio", name="Easy").check()
    page.get_by_role("button", name="Play solo").click()
    page.wait_for_url(re.compile(r"/m/[\w-]+$"))
