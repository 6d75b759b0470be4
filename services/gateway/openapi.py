"""The OpenAPI 3.1 document of API v1 (``/openapi.json``) and a readable page of it (``/api``).

Written by hand from docs/api.md: the document is small, and writing it keeps the contract in one
reviewed place rather than derived from handler signatures.  It describes every field of a view
(``View``: ``tests/gateway/test_openapi.py`` checks it against what ``engine.view_for`` builds),
every answer, every error code with its status (``ERRORS``, checked against
``services.errors.STATUS``) and which codes each operation may answer, and the WebSocket's
frames (``x-websocket`` and the ``Ws*`` schemas: OpenAPI has no WebSocket operations).
"""

from __future__ import annotations

import html
from typing import Any

from engine.names import MAX_MARKS, MAX_NAME
from services.bots import LEVELS

from .params import MAX_MATCH_ID

ERRORS: dict[str, tuple[int, str]] = {
    "bad_request": (400, "the request is malformed (a field, a parameter, a frame; a "
                         "command id used for another command)"),
    "bad_rules": (400, "unknown or contradictory house rules"),
    "bad_token": (401, "no seat token, or not one of this match (also: spectators sending "
                       "commands)"),
    "not_found": (404, "no such match (or it expired)"),
    "too_large": (413, "a body or frame over 16 KiB"),
    "unsupported_media_type": (415, "a body not sent as `Content-Type: application/json` "
                                    "(a `charset`, if given, is `utf-8`): nothing is done"),
    "method_not_allowed": (405, "the path exists but does not take this method (its "
                                "`Allow` header lists those it takes)"),
    "rate_limited": (429, "too many requests; Retry-After says in how many seconds one "
                          "would be accepted (the create window's end; a minute for the "
                          "bots-only limit)"),
    "stale_version": (409, "the command's version is not the match's: refresh and decide again"),
    "not_your_turn": (409, "the match waits for another seat (or nothing to decide)"),
    "illegal_card": (409, "the card is not in the seat's hand"),
    "must_follow_suit": (409, "the seat holds the suit led and must play it"),
    "must_trump": (409, "house rule must_trump: a seat that cannot follow must trump"),
    "wrong_phase": (409, "not possible in this phase (a card while trump is being chosen...)"),
    "match_over": (409, "the match is over"),
    "seat_taken": (409, "the seat asked for is taken"),
    "match_full": (409, "no open human seat"),
    "seat_left": (409, "a create's or join's request key sent again, or a rematch asked "
                       "again, after its player left the seat it took: the player is not "
                       "seated again (its tokens stay dead); a new key (a join by the "
                       "rematch's link) is a new request"),
    "hints_exhausted": (409, "three hints were given since the version asked for"),
    "match_not_over": (409, "the match is not over yet (its analysis opens at its end)"),
    "analysis_unavailable": (409, "no analysis for this kind of game (sent by earlier servers "
                                  "for the two- and three-player games; this one analyses "
                                  "every game)"),
    "unavailable": (503, "the store is unreachable; the request may have been done all "
                         "the same (stored, then the answer lost): retry after Retry-After, a "
                         "command with the same id, which is applied once"),
    "match_damaged": (503, "the match's log is damaged (an entry deleted or edited in the "
                           "store): it cannot be played or shown, and no retry mends it (no "
                           "Retry-After); the operator's `hokm verify` tells more"),
}
"""Every error code of the API: its HTTP status and meaning."""

ERROR = {"$ref": "#/components/schemas/Error"}
TOKEN: list[dict[str, list[str]]] = [{"seat_token": []}]
MATCH_ID = {"name": "match_id", "in": "path", "required": True,
            "description": "the server makes lowercase ids; one that differs only in case "
                         "names the same match",
            "schema": {"type": "string", "pattern": f"^[A-Za-z0-9]{{1,{MAX_MATCH_ID}}}$"}}


READY = {"type": "object", "required": ["ok", "store", "queue"],
         "properties": {"ok": {"type": "boolean"},
                        "store": {"type": "boolean", "description": "the match store answers"},
                        "queue": {"type": "boolean",
                                  "description": "the bot queue's Redis (HOKM_QUEUE_URL) "
                                                 "answers"}}}


def _errors(*codes: str) -> dict[str, Any]:
    """The refusals of an operation by status, each naming its codes, plus ``429
    rate_limited`` and ``503 unavailable``, which any operation may answer, and ``503
    match_damaged``, which any operation on a match (one that may answer ``not_found``) may."""
    by_status: dict[int, list[str]] = {}
    damaged = ("match_damaged",) if "not_found" in codes else ()
    for code in (*codes, "rate_limited", "unavailable", *damaged):
        by_status.setdefault(ERRORS[code][0], []).append(code)
    out: dict[str, Any] = {}
    for status, named in sorted(by_status.items()):
        schema = {"allOf": [ERROR, {"properties": {"error": {"properties": {
            "code": {"enum": named}}}}}]}
        out[str(status)] = {
            "description": "; ".join(f"`{c}`: {ERRORS[c][1]}" for c in named),
            "content": {"application/json": {"schema": schema}},
            **({"headers": {"Retry-After": {"schema": {"type": "integer", "minimum": 1},
                                            "description": "seconds until a request would "
                                                           "be accepted, rounded up "
                                                           "(not with match_damaged)"}}}
               if status in (429, 503) else {}),
        }
    return out


