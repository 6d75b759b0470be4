"""``/openapi.json`` describes the API as it answers: every field of a view (each real answer of
a match played from its creation to its end validates against the schemas, and no field goes
undescribed), every error code with its status (those of ``services.errors`` and of the client
library), and every route of the app."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

from hokmclient import CODES
from services.errors import STATUS
from services.gateway import openapi
from hokm.compose import gateway_app

from .helpers import Gateway, bearer, finish, gateway, room

TYPES = {"string": str, "integer": int, "number": (int, float), "boolean": bool,
         "array": list, "object": dict, "null": type(None)}


def check(doc: dict[str, Any], schema: dict[str, Any], value: Any, where: str = "$") -> None:
    """Fail if ``value`` does not match ``schema`` (the subset of JSON Schema the document
    uses); an object's fields must all be described when the schema lists properties."""
    if "$ref" in schema:
        target: Any = doc
        for part in schema["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        check(doc, target, value, where)
        return
    if "oneOf" in schema:
        fits = 0
        for option in schema["oneOf"]:
            try:
                check(doc, option, value, where)
                fits += 1
            except AssertionError:
                pass
        assert fits == 1, f"{where}: {value!r} fits {fits} of oneOf {schema['oneOf']}"
    for part in schema.get("allOf", []):
        check(doc, part, value, where)
    if "type" in schema:
        kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        assert any(isinstance(value, TYPES[k]) and not (k in ("integer", "number")
                                                        and isinstance(value, bool))
                   for k in kinds), f"{where}: {value!r} is not {kinds}"
    if "enum" in schema:
        assert value in schema["enum"], f"{where}: {value!r} not in {schema['enum']}"
    if "const" in schema:
        assert value == schema["const"], where
    if "pattern" in schema and isinstance(value, str):
        import re

        assert re.search(schema["pattern"], value), f"{where}: {value!r}"
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            check(doc, schema["items"], item, f"{where}[{i}]")
    if isinstance(value, dict) and "properties" in schema:
        props = schema["properties"]
        for key in schema.get("required", []):
            assert key in value, f"{where}: {key} missing"
        if schema.get("type") == "object" and not schema.get("additionalProperties"):
            undescribed = set(value) - set(props)
            assert not undescribed, f"{where}: fields not in the document: {undescribed}"
        for key, item in value.items():
            if key in props:
                check(doc, props[key], item, f"{where}.{key}")


def answer_schema(doc: dict[str, Any], path: str, method: str, status: str = "200"
                  ) -> dict[str, Any]:
    return doc["paths"][path][method]["responses"][status]["content"]["application/json"][
        "schema"]  # type: ignore[no-any-return]


def test_every_answer_of_a_match_fits_the_document_and_every_view_field_is_described() -> None:
    doc = openapi.document()
    m = "/api/matches/{match_id}"
    rng = random.Random(5)
    with gateway() as gw:
        r = room(gw, fill=False, seats=["human", "human", "bot:easy", "bot:easy"],
                 first_hakem=0)
        check(doc, answer_schema(doc, "/api/matches", "post", "201"), r.created)
        joined = gw.post(r.base + "/join", json={"name": "Two"}).json()
        check(doc, answer_schema(doc, m + "/join", "post"), joined)
        r.tokens.append(joined["token"])
        phases: set[str] = set()

        def look() -> None:
            for token in r.tokens:
                got = gw.get(r.base + "/view", headers=bearer(token)).json()
                check(doc, answer_schema(doc, m + "/view", "get"), got)
                phases.add(got["view"]["phase"])
            check(doc, answer_schema(doc, m, "get"), r.summary())

        for _ in range(2000):
            look()
            if r.step(rng) is None:
                break
        # once more at the end: a bot's move may end the match after the last look, and the
        # step that finds it over answers no view ('match_over' was missing, once in a run)
        look()
        assert {"choosing_trump", "playing", "match_over"} <= phases
        finish(gw, r.match_id)
        events = gw.get(r.base + "/events?since=0", headers=bearer(r.tokens[0])).json()
        check(doc, answer_schema(doc, m + "/events", "get"), events)
        replay = gw.get(r.base + "/replay?step=5").json()
        check(doc, answer_schema(doc, m + "/replay", "get"), replay)
        final = gw.get(r.base + "/view", headers=bearer(r.tokens[0])).json()["view"]
        assert final["hands"] is not None  # the fields shown only at the end were checked too
    described = set(doc["components"]["schemas"]["View"]["properties"])
    assert described == set(final)


def test_a_hint_and_a_refusal_fit_the_document(gw: Gateway) -> None:
    doc = openapi.document()
    m = "/api/matches/{match_id}"
    r = room(gw, first_hakem=0)
    token = r.tokens[0]
    hint = gw.get(r.base + "/hint?since=0", headers=bearer(token))
    assert hint.status_code == 200, hint.text
    check(doc, answer_schema(doc, m + "/hint", "get"), hint.json())
    refused = r.command(token, {"type": "play", "card": "AS"})
    code = refused.json()["error"]["code"]
    schema = answer_schema(doc, m + "/commands", "post", str(refused.status_code))
    check(doc, schema, refused.json())
    assert code in doc["paths"][m + "/commands"]["post"]["responses"][
        str(refused.status_code)]["description"]


def test_every_error_code_is_documented_with_its_status() -> None:
    doc = openapi.document()
    documented = {code: entry["status"] for code, entry in doc["x-error-codes"].items()}
    assert documented == {**STATUS, "unavailable": 503}
    assert set(documented) == set(CODES)  # the client library knows the same codes
    assert doc["components"]["schemas"]["Error"]["properties"]["error"]["properties"]["code"][
        "enum"] == list(documented)
    for path, methods in doc["paths"].items():
        for op in methods.values():
            for status, response in op["responses"].items():
                if status.startswith(("4", "5")) and "content" in response:
                    for code in response["content"]["application/json"]["schema"]["allOf"][1][
                            "properties"]["error"]["properties"]["code"]["enum"]:
                        assert documented[code] == int(status), (path, status, code)


def test_a_503_is_not_said_to_have_done_nothing() -> None:
    """QA: a 503 can follow a stored append (its answer lost; with HOKM_REPLICA_ACKS, a record
    no replica confirmed); the documents said "nothing was done".  What holds: a retry with the
    same command id is applied once."""
    text = openapi.document()["x-error-codes"]["unavailable"]["description"]
    assert "nothing was done" not in text and "same id" in text, text
    root = Path(__file__).resolve().parents[2]
    for name in ("docs/api.md", "docs/bots.md", "docs/architecture.md"):
        doc = " ".join((root / name).read_text().split())
        assert "nothing was done" not in doc and "(nothing done)" not in doc, name
    assert "same `id`" in " ".join((root / "docs/api.md").read_text().split())


def test_every_api_route_is_in_the_document() -> None:
    with gateway() as gw:
        app = gateway_app(gw.rt)
    doc = openapi.document()
    routes = {getattr(r, "path", "") for r in app.routes}
    api = {p for p in routes if p.startswith("/api/") or p in ("/healthz", "/readyz")}
    assert api - {"/api"} <= set(doc["paths"]), api - set(doc["paths"])


def test_the_match_id_pattern_is_the_one_the_routes_take() -> None:
    """A QA finding: the document said 1 to 40 characters, the routes took 64."""
    from types import SimpleNamespace

    from services.errors import NotFound
    from services.gateway import params
    pattern = re.compile(openapi.MATCH_ID["schema"]["pattern"])
    for match_id in ("a", "0" * 16, "a" * 40, "a" * 41, "a" * 64, "a" * 65, "A", "a-b", ""):
        request: Any = SimpleNamespace(path_params={"match_id": match_id})
        try:
            taken = params.match_id(request) == match_id.lower()  # capitals: the same id
        except NotFound:
            taken = False
        assert taken == (pattern.fullmatch(match_id) is not None), match_id
