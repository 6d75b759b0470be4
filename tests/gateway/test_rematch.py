"""``POST /api/matches/{id}/rematch``: once a match is over, each of its human players may ask
for the next match of the same table (the same rules, bots and room settings, a new deck).  The
first to ask creates it, the others join it at the seats they held; the finished match's
summary names it (``rematch``), so the other players' pages can offer it; one rematch a match,
however many ask and however often."""

from __future__ import annotations

import random
import threading
from typing import Any

from services import lobby
from services.gateway import openapi
from services.store import keys

from .helpers import bearer, finish, gateway, room, stacked_room, wait_for
from .test_openapi import answer_schema, check

PATH = "/api/matches/{match_id}/rematch"


def _rematch(gw: Any, match_id: str, token: str | None, **kw: Any) -> Any:
    headers = bearer(token) if token is not None else None
    return gw.post(f"/api/matches/{match_id}/rematch", headers=headers, **kw)


def test_the_players_of_a_finished_match_meet_again_at_their_seats() -> None:
    with gateway(worker=False) as gw:
        r = stacked_room(gw, seed=3)
        early = _rematch(gw, r.match_id, r.tokens[2])
        assert early.status_code == 409 and early.json()["error"]["code"] == "match_not_over"
        assert r.summary()["rematch"] is None
        finish(gw, r.match_id, random.Random(3))
        old = r.summary()
        assert old["phase"] == "match_over" and old["rematch"] is None

        first = _rematch(gw, r.match_id, r.tokens[2])
        assert first.status_code == 201, first.text
        made = first.json()
        new_id = made["match_id"]
        doc = openapi.document()
        check(doc, answer_schema(doc, PATH, "post", "201"), made)
        check(doc, answer_schema(doc, "/api/matches/{match_id}", "get"), r.summary())
        assert new_id != r.match_id and made["seat"] == 2
        assert made["invite_url"].endswith(f"/m/{new_id}")
        assert r.summary()["rematch"] == new_id
        summary = gw.get(f"/api/matches/{new_id}").json()
        assert summary["phase"] == "waiting" and summary["rules"] == old["rules"]
        assert [s["empty"] for s in summary["seats"]] == [True, True, False, True]
        assert summary["seats"][2]["name"] == old["seats"][2]["name"]

        again = _rematch(gw, r.match_id, r.tokens[2])  # a second click, another tab
        assert again.status_code == 200 and again.json()["match_id"] == new_id
        check(doc, answer_schema(doc, PATH, "post"), again.json())
        assert again.json()["seat"] == 2 and again.json()["token"] != made["token"]
        for token in (made["token"], again.json()["token"]):  # both tokens hold the seat
            view = gw.get(f"/api/matches/{new_id}/view", headers=bearer(token))
            assert view.status_code == 200 and view.json()["view"]["seat"] == 2
        assert [s["empty"] for s in gw.get(f"/api/matches/{new_id}").json()["seats"]] == [
            True, True, False, True]

        tokens = {}
        for seat in (0, 3, 1):
            joined = _rematch(gw, r.match_id, r.tokens[seat])
            assert joined.status_code == 200, joined.text
            assert joined.json()["match_id"] == new_id
            tokens[seat] = joined.json()["token"]
            if seat != 1:
                assert joined.json()["seat"] == seat
        started = gw.get(f"/api/matches/{new_id}").json()
        assert started["phase"] != "waiting"  # every seat taken: it began, with an ace draw
        assert started["score"] == [0, 0]    # (as every match does: the partners may change)
        views = [gw.get(f"/api/matches/{new_id}/view", headers=bearer(t)).json()["view"]
                 for t in tokens.values()]
        assert {v["seats"][v["seat"]]["name"] for v in views} == {
            old["seats"][s]["name"] for s in (0, 3, 1)}


def test_refusals_change_nothing() -> None:
    with gateway(worker=False) as gw:
        r = stacked_room(gw, seed=4)
        finish(gw, r.match_id, random.Random(4))
        spectator = _rematch(gw, r.match_id, None)
        assert spectator.status_code == 401 and spectator.json()["error"]["code"] == "bad_token"
        wrong = _rematch(gw, r.match_id, "not-a-token")
        assert wrong.status_code == 401
        extra = _rematch(gw, r.match_id, r.tokens[0], json={"seats": ["human"] * 4})
        assert extra.status_code == 400 and extra.json()["error"]["code"] == "bad_request"
        gone = _rematch(gw, "nosuchmatch", r.tokens[0])
        assert gone.status_code == 404
        assert r.summary()["rematch"] is None
        assert gw.rt.store.get_meta_field(r.match_id, "meta", "rematch") is None