def _ok(description: str, schema: dict[str, Any] | None = None, code: str = "200"
        ) -> dict[str, Any]:
    body = {"application/json": {"schema": schema or {"type": "object"}}}
    return {code: {"description": description, "content": body}}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"oneOf": [schema, {"type": "null"}]}


CARD = {"type": "string", "pattern": "^[AKQJT2-9][SHDC]$",
        "description": "rank then suit: `QH` is the queen of hearts, `TD` the ten of diamonds"}
SUIT = {"type": "string", "enum": ["S", "H", "D", "C"]}
NAME = {"type": "string", "minLength": 1, "maxLength": MAX_NAME,
        "description": f"1 to {MAX_NAME} printable characters once spaces around it are "
                       "trimmed, at least one of them visible (no blank fillers, at most "
                       f"{MAX_MARKS} accents on a letter); \"Player\" when absent"}
SEAT_NO = {"type": "integer", "minimum": 0, "maximum": 3}
PAIR = {"type": "array", "items": {"type": "integer", "minimum": 0}, "minItems": 2,
        "maxItems": 3}
"""One number per side: two sides (four players in teams, two players), three (three
players)."""
PLAYED = {"type": "object", "required": ["seat", "card"],
          "properties": {"seat": SEAT_NO, "card": CARD}}
PHASES = ["waiting", "choosing_trump", "discarding", "drawing", "playing", "round_over",
          "match_over"]
PLAYERS = {"type": "integer", "enum": [2, 3, 4]}
TIMEOUT = {"type": "number", "minimum": 0, "maximum": 3600}
SIDE = {"type": "integer", "enum": [0, 1, 2]}
"""A side (index into ``tricks`` and ``score``; ``sides`` says its seats)."""


