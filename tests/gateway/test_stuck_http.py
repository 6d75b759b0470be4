"""A match whose writer died between appending a record and what must follow it (the bot's
turn scheduled, the next deal), at a table whose players only use HTTP: no socket's hub watches
it, so before, nothing ever moved it on (a QA finding: a gateway killed while the bot queue's
Redis was down; a retried command answered as a duplicate on another gateway).  A retried
command and a ``GET /view`` now see to it.  The writer's death is played by a service whose
``advance`` (the steps after an append) does nothing for the first command."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from services.store import keys

from .helpers import Gateway, bearer, deck, gateway, room, wait_for

BOTS = ["human", "bot:easy", "bot:easy", "bot:easy"]


@pytest.fixture
def stuck(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Gateway, str, str, int, str]]:
    """A solo room (its human the first Hakem) whose first card was stored by a writer that
    died before scheduling the next seat's bot: the match, the token, the version and the
    card."""
    with gateway() as gw:  # with the in-process bot worker
        r = room(gw, seats=BOTS, first_hakem=0, decks=[deck(7)], rules={"teams": "as_seated"})
        service = gw.rt.service
        real = service.advance
        assert gw.post(r.base + "/commands", headers=bearer(r.tokens[0]),
                       json={"type": "choose_trump", "suit": "H"}).status_code == 200
        card = gw.get(r.base + "/view", headers=bearer(r.tokens[0])).json()["view"]["legal"][0]
        with monkeypatch.context() as patch:
            patch.setattr(service, "advance", lambda match_id, loaded: loaded)
            answer = gw.post(r.base + "/commands", headers=bearer(r.tokens[0]),
                             json={"type": "play", "card": card, "id": "c1"})
            assert answer.status_code == 200, answer.text
        assert service.advance == real
        version = gw.version(r.match_id)
        state = service.load(r.match_id).state
        assert state.turn == 1 and state.match.seats[1].bot is not None  # a bot's turn
        pending = gw.rt.client.zrange(keys.PENDING_BOTS, 0, -1)
        assert not [m for m in pending if r.match_id.encode() in m]  # never scheduled
        yield gw, r.match_id, r.tokens[0], version, card


def moved_on(gw: Gateway, match_id: str, version: int) -> Any:
    return wait_for(lambda: gw.version(match_id) > version, timeout=20,
                    what=f"match {match_id} moving on from version {version}",
                    seen=lambda: gw.version(match_id))


def test_a_retried_command_moves_the_match_on(
        stuck: tuple[Gateway, str, str, int, str]) -> None:
    gw, match_id, token, version, card = stuck
    again = gw.post(f"/api/matches/{match_id}/commands", headers=bearer(token),
                    json={"type": "play", "card": card, "id": "c1"})
    assert again.status_code == 200 and again.json()["version"] == version, again.text
    moved_on(gw, match_id, version)  # the bot played


def test_a_player_polling_the_view_moves_the_match_on(
        stuck: tuple[Gateway, str, str, int, str]) -> None:
    gw, match_id, token, version, _ = stuck

    def polled() -> bool:
        answer = gw.get(f"/api/matches/{match_id}/view", headers=bearer(token))
        assert answer.status_code == 200, answer.text
        return bool(answer.json()["version"] > version)

    wait_for(polled, timeout=20, every=0.05, what="a polled view past the stuck version",
             seen=lambda: gw.version(match_id))
