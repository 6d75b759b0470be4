"""Every path and query parameter of the API is read here, strictly, one way.

A number is 1 to ``MAX_DIGITS`` ASCII digits without a leading zero (``str.isdigit`` also
accepts superscripts and other scripts' digits, which ``int`` refuses; ``int`` refuses more than
4,300 digits, and takes ``"01"``, ``" 1"`` and ``"1_0"``): anything else is ``bad_request``
before any work is done, as is a query parameter given twice or one the route does not take.
A match id that the service could not have made is ``not_found`` without a look-up (ids are
short lowercase hex; see ``MatchService.create``).
"""

from __future__ import annotations

import re

from starlette.requests import HTTPConnection

from services.errors import BadToken, InvalidCommand, NotFound
from services.lobby import MAX_TOKEN as MAX_TOKEN  # (the token checks of the routes)

MAX_DIGITS = 12
"""Versions, steps and seats fit in 12 digits with room to spare."""

MAX_MATCH_ID = 64
"""Characters of a match id the routes take (the server makes 16, and takes up to this many
without harm); the OpenAPI document says the same."""
_MATCH_ID = re.compile(rf"[0-9A-Za-z]{{1,{MAX_MATCH_ID}}}")
"""A match id as a route takes it: the server makes lowercase ones, and an id that differs only
in case names the same match (a link typed on a phone is often capitalised: ``ABC123`` is
``abc123``)."""


def _number(raw: str, name: str) -> int:
    # one spelling per number, as JSON writes it: "01" (or "00") is not a seat, nor 1 or 0
    if not (0 < len(raw) <= MAX_DIGITS and raw.isascii() and raw.isdigit()) \
            or (raw[0] == "0" and raw != "0"):
        raise InvalidCommand(f"{name} must be a whole number (0 to {10 ** MAX_DIGITS - 1}, "
                             f"without leading zeros)")
    return int(raw)


def _one(conn: HTTPConnection, name: str) -> str | None:
    """The query parameter ``name``, given at most once (``since=1&since=x`` would be read as
    whichever copy some layer picks: ``bad_request``)."""
    values = conn.query_params.getlist(name)
    if len(values) > 1:
        raise InvalidCommand(f"{name} is given more than once")
    return values[0] if values else None


QUERIES: dict[str, frozenset[str]] = {
    "events": frozenset({"since"}), "replay": frozenset({"step"}), "hint": frozenset({"since"}),
    "socket": frozenset({"token", "since"}),
}
"""The query parameters each route takes (by handler name; a route not named takes none)."""


def only_query(conn: HTTPConnection, route: str) -> None:
    """``bad_request`` naming the first query parameter ``route`` does not take: a misspelt
    ``sinse=3`` would otherwise be ignored and answer every record from 0 (as a body's
    unknown field is refused, ``jsonbody.only_fields``)."""
    unknown = sorted(set(conn.query_params) - QUERIES.get(route, frozenset()))
    if unknown:
        raise InvalidCommand(f"unknown query parameter {unknown[0][:40]!r}")


def int_query(conn: HTTPConnection, name: str, default: int) -> int:
    """The query parameter ``name`` as a non-negative integer; ``default`` when absent or
    empty; ``bad_request`` otherwise."""
    raw = _one(conn, name)
    if raw is None or raw == "":
        return default
    return _number(raw, name)


def int_path(conn: HTTPConnection, name: str) -> int:
    """The path parameter ``name`` as a non-negative integer (``bad_request`` otherwise)."""
    return _number(str(conn.path_params[name]), name)


def match_id(conn: HTTPConnection) -> str:
    """The ``match_id`` path parameter, lowercased (ids differ only in case name the same
    match); ``not_found`` for anything that cannot be a match id."""
    raw = str(conn.path_params["match_id"])
    if _MATCH_ID.fullmatch(raw) is None:
        raise NotFound("no such match")
    return raw.lower()


def page_id(raw: str) -> str | None:
    """The canonical (lowercase) id of a page's ``/m/{id}`` or ``/replay/{id}`` when ``raw``
    is a match id spelt otherwise (``ABC123``), else None (the page as asked)."""
    if _MATCH_ID.fullmatch(raw) is None or raw == raw.lower():
        return None
    return raw.lower()


def token_query(conn: HTTPConnection) -> str | None:
    """The ``token`` query parameter (WebSocket connections); None when absent or empty.  One
    no seat can have (too long, not printable ASCII) is ``bad_token``, as over HTTP (close 4401:
    it was ``bad_request``, 4400, for the same token that HTTP answers 401)."""
    raw = _one(conn, "token")
    if not raw:
        return None
    if len(raw) > MAX_TOKEN or not raw.isascii() or not raw.isprintable():
        raise BadToken("this token does not belong to a seat of this match")
    return raw
