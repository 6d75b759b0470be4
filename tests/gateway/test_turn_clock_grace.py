"""The clock of a hurried seat's next turns (services/turns.py, api.md under ``POST
/api/matches``): once a present player's turn ran out and the stand-in played it, the seat's
following turns get the grace (``TURN_GRACE_S``, 15 s; the room's limit if shorter), each
counted from that turn's own start, never from the turn that ran out, until its player acts
again.  A deliberate policy, pinned here with the grace as shipped (QA, ``hokm play``: "after
one turn timed out, the countdown of the seat's next turn started at about 7 s instead of the
room's full limit": the server gives 15 s from the start of that turn, and says ``grace``; the
clients now say why the clock is short).

As in test_turn_limit.py no test waits for a limit by the clock: the timed-out turn's
deadline is brought to now in the store, and the bounds below follow from the order of events
(a deadline set at or after a moment is at least that moment plus the limit)."""

from __future__ import annotations

import time

from services import turns
from services.store import keys

from .helpers import Gateway, bearer, wait_for
from .test_turn_limit import (limit_frame, seat0_turn, socket, stood_in, time_is_up,
                              two_human_room)


def deadline_of(gw: Gateway, match_id: str) -> float:
    """The deadline of the match's turn now, as stored (``keys.turn``)."""
    return float(gw.rt.client.hget(keys.turn(match_id), "deadline"))  # type: ignore[arg-type]


def test_a_hurried_seats_next_turns_get_the_grace_from_their_own_start(gw: Gateway) -> None:
    grace = turns.TURN_GRACE_S
    assert grace == 15.0  # (the policy as documented; nothing here shortens it)
    match_id, tokens = two_human_room(gw, 71, turn_timeout=60)
    with socket(gw, match_id, tokens[0]) as ws0, socket(gw, match_id, tokens[1]):
        version = gw.rt.service.load(match_id).version
        frame = limit_frame(ws0, version)
        assert frame["limit_s"] == 60 and frame["grace"] is False
        for turn in range(3):  # the lead at once (the Hakem), then turns after others played
            begun = time.time()  # (the next turn of seat 0 begins after this)
            time_is_up(gw, match_id, 0, version)
            wait_for(lambda v=version: stood_in(gw, match_id, v + 1), 20,
                     what="the stand-in's move")
            at = seat0_turn(gw, match_id, tokens[1])
            frame = limit_frame(ws0, at)
            assert frame["grace"] is True and frame["limit_s"] == grace, (turn, frame)
            assert frame["extended"] is False
            assert 0 < frame["left_ms"] <= grace * 1000, frame
            # counted from this turn's start: not earlier than it began plus the grace
            assert deadline_of(gw, match_id) >= begun + grace, (turn, frame)
            view = gw.get(f"/api/matches/{match_id}/view", headers=bearer(tokens[0])).json()
            assert view["version"] == at
            told = view["turn_limit"]
            assert told["grace"] is True and told["limit_s"] == grace, told
            assert 0 < told["left_ms"] <= grace * 1000, told
            version = at
