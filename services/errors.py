"""Service-level refusals, with the stable codes of the API (engine refusals pass through)."""

from __future__ import annotations

from engine.errors import HokmError, InvalidCommand

__all__ = [
    "BadToken", "HintsExhausted", "HokmError", "InvalidCommand", "MatchNotOver", "NotFound",
    "RateLimited",
    "SeatLeft", "StaleVersion", "TooLarge", "UnsupportedMediaType", "STATUS",
]


class NotFound(HokmError):
    code = "not_found"


class BadToken(HokmError):
    code = "bad_token"


class SeatLeft(HokmError):
    """A request key's retry (a create's or a join's), or a rematch asked again, whose player
    has left the seat it took: the player is not seated again and its tokens stay dead
    (``Lobby._join_once``, ``Lobby.rematch``)."""

    code = "seat_left"


class StaleVersion(HokmError):
    code = "stale_version"


class RateLimited(HokmError):
    code = "rate_limited"


class TooLarge(HokmError):
    code = "too_large"


class UnsupportedMediaType(InvalidCommand):
    """A request body that is not declared ``application/json`` (UTF-8): a body sent as
    ``text/plain`` or form data is refused unread (``415``).  A subclass of ``InvalidCommand``
    so a route that needs a seat token says ``bad_token`` first, as for any bad body."""

    code = "unsupported_media_type"


class HintsExhausted(HokmError):
    code = "hints_exhausted"


class MatchNotOver(HokmError):
    """Something that opens at the match's end (its analysis, a rematch) was asked before."""

    code = "match_not_over"


STATUS: dict[str, int] = {
    "bad_request": 400, "bad_rules": 400, "bad_token": 401, "not_found": 404,
    "too_large": 413, "unsupported_media_type": 415, "rate_limited": 429,
    "stale_version": 409, "seat_taken": 409,
    "match_full": 409, "hints_exhausted": 409, "not_your_turn": 409, "illegal_card": 409,
    "must_follow_suit": 409, "must_trump": 409, "wrong_phase": 409, "match_over": 409,
    "match_not_over": 409, "analysis_unavailable": 409, "seat_left": 409,
    "method_not_allowed": 405,
    "match_damaged": 503,
}
"""HTTP status per error code: every refusal is a 4xx, except a match the server cannot serve
(``match_damaged``: its log is not a chain of records; no retry mends it, so no
``Retry-After``) and ``unavailable`` (the gateway's, 503 with ``Retry-After``)."""
