"""The bots-only limit holds for a match its humans leave to bots (a QA finding: creating a
match with one human and leaving with ``replace_with`` gave one address five bots-only matches
playing where it may have two).  A leave or a ``seats/{n}/bot`` that leaves a match still in
play to bots alone takes a bots-only slot of the match's owner, and is ``429 rate_limited``
(``Retry-After: 60``, as the create) changing nothing when none is free; a leave that keeps a
human seated, or leaves the seat empty (the match waits at its turn), takes none."""

from __future__ import annotations

from typing import Any

import pytest

from services.quotas import BOTS_ONLY, owner_of
from services.store import keys

from .helpers import Gateway, bearer, deck, gateway

BOTS4 = ["bot:hard"] * 4
LIMITS = {"bot_matches": 8, "bot_matches_per_address": 2}  # the defaults (settings.py)
ADDRESS = "testclient"  # the test client's address (helpers.gateway)


def create(gw: Gateway, seats: list[str]) -> Any:
    # the first Hakem a human (seat 0) and no stand-ins: nothing moves while the test looks
    return gw.post("/api/matches", json={"seats": seats, "first_hakem": 0, "decks": [deck(5)],
                                         "disconnect_timeout": 0, "turn_timeout": 0})


def held(gw: Gateway) -> int:
    """The bots-only slots the test client's address holds."""
    return int(gw.rt.client.zcard(keys.slots(BOTS_ONLY, owner_of(ADDRESS))))


def refused(answer: Any) -> None:
    assert answer.status_code == 429, answer.text
    assert answer.json()["error"]["code"] == "rate_limited"
    assert answer.headers["Retry-After"] == "60"


def snapshot(gw: Gateway, match_id: str) -> tuple[int, list[Any]]:
    state = gw.state(match_id)
    return gw.version(match_id), [(s.player, s.bot) if s else None for s in state.match.seats]


def test_a_leave_to_a_bot_that_leaves_bots_alone_takes_a_slot() -> None:
    with gateway(worker=False, **LIMITS) as gw:
        assert create(gw, BOTS4).status_code == 201
        mine = create(gw, ["human", "bot:hard", "bot:hard", "bot:hard"]).json()
        match_id, token = mine["match_id"], mine["token"]
        assert held(gw) == 1  # a human is seated: no slot
        left = gw.post(f"/api/matches/{match_id}/leave", headers=bearer(token),
                       json={"replace_with": "bot:hard"})
        assert left.status_code == 200, left.text
        assert held(gw) == 2  # the finding: 1, and the limit never saw this match
        refused(create(gw, BOTS4))  # both of the address's slots are taken now

        # a third match left to bots: refused, and nothing changed
        third = create(gw, ["human", "bot:hard", "bot:hard", "bot:hard"]).json()
        before = snapshot(gw, third["match_id"])
        answer = gw.post(f"/api/matches/{third['match_id']}/leave",
                         headers=bearer(third["token"]), json={"replace_with": "bot:hard"})
        refused(answer)  # the finding: 200
        assert snapshot(gw, third["match_id"]) == before
        assert held(gw) == 2
        view = gw.get(f"/api/matches/{third['match_id']}/view", headers=bearer(third["token"]))
        assert view.status_code == 200 and view.json()["view"]["seat"] == 0  # still seated

        # without a bot the seat is empty and the match waits at its turn: no slot needed
        plain = gw.post(f"/api/matches/{third['match_id']}/leave",
                        headers=bearer(third["token"]))
        assert plain.status_code == 200, plain.text
        assert gw.state(third["match_id"]).match.seats[0] is None
        assert held(gw) == 2


def test_a_leave_that_keeps_a_human_seated_takes_no_slot() -> None:
    with gateway(worker=False, **LIMITS) as gw:
        for _ in range(2):
            assert create(gw, BOTS4).status_code == 201
        refused(create(gw, BOTS4))
        mine = create(gw, ["human", "human", "bot:hard", "bot:hard"]).json()
        match_id = mine["match_id"]
        other = gw.post(f"/api/matches/{match_id}/join", json={"name": "Bob"}).json()
        left = gw.post(f"/api/matches/{match_id}/leave", headers=bearer(other["token"]),
                       json={"replace_with": "bot:easy"})
        assert left.status_code == 200, left.text  # Ann is still seated
        assert gw.state(match_id).match.seats[1].bot == "easy"  # type: ignore[union-attr]
        assert held(gw) == 2
        # the last human's leave to a bot would leave bots alone: refused, nothing changed
        before = snapshot(gw, match_id)
        refused(gw.post(f"/api/matches/{match_id}/leave", headers=bearer(mine["token"]),
                        json={"replace_with": "bot:easy"}))
        assert snapshot(gw, match_id) == before