def test_the_rematch_holds_its_seats_for_the_players_of_the_match() -> None:
    """A QA finding: the summary names the rematch to anyone, and a stranger joined it at a
    seat promised to a player, who then heard ``match_full``.  The seats are held for the
    finished match's players (each its own) for ``REMATCH_HOLD_S``; then the seats still open
    are anyone's, so a player who never comes back does not keep the table waiting."""
    from services.lobby import REMATCH_HOLD_S

    with gateway(worker=False) as gw:
        r = stacked_room(gw, seed=6)
        finish(gw, r.match_id, random.Random(6))
        made = _rematch(gw, r.match_id, r.tokens[2]).json()
        new = f"/api/matches/{made['match_id']}"
        version = gw.rt.store.version(made["match_id"])
        # the summary tells which open seats are held, and for how long (a page can say so
        # rather than offer them: the QA finding M1)
        summary = gw.get(new).json()
        check(openapi.document(), answer_schema(openapi.document(), "/api/matches/{match_id}",
                                                "get"), summary)
        assert [s["held"] for s in summary["seats"]] == [True, True, False, True]
        assert 0 < summary["held_for"] <= REMATCH_HOLD_S
        anyone = gw.post(new + "/join", json={"name": "Stranger"})
        assert anyone.status_code == 409 and anyone.json()["error"]["code"] == "match_full"
        assert "held" in anyone.json()["error"]["message"]
        chosen = gw.post(new + "/join", json={"name": "Stranger", "seat": 1})
        assert chosen.status_code == 409 and chosen.json()["error"]["code"] == "seat_taken"
        assert gw.rt.store.version(made["match_id"]) == version  # nothing changed
        for seat in (0, 3):  # the players find their own seats
            joined = _rematch(gw, r.match_id, r.tokens[seat])
            assert joined.status_code == 200 and joined.json()["seat"] == seat, joined.text
        summary = gw.get(new).json()  # the seats taken are no longer held
        assert [s["held"] for s in summary["seats"]] == [False, True, False, False]
        assert summary["held_for"] > 0
        service = gw.rt.service
        now = service.clock
        service.clock = lambda: now() + REMATCH_HOLD_S  # type: ignore[method-assign]
        try:
            lapsed = gw.get(new).json()
            assert [s["held"] for s in lapsed["seats"]] == [False] * 4
            assert lapsed["held_for"] == 0
            late = gw.post(new + "/join", json={"name": "Stranger"})
        finally:
            service.clock = now  # type: ignore[method-assign]
        # (the table is full now: the ace draw may move the players, so no seat is asserted)
        assert late.status_code == 200, late.text
        assert "Stranger" in [s["name"] for s in gw.get(new).json()["seats"]]
        absent = _rematch(gw, r.match_id, r.tokens[1])  # who never came back in time
        assert absent.status_code == 409 and absent.json()["error"]["code"] == "match_full"


def test_a_player_who_left_the_rematch_is_not_seated_again_by_asking_again() -> None:
    """A hostile-client finding: the rematch seats a player under an id that follows from its
    id in the finished match, and its tokens map to that id, so after a ``leave`` a second
    rematch ask seated the same id again and brought every token it had had there back to
    life (``leave`` promises they stay dead).  Asking again is ``seat_left`` and changes
    nothing; the link still lets the person in as a new player."""
    with gateway(worker=False) as gw:
        r = stacked_room(gw, seed=8)
        finish(gw, r.match_id, random.Random(8))
        made = _rematch(gw, r.match_id, r.tokens[2]).json()
        new, dead = f"/api/matches/{made['match_id']}", made["token"]
        other = _rematch(gw, r.match_id, r.tokens[2]).json()["token"]  # a second tab's
        left = gw.post(new + "/leave", headers=bearer(dead))
        assert left.status_code == 200, left.text
        version = gw.rt.store.version(made["match_id"])
        again = _rematch(gw, r.match_id, r.tokens[2])
        assert again.status_code == 409 and again.json()["error"]["code"] == "seat_left"
        assert gw.rt.store.version(made["match_id"]) == version
        for token in (dead, other):
            assert gw.get(new + "/view", headers=bearer(token)).status_code == 401
            assert gw.get(new + "/seat", headers=bearer(token)).json()["seat"] is None
        assert gw.get(new).json()["seats"][2]["empty"]
        # the others still find their seats
        joined = _rematch(gw, r.match_id, r.tokens[0])
        assert joined.status_code == 200 and joined.json()["seat"] == 0, joined.text


