"""The API's refusals as exceptions.

Contract: every refusal of the gateway (``{"error": {"code", "message"}}`` over HTTP, an
``{"type": "error"}`` frame or a 44xx close over the WebSocket) is raised as :class:`ApiError`
carrying the API's ``code`` (``docs/api.md``, *Error codes*) and the HTTP ``status`` (0 for what
never got an HTTP answer).  A failure to reach the server at all is :class:`NetworkError`
(``code == "network"``), and an answer that is not the API's at all (another server at the
address) :class:`NotHokm` (``code == "not_hokm"``): subclasses, so ``except ApiError`` catches
everything this library raises about the server.
"""

from __future__ import annotations

CODES = (
    "bad_request", "bad_rules", "bad_token", "not_your_turn", "illegal_card",
    "must_follow_suit", "must_trump", "wrong_phase", "stale_version", "match_over",
    "seat_taken", "match_full", "not_found", "rate_limited", "too_large", "hints_exhausted",
    "unavailable", "match_not_over", "analysis_unavailable", "method_not_allowed",
    "match_damaged", "seat_left", "unsupported_media_type",
)
"""Every error code of API v1 (``docs/api.md``)."""

RETRYABLE = frozenset({"rate_limited", "unavailable"})
"""Codes whose request did nothing and may be sent again (after ``Retry-After``)."""


class ApiError(Exception):
    """A refusal by the gateway: ``code`` (one of :data:`CODES`, or ``network``), ``message``
    (the server's words), ``status`` (HTTP status, 0 over the WebSocket or without an answer)
    and ``retry_after`` (seconds, from the ``Retry-After`` header, else None)."""

    def __init__(self, code: str, message: str = "", status: int = 0,
                 retry_after: float | None = None) -> None:
        super().__init__(f"{code}: {message}" if message else code)
        self.code = code
        self.message = message
        self.status = status
        self.retry_after = retry_after

    @property
    def retryable(self) -> bool:
        """True when the request did nothing and may simply be sent again."""
        return self.code in RETRYABLE


class NetworkError(ApiError):
    """The server could not be reached, or the connection broke before an answer (the
    request may or may not have been applied: only a command with an ``id`` is safe to
    send again)."""

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__("network", message)
        # why, without the request (``message`` names the server and the path as well)
        self.reason = message if reason is None else reason


class NotHokm(ApiError):
    """The answer was not the Hokm API's: no ``{"error": ...}`` JSON where the API always
    sends one (another server at this address, a page of a proxy).  ``status`` is the HTTP
    status it answered; nothing is retried."""

    def __init__(self, status: int, reason: str = "") -> None:
        super().__init__("not_hokm", f"HTTP {status}{' ' + reason if reason else ''}: not an "
                         "answer of the Hokm API", status)


CLOSE_CODES = {4400: "bad_request", 4401: "bad_token", 4404: "not_found", 4500: "match_damaged"}
"""WebSocket close codes by which the server refuses a socket for good (``docs/api.md``)."""
