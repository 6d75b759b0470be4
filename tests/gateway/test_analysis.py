"""``GET /api/matches/{id}/analysis`` over HTTP: nothing before the match is over (409
``match_not_over``, no card, nothing computed or queued), unknown matches refused, and a finished
match goes from 202 pending to 200 done through the embedded server's own analysis worker, each
round computed once however often it is asked; the games of two and three players too."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from engine.cards import NAMES
from services.gateway import openapi
from services.store import keys
from worker.analysis import core

from .helpers import Gateway, finish, gateway, room, wait_for
from .test_metrics import scrape
from .test_openapi import check

FAST = {"HOKM_ANALYSIS_BOT": "medium", "HOKM_ANALYSIS_NODES": "500"}
"""A cheap analysis for tests (the medium search; the solver's budget past which a move is
judged by a playout)."""


@pytest.fixture
def fast(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in FAST.items():
        monkeypatch.setenv(name, value)


@pytest.fixture
def own() -> Iterator[Gateway]:
    """An embedded gateway of this module's own (its analysis worker runs the jobs)."""
    with gateway() as gw:
        yield gw


def analysis_keys(gw: Gateway, match_id: str) -> list[bytes]:
    return sorted(gw.rt.client.scan_iter(match=keys.analysis(match_id) + "*"))


def test_no_analysis_before_the_match_is_over(own: Gateway) -> None:
    r = room(own, first_hakem=0)
    url = f"/api/matches/{r.match_id}/analysis"
    for phase in ("choosing_trump", "playing"):
        if phase != "choosing_trump":
            finish(own, r.match_id, random.Random(1), phase=phase)
        answer = own.get(url)
        assert answer.status_code == 409
        body = answer.json()
        assert list(body) == ["error"] and set(body["error"]) == {"code", "message"}
        assert body["error"]["code"] == "match_not_over"
        assert not any(card in body["error"]["message"].split() for card in NAMES)
        assert analysis_keys(own, r.match_id) == []  # nothing computed, nothing queued


def test_unknown_matches_are_refused(own: Gateway) -> None:
    assert own.get("/api/matches/nosuchmatch/analysis").json()["error"]["code"] == "not_found"
    assert own.get("/api/matches/NO/analysis").json()["error"]["code"] == "not_found"


@pytest.mark.parametrize("rules", [{"players": 2}, {"players": 2, "two_player": "talon"},
                                   {"players": 3}], ids=["simple", "talon", "three"])
def test_the_games_of_two_and_three_players_are_analysed(own: Gateway, fast: None,
                                                         rules: dict[str, Any]) -> None:
    n = rules["players"]
    r = room(own, players=n, seats=["human"] * n, rules=rules, first_hakem=0)
    url = f"/api/matches/{r.match_id}/analysis"
    finish(own, r.match_id, random.Random(4), phase="playing")
    assert own.get(url).json()["error"]["code"] == "match_not_over"
    assert analysis_keys(own, r.match_id) == []
    finish(own, r.match_id, random.Random(4))
    first = own.get(url)
    assert first.status_code == 202
    done = wait_for(lambda: (a := own.get(url)).status_code == 200 and a, timeout=120,
                    every=0.2, what="the analysis")
    body = done.json()
    doc = openapi.document()
    check(doc, {"$ref": "#/components/schemas/Analysis"}, {**body, "rounds": []})
    state = own.state(r.match_id)
    assert len(body["rounds"]) == state.deal.round_no
    assert [s["seat"] for s in body["seats"]] == list(range(n))
    records = own.rt.store.read(r.match_id)
    decisions = [x.version for x in records if x.events[0].TYPE in (
        "trump_chosen", "card_played", "cards_discarded", "talon_drawn")]
    assert [m["version"] for one in body["rounds"] for m in one["moves"]] == decisions
    for one in body["rounds"]:
        check(doc, {"$ref": "#/components/schemas/AnalysisRound"}, one)
        assert len(one["result"]["tricks"]) == n and len(one["seats"]) == n
        assert one["moves"][0]["kind"] == "trump"
        assert {a["card"] for a in one["moves"][0]["alternatives"]} == set("SHDC")
        for move in one["moves"]:
            alts = {a["card"]: a for a in move["alternatives"]}
            assert move["played"] in alts and set(move["best"]) <= set(alts)
            assert 0 <= move["seat"] < n
    assert sum(s["moves"] for s in body["seats"]) == len(decisions)