def test_bots_and_room_settings_come_along() -> None:
    with gateway(worker=False) as gw:
        r = room(gw, seats=["bot:easy", "human", "bot:hard", "bot:medium"],
                 rules={"must_trump": True}, disconnect_timeout=0, turn_timeout=7)
        finish(gw, r.match_id, random.Random(5))
        made = _rematch(gw, r.match_id, r.tokens[0]).json()
        seats = gw.get(f"/api/matches/{made['match_id']}").json()["seats"]
        old = gw.get(f"{r.base}").json()
        # the bots of the table at the end, under their names, in a new ace draw's order
        assert sorted((str(s["bot"]), s["name"]) for s in seats if s["bot"]) == sorted(
            (str(s["bot"]), s["name"]) for s in old["seats"] if s["bot"])
        assert sum(1 for s in seats if s["bot"]) == 3
        assert gw.get(f"/api/matches/{made['match_id']}").json()["rules"]["must_trump"] is True
        meta = gw.rt.store.get_meta_field(made["match_id"], "meta", "disconnect_timeout")
        assert meta is not None and float(meta) == 0
        summary = gw.get(f"/api/matches/{made['match_id']}").json()
        assert summary["turn_timeout"] == 7 and summary["disconnect_timeout"] == 0
        assert not gw.rt.store.client.zscore(keys.AWAY, f"{made['match_id']}:{made['seat']}")


