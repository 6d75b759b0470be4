"""The deadline of a turn under the room's ``turn_timeout`` belongs to the turn once set
(services/turns.py): a socket of the seat closing and opening again, the player's next socket
on another gateway, another human leaving or joining mid-turn, none of them gives the seat a
new limit; a newcomer in the seat gets the turn's deadline but never less than the grace; and
the views answered over HTTP (``GET /view``, a command's answer) carry the deadline as the
``turn_limit`` frame tells it, and nothing when no limit runs.

As in test_turn_limit.py, no test waits for a limit by the clock: a deadline is brought to now
in the store (as if the time had passed), and the rooms' limits are far longer than a test."""

from __future__ import annotations

import concurrent.futures
import contextlib
import time
from typing import Any

import pytest

from services import turns
from services.bots import recover_turns
from services.gateway import openapi
from services.store import keys

from .helpers import Gateway, bearer, command_for, create, deck, pending, wait_for
from .test_openapi import check
from .test_turn_limit import (limit_frame, socket, stood_in, time_is_up, two_gateways,
                              two_human_room)


def score(gw: Gateway, match_id: str, seat: int, version: int) -> float | None:
    """The deadline of the turn's entry in ``keys.TURNS`` (None: no entry)."""
    return gw.rt.client.zscore(keys.TURNS, turns.entry(match_id, seat, version))  # type: ignore


def present(gw: Gateway, match_id: str, seat: int) -> bool:
    return keys.present(gw.rt.client.hgetall(keys.presence(match_id)), 4)[seat]


def dropped_while_away(gw: Gateway, match_id: str, seat: int, version: int) -> None:
    """The seat has no socket; its entry's time is made up (as if its deadline had passed) and
    the watchdog of ``gw``'s worker looks at it: not due (the seat is away), it leaves the
    set, and nobody plays for the seat."""
    wait_for(lambda: not present(gw, match_id, seat), 10, what="the seat away")
    time_is_up(gw, match_id, seat, version)
    wait_for(lambda: score(gw, match_id, seat, version) is None, 20,
             what="the watchdog dropping the entry")
    assert gw.version(match_id) == version


def view_of(gw: Gateway, match_id: str, token: str) -> dict[str, Any]:
    answer = gw.get(f"/api/matches/{match_id}/view", headers=bearer(token))
    assert answer.status_code == 200, answer.text
    return answer.json()  # type: ignore[no-any-return]


def versioned_view_fits_the_document(answer: dict[str, Any]) -> None:
    doc = openapi.document()
    check(doc, doc["components"]["schemas"]["VersionedView"], answer)


@pytest.mark.parametrize("followed", [True, False], ids=["followed", "not-followed"])
def test_a_socket_that_opens_again_mid_turn_finds_the_turns_deadline(
        gw: Gateway, followed: bool) -> None:
    """The seat's socket closes, the watchdog finds its entry not due meanwhile (the seat
    away) and drops it, the socket opens again (with or without another socket keeping the
    match followed on this gateway): the turn's entry is written again with its deadline, not
    a new one, and once that passes the stand-in plays (before: no entry at all, so no limit
    for the rest of the turn, or a fresh one)."""
    match_id, tokens = two_human_room(gw, 81, turn_timeout=60)
    version = gw.version(match_id)
    with contextlib.ExitStack() as stack:
        if followed:
            stack.enter_context(socket(gw, match_id, tokens[1]))
        with socket(gw, match_id, tokens[0]) as ws0:
            first = limit_frame(ws0, version)
        deadline = score(gw, match_id, 0, version)
        assert deadline is not None and first["left_ms"] <= 60_000
        dropped_while_away(gw, match_id, 0, version)
        before = time.time()
        with socket(gw, match_id, tokens[0]) as ws0:
            again = limit_frame(ws0, version)
            assert score(gw, match_id, 0, version) == deadline  # the turn's, not a new one
            assert again["left_ms"] <= (deadline - before) * 1000 + 1
            assert (again["limit_s"], again["grace"]) == (first["limit_s"], first["grace"])
            time_is_up(gw, match_id, 0, version)
            wait_for(lambda: stood_in(gw, match_id, version + 1), 20, what="the stand-in")


