"""The OpenAPI 3.1 document of API v1 (``/openapi.json``) and a readable page of it (``/api``).

Written by hand from docs/api.md: the document is small, and writing it keeps the contract in one
reviewed place rather than derived from handler signatures.
"""

from __future__ import annotations

import html
from typing import Any

from services.bots import LEVELS

ERROR = {"$ref": "#/components/schemas/Error"}
TOKEN: list[dict[str, list[str]]] = [{"seat_token": []}]
MATCH_ID = {"name": "match_id", "in": "path", "required": True,
            "schema": {"type": "string", "pattern": "^[a-z0-9]{1,40}$"}}


def _errors(*codes: int) -> dict[str, Any]:
    """The refusals of an operation, plus ``503 unavailable`` (Redis unreachable), which any
    operation of the API may answer."""
    return {str(c): {"description": "unavailable: retry" if c == 503 else "refused",
                     "content": {"application/json": {"schema": ERROR}}}
            for c in (*codes, 503)}


def _ok(description: str, schema: dict[str, Any] | None = None, code: str = "200"
        ) -> dict[str, Any]:
    body = {"application/json": {"schema": schema or {"type": "object"}}}
    return {code: {"description": description, "content": body}}


def _body(schema: dict[str, Any]) -> dict[str, Any]:
    return {"required": False, "content": {"application/json": {"schema": schema}}}


RULES = {
    "type": "object",
    "properties": {
        "players": {"type": "integer", "enum": [4]},
        "target": {"oneOf": [{"type": "integer", "enum": [7, 10]},
                             {"type": "string", "enum": ["2x7"]}]},
        "deal": {"type": "string", "enum": ["5-4-4", "5-3-3-2"]},
        "teams": {"type": "string", "enum": ["ace_draw", "as_seated"]},
        "must_trump": {"type": "boolean"}, "satat": {"type": "boolean"},
        "bavney": {"type": "boolean"}, "double_sar": {"type": "boolean"},
    },
    "additionalProperties": False,
}

COMMAND = {
    "type": "object",
    "required": ["type"],
    "properties": {
        "type": {"type": "string", "enum": ["play", "choose_trump"]},
        "card": {"type": "string", "pattern": "^[AKQJT2-9][SHDC]$"},
        "suit": {"type": "string", "enum": ["S", "H", "D", "C"]},
        "version": {"type": "integer", "minimum": 0},
        "id": {"type": "string", "minLength": 1, "maxLength": 64},
    },
}


