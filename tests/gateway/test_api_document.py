"""docs/api.md and ``/openapi.json`` tell every field and default a client meets: the summary's
``target`` and ``sets``, what ``leave`` and ``seats/{n}/bot`` answer, ``/readyz``'s answer, and
the defaults of ``replay`` without ``step`` (the last step) and ``hint`` without ``since`` (0).
Real answers of the embedded gateway are checked against both."""

from __future__ import annotations

import re
from pathlib import Path

from services.gateway import openapi

from .helpers import Gateway, bearer, room
from .test_openapi import answer_schema, check

API_MD = Path(__file__).resolve().parents[2] / "docs" / "api.md"
M = "/api/matches/{match_id}"


def section(title: str) -> str:
    """The text of docs/api.md under the heading that starts with ``title``."""
    text = API_MD.read_text()
    start = text.index(f"### `{title}")
    end = text.find("\n### ", start + 1)
    return text[start:end if end > 0 else None]


def test_the_summary_fields_are_all_in_api_md(gw: Gateway) -> None:
    r = room(gw, fill=False, seats=["human", "bot:easy", "bot:easy", "bot:easy"],
             rules={"target": "2x7"})
    summary = r.summary()
    check(openapi.document(), answer_schema(openapi.document(), M, "get"), summary)
    named = set(re.findall(r'"([a-z_]+)"', section("GET /api/matches/{id}` -> 200")))
    assert set(summary) <= named, set(summary) - named  # the finding: target and sets
    assert summary["target"] == 7 and summary["sets"] == [0, 0]


def test_leave_and_seat_bot_answers_fit_the_document_and_api_md(gw: Gateway) -> None:
    doc = openapi.document()
    r = room(gw, fill=False, seats=["human", "human", "bot:easy", "bot:easy"])
    token = r.tokens[0]
    given = gw.post(r.base + "/seats/1/bot", headers=bearer(token), json={"level": "easy"})
    assert given.status_code == 200, given.text
    assert given.json() == {"seat": 1, "bot": "easy"}
    check(doc, answer_schema(doc, M + "/seats/{seat}/bot", "post"), given.json())
    assert '{"seat": 2, "bot": "medium"}' in section("POST /api/matches/{id}/seats/{seat}/bot")
    left = gw.post(r.base + "/leave", headers=bearer(token), json={})
    assert left.status_code == 200 and left.json() == {"left": True}
    check(doc, answer_schema(doc, M + "/leave", "post"), left.json())
    assert '{"left": true}' in section("POST /api/matches/{id}/leave")


def test_the_defaults_of_replay_and_hint_are_told(gw: Gateway) -> None:
    doc = openapi.document()
    r = room(gw, first_hakem=0)
    token = r.tokens[0]
    replay = gw.get(r.base + "/replay", headers=bearer(token)).json()
    assert replay["step"] == replay["steps"] == gw.version(r.match_id)
    hint = gw.get(r.base + "/hint", headers=bearer(token))
    assert hint.status_code == 200, hint.text
    assert "without `step`:\nthe last step" in section("GET /api/matches/{id}/replay")
    assert "without `since`, 0" in section("GET /api/matches/{id}/hint")
    params = {op: {p["name"]: p for p in doc["paths"][M + op]["get"]["parameters"]}
              for op in ("/replay", "/hint")}
    assert "absent: the last step" in params["/replay"]["step"]["description"]
    assert "absent: 0" in params["/hint"]["since"]["description"]


def test_readyz_fits_the_document(gw: Gateway) -> None:
    doc = openapi.document()
    ready = gw.get("/readyz")
    assert ready.status_code == 200
    assert ready.json() == {"ok": True, "store": True, "queue": True}
    check(doc, answer_schema(doc, "/readyz", "get"), ready.json())


def test_a_finished_match_refuses_join_and_seat_bot_with_a_documented_code(gw: Gateway) -> None:
    """The finding: ``409 match_over`` on both routes was in neither api.md nor the document."""
    doc = openapi.document()
    r = room(gw, seats=["human", "bot:easy", "bot:easy", "bot:easy"])
    r.play_to("match_over")
    for path, body in ((M + "/join", {"name": "Late"}), (M + "/seats/{seat}/bot", {})):
        url = path.replace("{match_id}", r.match_id).replace("{seat}", "1")
        answer = gw.post(url, headers=bearer(r.tokens[0]), json=body)
        assert answer.status_code == 409, answer.text
        assert answer.json()["error"]["code"] == "match_over"
        documented = doc["paths"][path]["post"]["responses"]["409"]
        assert "match_over" in documented["description"], path
        check(doc, documented["content"]["application/json"]["schema"], answer.json())
    assert "`409 match_over`" in section("POST /api/matches/{id}/join")
    assert "`409 match_over`" in section("POST /api/matches/{id}/seats/{seat}/bot")


def test_the_name_rule_is_told_for_create_and_join_alike(gw: Gateway) -> None:
    doc = openapi.document()
    names = [doc["paths"][path]["post"]["requestBody"]["content"]["application/json"][
        "schema"]["properties"]["name"] for path in ("/api/matches", M + "/join")]
    assert names[0] == names[1] and names[1]["maxLength"] == 40  # the finding: join's untold
    assert "1 to 40 printable characters" in section("POST /api/matches/{id}/join")
    r = room(gw, fill=False)
    for bad in ("x" * 41, "", " ", "\u200b", "\u3164", "\u2800", "x\ufe0f", "a" + "\u0301" * 39):
        answer = gw.post(r.base + "/join", json={"name": bad})
        assert answer.status_code == 400 and answer.json()["error"]["code"] == "bad_request"
    joined = gw.post(r.base + "/join", json={"name": "  Bob  "})
    assert joined.status_code == 200
