"""What one client may cost (``services/quotas.py``): matches created per address, bots-only
matches playing at once (per address and in all), match lifetimes, and the bots-only queue that
waits behind tables with humans.  On fakeredis, through the real ``RedisStore``, scheduler and
worker code.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from typing import Any

import pytest
from rq.serializers import JSONSerializer

from engine import ChooseTrump, PlayCard, legal_choices
from services.errors import RateLimited
from services.matches import MatchService
from services.quotas import BOT_SLOT_S, Quotas
from services.runtime import Runtime, build_runtime
from services.store import keys
from tests.gateway.helpers import make_settings
from worker import jobs
from worker.main import ThreadWorker


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def rt(monkeypatch: pytest.MonkeyPatch) -> Iterator[Runtime]:
    runtime = build_runtime(make_settings())
    monkeypatch.setattr(jobs, "_runtime", runtime)
    yield runtime


def service_with(rt: Runtime, clock: Clock | None = None, **quotas: Any) -> MatchService:
    return MatchService(rt.store, scheduler=rt.scheduler, quotas=Quotas(**quotas),
                        clock=clock or time.time)


BOTS = ["bot:easy"] * 4
ANALYSIS_JOB = "builtins.len"
"""A stand-in for an analysis job in the analysis queue (what it does is not the point)."""
SOLO = ["human", "bot:easy", "bot:easy", "bot:easy"]


def play_out(service: MatchService, match_id: str) -> None:
    """Every decision of the match, straight through the service, to its end."""
    rng = random.Random(3)
    for _ in range(5000):
        loaded = service.load(match_id)
        if loaded.state.phase == "match_over":
            return
        seat = service.next_actor(loaded.state)
        assert seat is not None
        choice = rng.choice(legal_choices(loaded.state, seat))
        command = ChooseTrump(choice) if loaded.state.phase == "choosing_trump" \
            else PlayCard(choice)
        service.handle(match_id, seat, command, version=loaded.version)
    raise AssertionError("the match did not end")


def test_creates_per_address_are_limited_per_window(rt: Runtime) -> None:
    clock = Clock()
    service = service_with(rt, clock, creates_per_window=3, create_window_s=600)
    for _ in range(3):
        service.create(seats=SOLO, owner="a")
    with pytest.raises(RateLimited):
        service.create(seats=SOLO, owner="a")
    service.create(seats=SOLO, owner="b")  # another address is not held to a's count
    service.create(seats=SOLO)  # nor are the service's own callers (no owner)
    clock.now += 600  # the next window
    service.create(seats=SOLO, owner="a")


def test_a_refused_create_stores_nothing(rt: Runtime) -> None:
    # real time: a window no run straddles (the counts are per fixed window of the clock)
    service = service_with(rt, creates_per_window=1, create_window_s=1e9)
    service.create(seats=SOLO, owner="a")
    before = set(rt.client.keys("hokm:{*"))
    with pytest.raises(RateLimited):
        service.create(seats=SOLO, owner="a")
    assert set(rt.client.keys("hokm:{*")) == before


def test_bots_only_matches_are_capped_per_address_and_in_all(rt: Runtime) -> None:
    service = service_with(rt, bot_matches=3, bot_matches_per_owner=2)
    first = service.create(seats=BOTS, owner="a")["match_id"]
    service.create(seats=BOTS, owner="a")
    with pytest.raises(RateLimited):
        service.create(seats=BOTS, owner="a")  # a's two slots are taken
    service.create(seats=SOLO, owner="a")  # a table with a human needs no slot
    service.create(seats=BOTS, owner="b")
    with pytest.raises(RateLimited):
        service.create(seats=BOTS, owner="c")  # three in all
    play_out(service, first)  # a match that ends gives its slot back
    service.create(seats=BOTS, owner="c")
    with pytest.raises(RateLimited):
        service.create(seats=BOTS, owner="d")


def test_a_create_refused_for_its_bots_only_slot_is_no_create_of_the_quota(rt: Runtime) -> None:
    """The finding (a new user's probe): a bots-only create refused because the address's
    bots-only slots were taken (``Retry-After: 60``) still counted against its creates per
    window, so retrying it as told used up the quota for matches with a human too.  A create
    refused by one limit counts against neither, and one refused by the create quota holds no
    bots-only slot."""
    clock = Clock()
    service = service_with(rt, clock, creates_per_window=3, create_window_s=600,
                           bot_matches_per_owner=1)
    service.create(seats=BOTS, owner="a")  # 1 of 3 creates, a's one slot
    for _ in range(5):  # each refused: no slot free
        with pytest.raises(RateLimited, match="bots-only"):
            service.create(seats=BOTS, owner="a")
    service.create(seats=SOLO, owner="a")  # 2 of 3: the refusals counted for nothing
    service.create(seats=SOLO, owner="a")  # 3 of 3
    with pytest.raises(RateLimited, match="new matches"):
        service.create(seats=SOLO, owner="a")
    service = service_with(rt, clock, creates_per_window=3, create_window_s=600,
                           bot_matches_per_owner=1)
    with pytest.raises(RateLimited, match="new matches"):  # b: its quota used up first
        for _ in range(4):
            service.create(seats=SOLO if _ < 3 else BOTS, owner="b")
    clock.now += 600  # the next window: b's slot was never taken by the refused create
    service.create(seats=BOTS, owner="b")


def test_a_slot_that_is_never_released_lapses(rt: Runtime) -> None:
    clock = Clock()
    service = service_with(rt, clock, bot_matches=1)
    service.create(seats=BOTS, owner="a")  # its bots never play here (no worker)
    with pytest.raises(RateLimited):
        service.create(seats=BOTS, owner="b")
    clock.now += BOT_SLOT_S + 1
    service.create(seats=BOTS, owner="b")


def _ttls(rt: Runtime, match_id: str) -> list[int]:
    return [int(rt.client.ttl(key(match_id))) for key in keys.MATCH_KEYS]  # type: ignore[arg-type]


def test_matches_live_idle_ttl_after_each_system_step_and_finished_ttl_at_the_end(
        rt: Runtime) -> None:
    day, year = 24 * 3600, 365 * 24 * 3600
    service = service_with(rt, idle_ttl_s=day, finished_ttl_s=year)
    created = service.create(seats=SOLO, owner="a")
    match_id = created["match_id"]
    assert all(day - 60 <= ttl <= day for ttl in _ttls(rt, match_id))
    play_out(service, match_id)
    assert all(year - 60 <= ttl <= year for ttl in _ttls(rt, match_id))
    kept = service_with(rt, idle_ttl_s=day, finished_ttl_s=0)  # 0: a finished match stays
    other = kept.create(seats=SOLO)["match_id"]
    play_out(kept, other)
    assert _ttls(rt, other) == [-1, -1, -1]


def test_an_abandoned_match_disappears(rt: Runtime) -> None:
    service = service_with(rt, idle_ttl_s=1)
    match_id = service.create(seats=["human"] * 4)["match_id"]
    assert rt.store.version(match_id) > 0
    deadline = time.monotonic() + 20
    while rt.store.version(match_id) > 0:
        assert time.monotonic() < deadline, "the abandoned match is still there"
        time.sleep(0.05)
    assert rt.client.exists(*[key(match_id) for key in keys.MATCH_KEYS]) == 0


# -- the bots-only queue -----------------------------------------------------------------------


def test_bots_only_turns_go_to_their_own_queue(rt: Runtime) -> None:
    rt.service.create(seats=BOTS)
    assert rt.scheduler.bots_only_queue.count == 1 and rt.scheduler.queue.count == 0
    rt.service.create(seats=["bot:easy", "bot:easy", "bot:easy", "human"],
                      rules={"teams": "as_seated"}, first_hakem=0)
    # the table with a human waits for its Hakem, a bot: that job is on the main queue
    assert rt.scheduler.bots_only_queue.count == 1 and rt.scheduler.queue.count == 1


def test_a_worker_serves_tables_with_humans_before_bots_only_matches(rt: Runtime) -> None:
    """A flood of bots-only matches is waiting; a table with a human gets its bot's turn
    scheduled last, and the worker plays it first."""
    flood = [rt.service.create(seats=BOTS)["match_id"] for _ in range(6)]
    versions = {m: rt.service.load(m).version for m in flood}
    assert rt.scheduler.bots_only_queue.count == 6
    # a table where a bot moves first: the human sits at seat 3, the Hakem is seat 0 (a bot)
    table = rt.service.create(seats=["bot:easy", "bot:easy", "bot:easy", "human"],
                              rules={"teams": "as_seated"}, first_hakem=0)
    match_id = table["match_id"]
    before = rt.service.load(match_id).version
    assert rt.scheduler.queue.count == 1
    worker = ThreadWorker(rt.scheduler.queues, connection=rt.client, serializer=JSONSerializer)
    worker.work(burst=True, max_jobs=1, logging_level="WARNING", with_scheduler=False)
    assert rt.service.load(match_id).version > before  # the table's bot played
    assert all(rt.service.load(m).version == v for m, v in versions.items())  # nobody else
    assert rt.scheduler.bots_only_queue.count == 6


def test_a_bots_only_job_keeps_no_turns_while_a_table_with_a_human_waits(rt: Runtime) -> None:
    scheduler = rt.scheduler
    # a table with a human has a job waiting
    scheduler.schedule("t" * 16, 1, 5)
    assert scheduler.queue.count == 1
    # a bots-only job may not keep its match's next turn: it is enqueued instead
    assert scheduler.claim("b" * 16, 2, 9, keep_if_idle=True, bots_only=True) is False
    assert scheduler.bots_only_queue.count == 1
    # nor while another bots-only match waits: bots-only matches share the workers too
    scheduler.queue.empty()
    assert scheduler.claim("b" * 16, 3, 10, keep_if_idle=True, bots_only=True) is False
    # a table with a human may keep its turns past waiting bots-only jobs
    assert scheduler.claim("t" * 16, 2, 6, keep_if_idle=True) is True
    scheduler.bots_only_queue.empty()
    # nor while a post-match analysis waits (a bots-only match kept its turns to its end, and
    # one started after it too: the analyses waited for ever)
    scheduler.analysis_queue.enqueue_call(ANALYSIS_JOB, args=("a" * 16, 1))
    assert scheduler.claim("b" * 16, 1, 11, keep_if_idle=True, bots_only=True) is False
    assert scheduler.claim("t" * 16, 3, 7, keep_if_idle=True) is True  # (a human's table may)
    scheduler.analysis_queue.empty()
    scheduler.bots_only_queue.empty()
    assert scheduler.claim("b" * 16, 0, 12, keep_if_idle=True, bots_only=True) is True


def test_bots_only_matches_and_analyses_take_turns_at_a_worker(rt: Runtime) -> None:
    """A flood of bots-only matches waits, and two rounds' analyses: a worker serving the three
    queues (``hokm worker``'s order) takes a bots-only turn and an analysis in turn, where
    RQ's strict order served every bots-only turn first.  A table with a human still comes
    first."""
    flood = [rt.service.create(seats=BOTS)["match_id"] for _ in range(4)]
    versions = {m: rt.service.load(m).version for m in flood}

    def bots_only_played() -> int:  # (each turn played enqueues its match's next one)
        return sum(rt.service.load(m).version > v for m, v in versions.items())

    for round_no in (1, 2):
        rt.scheduler.analysis_queue.enqueue_call(ANALYSIS_JOB, args=("a" * 16, round_no))
    worker = ThreadWorker(rt.scheduler.all_queues, connection=rt.client, serializer=JSONSerializer)
    worker.work(burst=True, max_jobs=2, logging_level="WARNING", with_scheduler=False)
    assert rt.scheduler.analysis_queue.count == 1  # the first analysis ran second
    assert bots_only_played() == 1
    table = rt.service.create(seats=["bot:easy", "bot:easy", "bot:easy", "human"],
                              rules={"teams": "as_seated"}, first_hakem=0)
    before = rt.service.load(table["match_id"]).version
    worker.work(burst=True, max_jobs=3, logging_level="WARNING", with_scheduler=False)
    assert rt.service.load(table["match_id"]).version > before  # the human's table first
    assert rt.scheduler.analysis_queue.count == 0  # then a bots-only turn, then the other
    assert bots_only_played() == 2


@pytest.mark.parametrize("away", [False, True])
def test_a_table_every_human_walked_away_from_is_played_on_the_bots_only_queue(
        rt: Runtime, away: bool) -> None:
    """After a bot's move, the next bot turn of a table whose every human is away past the
    room's ``disconnect_timeout`` (its stand-ins play, nobody waits) goes to the bots-only
    queue: such tables delayed the tables where players wait.  A human there, even one away
    for less than the timeout, keeps the table on the main queue."""
    table = rt.service.create(seats=["bot:easy", "bot:easy", "bot:easy", "human"],
                              rules={"teams": "as_seated"}, first_hakem=0)
    match_id = table["match_id"]
    since = time.time() - (rt.service.disconnect_timeout(match_id) + 5 if away else 5)
    rt.client.zadd(keys.AWAY, {f"{match_id}:3": since})
    rt.scheduler.schedule("t" * 16, 1, 5)  # another table waits: the job keeps no turn
    assert rt.scheduler.queue.count == 2 and rt.scheduler.bots_only_queue.count == 0
    before = rt.service.load(match_id).version
    worker = ThreadWorker(rt.scheduler.queues, connection=rt.client, serializer=JSONSerializer)
    worker.work(burst=True, max_jobs=1, logging_level="WARNING", with_scheduler=False)
    assert rt.service.load(match_id).version == before + 1  # the Hakem (a bot) named trump
    queued = rt.scheduler.bots_only_queue if away else rt.scheduler.queue
    assert [j.args[0] for j in queued.get_jobs()][-1] == match_id
    assert rt.scheduler.bots_only_queue.count == (1 if away else 0)
    assert rt.scheduler.queue.count == (1 if away else 2)
