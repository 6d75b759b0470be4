"""Errors are values with stable codes.

``decide`` raises a :class:`HokmError` subclass whose ``code`` is one of the codes of the API
(``docs/api.md``).  Messages never name a card that the addressee may not see: they talk about the
sender's own command only.
"""

from __future__ import annotations


class HokmError(ValueError):
    """Base of every refusal: ``code`` is stable and machine-readable, ``message`` is for people."""

    code = "bad_request"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.message = message

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


class InvalidCommand(HokmError):
    """The command is malformed or names something that does not exist (``bad_request``)."""

    code = "bad_request"


class BadRules(InvalidCommand):
    """Unknown, ill-typed or contradictory house rules (``bad_rules``)."""

    code = "bad_rules"


class IllegalMove(HokmError):
    """The command is well formed but the rules forbid it now."""


class NotYourTurn(IllegalMove):
    code = "not_your_turn"


class IllegalCard(IllegalMove):
    code = "illegal_card"


class MustFollowSuit(IllegalMove):
    code = "must_follow_suit"


class MustTrump(IllegalMove):
    code = "must_trump"


class WrongPhase(IllegalMove):
    code = "wrong_phase"


class MatchOver(IllegalMove):
    code = "match_over"


class SeatTaken(IllegalMove):
    code = "seat_taken"


class MatchFull(IllegalMove):
    code = "match_full"


ERROR_CODES = (
    "bad_request", "bad_rules", "bad_token", "not_your_turn", "illegal_card", "must_follow_suit",
    "must_trump", "wrong_phase", "stale_version", "match_over", "seat_taken", "match_full",
    "not_found", "rate_limited", "too_large",
)
"""Every code a client can receive (the engine raises a subset; the services add the rest)."""
