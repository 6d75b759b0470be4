"""The hub's look at a match a moment after a record that needs a system step or a bot
(``Hub._ensure_progress``) warns that the match was stuck only when that look moved it: a
match found further on already (this hub's follower was behind, say on a busy machine) moved by
itself, and an operator reading "stuck" would look for a failure that did not happen."""

from __future__ import annotations

import logging

import pytest

from services.gateway.hub import Hub
from services.runtime import build_runtime
from tests.conftest import run_async

from .helpers import make_settings


def test_a_match_that_moved_on_by_itself_is_not_called_stuck(
        caplog: pytest.LogCaptureFixture) -> None:
    rt = build_runtime(make_settings())
    hub = Hub(rt)
    created = rt.service.create(name="Ana", seats=["human"] * 4)
    match_id = created["match_id"]
    before = rt.service.load(match_id)
    hub.loaded[match_id] = before  # what this hub holds
    rt.service.join(match_id, "Bea")  # another gateway's record: the match moved on
    assert rt.service.load(match_id).version > before.version
    with caplog.at_level(logging.WARNING, logger="hokm.gateway"):
        run_async(hub._ensure_progress(match_id, before.version), timeout=30)
    assert not [r for r in caplog.records if "stuck" in r.getMessage()], caplog.text


def test_a_match_this_look_moves_on_is_called_stuck(caplog: pytest.LogCaptureFixture) -> None:
    from engine import TakeSeat, pending_system_action
    from services.pipeline import prepare

    rt = build_runtime(make_settings())
    hub = Hub(rt)
    match_id = rt.service.create(name="Ana", seats=["human"] * 4)["match_id"]
    for name in ("Bea", "Cy"):
        rt.service.join(match_id, name)
    # the last seat taken by a writer that died before the system steps that follow
    loaded = rt.service.load(match_id)
    full = rt.service.commit(match_id, prepare(loaded, None, TakeSeat(3, "Dee", "p" * 16),
                                               time_ms=0))
    assert pending_system_action(full.state) is not None
    hub.loaded[match_id] = full
    with caplog.at_level(logging.WARNING, logger="hokm.gateway"):
        run_async(hub._ensure_progress(match_id, full.version), timeout=30)
    assert rt.service.load(match_id).version > full.version  # moved on by this look
    assert [r for r in caplog.records if "stuck" in r.getMessage()], caplog.text