def test_a_seat_given_to_a_bot_after_every_human_left_takes_a_slot(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``POST /seats/{n}/bot`` authenticated while its sender was seated, who then left (to a
    bot) before the seat was given: the match would be left to bots alone."""
    with gateway(worker=False, **LIMITS) as gw:
        for _ in range(2):
            assert create(gw, BOTS4).status_code == 201
        mine = create(gw, ["human", "human", "bot:hard", "bot:hard"]).json()
        match_id, token = mine["match_id"], mine["token"]  # seat 1 is open
        service = gw.rt.service
        authenticate, leave = service.authenticate, service.leave
        raced: list[bool] = []

        def racing(match: str, given: str) -> Any:
            found = authenticate(match, given)
            if not raced:  # the sender leaves to a bot right after being let in
                raced.append(True)
                leave(match, token, "bot:hard")  # (seat 1 open: not bots alone yet)
            return found

        monkeypatch.setattr(service, "authenticate", racing)
        before_seats = snapshot(gw, match_id)[1]
        answer = gw.post(f"/api/matches/{match_id}/seats/1/bot", headers=bearer(token),
                         json={"level": "hard"})
        assert raced
        refused(answer)  # the finding: 200, four bots playing with no slot
        seats = snapshot(gw, match_id)[1]
        assert seats[1] is None and seats[0][1] == "hard"  # seat 1 still open
        assert seats[2:] == before_seats[2:]
        assert held(gw) == 2


def test_two_humans_leaving_to_bots_at_once_cannot_both_miss_the_limit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The second human's leave lands between the first's check and its write: the first,
    checked again at the match's new version, is refused (each saw the other seated)."""
    with gateway(worker=False, **LIMITS) as gw:
        for _ in range(2):
            assert create(gw, BOTS4).status_code == 201
        ann = create(gw, ["human", "human", "bot:hard", "bot:hard"]).json()
        match_id = ann["match_id"]
        bob = gw.post(f"/api/matches/{match_id}/join", json={"name": "Bob"}).json()
        service = gw.rt.service
        commit, leave = service.commit, service.leave
        raced: list[bool] = []

        def racing(match: str, prepared: Any) -> Any:
            if not raced:  # Bob's leave, right before Ann's first write
                raced.append(True)
                leave(match, bob["token"], "bot:hard")  # (Ann seated: no slot needed)
            return commit(match, prepared)

        monkeypatch.setattr(service, "commit", racing)
        answer = gw.post(f"/api/matches/{match_id}/leave", headers=bearer(ann["token"]),
                         json={"replace_with": "bot:hard"})
        assert raced
        refused(answer)  # the finding: 200, four bots playing with no slot
        seats = snapshot(gw, match_id)[1]
        assert seats[0] == (ann["player"], None) and seats[1][1] == "hard"
        assert held(gw) == 2


def test_a_stand_in_for_a_table_nobody_waits_at_takes_a_slot_of_its_address() -> None:
    """An audit's finding: matches whose one human never connects (or went away) were played
    to their end by stand-ins, bots-only matches in all but name, past the limit.  The
    watchdog's stand-in for a table where every human is away takes a slot of the match's
    owner first (``UNATTENDED``: as many as the bots-only limit per address), and waits
    (nothing scheduled, nothing changed) while none is free; the match's end frees it.  Those
    slots are not the bots-only pool's (watching bots play is not refused for them), and a
    table where another human waits needs none."""
    from services.quotas import UNATTENDED
    from worker import jobs

    def unattended() -> int:
        return int(gw.rt.client.zcard(keys.slots(UNATTENDED, owner_of(ADDRESS))))

    with gateway(worker=False, **LIMITS) as gw:
        jobs.set_runtime(gw.rt, this_thread=True)
        try:
            tables = []
            for seed in (5, 6, 7):  # the human is the first Hakem: the match waits for its trump
                made = gw.post("/api/matches", json={
                    "seats": ["human", "bot:easy", "bot:easy", "bot:easy"], "first_hakem": 0,
                    "decks": [deck(seed)], "disconnect_timeout": 1, "turn_timeout": 0}).json()
                tables.append(made["match_id"])
            versions = [snapshot(gw, m)[0] for m in tables]
            assert [jobs.away_due(m, 0, 5.0) for m in tables[:2]] == [(v, True)
                                                                      for v in versions[:2]]
            assert unattended() == 2
            before = snapshot(gw, tables[2])
            assert jobs.away_due(tables[2], 0, 5.0) is None  # the finding: its version
            assert unattended() == 2 and snapshot(gw, tables[2]) == before
            assert jobs.away_due(tables[0], 0, 5.0) == (versions[0], True)  # its slot: no other
            assert unattended() == 2
            for _ in range(2):  # the bots-only pool is untouched
                assert create(gw, BOTS4).status_code == 201
            assert held(gw) == 2

            # the first table ends: its slot frees, and the third's stand-in plays
            gw.rt.service.renew(tables[0], gw.rt.service.load(tables[0]).state.replace(
                phase="match_over"))
            assert unattended() == 1
            assert jobs.away_due(tables[2], 0, 5.0) == (versions[2], True)
            assert unattended() == 2

            # a table where another human is there: its stand-in takes no slot, even now
            two = gw.post("/api/matches", json={
                "seats": ["human", "bot:easy", "human", "bot:easy"], "first_hakem": 0,
                "decks": [deck(8)], "disconnect_timeout": 60, "turn_timeout": 0}).json()
            joined = gw.post(f"/api/matches/{two['match_id']}/join", json={"name": "Bea"})
            assert joined.status_code == 200, joined.text
            waiting = snapshot(gw, two["match_id"])[0]
            assert jobs.away_due(two["match_id"], 0, 61.0) == (waiting, False)
            assert unattended() == 2
        finally:
            jobs.set_runtime(None, this_thread=True)  # type: ignore[arg-type]
