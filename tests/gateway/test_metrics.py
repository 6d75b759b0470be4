"""``GET /metrics`` (services/gateway/metrics.py): what each request, command and socket adds, the
queues read at the scrape (and a queue that does not answer), the switch, and that no label or
value says anything of a match (no id, token, name or card)."""

from __future__ import annotations

import re
import socket
from typing import Any

import pytest
import redis
from prometheus_client.parser import text_string_to_metric_families
from rq import Queue

from engine.cards import NAMES
from services.settings import SettingError, Settings

from .helpers import Gateway, bearer, command_for, gateway, recv_until, stacked_room, wait_for
from .test_ws import ws_url

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(gw: Gateway) -> Samples:
    answer = gw.get("/metrics")
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/plain")
    out: Samples = {}
    for family in text_string_to_metric_families(answer.text):
        for sample in family.samples:
            out[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return out


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def scrape_when(gw: Gateway, name: str, want: float, what: str) -> Samples:
    """Scrape until ``name`` (no labels) reads ``want``; that scrape."""
    def ready() -> Samples | None:
        samples = scrape(gw)
        return samples if value(samples, name) == want else None
    return wait_for(ready, what=what)


def test_requests_and_commands_are_counted_by_handler_status_and_code() -> None:
    with gateway(worker=False) as gw:
        r = stacked_room(gw)
        before = scrape(gw)
        # the Hakem (seat 0) names trump: applied; again with the same id: a duplicate
        version, view = r.get_view(r.tokens[0])
        body = command_for(view, view["legal"][0], version, command_id="c1")
        assert r.command(r.tokens[0], body).status_code == 200
        assert r.command(r.tokens[0], body).status_code == 200
        # a seat whose turn it is not, an unknown type, a bad token
        version, view = r.get_view(r.tokens[1])
        late = r.command(r.tokens[1], {"type": "play", "card": view["hand"][0],
                                       "version": version})
        assert late.status_code == 409 and late.json()["error"]["code"] == "not_your_turn"
        assert r.command(r.tokens[1], {"type": "shuffle"}).status_code == 400
        assert r.command("nope", {"type": "play", "card": "QH"}).status_code == 401
        after = scrape(gw)

    def added(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert added("hokm_commands_total", transport="http", type="choose_trump",
                 outcome="applied") == 1
    assert added("hokm_commands_total", transport="http", type="choose_trump",
                 outcome="duplicate") == 1
    assert added("hokm_commands_total", transport="http", type="play",
                 outcome="not_your_turn") == 1
    assert added("hokm_commands_total", transport="http", type="other",
                 outcome="bad_request") == 1
    assert added("hokm_commands_total", transport="http", type="play", outcome="bad_token") == 1
    assert added("hokm_http_requests_total", handler="command", status="200", code="") == 2
    assert added("hokm_http_requests_total", handler="command", status="409",
                 code="not_your_turn") == 1
    assert added("hokm_http_requests_total", handler="command", status="401",
                 code="bad_token") == 1
    assert added("hokm_http_request_duration_seconds_count", handler="command") == 5
    # the room's creation and joins were counted before (one create, three joins)
    assert value(before, "hokm_http_requests_total", handler="create", status="201",
                 code="") == 1
    assert value(before, "hokm_http_requests_total", handler="join", status="200", code="") == 3


def test_the_refusals_of_a_card_are_counted_as_one() -> None:
    """A QA finding: ``must_follow_suit`` counted under its own label told anyone scraping, on a
    quiet server, that the player who just tried a card holds the led suit.  The refusals of a
    card are one label, ``card_refused``; the sender still hears the exact code."""
    with gateway(worker=False) as gw:
        r = stacked_room(gw)
        version, view = r.get_view(r.tokens[0])  # the Hakem names trump, then leads
        assert r.command(r.tokens[0], command_for(view, view["legal"][0], version)
                         ).status_code == 200
        version, view = r.get_view(r.tokens[0])
        _, other = r.get_view(r.tokens[1])
        lead, off = next((c, o) for c in view["legal"] for o in other["hand"]
                         if o[-1] != c[-1] and any(h[-1] == c[-1] for h in other["hand"]))
        assert r.command(r.tokens[0], {"type": "play", "card": lead}).status_code == 200
        before = scrape(gw)
        codes = [r.command(r.tokens[1], {"type": "play", "card": card}).json()["error"]["code"]
                 for card in (off, next(c for c in view["hand"] if c != lead))]
        after = scrape(gw)
    assert codes == ["must_follow_suit", "illegal_card"]
    assert value(after, "hokm_commands_total", transport="http", type="play",
                 outcome="card_refused") - value(before, "hokm_commands_total", transport="http",
                                                 type="play", outcome="card_refused") == 2
    assert value(after, "hokm_http_requests_total", handler="command", status="409",
                 code="card_refused") - value(before, "hokm_http_requests_total",
                                              handler="command", status="409",
                                              code="card_refused") == 2
    assert not [key for key in after if {"must_follow_suit", "must_trump", "illegal_card"}
                & {v for _, v in key[1]}]


def test_an_answer_of_500_is_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    """A QA finding: a request that failed with a bug (500) was missing from the counts."""
    with gateway(worker=False) as gw:
        r = stacked_room(gw)

        def broken(*args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("a bug")

        monkeypatch.setattr(gw.rt.service, "load", broken)
        assert gw.get(f"/api/matches/{r.match_id}/view", headers=bearer(r.tokens[0])
                      ).status_code == 500
        samples = scrape(gw)
    assert value(samples, "hokm_http_requests_total", handler="view", status="500",
                 code="error") == 1
    assert value(samples, "hokm_http_request_duration_seconds_count", handler="view") == 1


def test_sockets_open_and_their_commands() -> None:
    with gateway(worker=False) as gw:
        r = stacked_room(gw)
        with gw.websocket_connect(ws_url(r.match_id, r.tokens[0])) as seat0, \
                gw.websocket_connect(ws_url(r.match_id)):
            opened = scrape_when(gw, "hokm_websockets_open", 2, "two sockets open")
            assert value(opened, "hokm_websockets_total") == 2
            assert value(opened, "hokm_matches_followed") == 1
            first = recv_until(seat0, lambda f: f["type"] == "view")
            view = first["view"]
            seat0.send_json(command_for(view, view["legal"][0], first["version"]))
            wait_for(lambda: value(scrape(gw), "hokm_commands_total", transport="ws",
                                   type="choose_trump", outcome="applied") == 1,
                     what="the socket's command counted")
        closed = scrape_when(gw, "hokm_websockets_open", 0, "the sockets closed")
        assert value(closed, "hokm_websockets_total") == 2
        assert value(closed, "hokm_matches_followed") == 0


def test_queues_are_read_at_the_scrape() -> None:
    with gateway(worker=False) as gw:
        empty = scrape(gw)
        assert value(empty, "hokm_queue_up", queue="hokm-bots") == 1
        assert value(empty, "hokm_queue_jobs", queue="hokm-bots") == 0
        assert value(empty, "hokm_queue_workers", queue="hokm-bots") == 0
        assert value(empty, "hokm_queue_up", queue="hokm-bots-analysis") == 1
        gw.rt.scheduler.schedule("m1", 1, 3)
        gw.rt.scheduler.schedule("m2", 2, 5)
        waiting = scrape(gw)
        assert value(waiting, "hokm_queue_jobs", queue="hokm-bots") == 2
        assert value(waiting, "hokm_queue_jobs", queue="hokm-bots-bots-only") == 0
    with gateway(worker=True) as gw:  # the embedded server's in-process worker listens
        wait_for(lambda: value(scrape(gw), "hokm_queue_workers", queue="hokm-bots") == 1,
                 what="the in-process worker registered")


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_queue_that_does_not_answer_is_reported_down_and_the_scrape_still_answers() -> None:
    from services.gateway.app import create_app  # (a queue of our own: create_app's queues)
    from services.runtime import build_runtime

    from .helpers import make_settings

    dead = redis.Redis(port=_closed_port(), socket_connect_timeout=0.5, socket_timeout=0.5)
    gone = Queue("gone", connection=dead)
    rt = build_runtime(make_settings())
    app = create_app(rt, queues=lambda: [*rt.scheduler.queues, gone])
    with Gateway(app, raise_server_exceptions=False) as gw:
        gw.rt = rt
        samples = scrape(gw)
    assert value(samples, "hokm_queue_up", queue="gone") == 0
    assert ("hokm_queue_jobs", frozenset({("queue", "gone")})) not in samples
    assert value(samples, "hokm_queue_up", queue="hokm-bots") == 1


def test_metrics_off_is_not_found() -> None:
    with gateway(metrics=False) as gw:
        answer = gw.get("/metrics")
        assert answer.status_code == 404
        assert answer.json()["error"]["code"] == "not_found"


@pytest.mark.parametrize("text, on", [("", True), ("on", True), ("off", False)])
def test_the_setting(monkeypatch: pytest.MonkeyPatch, text: str, on: bool) -> None:
    monkeypatch.setenv("HOKM_METRICS", text)
    assert Settings.from_env().metrics is on


def test_a_bad_setting_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOKM_METRICS", "maybe")
    with pytest.raises(SettingError, match="HOKM_METRICS must be one of on, off"):
        Settings.from_env()


CARDS = frozenset(NAMES)


def test_no_label_says_anything_of_a_match() -> None:
    """Play a few tricks over HTTP and a socket, with refusals, then read every label: none is
    a match id, a token, a player's name or a card, and the label values come from closed sets
    (handlers, statuses, codes, command types, queues)."""
    with gateway(worker=False) as gw:
        r = stacked_room(gw)
        with gw.websocket_connect(ws_url(r.match_id, r.tokens[0])):
            for _ in range(12):
                r.step()
            r.command(r.tokens[2], {"type": "play", "card": "AS"})
            gw.get(f"/api/matches/{r.match_id}/view", headers=bearer(r.tokens[1]))
            gw.get(f"/api/matches/{r.match_id}/seat", headers=bearer(r.tokens[1]))
            text = gw.get("/metrics").text
        secrets = [r.match_id, *r.tokens, "P2", "P3", "P4"]
        for secret in secrets:
            assert secret not in text
        labels: dict[str, set[str]] = {}
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                for key, val in sample.labels.items():
                    labels.setdefault(key, set()).add(val)
                    assert val not in CARDS, (sample.name, key, val)
        allowed: dict[str, Any] = {
            "handler": {"create", "join", "view", "command", "summary", "events", "replay",
                        "seat", "hint", "analysis", "leave", "rematch", "seat_bot"},
            "type": {"play", "choose_trump", "discard", "draw_talon", "other"},
            "transport": {"http", "ws"},
            "queue": {"hokm-bots", "hokm-bots-bots-only", "hokm-bots-analysis"},
        }
        for key, values in allowed.items():
            assert labels.get(key, set()) <= values, (key, labels.get(key))
        assert all(re.fullmatch(r"[a-z_]*", code) for code in labels.get("code", set()))
        assert all(re.fullmatch(r"[1-5]\d\d", s) for s in labels.get("status", set()))


def test_the_embedded_servers_bot_worker_is_shown_with_the_gateway() -> None:
    """The embedded server's bot worker is a thread of the gateway's process: its turns and
    decision times (worker/metrics.py) are in the gateway's ``/metrics``."""
    with gateway(worker=True) as gw:
        before = scrape(gw)
        r = stacked_room(gw, seats=["human", "bot:easy", "human", "bot:medium"])
        played = "hokm_bot_turns_total", frozenset({("outcome", "played")})
        for _ in range(8):  # the humans' moves; the bots answer each trick
            r.step()
        after = wait_for(lambda: (s := scrape(gw)).get(played, 0) > before.get(played, 0)
                         and s, what="bot turns counted")
        levels = {dict(labels).get("level") for (name, labels), v in after.items()
                  if name == "hokm_bot_decision_seconds_count" and v > value(
                      before, name, **dict(labels))}
        assert levels <= {"easy", "medium"} and levels
