"""Every path and query parameter of the API is read here, strictly, one way.

A number is 1 to ``MAX_DIGITS`` ASCII digits (``str.isdigit`` also accepts superscripts and
other scripts' digits, which ``int`` refuses, and ``int`` refuses more than 4,300 digits): anything
else is ``bad_request`` before any work is done.  A match id that the service could not have made
is ``not_found`` without a look-up (ids are short lowercase hex; see ``MatchService.create``).
"""

from __future__ import annotations

import re

from starlette.requests import HTTPConnection

from services.errors import InvalidCommand, NotFound
from services.lobby import MAX_TOKEN as MAX_TOKEN  # (the token checks of the routes)

MAX_DIGITS = 12
"""Versions, steps and seats fit in 12 digits with room to spare."""

MAX_MATCH_ID = 64
"""Characters of a match id the routes take (the server makes 16, and takes up to this many
without harm); the OpenAPI document says the same."""
_MATCH_ID = re.compile(rf"[0-9a-z]{{1,{MAX_MATCH_ID}}}")


def _number(raw: str, name: str) -> int:
    if not (0 < len(raw) <= MAX_DIGITS and raw.isascii() and raw.isdigit()):
        raise InvalidCommand(f"{name} must be a whole number (0 to {10 ** MAX_DIGITS - 1})")
    return int(raw)


def int_query(conn: HTTPConnection, name: str, default: int) -> int:
    """The query parameter ``name`` as a non-negative integer; ``default`` when absent or
    empty; ``bad_request`` otherwise."""
    raw = conn.query_params.get(name)
    if raw is None or raw == "":
        return default
    return _number(raw, name)


def int_path(conn: HTTPConnection, name: str) -> int:
    """The path parameter ``name`` as a non-negative integer (``bad_request`` otherwise)."""
    return _number(str(conn.path_params[name]), name)


def match_id(conn: HTTPConnection) -> str:
    """The ``match_id`` path parameter; ``not_found`` for anything that cannot be a match id."""
    raw = str(conn.path_params["match_id"])
    if _MATCH_ID.fullmatch(raw) is None:
        raise NotFound("no such match")
    return raw


def token_query(conn: HTTPConnection) -> str | None:
    """The ``token`` query parameter (WebSocket connections); None when absent or empty."""
    raw = conn.query_params.get("token")
    if not raw:
        return None
    if len(raw) > MAX_TOKEN or not raw.isascii() or not raw.isprintable():
        raise InvalidCommand("a token is a short printable string")
    return raw
