"""A spectator on a gateway without a socket of the acting seat is told the turn's deadline
as the spectators on the seat's gateway are: when the turn opens (``scripts.TURN_DEADLINE``
publishes ``TURN_NOTE`` when it sets a deadline, and ``TurnLimits.changed`` on every other
gateway reads it) and on connect (``TurnLimits.look`` reads it for spectators only), once a
turn (before: such a spectator got only the extension, ``more_time``, never the first
deadline).  Two gateways on one real Redis."""

from __future__ import annotations

from typing import Any

import pytest

from .helpers import bearer, command_for, recv_until
from .test_more_time import spectator
from .test_turn_limit import limit_frame, seat0_turn, socket, two_gateways, two_human_room


def told_limits(ws: Any, until: Any) -> list[dict[str, Any]]:
    """The ``turn_limit`` frames up to and with the first frame ``until`` accepts."""
    frames: list[dict[str, Any]] = []
    recv_until(ws, lambda f: frames.append(f) or until(f), timeout=10)
    return [f for f in frames if f["type"] == "turn_limit"]


@pytest.mark.redis
def test_a_spectator_on_another_gateway_than_the_seats_is_told_the_first_deadline() -> None:
    with two_gateways() as (a, b):
        match_id, tokens = two_human_room(a, 97, turn_timeout=60)
        version = a.rt.service.load(match_id).version
        with spectator(b, match_id) as early:
            recv_until(early, lambda f: f["type"] == "view")  # B follows the match
            with socket(a, match_id, tokens[0]) as seat0:  # A sets the turn's deadline
                on_a = limit_frame(seat0, version)
                seen = limit_frame(early, version)
                assert seen["seat"] == 0 and seen["limit_s"] == 60 and not seen["extended"]
                assert 0 < seen["left_ms"] <= on_a["left_ms"] + 1000
                with spectator(b, match_id) as late:  # a deadline running: told on connect
                    assert limit_frame(late, version)["seat"] == 0
                # once a turn: nothing more before the extension, which comes after it
                seat0.send_json({"type": "more_time"})
                assert [f["extended"] for f in told_limits(
                    early, lambda f: f["type"] == "turn_limit" and f["extended"])] == [True]
                # the next turn of the seat: its first deadline reaches B's spectator too
                view = a.get(f"/api/matches/{match_id}/view", headers=bearer(tokens[0])).json()
                done = a.post(f"/api/matches/{match_id}/commands", headers=bearer(tokens[0]),
                              json=command_for(view["view"], view["view"]["legal"][0],
                                               view["version"]))
                assert done.status_code == 200, done.text
                later = seat0_turn(a, match_id, tokens[1])
                assert later > version
                assert limit_frame(seat0, later)["seat"] == 0
                next_turn = limit_frame(early, later)
                assert next_turn["seat"] == 0 and not next_turn["extended"]