def test_players_asking_at_once_get_one_rematch() -> None:
    with gateway(worker=False) as gw:
        r = stacked_room(gw, seed=6)
        finish(gw, r.match_id, random.Random(6))
        service = gw.rt.service
        players = [service.authenticate(r.match_id, token)[1] for token in r.tokens]
        answers: list[Any] = [None] * 4
        barrier = threading.Barrier(4)

        def ask(i: int) -> None:
            barrier.wait()
            answers[i] = service.rematch(r.match_id, players[i])

        threads = [threading.Thread(target=ask, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert all(a is not None for a in answers)
        assert len({a[0]["match_id"] for a in answers}) == 1
        assert sum(a[1] for a in answers) == 1  # exactly one created it
        state = service.load(answers[0][0]["match_id"]).state
        seated = {o.player for o in state.match.seats if o is not None}
        assert seated == {a[0]["player"] for a in answers}  # four players, one seat each


def test_a_rematch_named_but_never_made_is_made_by_the_next_player() -> None:
    """Its creator died between naming the rematch and making it: the next player to ask
    waits a little for it, then names and makes another."""
    with gateway(worker=False) as gw:
        r = stacked_room(gw, seed=7)
        finish(gw, r.match_id, random.Random(7))
        gw.rt.store.put_meta(r.match_id, "meta", {"rematch": "deadbeefdeadbeef"})
        clock = gw.rt.service.clock
        now = [clock()]

        def later() -> float:  # every look at the clock is a second later: no real wait
            now[0] += 1.0
            return now[0]

        gw.rt.service.clock = later  # type: ignore[method-assign]
        try:
            made = _rematch(gw, r.match_id, r.tokens[1])
        finally:
            gw.rt.service.clock = clock  # type: ignore[method-assign]
        assert made.status_code == 201, made.text
        new_id = made.json()["match_id"]
        assert new_id != "deadbeefdeadbeef" and r.summary()["rematch"] == new_id
        assert gw.get(f"/api/matches/{new_id}").json()["phase"] == "waiting"


def test_one_player_asking_many_times_at_once_gets_one_seat_and_every_answer() -> None:
    """A double click, two tabs: the asks of one player at the same moment are all answered
    with its one seat, one of them as the rematch's creator (the finding: one of sixteen was
    refused 409, and none said it had made the rematch)."""
    with gateway(worker=False) as gw:
        r = room(gw, seats=["human", "human"], rules={"players": 2})
        finish(gw, r.match_id, random.Random(8))
        service = gw.rt.service
        player = service.authenticate(r.match_id, r.tokens[0])[1]
        answers: list[Any] = [None] * 8
        barrier = threading.Barrier(8)

        def ask(i: int) -> None:
            barrier.wait()
            answers[i] = service.rematch(r.match_id, player)

        threads = [threading.Thread(target=ask, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert all(a is not None for a in answers), answers  # none refused
        assert len({(a[0]["match_id"], a[0]["seat"], a[0]["player"]) for a in answers}) == 1
        assert sum(a[1] for a in answers) == 1
        seats = service.load(answers[0][0]["match_id"]).state.match.seats
        assert [o.player for o in seats if o is not None] == [answers[0][0]["player"]]
        for a in answers:  # every token holds the seat
            assert service.authenticate(a[0]["match_id"], a[0]["token"])[0] == a[0]["seat"]


def test_a_second_ask_of_the_creator_while_it_is_still_joining_finds_its_seat() -> None:
    """The race made sure: the creator's own join waits until the same player's second ask
    is answered.  That ask takes the seat under the player's id in the rematch, so the
    creator's join is refused, and must find the seat held by its player (the finding:
    409 for the ask that made the rematch)."""
    with gateway(worker=False) as gw:
        r = room(gw, seats=["human", "human"], rules={"players": 2})
        finish(gw, r.match_id, random.Random(9))
        service = gw.rt.service
        player = service.authenticate(r.match_id, r.tokens[0])[1]
        real_join = service.join
        second_done = threading.Event()

        def join(*args: Any, **kw: Any) -> Any:
            if threading.current_thread().name == "creator":
                assert second_done.wait(20)
            return real_join(*args, **kw)

        service.join = join  # type: ignore[method-assign]
        answers: dict[str, Any] = {}

        def ask(name: str) -> None:
            try:
                answers[name] = service.rematch(r.match_id, player)
            except Exception as exc:  # the finding: a refusal here
                answers[name] = exc
            finally:
                if name == "second":
                    second_done.set()

        creator = threading.Thread(target=ask, args=("creator",), name="creator")
        creator.start()
        assert wait_for(lambda: gw.rt.store.get_meta_field(r.match_id, "meta", "rematch"), 20)
        second = threading.Thread(target=ask, args=("second",), name="second")
        second.start()
        second.join(30)
        creator.join(30)
        assert not isinstance(answers["creator"], Exception), answers["creator"]
        assert not isinstance(answers["second"], Exception), answers["second"]
        assert answers["creator"][1] is True and answers["second"][1] is False
        assert answers["creator"][0]["seat"] == answers["second"][0]["seat"]
        assert answers["creator"][0]["match_id"] == answers["second"][0]["match_id"]


def test_a_waiting_ask_goes_on_at_once_when_the_creator_was_refused() -> None:
    """The creator of the rematch was refused (the create quota) and took its name back: an
    ask waiting for that rematch asks again at once, instead of waiting out its seconds (the
    finding: 404 after 5 s; with the clock standing still here, it would wait for good)."""
    with gateway(worker=False) as gw:
        r = stacked_room(gw, seed=10)
        finish(gw, r.match_id, random.Random(10))
        service = gw.rt.service
        player = service.authenticate(r.match_id, r.tokens[3])[1]
        gw.rt.store.put_meta(r.match_id, "meta", {"rematch": "0123456789abcdef"})
        looked = threading.Event()
        real_load, clock = service.load, service.clock

        def load(match_id: str, **kw: Any) -> Any:
            if match_id == "0123456789abcdef":
                looked.set()
            return real_load(match_id, **kw)

        service.load = load  # type: ignore[method-assign]
        service.clock = lambda: 0.0  # type: ignore[method-assign]
        answer: list[Any] = []
        asker = threading.Thread(target=lambda: answer.append(service.rematch(r.match_id,
                                                                              player)))
        asker.start()
        assert looked.wait(20)
        gw.rt.store.delete_meta_field(r.match_id, "meta", "rematch")  # the refused creator
        asker.join(20)
        service.load, service.clock = real_load, clock  # type: ignore[method-assign]
        assert answer and answer[0][1] is True, answer
        assert r.summary()["rematch"] == answer[0][0]["match_id"]


def test_a_player_asking_again_and_again_is_refused_past_the_bound_and_no_token_is_stored(
        ) -> None:
    """Each ask stores one more token of the player's seat in the rematch; past
    ``REMATCH_ASKS`` asks in the window the answer is ``429 rate_limited`` with
    ``Retry-After``, and nothing more is stored (a loop of asks grew the tokens without end).
    The other players of the match still get their seats."""
    with gateway(worker=False) as gw:
        r = room(gw, seats=["human", "human"], rules={"players": 2})
        finish(gw, r.match_id, random.Random(8))
        answers = [_rematch(gw, r.match_id, r.tokens[0]) for _ in range(lobby.REMATCH_ASKS)]
        assert [a.status_code for a in answers] == [201] + [200] * (lobby.REMATCH_ASKS - 1)
        rematch_id = answers[0].json()["match_id"]
        stored = gw.rt.service.store.get_meta(rematch_id, "tokens")
        refused = _rematch(gw, r.match_id, r.tokens[0])
        assert refused.status_code == 429, refused.text
        assert refused.json()["error"]["code"] == "rate_limited"
        assert 1 <= int(refused.headers["Retry-After"]) <= lobby.REMATCH_ASK_WINDOW_S
        assert gw.rt.service.store.get_meta(rematch_id, "tokens") == stored
        for a in answers:  # the tokens given still hold the seat
            assert gw.get(f"/api/matches/{rematch_id}/view",
                          headers=bearer(a.json()["token"])).status_code == 200
        other = _rematch(gw, r.match_id, r.tokens[1])
        assert other.status_code == 200 and other.json()["match_id"] == rematch_id