def _field(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {**schema, "description": description}


REQUEST_KEY = _field({"type": "string", "pattern": "^[A-Za-z0-9_-]{16,64}$"},
                     "a random request key made once per request and sent again with each "
                     "retry: a retry gets the first try's answer (its seat and token), applied "
                     "once (kept 10 minutes)")


VIEW_FIELDS: dict[str, dict[str, Any]] = {
    "match_id": _field({"type": "string"}, "the match"),
    "version": _field({"type": "integer", "minimum": 0},
                      "records in the match's stream: the version this view shows"),
    "seat": _field(_nullable(SEAT_NO), "the viewer's seat (null: a spectator); read it from "
                   "every view, the ace draw may move a player"),
    "players": _field(PLAYERS, "seats at the table"),
    "sides": _field({"type": "array", "items": {"type": "array", "items": SEAT_NO}},
                    "the sides, in the order of `tricks` and `score`: each side's seats "
                    "(partners share a side; four players: [[0, 2], [1, 3]]; two: [[0], [1]]; "
                    "three: [[0], [1], [2]])"),
    "removed": _field({"type": "array", "items": CARD},
                      "cards out of play in every deal (three players: [\"2C\"]; else none)"),
    "phase": _field({"type": "string", "enum": PHASES}, "where the match is"),
    "round": _field({"type": "integer", "minimum": 0}, "the round (deal) number, from 1"),
    "hakem": _field(_nullable(SEAT_NO), "the seat that names trump this round"),
    "dealer": _field(_nullable(SEAT_NO), "the dealer of this round"),
    "trump": _field(_nullable(SUIT), "trump (null until the Hakem names it)"),
    "hand": _field({"type": "array", "items": CARD},
                   "the viewer's own cards, sorted S H C D, high first (empty for spectators)"),
    "hand_counts": _field({"type": "array", "items": {"type": "integer"}},
                          "how many cards each seat holds"),
    "trick": _field({"type": "array", "items": PLAYED}, "the open trick, in play order"),
    "leader": _field(_nullable(SEAT_NO), "who led the open trick"),
    "turn": _field(_nullable(SEAT_NO), "whose card it is (null: nobody's)"),
    "tricks": _field(PAIR, "tricks won this round, by side (see `sides`)"),
    "score": _field(PAIR, "points, by side"),
    "target": _field({"type": "integer"}, "points that win the match (a set, with sets)"),
    "sets": _field(_nullable(PAIR), "sets won by side (null unless target \"2x7\")"),
    "legal": _field({"type": "array", "items": {"type": "string"}},
                    "what the viewer may choose now: cards, suits for the Hakem naming "
                    "trump, the hand while discarding (choose `talon.discard` of it), "
                    "[\"keep\", \"discard\"] while drawing; empty when it is not the "
                    "viewer's decision"),
    "last_trick": _field(_nullable({"type": "object", "required": ["cards", "winner"],
                                    "properties": {"cards": {"type": "array",
                                                             "items": PLAYED},
                                                   "winner": SEAT_NO}}),
                         "the trick completed last, and who won it"),
    "seats": _field({"type": "array", "items": _ref("SeatInfo")},
                    "the seats (`players` of them)"),
    "result": _field(_nullable(_ref("RoundResult")), "the last round's result"),
    "winner": _field(_nullable(SIDE), "the side that won the match, once it is over"),
    "rules": _field(_ref("Rules"), "the match's house rules (every rule, canonical)"),
    "draw": _field({"type": "array", "items": PLAYED},
                   "the draw for the first Hakem, public: the cards turned one by one to "
                   "each seat (the first ace; the simple two-player game: the higher card)"),
    "talon": _field(_nullable({"type": "object",
                               "required": ["left", "top", "discard", "discarded"],
                               "properties": {
                                   "left": {"type": "integer", "minimum": 0},
                                   "top": _nullable(CARD),
                                   "discard": {"type": "integer", "minimum": 0},
                                   "discarded": {"type": "array", "items": CARD}}}),
                    "the two-player talon game (else null): cards left in the talon, its top "
                    "card (to the seat to draw only), how many cards the viewer discards now, "
                    "and the viewer's own discards"),
    "pile": _field(_nullable({"type": "integer"}),
                   "tricks waiting in the pile (house rule double_sar; else null)"),
    "commitment": _field({"type": "string"}, "SHA-256 of the match's deck secret "
                         "(docs/fairness.md)"),
    "secret": _field(_nullable({"type": "string"}), "the deck secret, revealed at the end"),
    "hands": _field(_nullable({"type": "array", "items": {"type": "array", "items": CARD}}),
                    "every seat's cards: only once the match is over"),
    "dealt": _field(_nullable({"type": "array", "items": {"type": "array", "items": CARD}}),
                    "every seat's dealt cards of the last round: only once the match is over"),
}
"""Every field of a view (``engine.view_for``), as docs/api.md lists them."""

SUMMARY_FIELDS = ("match_id", "players", "phase", "version", "score", "rules", "seats",
                  "round", "winner", "target", "sets")

TURN_LIMIT: dict[str, Any] = {
    "version": _field({"type": "integer"}, "the turn's: the version of the view it follows"),
    "seat": SEAT_NO,
    "left_ms": _field({"type": "integer", "minimum": 0},
                      "milliseconds left, as the frame (or the answer) was sent"),
    "limit_s": _field({"type": "number"}, "the seconds the turn was given"),
    "grace": _field({"type": "boolean"},
                    "the short limit of a seat whose last turn a stand-in played (until its "
                    "player acts again)"),
    "extended": _field({"type": "boolean"},
                       "the player asked for more time on this turn (`more_time`, once a "
                       "turn): the deadline was moved to the room's full limit from then"),
}
"""The fields of a turn's deadline: the ``turn_limit`` frame and a view's ``turn_limit``."""

SEAT_INFO: dict[str, Any] = {
    "name": _field({"type": ["string", "null"]}, "the player's name"),
    "bot": _field({"type": ["string", "null"], "enum": [*LEVELS, None]},
                  "a bot's level, else null"),
    "connected": _field({"type": "boolean"}, "a socket follows the seat now (bots always; a "
                                             "player polling over HTTP is not shown here)"),
    "empty": _field({"type": "boolean"}, "an open seat"),
}
"""The fields of a seat in a view (``SeatInfo``), and in a summary with ``held``."""

SCHEMAS: dict[str, Any] = {
    "SeatInfo": {"type": "object", "required": list(SEAT_INFO), "properties": SEAT_INFO},
    "RoundResult": {"type": "object", "required": ["winner", "points", "kind", "tricks"],
                    "properties": {
                        "winner": _field(_nullable(SIDE),
                                         "the side that won the round (null: no_winner)"),
                        "points": _field({"type": "integer", "minimum": 0},
                                         "0 only for no_winner"),
                        "kind": {"type": "string",
                                 "enum": ["normal", "kot", "hakem_koti", "bavney",
                                          "no_winner"]},
                        "tricks": PAIR}},
    "View": {"type": "object", "required": list(VIEW_FIELDS), "properties": VIEW_FIELDS,
             "description": "what one seat (or a spectator) may know: nothing of other hands "
                            "until the match is over"},
    "VersionedView": {"type": "object", "required": ["version", "view"],
                      "properties": {
                          "version": {"type": "integer"}, "view": _ref("View"),
                          "turn_limit": _field(
                              {"type": "object", "required": list(TURN_LIMIT),
                               "properties": TURN_LIMIT},
                              "while the room's turn_timeout runs for the seat's turn (its "
                              "deadline set: a socket of the seat saw the turn): the "
                              "turn_limit frame's fields, left_ms as this answer was sent; "
                              "absent otherwise")}},
    "SummarySeat": {"type": "object", "required": [*SEAT_INFO, "held"], "properties": {
        **SEAT_INFO,
        "held": _field({"type": "boolean"},
                       "an open seat kept for a player of the last match (a rematch's, for "
                       "`held_for` more seconds): not open to anyone else meanwhile")}},
    "Summary": {"type": "object", "required": [*SUMMARY_FIELDS, "held_for", "rematch",
                                               "disconnect_timeout", "turn_timeout"],
                "properties": {
                    **{k: VIEW_FIELDS[k] for k in SUMMARY_FIELDS},
                    "seats": _field({"type": "array", "items": _ref("SummarySeat")},
                                    "the seats (`players` of them)"),
                    "held_for": _field({"type": "integer", "minimum": 0},
                                       "whole seconds (rounded up) the seats marked `held` "
                                       "stay kept for the last match's players; 0 when no "
                                       "seat is"),
                    "rematch": _field({"type": ["string", "null"]},
                                      "a finished match's next one, once one of its players "
                                      "asked for it (POST .../rematch), else null"),
                    "disconnect_timeout": _field(TIMEOUT, "the room's: seconds a human seat "
                                                          "may be away before a stand-in "
                                                          "plays for it (0: never)"),
                    "turn_timeout": _field(TIMEOUT, "the room's: seconds a present human's "
                                                    "turn may last before a stand-in makes "
                                                    "that decision (0: no limit)")}},
    "Created": {"type": "object", "required": ["match_id", "seat", "token", "invite_url",
                                               "player"],
                "properties": {
                    "match_id": {"type": "string"},
                    "seat": _field(_nullable(SEAT_NO), "the creator's seat (null: bots only)"),
                    "token": _field({"type": ["string", "null"]},
                                    "the seat token (Authorization: Bearer)"),
                    "invite_url": _field({"type": "string"}, "the table page to share"),
                    "player": _field({"type": ["string", "null"]}, "the player's id")}},
    "Joined": {"type": "object", "required": ["seat", "token", "player"],
               "properties": {"seat": SEAT_NO, "token": {"type": "string"},
                              "player": {"type": "string"}}},
    "Record": {"type": "object", "required": ["version", "actor", "events", "stand_in"],
               "properties": {"version": {"type": "integer"},
                              "actor": _field(_nullable(SEAT_NO),
                                              "the seat that acted (null: a system step)"),
                              "stand_in": _field({"type": "boolean"},
                                                 "a stand-in made this move for the actor, "
                                                 "a human away past the room's "
                                                 "disconnect_timeout or present past its "
                                                 "turn_timeout"),
                              "events": {"type": "array", "items": {
                                  "type": "object", "required": ["type"],
                                  "properties": {"type": {"type": "string"}},
                                  "additionalProperties": True,
                                  "description": "an event redacted for the caller: its "
                                                 "`type` and that event's fields "
                                                 "(engine/events.py)"}}}},
    "Events": {"type": "object", "required": ["version", "events"],
               "properties": {"version": {"type": "integer"},
                              "events": {"type": "array", "items": _ref("Record")}}},
    "SeatHeld": {"type": "object", "required": ["seat"],
                 "properties": {"seat": _field(_nullable(SEAT_NO),
                                               "the token's seat now; null: it holds none "
                                               "(never this match's, or given up)")}},
    "Replay": {"type": "object", "required": ["step", "steps", "view", "events"],
               "properties": {"step": {"type": "integer"}, "steps": {"type": "integer"},
                              "view": _ref("View"),
                              "events": _field({"type": "array", "items": {"type": "object"}},
                                               "the events of record `step`")}},
    "Hint": {"type": "object", "required": ["suggestion", "reason", "remaining"],
             "properties": {"suggestion": _field({"type": ["string", "null"]},
                                                 "a card, a suit for the Hakem, the cards to "
                                                 "lay aside (separated by spaces) or keep / "
                                                 "discard (the talon game)"),
                            "reason": _field({"type": "string"}, "why, in English"),
                            "reason_code": _field(
                                {"type": "string"},
                                "an addition to v1 (optional for clients): the stable code of "
                                "`reason`'s sentence (docs/api.md lists them; a code names one "
                                "sentence for good, new sentences get new codes: show `reason` "
                                "for a code you do not know)"),
                            "reason_args": _field(
                                {"type": "object",
                                 "additionalProperties": {"oneOf": [
                                     {"type": "string"}, {"type": "integer"},
                                     {"type": "array", "items": {"type": "string"}}]}},
                                "an addition to v1 (optional for clients): the values "
                                "`reason_code`'s sentence is filled with, exactly its "
                                "placeholders: `card` (a card, `AS`), `suit` and `led` (suit "
                                "letters), `count` (a number), `cards` (a list of cards)"),
                            "remaining": {"type": "integer", "minimum": 0}}},
    "Analysis": {"type": "object", "required": ["status", "match", "rounds", "seats"],
                 "properties": {"status": {"const": "done"}, "match": {"type": "string"},
                                "rounds": {"type": "array", "items": _ref("AnalysisRound")},
                                "seats": {"type": "array", "items": _ref("AnalysisSeat")}}},
    "AnalysisPending": {"type": "object", "required": ["status", "rounds", "done"],
                        "properties": {"status": {"const": "pending"},
                                       "rounds": _field({"type": "integer"}, "rounds in all"),
                                       "done": _field({"type": "integer"}, "rounds analysed")}},
    "AnalysisRound": {
        "type": "object", "required": ["round", "hakem", "trump", "moves", "result"],
        "properties": {
            "round": {"type": "integer"}, "hakem": {"type": "integer"},
            "trump": {"type": ["string", "null"]},
            "moves": {"type": "array", "items": _ref("AnalysisMove")},
            "result": {"type": "object", "properties": {
                "winner_side": {"type": ["integer", "null"]}, "kind": {"type": "string"},
                "tricks": {"type": "array", "items": {"type": "integer"}}}},
            "seats": {"type": "array", "items": _ref("AnalysisSeat")}}},
    "AnalysisMove": {
        "type": "object",
        "required": ["version", "seat", "kind", "played", "alternatives", "best", "cost", "bot",
                     "win_chance", "exact"],
        "properties": {
            "version": _field({"type": "integer"}, "the record of the move in the match log"),
            "seat": {"type": "integer"}, "kind": {"enum": ["trump", "play", "discard", "draw"]},
            "played": {"type": "string"},
            "alternatives": {"type": "array", "items": {"type": "object", "properties": {
                "card": _field({"type": "string"}, "a card, or a suit for the trump"),
                "tricks": {"type": "integer"}, "wins": {"type": "boolean"},
                "kot": {"type": "boolean"}}}},
            "best": {"type": "array", "items": {"type": "string"}},
            "cost": {"enum": [None, "trick", "round", "kot"]},
            "bot": {"type": "object", "properties": {
                "choice": {"type": "string"}, "win_chance": {"type": ["number", "null"]}}},
            "win_chance": _field({"type": ["number", "null"]},
                                 "the hard bot's round-win estimate for the mover's side "
                                 "before the move (null: not estimated, the talon game's "
                                 "trump)"),
            "by": _field({"type": "object", "properties": {
                "name": {"type": "string"}, "bot": {"type": ["string", "null"]}}},
                "who sat in the seat and made the move (the bot's level, or null)"),
            "exact": _field({"type": "boolean"}, "every alternative solved exactly (else some "
                                                 "by a playout past the solver's budget, and "
                                                 "cost is null)")}},
    "AnalysisSeat": {"type": "object", "properties": {
        **{name: {"type": "integer"} for name in ("seat", "moves", "cost_trick", "cost_round",
                                                  "cost_kot")},
        "players": _field({"type": "array", "items": {"type": "object", "properties": {
            "name": {"type": "string"}, "bot": {"type": ["string", "null"]},
            **{name: {"type": "integer"} for name in ("moves", "cost_trick", "cost_round",
                                                      "cost_kot")}}}},
            "the seat's counts split by who made the moves (a seat changes hands when a "
            "player leaves), in the order they first moved; absent from an analysis stored "
            "before it was added")}},
    "WsView": {"type": "object", "required": ["type", "version", "view"],
               "properties": {"type": {"const": "view"}, "version": {"type": "integer"},
                              "view": _ref("View")},
               "description": "sent on connect and after every change, in version order"},
    "WsMissed": {"type": "object", "required": ["type", "since", "version", "resync",
                                                "records"],
                 "properties": {"type": {"const": "missed"}, "since": {"type": "integer"},
                                "version": {"type": "integer"},
                                "resync": _field({"type": "boolean"},
                                                 "over 200 records behind: none are sent"),
                                "records": {"type": "array", "items": _ref("Record")}},
                 "description": "after a connect with `since` behind: what happened meanwhile"},
    "WsError": {"type": "object", "required": ["type", "code", "message", "id"],
                "properties": {"type": {"const": "error"},
                               "code": {"type": "string", "enum": list(ERRORS)},
                               "message": {"type": "string"},
                               "id": _field({"type": ["string", "null"]},
                                            "the refused command's id"),
                               "retry_after": _field(
                                   {"type": "integer", "minimum": 1},
                                   "rate_limited only: seconds until a frame would be taken "
                                   "again (HTTP's Retry-After)")}},
    "WsPong": {"type": "object", "properties": {"type": {"const": "pong"}}},
    "WsTurnLimit": {
        "type": "object",
        "required": ["type", *TURN_LIMIT],
        "properties": {"type": {"const": "turn_limit"}, **TURN_LIMIT},
        "description": "to the seat whose decision the match waits for, and to the "
                       "match's spectators, after that view, when the room's turn_timeout "
                       "applies (a socket of the seat is open and another human is seated): "
                       "then a stand-in decides for it"},
}


def _body(schema: dict[str, Any]) -> dict[str, Any]:
    return {"required": False, "content": {"application/json": {"schema": schema}}}


RULES = {
    "type": "object",
    "properties": {
        "players": _field(PLAYERS, "4 (partners), 3 or 2: docs/api.md, \"The variants\""),
        "two_player": _field({"type": "string", "enum": ["simple", "talon"]},
                             "with players 2 only: the simple game (the default) or the "
                             "talon game"),
        "target": {"oneOf": [{"type": "integer", "enum": [7, 10]},
                             {"type": "string", "enum": ["2x7"]}]},
        "deal": _field({"type": "string", "enum": ["5-4-4", "5-3-3-2", "5-4-4-4", "talon"]},
                       "four and two (simple) players: 5-4-4 or 5-3-3-2; three: 5-4-4-4; "
                       "the talon game: talon"),
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
        "type": {"type": "string", "enum": ["play", "choose_trump", "discard", "draw_talon"]},
        "card": _field({"type": "string", "pattern": "^[AKQJT2-9][SHDC]$"}, "play"),
        "suit": _field({"type": "string", "enum": ["S", "H", "D", "C"]}, "choose_trump"),
        "cards": _field({"type": "array", "items": CARD, "minItems": 2, "maxItems": 3},
                        "discard (the talon game): the Hakem's 3 or the other player's 2"),
        "choice": _field({"type": "string", "enum": ["keep", "discard"]},
                         "draw_talon (the talon game): keep the talon's top card (and discard "
                         "the next) or discard it (and keep the next)"),
        "version": {"type": "integer", "minimum": 0},
        "id": {"type": "string", "minLength": 1, "maxLength": 64},
    },
}


WEBSOCKET = {
    "path": "/api/matches/{match_id}/ws?token=...&since=n",
    "description": "Follows one match as the token's seat (without a token: a spectator, the "
                   "public view). The server sends WsView on connect and after every change, "
                   "WsMissed after it when `since` is behind, WsTurnLimit to a seat whose "
                   "turn has a limit, WsError to the sender of a "
                   "refused command, WsPong to `{\"type\": \"ping\"}`. The client sends "
                   "Command objects, and the seat's player `{\"type\": \"more_time\"}` on "
                   "its own turn under a limit (once a turn; answered by WsTurnLimit with "
                   "`extended`, or a WsError: bad_request when asked twice, wrong_phase off "
                   "the seat's turn or with no limit running). A refused connection gets "
                   "a WsError, then the close "
                   "code 4400 (bad_request), 4401 (bad_token), 4404 (not_found), 4500 "
                   "(match_damaged: do not retry) or 1013 (unavailable, and a client too "
                   "slow to read: reconnect with `since`); "
                   "frames over 16 KiB close with 1009.",
    "server_messages": [_ref("WsView"), _ref("WsMissed"), _ref("WsError"), _ref("WsPong"),
                        _ref("WsTurnLimit")],
    "client_messages": [_ref("Command"), {"type": "object", "properties": {
        "type": {"const": "ping"}}}, {
        "type": "object", "required": ["type"], "additionalProperties": False,
        "properties": {"type": {"const": "more_time"},
                       "id": {"type": "string", "minLength": 1, "maxLength": 64}},
        "description": "the seat's player asks for more time on its own turn while its limit "
                       "runs: the deadline becomes now plus the room's full turn_timeout, "
                       "the seat is no longer hurried; once a turn"}],
    "close_codes": {"4400": "bad_request", "4401": "bad_token", "4404": "not_found",
                    "4500": "match_damaged: do not retry",
                    "1013": "unavailable or too slow: reconnect", "1009": "frame too large",
                    "1001": "silent for 150 s after pinging (a frozen tab): reconnect"},
}


def document() -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "Hokm gateway API", "version": "1",
                 "description": "Play Hokm: matches, seats, commands, live views, replays. "
                                "Errors: `{\"error\": {\"code\", \"message\"}}` with the "
                                "codes of `x-error-codes`. Live views: `x-websocket`."},
        "x-error-codes": {code: {"status": status, "description": text}
                          for code, (status, text) in ERRORS.items()},
        "x-websocket": WEBSOCKET,
        "components": {
            "securitySchemes": {"seat_token": {"type": "http", "scheme": "bearer"}},
            "schemas": {
                "Error": {"type": "object", "required": ["error"], "properties": {
                    "error": {"type": "object", "required": ["code", "message"], "properties": {
                        "code": {"type": "string", "enum": list(ERRORS)},
                        "message": {"type": "string"}}}}},
                "Rules": RULES,
                "Command": COMMAND,
                **SCHEMAS,
            },
        },
        "paths": {
            "/api/matches": {"post": {
                "summary": "Create a match; the caller takes the first human seat",
                "requestBody": _body({"type": "object", "additionalProperties": False,
                                      "properties": {
                    "players": _field(PLAYERS, "also rules.players (they must agree); "
                                               "default 4"),
                    "seats": {"type": "array", "items": {"type": "string",
                              "pattern": f"^(human|bot:({'|'.join(LEVELS)}))$"},
                              "minItems": 2, "maxItems": 4,
                              "description": "one per seat (`players` of them)"},
                    "rules": {"$ref": "#/components/schemas/Rules"},
                    "name": NAME,
                    "disconnect_timeout": _field(TIMEOUT, "seconds; default 60"),
                    "turn_timeout": _field({"oneOf": [{"type": "number", "enum": [0]},
                                                      {**TIMEOUT, "minimum": 1}]},
                                           "seconds, 0 (no limit) or 1 to 3600; default 90"),
                    "first_hakem": _field(SEAT_NO, "stacked-deck servers only"),
                    "decks": _field({"type": "array", "items": {"type": "array",
                                                                "items": CARD}},
                                    "stacked-deck servers only: one 52-card deck per round"),
                    "id": REQUEST_KEY,
                }}),
                "responses": {**_ok("created", _ref("Created"), code="201"),
                              **_errors("bad_request", "bad_rules", "too_large",
                                        "unsupported_media_type", "seat_left")},
            }},
            "/api/matches/{match_id}": {"get": {
                "summary": "Public summary: seats, phase, score, version",
                "parameters": [MATCH_ID],
                "responses": {**_ok("the summary", _ref("Summary")),
                              **_errors("bad_request", "not_found")},
            }},
            "/api/matches/{match_id}/join": {"post": {
                "summary": "Claim an open seat",
                "parameters": [MATCH_ID],
                "requestBody": _body({"type": "object", "additionalProperties": False,
                                      "properties": {"name": NAME,
                                                     "seat": {"type": "integer"},
                                                     "id": REQUEST_KEY}}),
                "responses": {**_ok("seat and token", _ref("Joined")),
                              **_errors("bad_request", "not_found", "seat_taken",
                                        "match_full", "match_over", "too_large",
                                        "unsupported_media_type", "seat_left")},
            }},
            "/api/matches/{match_id}/view": {"get": {
                "summary": "The seat's view", "parameters": [MATCH_ID], "security": TOKEN,
                "responses": {**_ok("version and view", _ref("VersionedView")),
                              **_errors("bad_request", "bad_token", "not_found")},
            }},
            "/api/matches/{match_id}/commands": {"post": {
                "summary": "Choose trump or play a card", "parameters": [MATCH_ID],
                "security": TOKEN, "requestBody": _body(COMMAND),
                "responses": {**_ok("version and view", _ref("VersionedView")),
                              **_errors("bad_request", "bad_token", "not_found",
                                        "stale_version", "not_your_turn", "illegal_card",
                                        "must_follow_suit", "must_trump", "wrong_phase",
                                        "match_over", "too_large", "unsupported_media_type")},
            }},
            "/api/matches/{match_id}/events": {"get": {
                "summary": "Records after a version, redacted for the caller",
                "parameters": [MATCH_ID, {"name": "since", "in": "query",
                                          "schema": {"type": "integer", "minimum": 0}}],
                "responses": {**_ok("records", _ref("Events")),
                              **_errors("bad_request", "bad_token", "not_found")},
            }},
            "/api/matches/{match_id}/seat": {"get": {
                "summary": "Whether the token holds a seat of the match now (and which)",
                "description": "200 either way: `{\"seat\": null}` for a token that holds "
                               "none (never this match's, or its seat given up), so a client "
                               "learns that a stored token is dead without an error. The seat "
                               "is not counted present.",
                "parameters": [MATCH_ID], "security": TOKEN,
                "responses": {**_ok("the seat or null", _ref("SeatHeld")),
                              **_errors("bad_request", "bad_token", "not_found")},
            }},
            "/api/matches/{match_id}/replay": {"get": {
                "summary": "The match at a step (every hand once the match is over)",
                "description": "Before the end only with a seat token: that seat's view. Once "
                               "the match is over, anyone; a token of one of its seats names "
                               "the seat (`view.seat`: whose replay it is), another is ignored.",
                "parameters": [MATCH_ID, {"name": "step", "in": "query",
                                          "schema": {"type": "integer", "minimum": 0},
                                          "description": "0 to steps; absent: the last "
                                                         "step (the match now)"}],
                "responses": {**_ok("step, steps, view", _ref("Replay")),
                              **_errors("bad_request", "bad_token", "not_found")},
            }},
            "/api/matches/{match_id}/hint": {"get": {
                "summary": "A suggestion for a learner (three decisions from `since`)",
                "parameters": [MATCH_ID, {"name": "since", "in": "query",
                                          "schema": {"type": "integer", "minimum": 0},
                                          "description": "the version hints were switched "
                                                         "on; absent: 0 (counted from the "
                                                         "match's start)"}],
                "security": TOKEN,
                "responses": {**_ok("suggestion, reason (with reason_code and reason_args), "
                                          "remaining", _ref("Hint")),
                              **_errors("bad_request", "bad_token", "not_found",
                                        "hints_exhausted", "not_your_turn")},
            }},
            "/api/matches/{match_id}/analysis": {"get": {
                "summary": "The post-match analysis (anyone, once the match is over; asking "
                           "starts it: 202 until every round is done)",
                "description": "Rounds not queued yet are queued only while fewer than 100 "
                               "analysis jobs wait: else 429 rate_limited with Retry-After 60 "
                               "(nothing queued; rounds already queued are never refused).",
                "parameters": [MATCH_ID],
                "responses": {**_ok("every round analysed", _ref("Analysis")),
                              **_ok("being computed", _ref("AnalysisPending"), "202"),
                              **_errors("bad_request", "not_found", "match_not_over")},
            }},
            "/api/matches/{match_id}/leave": {"post": {
                "summary": "Give up the seat (optionally to a bot)", "parameters": [MATCH_ID],
                "description": "A bot that would leave the match, still in play, to bots "
                               "alone takes a bots-only slot of the match's owner (429 "
                               "rate_limited with Retry-After 60 when none is free: nothing "
                               "changes); a seat left empty stops the match at its turn.",
                "security": TOKEN,
                "requestBody": _body({"type": "object", "additionalProperties": False,
                                      "properties": {"replace_with": {
                                          "type": "string",
                                          "pattern": f"^bot:({'|'.join(LEVELS)})$"}}}),
                "responses": {**_ok("left", {"type": "object", "required": ["left"],
                                             "additionalProperties": False, "properties": {
                                                 "left": {"const": True}}}),
                              **_errors("bad_request", "bad_token", "not_found",
                                        "match_over", "too_large", "unsupported_media_type")},
            }},
            "/api/matches/{match_id}/rematch": {"post": {
                "summary": "The next match of a finished one, for one of its players",
                "description": "The same rules, bots and room settings, a new deck and a new "
                               "ace draw. The first player to ask creates it (201, held to "
                               "the create limits); the others, and the same player asking "
                               "again, join it (200) at the seat they held at the end while "
                               "it is open; the summary of the finished match names it. "
                               "Each ask gives a new token; a player may ask 10 times in 10 "
                               "minutes (then 429 rate_limited with Retry-After).",
                "parameters": [MATCH_ID], "security": TOKEN,
                "responses": {**_ok("the rematch, and the caller's seat and token there",
                                    _ref("Created"), code="201"),
                              **_ok("the rematch (created before), and the caller's seat "
                                    "and token there", _ref("Created")),
                              **_errors("bad_request", "bad_token", "not_found",
                                        "match_not_over", "match_full", "seat_left",
                                        "rate_limited", "too_large",
                                        "unsupported_media_type")},
            }},
            "/api/matches/{match_id}/seats/{seat}/bot": {"post": {
                "summary": "Give an empty seat to a bot",
                "parameters": [MATCH_ID, {"name": "seat", "in": "path", "required": True,
                                          "schema": {"type": "integer", "minimum": 0,
                                                     "maximum": 3}}],
                "security": TOKEN,
                "requestBody": _body({"type": "object", "additionalProperties": False,
                                      "properties": {"level": {"type": "string",
                                                               "enum": list(LEVELS)}}}),
                "responses": {**_ok("the seat's bot", {
                    "type": "object", "required": ["seat", "bot"],
                    "additionalProperties": False,
                    "properties": {"seat": {"type": "integer", "minimum": 0},
                                   "bot": {"type": "string", "enum": list(LEVELS)}}}),
                              **_errors("bad_request", "bad_token", "not_found",
                                        "seat_taken", "wrong_phase", "match_over",
                                        "too_large", "unsupported_media_type")},
            }},
            "/api/matches/{match_id}/ws": {"get": {
                "summary": "WebSocket: live views of the match (see x-websocket)",
                "parameters": [MATCH_ID,
                               {"name": "token", "in": "query", "schema": {"type": "string"},
                                "description": "a seat token (none: spectate)"},
                               {"name": "since", "in": "query",
                                "schema": {"type": "integer", "minimum": 0},
                                "description": "the version the client holds: the records "
                                               "after it follow the first view"}],
                "responses": {"101": {"description": "switching protocols: frames as in "
                                                     "x-websocket"},
                              "400": {"description": "`bad_request`: asked as plain HTTP, "
                                                     "without the WebSocket upgrade",
                                      "content": {"application/json": {"schema": {
                                          "allOf": [ERROR, {"properties": {"error": {
                                              "properties": {"code": {
                                                  "enum": ["bad_request"]}}}}}]}}}}},
            }},
            "/healthz": {"get": {"summary": "Liveness", "responses": _ok("up")}},
            "/readyz": {"get": {"summary": "Readiness: the match store and the bot queue's "
                                           "Redis both answer",
                                "responses": {**_ok("ready", READY),
                                              "503": {"description": "not ready: the same "
                                                                     "object, `ok` false and "
                                                                     "`store` or `queue` "
                                                                     "false (`store` also "
                                                                     "while a primary lacks "
                                                                     "the replicas "
                                                                     "HOKM_REPLICA_ACKS "
                                                                     "waits for)",
                                                      "headers": {"Retry-After": {
                                                          "schema": {"type": "integer",
                                                                     "minimum": 1},
                                                          "description": "1"}}}}}},
            "/metrics": {"get": {
                "summary": "Prometheus metrics of this gateway (HOKM_METRICS=off: 404)",
                "responses": {
                    "200": {"description": "the text exposition format: requests by handler, "
                                           "status and code; commands by transport, type and "
                                           "outcome; sockets; the bot queues; the process",
                            "content": {"text/plain": {"schema": {"type": "string"}}}},
                    "404": {"description": "metrics are off on this server"}}}},
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
        # (a stylesheet of its own, not a <style>: the CSP refuses inline styles, headers.py)
        "<link rel=stylesheet href=/static/api-page.css><link rel=icon href=/static/icon.svg>"
        "<h1>Hokm API v1</h1><p>Machine-readable: <a href=/openapi.json>/openapi.json</a>. "
        "WebSocket: <code>/api/matches/{match_id}/ws?token=...&amp;since=n</code> sends "
        "<code>{\"type\":\"view\",\"version\",\"view\"}</code> after every change and accepts "
        "the command objects of <code>POST /commands</code>.</p>"
        f"<table><tr><th>method</th><th>path</th><th>what</th><th>auth</th></tr>"
        f"{''.join(rows)}</table></html>"
    )
