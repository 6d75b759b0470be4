"""Bot jobs in-process on fakeredis: a job keeps the bot turns that follow its own while the
queue is idle, enqueues them as usual when other jobs wait, and marks every kept turn pending
before playing it (so the watchdog recovers it if the worker dies)."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

from engine import NAMES, ChooseTrump, PlayCard, decide, legal_choices
from services.bots import member
from services.pipeline import seal
from services.runtime import Runtime, build_runtime
from services.store import keys
from tests.gateway.helpers import make_settings
from worker import jobs


@pytest.fixture
def rt(monkeypatch: pytest.MonkeyPatch) -> Iterator[Runtime]:
    runtime = build_runtime(make_settings())
    monkeypatch.setattr(jobs, "_runtime", runtime)
    yield runtime


def solo(rt: Runtime) -> str:
    created = rt.service.create(seats=["human", "bot:easy", "bot:easy", "bot:easy"],
                                rules={"teams": "as_seated"})
    return str(created["match_id"])


def take_job(rt: Runtime) -> tuple[str, int, int]:
    """Dequeue the only waiting job the way a worker would; its arguments."""
    queue = rt.scheduler.queue
    ids = queue.job_ids
    assert len(ids) == 1, ids
    job = queue.fetch_job(ids[0])
    assert job is not None
    queue.remove(ids[0])
    match_id, seat, version = job.args
    return str(match_id), int(seat), int(version)


def human_moves(rt: Runtime, match_id: str, rng: random.Random) -> None:
    """The human (seat 0) plays while it is their turn."""
    while True:
        loaded = rt.service.load(match_id)
        if rt.service.next_actor(loaded.state) != 0:
            return
        choice = rng.choice(legal_choices(loaded.state, 0))
        command = ChooseTrump(choice) if loaded.state.phase == "choosing_trump" \
            else PlayCard(choice)
        rt.service.handle(match_id, 0, command)


def actors_after(rt: Runtime, match_id: str, version: int) -> list[int | None]:
    return [r.actor for r in rt.store.read(match_id, version)]


def test_a_job_plays_the_bot_turns_that_follow_while_the_queue_is_idle(rt: Runtime) -> None:
    match_id, rng, kept = solo(rt), random.Random(3), 0
    for _ in range(12):
        human_moves(rt, match_id, rng)
        match, seat, version = take_job(rt)
        assert match == match_id
        result = jobs.bot_turn(match, seat, version)
        assert result.startswith("played"), result
        played = [a for a in actors_after(rt, match_id, version) if a is not None]
        # every bot turn up to the human's was played by this one job, nothing was enqueued
        assert played and 0 not in played
        assert rt.scheduler.queue.count == 0
        assert rt.service.next_actor(rt.service.load(match_id).state) == 0
        assert rt.client.zcard(keys.PENDING_BOTS) == 0
        kept += len(played) - 1
    assert kept > 0


def test_a_job_asked_to_stop_keeps_no_more_turns(rt: Runtime) -> None:
    """An audit's finding: SIGTERM finished the turn in hand, then the job played the next
    turn it had kept.  Once the worker is asked to stop (``jobs.STOPPING``), a job plays its
    own turn alone and the next bot's goes to the queue."""
    match_id, rng = solo(rt), random.Random(3)
    jobs.STOPPING.set()
    try:
        for _ in range(12):
            human_moves(rt, match_id, rng)
            match, seat, version = take_job(rt)
            assert jobs.bot_turn(match, seat, version) == "played"  # not "(+1 kept)"
            assert [a for a in actors_after(rt, match_id, version) if a is not None] == [seat]
            while rt.service.next_actor(rt.service.load(match_id).state) not in (0, None):
                assert jobs.bot_turn(*take_job(rt)) == "played"  # each through the queue
    finally:
        jobs.STOPPING.clear()