def test_another_human_leaving_and_joining_mid_turn_does_not_restart_it(gw: Gateway) -> None:
    """Seat 1's player leaves while the match waits for seat 0 (a record: the version moves
    on, and seat 0 is alone with bots: no limit, no ``turn_limit`` in its view), then someone
    takes seat 1 (another record): seat 0's turn is the same turn, with the same deadline."""
    match_id, tokens = two_human_room(gw, 83, turn_timeout=60)
    version = gw.version(match_id)
    with socket(gw, match_id, tokens[0]) as ws0:
        first = limit_frame(ws0, version)
        deadline = score(gw, match_id, 0, version)
        assert gw.post(f"/api/matches/{match_id}/leave", headers=bearer(tokens[1])).json() == {
            "left": True}
        alone = view_of(gw, match_id, tokens[0])
        assert alone["version"] == version + 1 and "turn_limit" not in alone
        joined = gw.post(f"/api/matches/{match_id}/join", json={"name": "Cy", "seat": 1})
        assert joined.status_code == 200, joined.text
        later = limit_frame(ws0, version + 2)
        assert score(gw, match_id, 0, version + 2) == deadline
        assert later["left_ms"] <= first["left_ms"] and later["limit_s"] == 60
        shown = view_of(gw, match_id, tokens[0])["turn_limit"]
        assert shown["version"] == version + 2 and shown["left_ms"] <= later["left_ms"]


def test_a_newcomer_in_the_seat_gets_the_turns_deadline_but_at_least_the_grace(
        gw: Gateway, monkeypatch: pytest.MonkeyPatch) -> None:
    """Seat 0's player gives the seat up mid-turn and a new player takes it: while the turn's
    deadline is further off than the grace, the newcomer gets that deadline; once it is
    nearer (here: past), a newcomer gets the grace from when its socket sees the turn."""
    grace = 30.0
    monkeypatch.setattr(turns, "TURN_GRACE_S", grace)
    match_id, tokens = two_human_room(gw, 85, turn_timeout=60)
    version = gw.version(match_id)
    with socket(gw, match_id, tokens[0]) as ws0:
        limit_frame(ws0, version)
    deadline = score(gw, match_id, 0, version)
    assert deadline is not None

    def newcomer(token: str, name: str, at: int) -> tuple[str, dict[str, Any], float]:
        """``token``'s player leaves seat 0 and ``name`` takes it at version ``at``; the
        newcomer's token, the frame its socket is told and the time before it opened."""
        gw.post(f"/api/matches/{match_id}/leave", headers=bearer(token))
        taken = gw.post(f"/api/matches/{match_id}/join", json={"name": name, "seat": 0}).json()
        assert taken["seat"] == 0 and gw.version(match_id) == at
        before = time.time()
        with socket(gw, match_id, taken["token"]) as ws:
            frame = limit_frame(ws, at)
        return taken["token"], frame, before

    token, frame, _ = newcomer(tokens[0], "Dee", version + 2)
    assert score(gw, match_id, 0, version + 2) == deadline  # further off than the grace
    assert frame["limit_s"] == 60 and frame["grace"] is False
    # the turn's deadline passes (in the store: as a gateway would have kept it) and the seat
    # changes hands again: the next newcomer is not timed out the moment they sit
    gw.rt.client.hset(keys.turn(match_id), "deadline", repr(time.time()))
    token, frame, before = newcomer(token, "Eve", version + 4)
    given = score(gw, match_id, 0, version + 4)
    assert given is not None and before + grace <= given <= time.time() + grace
    assert 0 < frame["left_ms"] <= grace * 1000
    assert view_of(gw, match_id, token)["turn_limit"]["left_ms"] <= frame["left_ms"]
    assert gw.version(match_id) == version + 4  # nobody played for the seat


