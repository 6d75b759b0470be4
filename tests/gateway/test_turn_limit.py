"""The room's ``turn_timeout`` (services/turns.py): a present human (a socket open on the seat)
who does not decide within the limit has that one decision made by the seat's stand-in, through
the same path as for an away seat (the ``~<version>`` command id, ``stand_in`` in the records);
the seat stays the player's; its following turns get only the grace until the player acts
again.  Never for a player alone with bots, never with ``turn_timeout`` 0.  The embedded
gateway with its in-process worker, whose watchdog plays the stand-in moves.

No test waits for a limit of the room to pass by the clock where it can be avoided: the
deadline a gateway wrote is brought to now in the store (as if the time had passed), and the
grace is made short (``TURN_GRACE_S``)."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import WebSocketTestSession

from services import turns
from services.gateway import openapi
from services.lobby import stand_in_key
from services.store import keys

from tests.conftest import real_redis_client

from .test_openapi import check
from .helpers import (REDIS_DB, Gateway, bearer, command_for, create, deck, gateway, pending,
                      recv_until, redis_url, wait_for)

TWO_HUMANS = ["human", "human", "bot:easy", "bot:easy"]


def two_human_room(gw: Gateway, seed: int, **body: Any) -> tuple[str, list[str]]:
    """Humans at seats 0 and 1, bots at 2 and 3; seat 0 is the first Hakem (the match waits
    for it to name trump as soon as it is dealt).  Nobody is ever away-substituted (0)."""
    created = create(gw, seats=TWO_HUMANS, first_hakem=0, decks=[deck(seed)], **body)
    match_id = created["match_id"]
    joined = gw.post(f"/api/matches/{match_id}/join", json={"name": "Bea", "seat": 1}).json()
    return match_id, [created["token"], joined["token"]]


def socket(gw: Gateway, match_id: str, token: str) -> WebSocketTestSession:
    return gw.websocket_connect(f"/api/matches/{match_id}/ws?token={token}")


def limit_frame(ws: WebSocketTestSession, version: int, timeout: float = 10) -> dict[str, Any]:
    """The ``turn_limit`` frame of the turn at ``version``."""
    return recv_until(ws, lambda f: f["type"] == "turn_limit" and f["version"] == version,
                      timeout)


def stood_in(gw: Gateway, match_id: str, version: int) -> bool:
    """Whether record ``version`` was made by seat 0's stand-in."""
    records = gw.rt.store.read(match_id, version - 1, version)
    return bool(records) and records[0].actor == 0 \
        and records[0].command_id == stand_in_key(version)


def time_is_up(gw: Gateway, match_id: str, seat: int, version: int) -> None:
    """The deadline of that turn, as a gateway wrote it, is now (as if its limit had passed)."""
    name = turns.entry(match_id, seat, version)
    assert gw.rt.client.zscore(keys.TURNS, name) is not None
    gw.rt.client.zadd(keys.TURNS, {name: time.time()}, xx=True)


def seat0_turn(gw: Gateway, match_id: str, token1: str, timeout: float = 30) -> int:
    """Play seat 1's decisions (the other human, at once) until the match waits for seat 0;
    the version it waits at."""
    service = gw.rt.service
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        loaded = service.load(match_id)
        actor = service.next_actor(loaded.state)
        if actor == 0:
            return loaded.version
        if actor == 1:
            view = gw.get(f"/api/matches/{match_id}/view", headers=bearer(token1)).json()
            if view["version"] == loaded.version and view["view"]["legal"]:
                gw.post(f"/api/matches/{match_id}/commands", headers=bearer(token1),
                        json=command_for(view["view"], view["view"]["legal"][0],
                                         view["version"]))
                continue
        time.sleep(0.01)
    raise AssertionError(f"the match never waited for seat 0 within {timeout} s: at version "
                         f"{loaded.version} ({loaded.state.phase}) it waits for seat {actor}")