def document() -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "Hokm gateway API", "version": "1",
                 "description": "Play Hokm: matches, seats, commands, live views, replays."},
        "components": {
            "securitySchemes": {"seat_token": {"type": "http", "scheme": "bearer"}},
            "schemas": {
                "Error": {"type": "object", "required": ["error"], "properties": {
                    "error": {"type": "object", "required": ["code", "message"], "properties": {
                        "code": {"type": "string"}, "message": {"type": "string"}}}}},
                "Rules": RULES,
                "Command": COMMAND,
            },
        },
        "paths": {
            "/api/matches": {"post": {
                "summary": "Create a match; the caller takes the first human seat",
                "requestBody": _body({"type": "object", "properties": {
                    "players": {"type": "integer", "enum": [4]},
                    "seats": {"type": "array", "items": {"type": "string",
                              "pattern": f"^(human|bot:({'|'.join(LEVELS)}))$"},
                              "minItems": 4, "maxItems": 4},
                    "rules": {"$ref": "#/components/schemas/Rules"},
                    "name": {"type": "string", "minLength": 1, "maxLength": 40},
                    "disconnect_timeout": {"type": "number", "minimum": 0, "maximum": 3600},
                }}),
                "responses": {**_ok("created: match_id, seat, token, invite_url", code="201"),
                              **_errors(400, 413, 429)},
            }},
            "/api/matches/{match_id}": {"get": {
                "summary": "Public summary: seats, phase, score, version",
                "parameters": [MATCH_ID],
                "responses": {**_ok("the summary"), **_errors(404, 429)},
            }},
            "/api/matches/{match_id}/join": {"post": {
                "summary": "Claim an open seat",
                "parameters": [MATCH_ID],
                "requestBody": _body({"type": "object", "properties": {
                    "name": {"type": "string"}, "seat": {"type": "integer"}}}),
                "responses": {**_ok("seat and token"), **_errors(400, 404, 409, 413, 429)},
            }},
            "/api/matches/{match_id}/view": {"get": {
                "summary": "The seat's view", "parameters": [MATCH_ID], "security": TOKEN,
                "responses": {**_ok("version and view"), **_errors(401, 404, 429)},
            }},
            "/api/matches/{match_id}/commands": {"post": {
                "summary": "Choose trump or play a card", "parameters": [MATCH_ID],
                "security": TOKEN, "requestBody": _body(COMMAND),
                "responses": {**_ok("version and view"), **_errors(400, 401, 404, 409, 413, 429)},
            }},
            "/api/matches/{match_id}/events": {"get": {
                "summary": "Records after a version, redacted for the caller",
                "parameters": [MATCH_ID, {"name": "since", "in": "query",
                                          "schema": {"type": "integer", "minimum": 0}}],
                "responses": {**_ok("records"), **_errors(400, 401, 404, 429)},
            }},
            "/api/matches/{match_id}/replay": {"get": {
                "summary": "The match at a step (every hand once the match is over)",
                "parameters": [MATCH_ID, {"name": "step", "in": "query",
                                          "schema": {"type": "integer", "minimum": 0}}],
                "responses": {**_ok("step, steps, view"), **_errors(400, 401, 404, 429)},
            }},
            "/api/matches/{match_id}/hint": {"get": {
                "summary": "A suggestion for a learner (three decisions from `since`)",
                "parameters": [MATCH_ID, {"name": "since", "in": "query",
                                          "schema": {"type": "integer", "minimum": 0}}],
                "security": TOKEN,
                "responses": {**_ok("suggestion, reason, remaining"),
                              **_errors(400, 401, 404, 409, 429)},
            }},
            "/api/matches/{match_id}/leave": {"post": {
                "summary": "Give up the seat (optionally to a bot)", "parameters": [MATCH_ID],
                "security": TOKEN,
                "requestBody": _body({"type": "object", "properties": {
                    "replace_with": {"type": "string"}}}),
                "responses": {**_ok("left"), **_errors(400, 401, 404, 409, 413, 429)},
            }},
            "/api/matches/{match_id}/seats/{seat}/bot": {"post": {
                "summary": "Give an empty seat to a bot",
                "parameters": [MATCH_ID, {"name": "seat", "in": "path", "required": True,
                                          "schema": {"type": "integer", "minimum": 0,
                                                     "maximum": 3}}],
                "security": TOKEN,
                "requestBody": _body({"type": "object", "properties": {
                    "level": {"type": "string", "enum": list(LEVELS)}}}),
                "responses": {**_ok("the seat's bot"), **_errors(400, 401, 404, 409, 413, 429)},
            }},
            "/healthz": {"get": {"summary": "Liveness", "responses": _ok("up")}},
            "/readyz": {"get": {"summary": "Readiness (Redis answers)",
                                "responses": {**_ok("ready"), "503": {"description": "no"}}}},
        },
    }


def page() -> str:
    """A plain HTML rendering of the document for people."""
    doc = document()
    rows = []
    for path, methods in doc["paths"].items():
        for method, op in methods.items():
            auth = "seat token" if op.get("security") else ""
            rows.append(f"<tr><td><code>{method.upper()}</code></td><td><code>"
                        f"{html.escape(path)}</code></td><td>{html.escape(op['summary'])}</td>"
                        f"<td>{auth}</td></tr>")
    return (
        "<!doctype html><html lang=en><meta charset=utf-8><title>Hokm API v1</title>"
        "<style>body{font-family:system-ui;max-width:60rem;margin:2rem auto;padding:0 1rem}"
        "td{padding:.3rem .6rem;border-bottom:1px solid #ddd}</style>"
        "<h1>Hokm API v1</h1><p>Machine-readable: <a href=/openapi.json>/openapi.json</a>. "
        "WebSocket: <code>/api/matches/{match_id}/ws?token=...&amp;since=n</code> sends "
        "<code>{\"type\":\"view\",\"version\",\"view\"}</code> after every change and accepts "
        "the command objects of <code>POST /commands</code>.</p>"
        f"<table><tr><th>method</th><th>path</th><th>what</th><th>auth</th></tr>"
        f"{''.join(rows)}</table></html>"
    )
