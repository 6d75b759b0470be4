"""The bot queue's Redis (``HOKM_QUEUE_URL``) unreachable while the match store answers: a
request whose records were stored is answered as done (the creator gets its token), the bot
turn that could not be scheduled is scheduled once the queue answers again, and ``/readyz``
says which Redis does not answer.  Real Redis servers: the defect lived between two of them."""

from __future__ import annotations

from typing import Any

import redis

from services.store import keys

from .helpers import bearer, deck, gateway, wait_for


def test_a_stored_match_is_acknowledged_and_its_bot_turn_scheduled_once_the_queue_answers(
        private_redis: Any) -> None:
    store = private_redis()
    store.start()
    queue = private_redis()  # its port is chosen; nothing listens there until it starts
    with gateway(worker=False, redis_url=store.url, queue_url=queue.url) as gw:
        ready = gw.get("/readyz")
        assert ready.status_code == 503  # the finding: 200
        assert ready.json() == {"ok": False, "store": True, "queue": False}
        assert ready.headers["Retry-After"] == "1"  # the finding: none
        # seat 1, a bot, is the first Hakem: the match waits for a bot as soon as it is dealt
        answer = gw.post("/api/matches", json={
            "seats": ["human", "bot:easy", "bot:easy", "bot:easy"], "first_hakem": 1,
            "decks": [deck(3)], "rules": {"teams": "as_seated"}})
        assert answer.status_code == 201, answer.text  # the finding: 503, "nothing was done"
        created = answer.json()
        match_id, token = created["match_id"], created["token"]
        assert token and created["seat"] == 0
        view = gw.get(f"/api/matches/{match_id}/view", headers=bearer(token))
        assert view.status_code == 200
        version = view.json()["version"]
        assert view.json()["view"]["phase"] == "choosing_trump"
        assert view.json()["view"]["turn"] == 1
        matches = redis.Redis.from_url(store.url)
        assert gw.rt.service.unscheduled == {match_id: version}  # kept for a retry

        queue.start()
        queued = redis.Redis.from_url(queue.url)
        # the gateway schedules the kept turn by itself once the queue answers
        wait_for(lambda: queued.zscore(keys.PENDING_BOTS, f"{match_id}:{version}:1")
                 is not None, 20, what="the kept bot turn scheduled")
        # the pending mark is written first, the job right after it (services/bots.py)
        wait_for(lambda: queued.llen("rq:queue:hokm-bots") == 1, 5, what="the job enqueued")
        assert queued.llen("rq:queue:hokm-bots") == 1
        wait_for(lambda: not gw.rt.service.unscheduled, 5, what="nothing kept any more")
        assert gw.get("/readyz").json() == {"ok": True, "store": True, "queue": True}
        # the match was created once: the one match in the store (no orphan of a retry)
        assert list(matches.scan_iter(match=keys.log("*"))) == [keys.log(match_id).encode()]