def test_a_present_player_who_does_not_act_gets_a_stand_in_then_the_grace(
        gw: Gateway, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(turns, "TURN_GRACE_S", 0.5)
    match_id, tokens = two_human_room(gw, 71, turn_timeout=60)
    player0 = gw.rt.service.load(match_id).state.match.seats[0].player
    with socket(gw, match_id, tokens[0]) as ws0, socket(gw, match_id, tokens[1]) as ws1:
        first = recv_until(ws1, lambda f: f["type"] == "view")
        assert not [f for f in pending(ws1) if f.get("type") == "turn_limit"]
        # the Hakem's trump: the room's full limit, told to its seat
        version = gw.rt.service.load(match_id).version
        assert gw.rt.service.next_actor(gw.state(match_id)) == 0, first
        frame = limit_frame(ws0, version)
        assert frame["seat"] == 0 and frame["limit_s"] == 60 and frame["grace"] is False
        doc = openapi.document()
        check(doc, doc["components"]["schemas"]["WsTurnLimit"], frame)  # as documented
        assert 0 < frame["left_ms"] <= 60_000
        # the limit passes: the stand-in names trump for the present player
        time_is_up(gw, match_id, 0, version)
        wait_for(lambda: stood_in(gw, match_id, version + 1), 20, what="the stand-in's trump")
        assert gw.state(match_id).deal.trump is not None
        seat0 = gw.state(match_id).match.seats[0]
        assert seat0.bot is None and seat0.player == player0  # still the player's
        events = gw.get(f"/api/matches/{match_id}/events?since={version}",
                        headers=bearer(tokens[0])).json()["events"]
        assert events[0]["stand_in"] is True and events[0]["actor"] == 0
        # the Hakem leads the first trick: a turn of the same seat, given only the grace,
        # after which the stand-in plays (the room's limit, a minute, would fail the wait)
        lead = version + 1
        assert gw.rt.service.next_actor(gw.state(match_id)) == 0
        frame = limit_frame(ws0, lead)
        assert frame["grace"] is True and frame["limit_s"] == 0.5
        wait_for(lambda: stood_in(gw, match_id, lead + 1), 20, what="the stand-in's lead")
        # the player acts again (at a turn of theirs still under the grace; should the
        # stand-in be first, at the next one): their seat gets the full limit back
        for _ in range(13):
            at = seat0_turn(gw, match_id, tokens[1])
            frame = limit_frame(ws0, at)
            assert frame["grace"] is True
            view = gw.get(f"/api/matches/{match_id}/view", headers=bearer(tokens[0])).json()
            if view["version"] != at:
                continue  # the stand-in was first
            ws0.send_json(command_for(view["view"], view["view"]["legal"][0], at, f"c{at}"))
            answer = recv_until(ws0, lambda f, at=at: f["type"] in ("view", "error")
                                and f.get("version", at + 1) > at)
            if answer["type"] == "view":
                break
        else:
            raise AssertionError("the player never got to act")
        records = gw.rt.store.read(match_id, at, at + 1)
        assert records[0].actor == 0 and records[0].command_id != stand_in_key(at + 1)
        # (written once the command is stored, after its views went out)
        wait_for(lambda: not turns.is_hurried(gw.rt.client.zscore(keys.hurry(match_id),
                                                                  player0)),
                 10, what="the seat no longer hurried")
        nxt = seat0_turn(gw, match_id, tokens[1])
        frame = limit_frame(ws0, nxt)
        assert frame["grace"] is False and frame["limit_s"] == 60
        assert not stood_in(gw, match_id, nxt + 1)


def no_stand_in_while_a_witness_gets_one(gw: Gateway, match_id: str, ws: Any) -> None:
    """Once a witness room (two present humans, a limit of a second, made after ``match_id``
    started waiting) got its stand-in, the watchdog has looked past ``match_id``'s limit too:
    ``match_id`` must still wait, with no deadline written and no ``turn_limit`` told."""
    waiting = gw.rt.service.load(match_id).version
    witness, tokens = two_human_room(gw, 73, turn_timeout=1)
    waiting_w = gw.rt.service.load(witness).version
    with socket(gw, witness, tokens[0]), socket(gw, witness, tokens[1]):
        wait_for(lambda: stood_in(gw, witness, waiting_w + 1), 20,
                 what="the witness's stand-in")
    assert gw.rt.service.load(match_id).version == waiting  # nobody played for the player
    assert not [m for m in gw.rt.client.zrange(keys.TURNS, 0, -1)
                if m.decode().startswith(f"{match_id}:")]
    assert not [f for f in pending(ws) if f.get("type") == "turn_limit"]


def test_a_player_alone_with_bots_is_never_hurried(gw: Gateway) -> None:
    created = create(gw, seats=["human", "bot:easy", "bot:easy", "bot:easy"], first_hakem=0,
                     decks=[deck(75)], turn_timeout=1)
    match_id = created["match_id"]
    with socket(gw, match_id, created["token"]) as ws:
        recv_until(ws, lambda f: f["type"] == "view")
        assert gw.rt.service.next_actor(gw.state(match_id)) == 0
        no_stand_in_while_a_witness_gets_one(gw, match_id, ws)


def test_turn_timeout_0_turns_the_limit_off(gw: Gateway) -> None:
    match_id, tokens = two_human_room(gw, 77, turn_timeout=0)
    assert gw.get(f"/api/matches/{match_id}").json()["turn_timeout"] == 0
    with socket(gw, match_id, tokens[0]) as ws0, socket(gw, match_id, tokens[1]):
        recv_until(ws0, lambda f: f["type"] == "view")
        assert gw.rt.service.next_actor(gw.state(match_id)) == 0
        no_stand_in_while_a_witness_gets_one(gw, match_id, ws0)


def test_the_room_shows_its_limits_and_the_default(gw: Gateway) -> None:
    made = gw.post("/api/matches", json={"seats": TWO_HUMANS}).json()
    summary = gw.get(f"/api/matches/{made['match_id']}").json()
    assert summary["turn_timeout"] == turns.TURN_TIMEOUT_S == 90
    assert summary["disconnect_timeout"] == 60
    made = create(gw, seats=TWO_HUMANS, turn_timeout=12.5)
    assert gw.get(f"/api/matches/{made['match_id']}").json()["turn_timeout"] == 12.5


def test_the_room_tells_its_limits_the_same_whatever_number_type_made_them(gw: Gateway) -> None:
    """A QA finding: the summary echoed the creator's number type (60.0, -0.0), and a float
    once the room was read again from the store (after a restart)."""
    made = create(gw, seats=TWO_HUMANS, turn_timeout=60.0, disconnect_timeout=-0.0)
    url = f"/api/matches/{made['match_id']}"
    for _ in range(2):
        text = gw.get(url).text
        assert '"turn_timeout":60}' in text and '"disconnect_timeout":0,' in text, text
        gw.rt.service.rooms.forget_all()  # as a restarted server: read from the store


@pytest.mark.redis
def test_two_gateways_and_two_workers_make_one_stand_in_move_per_turn(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two gateways on one real Redis, each with a socket of the seat that does not act: one
    deadline for the turn.  Past it, two watchdogs look at it at once and two workers run its
    stand-in job at once: one move is made (the other job finds its version gone)."""
    import concurrent.futures

    from services.bots import recover_turns
    from worker import jobs

    monkeypatch.setattr(turns, "TURN_GRACE_S", 3600.0)  # the turns after it: no second limit
    with two_gateways() as (a, b):
        match_id, tokens = two_human_room(a, 79, turn_timeout=60)
        version = a.rt.service.load(match_id).version
        with socket(a, match_id, tokens[0]) as on_a, socket(b, match_id, tokens[0]) as on_b, \
                socket(b, match_id, tokens[1]):
            told = [limit_frame(ws, version) for ws in (on_a, on_b)]
            assert all(f["seat"] == 0 and f["limit_s"] == 60 for f in told)
            entries = [m for m in a.rt.client.zrange(keys.TURNS, 0, -1)
                       if m.decode().startswith(f"{match_id}:")]
            assert entries == [turns.entry(match_id, 0, version).encode()]
            time_is_up(a, match_id, 0, version)

            def watchdog(rt: Any) -> int:
                jobs.set_runtime(rt, this_thread=True)
                return recover_turns(rt.client, rt.scheduler, jobs.turn_due)

            def job(rt: Any) -> str:
                jobs.set_runtime(rt, this_thread=True)
                return jobs.bot_turn(match_id, 0, version)

            with concurrent.futures.ThreadPoolExecutor(2) as pool:
                scheduled = list(pool.map(watchdog, (a.rt, b.rt)))
                assert sum(scheduled) >= 1
                results = sorted(pool.map(job, (a.rt, b.rt)))
            # each job made its move or found it made; two that chose alike may both say
            # played (the append of the very same bytes again is taken as a retry of its
            # own): what counts is that one record came of it
            assert all(r in ("played", "already played", "stale", "refused: stale_version")
                       for r in results), results
            records = a.rt.store.read(match_id, version)
            assert [(r.version, r.actor) for r in records] == [(version + 1, 0)]
            assert records[0].command_id == stand_in_key(version + 1)
            # the queue holds the turn's job once, for what the workers would have run
            queued = a.rt.scheduler.queue.get_job_ids()
            assert [j for j in queued if j.startswith(f"bot-{match_id}-")] == [
                f"bot-{match_id}-{version}-0"]


@contextlib.contextmanager
def two_gateways() -> Iterator[tuple[Gateway, Gateway]]:
    """Two gateways without an in-process worker on one real Redis (its test database flushed
    before and after; the test fails, not skips, without Redis)."""
    client = real_redis_client(REDIS_DB)
    client.flushdb()
    try:
        with gateway(redis_url=redis_url(), worker=False) as a, \
                gateway(redis_url=redis_url(), worker=False) as b:
            yield a, b
    finally:
        client.flushdb()


@pytest.mark.redis
def test_a_seat_whose_sockets_open_and_close_past_its_deadline_gets_its_stand_in() -> None:
    """A QA finding: a seat's sockets opened and closed at once, again and again, on two
    gateways, each told ``left_ms`` 0 once the turn's limit had passed, held the stand-in off
    for 20-28 s: the watchdog only found the turn due when a socket happened to be open at the
    very moment it looked.  A socket opening on a turn whose deadline passed is the seat being
    present then (api.md: decided "as soon as a socket of the seat is open again"), however
    soon it closes.  Here each socket closes before the watchdog looks (its entry left, the
    presence cleared): a real Redis, a gateway with its in-process worker and watchdog and a
    second one without; the other human's socket stays open throughout."""
    client = real_redis_client(REDIS_DB)
    client.flushdb()
    before = set(threading.enumerate())
    try:
        with gateway(redis_url=redis_url(), worker=True) as a, \
                gateway(redis_url=redis_url(), worker=False) as b:
            workers = [t for t in set(threading.enumerate()) - before
                       if t.name.startswith("hokm-")]
            match_id, tokens = two_human_room(a, 87, turn_timeout=1)
            version = a.rt.service.load(match_id).version
            name = turns.entry(match_id, 0, version)
            players = a.state(match_id).rules.players
            told: list[int] = []

            def seat0_present() -> bool:
                return keys.present(client.hgetall(keys.presence(match_id)), players)[0]

            def churn() -> bool:
                """One socket of seat 0, open just long enough to be told the limit; then
                the watchdog has looked at the turn's entry once the socket is gone."""
                gw = (a, b)[len(told) % 2]
                with socket(gw, match_id, tokens[0]) as ws:
                    frame = recv_until(ws, lambda f: f["type"] == "turn_limit"
                                       or (f["type"] == "view" and f["version"] > version))
                if frame["type"] == "view":
                    return True  # the stand-in's record came as it opened
                told.append(frame["left_ms"])
                wait_for(lambda: not seat0_present(), 10, what="seat 0's presence cleared")
                wait_for(lambda: client.zscore(keys.TURNS, name) is None
                         or stood_in(a, match_id, version + 1), 10,
                         what="the watchdog looking at the turn's entry")
                return stood_in(a, match_id, version + 1) \
                    or client.exists(keys.bot_guard(match_id, version, 0)) > 0

            with socket(a, match_id, tokens[1]):
                wait_for(churn, 12, what="the stand-in scheduled while seat 0's sockets churn",
                         seen=lambda: told)
                wait_for(lambda: stood_in(a, match_id, version + 1), 20,
                         what="the stand-in's trump")
            assert 0 in told  # a socket was opened (and told so) past the deadline
            assert a.state(match_id).match.seats[0].bot is None  # still the player's
        for thread in workers:  # (stopped with the gateway: let them finish with the Redis)
            thread.join(10)
    finally:
        client.flushdb()