def test_pending_then_done_each_round_computed_once(own: Gateway, fast: None,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    r = room(own, first_hakem=0)
    finish(own, r.match_id, random.Random(3))
    rounds = own.state(r.match_id).deal.round_no
    assert rounds >= 3
    # every round but the last is already stored: those are served as they are, never computed
    stored = {"round": 0, "moves": [], "seats": [
        {"seat": s, "moves": 1, "cost_trick": s, "cost_round": 0, "cost_kot": 0}
        for s in range(4)]}
    for i in range(rounds - 1):
        own.rt.store.put_analysis(r.match_id, i, json.dumps({**stored, "round": i}).encode())
    calls: list[int] = []
    real = core.analyse_round

    def counted(records: Any, index: int, *args: Any) -> dict[str, Any]:
        calls.append(index)
        return real(records, index, *args)

    monkeypatch.setattr("worker.analysis.jobs.analyse_round", counted)
    url = f"/api/matches/{r.match_id}/analysis"
    jobs_done = "hokm_analysis_jobs_total", frozenset({("outcome", "done")})
    before = scrape(own).get(jobs_done, 0.0)
    first = own.get(url)
    assert first.status_code == 202
    assert first.json() == {"status": "pending", "rounds": rounds, "done": rounds - 1}
    asked = [own.get(url) for _ in range(3)]  # asking again enqueues nothing more
    done = wait_for(lambda: (a := own.get(url)).status_code == 200 and a, timeout=60,
                    every=0.2, what="the analysis")
    assert all(a.status_code in (200, 202) for a in asked)
    assert calls == [rounds - 1]
    # the in-process worker's job is in the gateway's metrics (worker/metrics.py)
    assert scrape(own).get(jobs_done, 0.0) == before + 1
    body = done.json()
    doc = openapi.document()
    check(doc, {"$ref": "#/components/schemas/AnalysisPending"}, first.json())
    check(doc, {"$ref": "#/components/schemas/AnalysisRound"}, body["rounds"][-1])
    check(doc, {"$ref": "#/components/schemas/Analysis"}, {**body, "rounds": []})
    assert body["status"] == "done" and body["match"] == r.match_id
    assert [x["round"] for x in body["rounds"]] == list(range(rounds))
    last = body["rounds"][-1]
    records = own.rt.store.read(r.match_id)
    start = max(i for i, x in enumerate(records) if x.events[0].TYPE == "round_started")
    played = [x.version for x in records[start:] if x.events[0].TYPE == "card_played"]
    assert last["moves"][0]["kind"] == "trump"
    assert [m["version"] for m in last["moves"][1:]] == played
    state = own.state(r.match_id)
    assert last["result"]["tricks"] == list(state.match.result.tricks)
    for move in last["moves"]:
        assert move["played"] in [a["card"] for a in move["alternatives"]]
        assert set(move["best"]) <= {a["card"] for a in move["alternatives"]}
    own_counts = {s["seat"]: s for s in last["seats"]}
    for seat in body["seats"]:
        n = seat["seat"]
        assert seat["moves"] == rounds - 1 + own_counts[n]["moves"]
        assert seat["cost_trick"] == n * (rounds - 1) + own_counts[n]["cost_trick"]
    assert own.get(url).json() == body  # cached: the same answer, nothing computed
    assert calls == [rounds - 1]


def test_the_match_summary_splits_a_seat_by_its_players() -> None:
    """The rounds' per-player counts are added up per player (by name and bot level, in the
    order they first moved), so a seat that changed hands names each of its players; rounds
    stored before the split make no partial split."""
    from services.gateway.analysis import summary

    def row(seat: int, *players: tuple[str, str | None, int, int]) -> dict[str, Any]:
        ps = [{"name": n, "bot": b, "moves": m, "cost_trick": t, "cost_round": 0,
               "cost_kot": 0} for n, b, m, t in players]
        return {"seat": seat, "moves": sum(p["moves"] for p in ps),
                "cost_trick": sum(p["cost_trick"] for p in ps), "cost_round": 0,
                "cost_kot": 0, "players": ps}

    rounds = [{"seats": [row(0, ("Ana", None, 13, 0)), row(1, ("Babak", None, 13, 1))]},
              {"seats": [row(0, ("Ana", None, 13, 1)),
                         row(1, ("Babak", None, 4, 0), ("Kian", "hard", 9, 2))]},
              {"seats": [row(0, ("Ana", None, 13, 0)), row(1, ("Kian", "hard", 13, 0))]}]
    got = summary(rounds)
    assert got[1]["moves"] == 39 and got[1]["cost_trick"] == 3
    assert [(p["name"], p["bot"], p["moves"], p["cost_trick"]) for p in got[1]["players"]] == [
        ("Babak", None, 17, 1), ("Kian", "hard", 22, 2)]
    assert [(p["name"], p["moves"]) for p in got[0]["players"]] == [("Ana", 39)]
    check(openapi.document(), {"$ref": "#/components/schemas/AnalysisSeat"}, got[1])
    old = [{"seats": [{k: v for k, v in r.items() if k != "players"}
                      for r in rounds[0]["seats"]]}, rounds[1]]
    assert all("players" not in s for s in summary(old))


def test_a_full_analysis_queue_refuses_new_rounds_and_queues_nothing(
        fast: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Anyone may ask for any finished match's analysis, and bots-only matches end in seconds:
    the queue grew without end (an audit: one address queued ~360 rounds every ten minutes).
    Past ``WAITING_CAP`` waiting jobs a request that would queue rounds is ``429 rate_limited``
    with ``Retry-After: 60`` and queues nothing; rounds already queued are never refused."""
    from worker.analysis import jobs

    monkeypatch.setattr(jobs, "WAITING_CAP", 0)  # (read as the gateway is made) always full
    with gateway() as gw:
        r = room(gw, first_hakem=0)
        finish(gw, r.match_id, random.Random(3))
        url = f"/api/matches/{r.match_id}/analysis"
        refused = gw.get(url)
        assert refused.status_code == 429 and refused.headers["retry-after"] == "60"
        assert refused.json()["error"]["code"] == "rate_limited"
        wait_for(lambda: analysis_keys(gw, r.match_id) == [], what="no mark left (it lapses at "
                 "once): nothing queued", seen=lambda: analysis_keys(gw, r.match_id))
    with gateway(worker=False) as gw:  # (no analysis worker: the queue stays as made)
        rt = gw.rt
        q = jobs.queue(rt)
        r = room(gw, first_hakem=0)
        finish(gw, r.match_id, random.Random(3))
        rounds = gw.state(r.match_id).deal.round_no
        for _ in range(2):
            q.enqueue_call("builtins.len", args=("x",))  # stand-ins, never run
        with pytest.raises(jobs.RetryLater):
            jobs.enqueue(rt, r.match_id, range(rounds), cap=2)
        assert q.count == 2
        wait_for(lambda: analysis_keys(gw, r.match_id) == [], what="the marks given back")
        assert jobs.enqueue(rt, r.match_id, range(rounds), cap=3) == list(range(rounds))
        assert q.count == 2 + rounds  # all of them, past the cap: the check is before the first
        assert jobs.enqueue(rt, r.match_id, range(rounds), cap=1) == []  # queued: not refused
