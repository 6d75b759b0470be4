"""``Retry-After`` says when a refused request would be accepted: the end of the create limit's
window, a minute for the bots-only limit (its slots free when a match ends), a bucket's refill
for the request limits (docs/api.md, *HTTP*).  A client that will not wait that long gives up
instead of retrying into the same refusal."""

from __future__ import annotations

import math
import time

from .helpers import gateway

BOTS = ["bot:easy", "bot:easy", "bot:easy", "bot:easy"]


def test_the_create_limit_says_when_its_window_ends() -> None:
    window = 1e9  # fixed windows of the clock: no run straddles one (see make_settings)
    with gateway(worker=False, creates_per_window=1, create_window_s=window) as gw:
        assert gw.post("/api/matches", json={}).status_code == 201
        before = time.time()
        refused = gw.post("/api/matches", json={})
        after = time.time()
        assert refused.status_code == 429, refused.text
        assert refused.json()["error"]["code"] == "rate_limited"
        wait = int(refused.headers["retry-after"])
        # the seconds until the window holding the request ends, rounded up
        assert math.ceil(window - after % window) <= wait <= math.ceil(window - before % window)
        assert wait > 600  # the finding: "1", and a client retried into the same refusal


def test_the_bots_only_limit_says_a_minute() -> None:
    with gateway(worker=False, bot_matches_per_address=1) as gw:
        assert gw.post("/api/matches", json={"seats": BOTS}).status_code == 201
        refused = gw.post("/api/matches", json={"seats": BOTS})
        assert refused.status_code == 429, refused.text
        assert refused.headers["retry-after"] == "60"


def test_a_request_limit_says_when_its_bucket_refills() -> None:
    # one request per 4 s (a burst of one): the next is accepted about 4 s after the first
    with gateway(worker=False, rate_per_address=0.25) as gw:
        created = gw.post("/api/matches", json={})
        assert created.status_code == 201
        refused = gw.get(f"/api/matches/{created.json()['match_id']}")
        assert refused.status_code == 429, refused.text
        assert refused.headers["retry-after"] in ("3", "4")


def test_a_rate_below_one_request_in_four_seconds_still_lets_one_through() -> None:
    # 0.1 a second: a burst of 4 x 0.1 would never hold a whole request (every request was
    # refused for ever, its Retry-After a time that never came); the bucket holds one
    from services.gateway.limits import Buckets

    bucket = Buckets(0.1, 0.4)
    assert bucket.allow("a", now=0.0)
    assert not bucket.allow("a", now=1.0)
    assert math.ceil(bucket.wait_s("a", now=1.0)) == 9
    assert bucket.allow("a", now=10.0)
