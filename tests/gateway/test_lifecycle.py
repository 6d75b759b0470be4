"""The embedded gateway's in-process bot worker ends with the gateway (it used to poll its
fakeredis for ever, and to play with whatever runtime the process had last set)."""

from __future__ import annotations

import threading

from .helpers import create, gateway, wait_for


def _workers() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name == "hokm-bot-worker"}


def test_the_in_process_worker_plays_then_stops_with_its_gateway() -> None:
    before = _workers()
    with gateway() as gw:
        mine = _workers() - before
        assert len(mine) == 1
        created = create(gw, seats=["bot:easy"] * 4)
        match_id = created["match_id"]
        start = gw.version(match_id)
        wait_for(lambda: gw.version(match_id) > start + 4, 20, what="the bots playing")
    wait_for(lambda: not any(t.is_alive() for t in mine), 15, what="the worker thread's end")
