"""Helpers for the browser tests: playing by clicking, and a few direct API calls (used only
to prepare a finished match for the replay viewer)."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from typing import Any

HAND_ENABLED = ".hand-cards button.card:not([disabled])"
SUIT_ENABLED = ".trump-choice button.suit-btn:not([disabled])"


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
    """One JSON request; a 429 is retried after its ``Retry-After`` (the server's rate limits
    are on in these tests, and bots now answer fast enough for a scripted player to hit them)."""
    data = None if body is None else json.dumps(body).encode()
    for _ in range(10):
        req = urllib.request.Request(base + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if token:
            req.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return json.loads(r.read().decode())
        except urllib.error.HTTPError as e:
            if e.code != 429:
                raise
            time.sleep(float(e.headers.get("Retry-After", "1")))
    raise AssertionError(f"{method} {path}: still rate limited after 10 tries")


def finish_match_over_http(base: str, level: str = "easy") -> str:
    """A solo match played to its end through the HTTP API (legal[0] each turn): a finished
    match for the replay viewer.  Returns the match id."""
    m = http(base, "POST", "/api/matches", {"players": 4, "seats": ["human"] + [f"bot:{level}"] * 3,
                                            "rules": {"target": 7}, "name": "Replay"})
    mid, token = m["match_id"], m["token"]
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        v = http(base, "GET", f"/api/matches/{mid}/view", token=token)["view"]
        if v["phase"] == "match_over":
            return str(mid)
        if v["turn"] == v["seat"] and v["legal"]:
            cmd: dict[str, Any] = {"version": v["version"]}
            if v["phase"] == "choosing_trump":
                cmd.update(type="choose_trump", suit=v["legal"][0])
            else:
                cmd.update(type="play", card=v["legal"][0])
            try:
                http(base, "POST", f"/api/matches/{mid}/commands", cmd, token=token)
            except urllib.error.HTTPError as e:
                if e.code != 409:
                    raise
            time.sleep(0.04)  # about 45 requests a second: under the address limit of 50
            continue
        time.sleep(0.05)
    raise AssertionError("the HTTP match did not finish in time")