def test_the_view_answered_over_http_carries_the_turns_deadline(gw: Gateway) -> None:
    """``GET /view`` and a command's answer carry ``turn_limit`` as the frame tells it while
    a limit runs for the seat's turn: not before a socket of the seat saw the turn (no limit
    runs for a player without one), not to another seat."""
    match_id, tokens = two_human_room(gw, 87, turn_timeout=60)
    version = gw.version(match_id)
    polled = view_of(gw, match_id, tokens[0])
    assert polled["version"] == version and polled["view"]["legal"]
    assert "turn_limit" not in polled  # no socket of the seat yet: no limit runs
    with socket(gw, match_id, tokens[0]) as ws0:
        frame = limit_frame(ws0, version)
        deadline = score(gw, match_id, 0, version)
        assert deadline is not None
        before = time.time()
        answer = view_of(gw, match_id, tokens[0])
        versioned_view_fits_the_document(answer)
        shown = answer["turn_limit"]
        assert {k: shown[k] for k in ("version", "seat", "limit_s", "grace")} == {
            k: frame[k] for k in ("version", "seat", "limit_s", "grace")}
        assert 0 < shown["left_ms"] <= (deadline - before) * 1000 + 1
        assert "turn_limit" not in view_of(gw, match_id, tokens[1])  # not seat 1's turn
        # the Hakem names trump over HTTP and leads the first trick: the answer carries the
        # limit of that next turn (this gateway holds the seat's socket: it is set by now)
        view = answer["view"]
        before = time.time()
        done = gw.post(f"/api/matches/{match_id}/commands", headers=bearer(tokens[0]),
                       json=command_for(view, view["legal"][0], version))
        assert done.status_code == 200, done.text
        versioned_view_fits_the_document(done.json())
        lead = done.json()["turn_limit"]
        assert lead["version"] == version + 1 == done.json()["version"]
        assert lead["seat"] == 0 and lead["limit_s"] == 60 and lead["grace"] is False
        deadline = score(gw, match_id, 0, version + 1)
        assert deadline is not None and 0 < lead["left_ms"] <= (deadline - before) * 1000 + 1
        told = limit_frame(ws0, version + 1)
        assert (told["seat"], told["limit_s"], told["grace"]) == (0, 60, False)


def test_no_turn_limit_in_the_view_alone_with_bots_or_without_a_limit(gw: Gateway) -> None:
    solo = create(gw, seats=["human", "bot:easy", "bot:easy", "bot:easy"], first_hakem=0,
                  decks=[deck(89)], turn_timeout=60)
    off, tokens = two_human_room(gw, 91, turn_timeout=0)
    for match_id, token in ((solo["match_id"], solo["token"]), (off, tokens[0])):
        with socket(gw, match_id, token) as ws:
            wait_for(lambda m=match_id: gw.rt.service.next_actor(gw.state(m)) == 0, 10,
                     what="seat 0's turn")
            answer = view_of(gw, match_id, token)
            assert answer["view"]["legal"] and "turn_limit" not in answer
            assert not [f for f in pending(ws) if f.get("type") == "turn_limit"]
        assert score(gw, match_id, 0, gw.version(match_id)) is None


@pytest.mark.redis
def test_the_players_next_socket_on_another_gateway_finds_the_turns_deadline() -> None:
    """Two gateways on one real Redis: the seat's socket on one closes, the watchdog drops the
    entry of its turn meanwhile (the seat away), the player's next socket opens on the other
    gateway: told the turn's deadline, its entry written again with it, and ``GET /view``
    through the first gateway (no socket of the seat there: it reads) says the same."""
    with two_gateways() as (a, b):
        match_id, tokens = two_human_room(a, 93, turn_timeout=60)
        version = a.version(match_id)
        with socket(a, match_id, tokens[0]) as on_a:
            first = limit_frame(on_a, version)
        deadline = score(a, match_id, 0, version)
        assert deadline is not None
        wait_for(lambda: not present(a, match_id, 0), 10, what="the seat away")
        time_is_up(a, match_id, 0, version)
        assert watchdog_pass(a) == 0
        assert score(a, match_id, 0, version) is None  # looked at, not due: dropped
        before = time.time()
        with socket(b, match_id, tokens[0]) as on_b:
            again = limit_frame(on_b, version)
            assert score(b, match_id, 0, version) == deadline
            assert again["left_ms"] <= (deadline - before) * 1000 + 1
            assert again["limit_s"] == first["limit_s"] == 60
            shown = view_of(a, match_id, tokens[0])["turn_limit"]
            assert shown["version"] == version and shown["limit_s"] == 60
            assert shown["left_ms"] <= again["left_ms"]


def watchdog_pass(gw: Gateway) -> int:
    """One pass of a worker's watchdog over ``keys.TURNS`` against ``gw``'s store (in a thread
    of its own: the jobs' runtime is set for that thread only)."""
    from worker import jobs

    def run() -> int:
        jobs.set_runtime(gw.rt, this_thread=True)
        return recover_turns(gw.rt.client, gw.rt.scheduler, jobs.turn_due)

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(run).result(timeout=60)
