"""A player whose seat the ace draw moved, asking a gateway whose copy of the match is from
before the draw (two gateways on one Redis: the draw happened through the other).  Every
route finds the player's seat in the match as it is: before, the stale copy put the player at
the old seat, now another player's, and ``/view``, ``/events``, the socket's ``missed`` frame
and a command were about that player's seat and hand (a QA finding: a whole hand of 13 cards
shown, a card played and a seat left for the other player)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from engine import HokmError, PlayCard
from engine.fairness import commitment_of

from .helpers import Gateway, bearer, recv_until
from .test_turn_limit import two_gateways
from .test_ws import moving_secret, ws_url

pytestmark = pytest.mark.redis


class Moved:
    """Four humans with the ace draw's teams: A created on gateway ``a``, B and C joined on
    ``b`` (so ``b`` keeps a copy of the match from before the draw), D joined on ``a`` and the
    draw swapped two of A, B and C.  ``x`` was at seat ``old`` and is now at ``new``, where
    ``y`` was."""

    def __init__(self, a: Gateway, b: Gateway, monkeypatch: pytest.MonkeyPatch) -> None:
        import secrets as real_secrets
        import types

        from services import lobby

        secret, (old, new) = moving_secret()

        def token_hex(nbytes: int | None = None) -> str:
            return secret if nbytes == 32 else real_secrets.token_hex(nbytes)

        chosen = types.SimpleNamespace(token_hex=token_hex,
                                       token_urlsafe=real_secrets.token_urlsafe)
        with monkeypatch.context() as patch:
            patch.setattr(lobby, "secrets", chosen)
            created = a.post("/api/matches", json={"name": "A", "disconnect_timeout": 0,
                                                   "turn_timeout": 0}).json()
        self.a, self.b = a, b
        self.match_id = created["match_id"]
        self.base = f"/api/matches/{self.match_id}"
        tokens = [created["token"]] + [b.post(self.base + "/join", json={"name": n}).json()
                                       ["token"] for n in ("B", "C")]
        self.stale = b.rt.service.cache.get(self.match_id)  # b's copy: three seated, no draw
        assert self.stale is not None and self.stale.state.phase == "waiting"
        tokens.append(a.post(self.base + "/join", json={"name": "D"}).json()["token"])
        self.old, self.new = old, new
        self.tokens = tokens  # as the players were seated
        self.x, self.y = tokens[old], tokens[new]
        assert self.view(a, self.x)["seat"] == new and self.view(a, self.y)["seat"] == old
        assert self.view(a, self.x)["commitment"] == commitment_of(secret)

    def view(self, gw: Gateway, token: str) -> dict[str, Any]:
        answer = gw.get(self.base + "/view", headers=bearer(token))
        assert answer.status_code == 200, answer.text
        return answer.json()["view"]  # type: ignore[no-any-return]

    def behind(self) -> None:
        """Put ``b``'s copy of the match back to before the draw (as it is after the joins:
        the first request that reads the match fresh repairs it)."""
        service = self.b.rt.service
        service.forget(self.match_id)
        assert self.stale is not None
        service.cache.put(self.match_id, self.stale)

    def trump_named(self) -> None:
        """The Hakem names trump (on ``a``): every seat holds its 13 cards."""
        for token in self.tokens:
            view = self.view(self.a, token)
            if view["hakem"] == view["seat"]:
                answer = self.a.post(self.base + "/commands", headers=bearer(token),
                                     json={"type": "choose_trump", "suit": "H"})
                assert answer.status_code == 200, answer.text
                return
        raise AssertionError("no seat is the Hakem")


@pytest.fixture
def moved(monkeypatch: pytest.MonkeyPatch) -> Iterator[Moved]:
    with two_gateways() as (a, b):
        yield Moved(a, b, monkeypatch)


def test_view_and_events_are_of_the_players_seat_now(moved: Moved) -> None:
    moved.trump_named()
    truth = moved.view(moved.a, moved.x)
    assert len(truth["hand"]) == 13 and truth["seat"] == moved.new
    moved.behind()
    assert moved.view(moved.b, moved.x)["hand"] == truth["hand"]
    events = {}
    for name, gw in (("b", moved.b), ("a", moved.a)):
        if name == "b":
            moved.behind()
        answer = gw.get(moved.base + "/events", headers=bearer(moved.x))
        assert answer.status_code == 200, answer.text
        events[name] = answer.json()["events"]
    assert events["b"] == events["a"]
    shown = {card for record in events["b"] for event in record["events"]
             for card in event.get("hand", [])}
    assert shown and shown <= set(truth["hand"])  # none of the other seat's 13 cards


def test_a_socket_reconnecting_is_told_what_its_seat_missed(moved: Moved) -> None:
    moved.trump_named()
    truth = moved.view(moved.a, moved.x)
    events = moved.a.get(moved.base + "/events?since=1", headers=bearer(moved.x)).json()
    moved.behind()
    with moved.b.websocket_connect(ws_url(moved.match_id, moved.x, since=1)) as ws:
        view = recv_until(ws, lambda f: f["type"] == "view")
        missed = recv_until(ws, lambda f: f["type"] == "missed")
    assert view["view"]["seat"] == moved.new and view["view"]["hand"] == truth["hand"]
    assert missed["records"] == [r for r in events["events"]
                                 if r["version"] <= missed["version"]]


def test_a_command_acts_for_the_players_seat_only(moved: Moved) -> None:
    """At the turn of the player's old seat (now the other player's), the player sends a card
    of that seat's hand: refused, nothing recorded (before: played for the other player)."""
    moved.trump_named()
    a = moved.a
    by_seat = {moved.view(a, t)["seat"]: t for t in moved.tokens}
    for _ in range(8):  # at most three cards before the old seat's turn
        view = moved.view(a, moved.x)
        if view["turn"] == moved.old:
            break
        token = by_seat[view["turn"]]
        card = moved.view(a, token)["legal"][0]
        assert a.post(moved.base + "/commands", headers=bearer(token),
                      json={"type": "play", "card": card}).status_code == 200
    else:
        raise AssertionError("the old seat never had the turn")
    victim = moved.view(a, by_seat[moved.old])
    version = a.rt.store.version(moved.match_id)
    moved.behind()
    answer = moved.b.post(moved.base + "/commands", headers=bearer(moved.x),
                          json={"type": "play", "card": victim["legal"][0]})
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "not_your_turn", \
        answer.text
    assert a.rt.store.version(moved.match_id) == version
    # the service itself: a command for a player is prepared for the player's seat in the
    # match it is prepared on, however old the seat the caller found (its cache behind)
    _, player, _ = a.rt.service.authenticate(moved.match_id, moved.x)
    moved.behind()
    with pytest.raises(HokmError) as refused:
        moved.b.rt.service.handle(moved.match_id, moved.old, PlayCard(victim["legal"][0]),
                                  player=player)
    assert refused.value.code == "not_your_turn"
    assert a.rt.store.version(moved.match_id) == version


def test_a_leave_gives_up_the_players_own_seat(moved: Moved) -> None:
    moved.behind()
    answer = moved.b.post(moved.base + "/leave", headers=bearer(moved.x), json={})
    assert answer.status_code == 200, answer.text
    seats = moved.a.rt.service.load(moved.match_id).state.match.seats
    assert seats[moved.new] is None  # the player's seat now
    assert seats[moved.old] is not None  # the other player's, who keeps it
    assert moved.view(moved.a, moved.y)["seat"] == moved.old