def test_a_job_leaves_the_next_turn_to_the_queue_when_other_jobs_wait(rt: Runtime) -> None:
    match_id, rng = solo(rt), random.Random(5)
    other = solo(rt)  # another table whose job waits in the queue
    for _ in range(6):
        human_moves(rt, match_id, rng)
        human_moves(rt, other, rng)
        waiting = {j.args[0]: j for j in rt.scheduler.queue.get_jobs()}
        assert set(waiting) == {match_id, other}
        job = waiting[match_id]
        rt.scheduler.queue.remove(job.id)
        _, seat, version = job.args
        assert jobs.bot_turn(match_id, seat, version) == "played"
        assert [a for a in actors_after(rt, match_id, version) if a is not None] == [seat]
        state = rt.service.load(match_id).state
        after = rt.service.next_actor(state)
        queued = [j for j in rt.scheduler.queue.get_jobs() if j.args[0] == match_id]
        if after not in (0, None):  # the next bot's turn went through the queue
            assert len(queued) == 1 and queued[0].args[1] == after
            rt.scheduler.queue.remove(queued[0].id)
            jobs.bot_turn(*queued[0].args)  # (the queue is idle again: plays up to the human)
        else:
            assert not queued


def test_every_kept_turn_is_pending_while_it_is_played(rt: Runtime,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import worker.policies as policies

    seen: list[tuple[str, float | None, int]] = []
    real = policies.policy_for

    class Watching:
        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def choose(self, view: dict[str, Any], history: Any, rng: random.Random) -> Any:
            if view["match_id"] == match_id:  # (other tests' embedded workers may still run)
                name = member(match_id, view["version"], view["seat"])
                seen.append((name, rt.client.zscore(keys.PENDING_BOTS, name),
                             rt.scheduler.queue.count))
            return self.inner.choose(view, history, rng)

    monkeypatch.setattr(policies, "policy_for", lambda level: Watching(real(level)))
    match_id, rng = solo(rt), random.Random(9)
    for _ in range(8):
        human_moves(rt, match_id, rng)
        jobs.bot_turn(*take_job(rt))
    assert len(seen) > 8  # some turns were kept
    for name, deadline, queued in seen:
        assert deadline is not None, f"{name} was played without a pending mark"
        assert queued == 0  # and without a job of its own


def test_a_kept_turn_left_unplayed_is_recovered_by_the_watchdog(rt: Runtime) -> None:
    match_id = solo(rt)
    human_moves(rt, match_id, random.Random(1))
    match, seat, version = take_job(rt)
    now = [1000.0]
    rt.scheduler.clock = lambda: now[0]
    rt.client.delete(keys.PENDING_BOTS)
    rt.client.delete(keys.bot_guard(match, version, seat))
    # the job claims the turn for itself ... and dies before playing it
    assert rt.scheduler.claim(match, seat, version, keep_if_idle=True)
    assert rt.scheduler.queue.count == 0
    assert not rt.scheduler.claim(match, seat, version, keep_if_idle=True)  # claimed once only
    assert rt.scheduler.recover_stalled(jobs.still_due) == 0  # not overdue yet
    now[0] += rt.scheduler.timeout_s + 0.1
    assert rt.scheduler.recover_stalled(jobs.still_due) == 1
    (job,) = rt.scheduler.queue.get_jobs()
    assert tuple(job.args) == (match, seat, version)


def test_a_stale_or_duplicate_job_does_nothing(rt: Runtime) -> None:
    match_id = solo(rt)
    human_moves(rt, match_id, random.Random(2))
    match, seat, version = take_job(rt)
    assert jobs.bot_turn(match, seat, version - 1) == "stale"  # an older version
    assert rt.store.version(match_id) == version
    assert jobs.bot_turn(match, seat, version).startswith("played")
    after = rt.store.version(match_id)
    assert after > version
    assert jobs.bot_turn(match, seat, version) == "stale"  # the same job run twice
    assert rt.store.version(match_id) == after


@pytest.mark.parametrize("fault", ["raises", "illegal"])
def test_a_failing_policy_does_not_stall_the_table(rt: Runtime, monkeypatch: pytest.MonkeyPatch,
                                                   caplog: pytest.LogCaptureFixture,
                                                   fault: str) -> None:
    import worker.policies as policies

    real = policies.policy_for

    class Broken:
        def choose(self, view: dict[str, Any], history: Any, rng: random.Random) -> Any:
            if fault == "raises":
                raise RuntimeError("a bug")
            return "not a card"

    monkeypatch.setattr(policies, "policy_for",
                        lambda level: Broken() if level == "easy" else real(level))
    match_id = solo(rt)
    human_moves(rt, match_id, random.Random(4))
    match, seat, version = take_job(rt)
    with caplog.at_level("ERROR", logger="hokm.worker"):
        assert jobs.bot_turn(match, seat, version).startswith("played")
    assert rt.service.next_actor(rt.service.load(match_id).state) == 0  # the bots all played
    assert "the heuristic plays instead" in caplog.text
    assert not [n for n in NAMES if re.search(rf"\b{n}\b", caplog.text)]  # no card is logged


def test_a_claim_cut_off_before_its_enqueue_is_recovered(rt: Runtime,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The process dies after taking the turn's guard but before enqueueing its job: the turn
    was marked pending first, so the watchdog enqueues it after the deadline (the guard alone
    used to hold the turn, unplayed, for ten minutes)."""
    match_id = solo(rt)
    human_moves(rt, match_id, random.Random(4))
    match, seat, version = take_job(rt)
    now = [1000.0]
    rt.scheduler.clock = lambda: now[0]
    rt.client.delete(keys.PENDING_BOTS)
    rt.client.delete(keys.bot_guard(match, version, seat))

    class Died(BaseException):
        pass

    def die(*args: Any, **kwargs: Any) -> None:
        raise Died

    with monkeypatch.context() as m:
        m.setattr(rt.scheduler, "_enqueue", die)
        with pytest.raises(Died):
            rt.scheduler.claim(match, seat, version)
    assert rt.client.exists(keys.bot_guard(match, version, seat))
    assert rt.scheduler.queue.count == 0
    now[0] += rt.scheduler.timeout_s + 0.1
    assert rt.scheduler.recover_stalled(jobs.still_due) == 1
    (job,) = rt.scheduler.queue.get_jobs()
    assert tuple(job.args) == (match, seat, version)


def test_a_job_that_died_after_its_move_gets_the_next_turn_scheduled(rt: Runtime) -> None:
    """A job appends its move and dies before scheduling the next bot's turn: its own overdue
    mark makes the watchdog look at the match, find a bot due with nothing scheduled, and
    schedule it."""
    match_id = solo(rt)
    human_moves(rt, match_id, random.Random(5))
    match, seat, _ = take_job(rt)
    service = rt.service
    loaded = service.load(match)
    choice = random.Random(5).choice(legal_choices(loaded.state, seat))
    command = ChooseTrump(choice) if loaded.state.phase == "choosing_trump" else PlayCard(choice)
    # the job's move, appended without the steps that follow (it died right after)
    service.commit(match, seal(loaded, decide(loaded.state, seat, command), seat, None, 0))
    after = service.load(match)
    nxt = service.next_actor(after.state)
    assert nxt not in (None, 0), "construct a position where a bot moves next"
    assert rt.scheduler.queue.count == 0
    later = time.time() + rt.scheduler.timeout_s + 1  # past the deadline of the job's mark
    rt.scheduler.clock = lambda: later
    assert rt.scheduler.recover_stalled(jobs.still_due) == 0  # its own turn was played ...
    (job,) = rt.scheduler.queue.get_jobs()  # ... and the next one is scheduled
    assert tuple(job.args) == (match, nxt, after.version)


@pytest.mark.parametrize("rules", [{"players": 2, "two_player": "talon"}, {"players": 2},
                                   {"players": 3}])
def test_bot_jobs_play_a_round_of_every_game(rt: Runtime, rules: dict[str, Any]) -> None:
    """A bots-only match of each variant: the jobs build and apply every decision (trump, the
    talon game's discards and draws, cards) until the first round is over."""
    n = rules["players"]
    levels = ["bot:medium", "bot:easy", "bot:hard"][:n]
    match_id = str(rt.service.create(seats=levels, rules=rules)["match_id"])
    queue = rt.scheduler.bots_only_queue
    types: set[str] = set()
    while "round_ended" not in types:
        assert queue.job_ids, "the match stalled"
        job = queue.fetch_job(queue.job_ids[0])
        assert job is not None
        queue.remove(job.id)
        result = jobs.bot_turn(*job.args)
        assert result.startswith("played"), result
        types = {event.TYPE for record in rt.store.read(match_id, 0) for event in record.events}
    assert {"trump_chosen", "card_played", "round_ended"} <= types
    if rules.get("two_player") == "talon":
        assert {"cards_discarded", "talon_drawn"} <= types
