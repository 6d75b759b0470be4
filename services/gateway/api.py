"""HTTP handlers of API v1 (see docs/api.md).  Every refusal is a 4xx JSON error with a stable
code; the match service does the work in a thread so the event loop keeps serving sockets."""

from __future__ import annotations

import dataclasses
import logging
import math
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from engine import (
    ChooseTrump, Command, PlayCard, redact_event, view_for,
)
from engine.commands import Discard, DrawTalon
from engine.names import check_name
from engine.evolve import evolve
from engine.state import MATCH_OVER, State
from engine.views import TALON_CHOICES
from services.bots import LEVELS
from services.errors import (
    STATUS, BadToken, HintsExhausted, HokmError, InvalidCommand, NotFound, TooLarge,
    UnsupportedMediaType,
)
from services.lobby import DISCONNECT_TIMEOUT_S, stand_in_key
from services.matches import Loaded, MatchService, token_hash
from services.quotas import RetryLater, owner_of, retry_after
from services.turns import TURN_TIMEOUT_S

from . import commands, params
from .commands import Applied
from .hub import Hub
from .outage import UNREACHABLE, one_line
from .jsonbody import only_fields, parse_object
from .limits import Buckets
from .metrics import Metrics
from .offload import off_loop

log = logging.getLogger("hokm.gateway")
MAX_ID = 64
MAX_DISCARD = 13
"""A hand's worth: a longer list is refused unread; the engine checks the count (3 or 2)."""
HINT_DECISIONS = 3
PLAYERS_CACHED = 100_000


class Unavailable(HokmError):
    """The store (Redis) could not be reached; the request may have been done all the same (an
    append stored, then its answer lost): the client may retry, a command with the same id."""

    code = "unavailable"


def checked_id(data: dict[str, Any]) -> str | None:
    """The optional ``id`` of a command or a socket's ``more_time`` (echoed in its error):
    None if absent; ``InvalidCommand`` (``bad_request``) unless a string of 1 to ``MAX_ID``
    characters."""
    command_id = data.get("id")
    if command_id is not None and (not isinstance(command_id, str)
                                   or not 0 < len(command_id) <= MAX_ID):
        raise InvalidCommand(f"id must be a string of 1 to {MAX_ID} characters")
    return command_id


def json_media_type(header: str | None) -> None:
    """``unsupported_media_type`` (415) unless ``header`` (a request's ``Content-Type``) says
    ``application/json``, with no ``charset`` or ``utf-8`` (RFC 8259: JSON is UTF-8).  A body
    sent as ``text/plain`` or a form, or with no type at all, is refused unread: every client
    of the API declares its JSON, and only those types let another site's page post to the API
    without the browser asking the server first (a CORS "simple request")."""
    media, _, rest = (header or "").partition(";")
    if media.strip().lower() != "application/json":
        raise UnsupportedMediaType("send the body as JSON with 'Content-Type: application/json'")
    for parameter in rest.split(";"):
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset" and \
                value.strip().strip('"').lower() not in ("utf-8", "utf8"):
            raise UnsupportedMediaType("a JSON body is UTF-8 ('charset=utf-8' or none)")


def error_response(error: HokmError) -> JSONResponse:
    status = 503 if error.code == "unavailable" else STATUS.get(error.code, 400)
    # 429 and 503 say when to try again (RFC 9110 10.2.3): a limit that knows when it admits
    # the next request says so (``RetryLater``: the create window's end, a bucket's refill);
    # a restarting Redis is back in seconds.  Clients that honour it never hammer the server,
    # and one that will not wait that long knows to give up at once.
    headers = None
    if status in (429, 503) and error.code != "match_damaged":
        wait = error.retry_after_s if isinstance(error, RetryLater) else 1.0
        headers = {"Retry-After": retry_after(wait)}
    return JSONResponse({"error": error.to_dict()}, status_code=status, headers=headers)


class Api:
    """The handlers, bound to one process's service, hub and limits."""

    def __init__(self, service: MatchService, hub: Hub, *, max_body: int, rate_token: float,
                 rate_address: float, allow_stacked: bool,
                 advisor: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
                 metrics: Metrics | None = None, public_url: str | None = None) -> None:
        self.service = service
        self.public_url = public_url
        """Where invite links point (``Settings.public_url``); None: the request's host."""
        self.hub = hub
        self.max_body = max_body
        self.by_token = Buckets(rate_token, rate_token * 4)
        self.by_address = Buckets(rate_address, rate_address * 4)
        self.allow_stacked = allow_stacked
        self.advisor = advisor
        """The learners' hint of a view (handed in by the composition root)."""
        self.metrics = metrics or Metrics()
        self._players: OrderedDict[tuple[str, str], str] = OrderedDict()
        """(match id, token hash) -> player id of tokens already checked."""

    # -- helpers -----------------------------------------------------------------------------

    def check_address(self, request: Request) -> None:
        address = request.client.host if request.client else "?"
        if not self.by_address.allow(address):
            raise RetryLater("too many requests from this address; slow down",
                             self.by_address.wait_s(address))

    @staticmethod
    def owner(request: Request) -> str:
        """The quotas' owner of the client's address (``owner_of``)."""
        return owner_of(request.client.host if request.client else "?")

    async def body(self, request: Request) -> dict[str, Any]:
        declared = request.headers.get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_body):
            raise TooLarge(f"bodies are at most {self.max_body} bytes")
        raw = b""
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > self.max_body:
                raise TooLarge(f"bodies are at most {self.max_body} bytes")
        if not raw:
            return {}
        types = request.headers.getlist("content-type")
        json_media_type(types[0] if len(types) == 1 else None)
        coding = request.headers.get("content-encoding", "identity").strip().lower()
        if coding not in ("", "identity"):  # (RFC 9110 8.4: 415 for a coding not taken)
            raise UnsupportedMediaType("bodies are sent without a Content-Encoding")
        return parse_object(raw, "the body")

    async def token_body(self, request: Request, match_id: str,
                         allowed: set[str]) -> dict[str, Any]:
        """The body of a route that needs a seat token, with only the ``allowed`` fields.  A
        body refused (``bad_request``, ``too_large``) is told only to a caller whose token
        holds a seat: a missing or bad token is ``401 bad_token`` first, as on every route
        (api.md)."""
        try:
            data = await self.body(request)
            only_fields(data, allowed)
        except (InvalidCommand, TooLarge):
            await self.seat_of(request, match_id)
            raise
        return data

    def invite_url(self, request: Request, match_id: str) -> str:
        """The link that seats a friend at ``match_id``'s table."""
        if self.public_url is not None:
            return f"{self.public_url}{request.app.url_path_for('table', match_id=match_id)}"
        return str(request.url_for("table", match_id=match_id))

    @staticmethod
    def token_of(request: Request) -> str | None:
        given = request.headers.getlist("authorization")
        if len(given) > 1:  # which one a proxy or the server reads is anyone's guess
            raise BadToken("send one 'Authorization: Bearer <token>' header")
        header = given[0] if given else ""
        if header[:7].lower() == "bearer ":
            return header[7:].strip() or None
        return None

    def required_token(self, request: Request) -> str:
        token = self.token_of(request)
        if token is None:
            raise BadToken("send the seat token as 'Authorization: Bearer <token>'")
        return token

    async def seat_of(self, request: Request, match_id: str) -> tuple[int, str, Loaded]:
        token = self.required_token(request)
        return await off_loop(self.service.authenticate, match_id, token)

    def connected(self, match_id: str) -> tuple[bool, ...] | None:
        return self.hub.connected.get(match_id)

    # -- endpoints ---------------------------------------------------------------------------

    async def create(self, request: Request) -> Response:
        self.check_address(request)
        data = await self.body(request)
        only_fields(data, {"players", "seats", "rules", "name", "first_hakem", "decks",
                     "disconnect_timeout", "turn_timeout", "id"})
        players = data.get("players")
        if players is not None and type(players) is not int:
            raise InvalidCommand("players must be a whole number: 2, 3 or 4")
        rules = data.get("rules")
        if rules is not None and not isinstance(rules, dict):
            raise InvalidCommand("rules must be an object")
        # players beside the rules, inside them or both (the service refuses a disagreement)
        rules = {"players": players if players is not None else 4, **(rules or {})}
        seats = data.get("seats")
        if seats is not None and (not isinstance(seats, list)
                                  or not all(isinstance(s, str) for s in seats)):
            raise InvalidCommand("seats must be a list like [\"human\", \"bot:medium\", ...]")
        name = data.get("name", "Player")
        # the engine's rule (``TakeSeat``) before anything is stored: no orphan match
        check_name(name)
        first_hakem = data.get("first_hakem")  # a seat of the variant: checked by the service
        timeout = data.get("disconnect_timeout", DISCONNECT_TIMEOUT_S)
        turn_timeout = data.get("turn_timeout", TURN_TIMEOUT_S)
        for setting, value in (("disconnect_timeout", timeout), ("turn_timeout", turn_timeout)):
            if type(value) not in (int, float):
                raise InvalidCommand(f"{setting} must be a number of seconds")
        created = await off_loop(
            lambda: self.service.create(
                seats=seats, rules=rules, name=name, players=players,
                first_hakem=first_hakem, decks=data.get("decks"), disconnect_timeout=timeout,
                turn_timeout=turn_timeout,
                owner=self.owner(request), key=data.get("id"),
            )
        )
        created["invite_url"] = self.invite_url(request, created["match_id"])
        if created["seat"] is not None and timeout > 0:  # 0: never a stand-in, nobody away
            await self.seated(created["match_id"], created["seat"])
        return JSONResponse(created, status_code=201)

    async def join(self, request: Request) -> Response:
        self.check_address(request)
        match_id = params.match_id(request)
        data = await self.body(request)
        only_fields(data, {"name", "seat", "id"})
        name = data.get("name", "Player")
        seat = data.get("seat")
        if not isinstance(name, str) or (seat is not None and type(seat) is not int):
            raise InvalidCommand("join takes a name and optionally a seat number")
        # ``id``: the request key that makes a retry safe (``Lobby.join`` checks it)
        joined = await off_loop(
            lambda: self.service.join(match_id, name, seat, key=data.get("id")))
        if joined["seat"] is not None:
            await self.seated(match_id, joined["seat"], room_timeout=True)
        return JSONResponse(joined)

    async def rematch(self, request: Request) -> Response:
        """The next match of a finished one (``Lobby.rematch``), for the token's player: 201
        with the answer of a create when this request made it, 200 when it joined it."""
        self.check_address(request)
        match_id = params.match_id(request)
        await self.token_body(request, match_id, set())
        _, player, _ = await self.seat_of(request, match_id)
        answer, created = await off_loop(
            lambda: self.service.rematch(
                match_id, player, self.owner(request)))
        answer["invite_url"] = self.invite_url(request, answer["match_id"])
        await self.seated(answer["match_id"], answer["seat"], room_timeout=True)
        return JSONResponse(answer, status_code=201 if created else 200)

    async def seated(self, match_id: str, seat: int, *, room_timeout: bool = False) -> None:
        """A seat was given (its token is in the answer): away until a socket opens on it
        (``Presence.seated``), unless the room never substitutes (``disconnect_timeout`` 0:
        ``room_timeout`` reads it first; the away set is scanned by every worker's watchdog,
        so it holds no seat that can never be due).  The seat is stored already, so a store
        failing now is logged and the answer still goes out: the seat then counts as away
        once a socket has opened and closed on it."""
        try:
            if room_timeout and math.isinf(await off_loop(
                    self.service.disconnect_timeout, match_id)):
                return
            await self.hub.presence.seated(match_id, seat, self.service.cached(match_id))
        except UNREACHABLE as exc:
            log.warning("seat %d of %s not counted away (%s)", seat, match_id, one_line(exc))

    async def polled(self, match_id: str, seat: int) -> None:
        """The seat's player asked over HTTP (its view, a command): it is here, for the room's
        disconnect timeout from now (``Presence.polled``); a failure only loses that."""
        try:
            await self.hub.presence.polled(match_id, seat)
        except UNREACHABLE as exc:
            log.warning("seat %d of %s not counted present (%s)", seat, match_id,
                        one_line(exc))

    async def summary(self, request: Request) -> Response:
        self.check_address(request)
        match_id = params.match_id(request)
        loaded = await off_loop(self.service.load, match_id)
        state = loaded.state
        connected = await self.hub.read_presence(match_id, state.rules.players)
        view = view_for(state, None, loaded.version, connected)
        rematch = None
        held: set[int] = set()
        left = 0.0
        if state.phase == MATCH_OVER:  # the next match of its players, once one asked for it
            rematch = await off_loop(self.service.rematch_of, match_id)
        else:  # a rematch's open seats kept for the last match's players (REMATCH_HOLD_S)
            held, left = await off_loop(self.service.held_seats, match_id, None)
        seats = [{**seat, "held": bool(seat["empty"]) and i in held}
                 for i, seat in enumerate(view["seats"])]
        room = await self.hub.turns.room(match_id)
        return JSONResponse({
            **{key: view[key] for key in ("match_id", "players", "phase", "version", "score",
                                          "rules", "round", "winner", "target", "sets")},
            "seats": seats,
            "held_for": math.ceil(left) if any(s["held"] for s in seats) else 0,
            "rematch": rematch,
            "disconnect_timeout": _seconds(room.disconnect_timeout),
            "turn_timeout": _seconds(room.turn_timeout),
        })

    async def view(self, request: Request) -> Response:
        self.check_address(request)
        match_id = params.match_id(request)
        seat, _, loaded = await self.seat_of(request, match_id)  # the seat of that match
        if request.method == "GET":  # a HEAD (Starlette answers it on a GET route) only
            await self.polled(match_id, seat)  # checks the link: nobody is following the match
        self.hub.look_later(match_id, loaded)
        return await self.versioned_view(match_id, seat, loaded.state, loaded.version)

    @staticmethod
    def parse_command(data: dict[str, Any]) -> tuple[Command, int | None, str | None]:
        kind = data.get("type")
        if kind == "play":
            card = data.get("card")
            if not isinstance(card, str):
                raise InvalidCommand("a play command needs a card, e.g. \"QH\"")
            command: Command = PlayCard(card)
            allowed = {"type", "card", "version", "id"}
        elif kind == "choose_trump":
            suit = data.get("suit")
            if not isinstance(suit, str):
                raise InvalidCommand("choose_trump needs a suit: S, H, D or C")
            command = ChooseTrump(suit)
            allowed = {"type", "suit", "version", "id"}
        elif kind == "discard":  # the talon game: the count and the cards are the engine's
            cards = data.get("cards")
            if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards) \
                    or len(cards) > MAX_DISCARD:
                raise InvalidCommand("a discard command needs cards, e.g. [\"2C\", \"3D\"]")
            command = Discard(tuple(cards))
            allowed = {"type", "cards", "version", "id"}
        elif kind == "draw_talon":
            choice = data.get("choice")
            if choice not in TALON_CHOICES:
                raise InvalidCommand("draw_talon needs a choice: \"keep\" or \"discard\"")
            command = DrawTalon(choice == "keep")
            allowed = {"type", "choice", "version", "id"}
        else:
            raise InvalidCommand("type must be \"play\", \"choose_trump\", \"discard\" or "
                                 "\"draw_talon\"")
        only_fields(data, allowed)
        version = data.get("version")
        if version is not None and (type(version) is not int or version < 0):
            raise InvalidCommand("version must be a non-negative integer")
        return command, version, checked_id(data)

    async def run_command(self, match_id: str, token: str | None, data: dict[str, Any],
                          player: str | None = None, *, transport: str = "http") -> Applied:
        """Authenticate, rate-limit and apply one command, and count its outcome
        (``metrics.py``).  Shared by the HTTP endpoint and the WebSocket (``transport="ws"``,
        which passes the ``player`` its token was authenticated as on connect)."""
        try:
            applied = await self._run_command(match_id, token, data, player)
        except HokmError as refusal:
            self.metrics.command(transport, data.get("type"), refusal.code)
            raise
        except Exception as exc:
            outcome = Unavailable.code if isinstance(exc, UNREACHABLE) else "error"
            self.metrics.command(transport, data.get("type"), outcome)
            raise
        self.metrics.command(transport, data.get("type"),
                             "duplicate" if applied.duplicate else "applied")
        return applied

    async def _run_command(self, match_id: str, token: str | None, data: dict[str, Any],
                           player: str | None) -> Applied:
        if token is None:
            raise BadToken("commands need a seat token")
        if len(token) > params.MAX_TOKEN:  # no token is: never a bucket of its own (memory)
            raise BadToken("this token does not belong to a seat of this match")
        if not self.by_token.allow(token):
            raise RetryLater("too many commands; slow down", self.by_token.wait_s(token))
        command, version, client_id = self.parse_command(data)
        if player is None:
            player = self._players.get((match_id, token_hash(token)))
        applied = await commands.run(self.service, self.hub, self.hub.store, match_id, token,
                                     player, command, version, client_id)
        self.remember_player(match_id, token, applied.player)
        return applied

    def remember_player(self, match_id: str, token: str, player: str) -> None:
        """Cache a checked token's player id.  A token that stops working (its player left) is
        caught all the same: the player then has no seat in the state, and the command takes
        the full path, which refuses it."""
        key = (match_id, token_hash(token))
        self._players[key] = player
        self._players.move_to_end(key)
        while len(self._players) > PLAYERS_CACHED:
            self._players.popitem(last=False)

    async def command(self, request: Request) -> Response:
        self.check_address(request)
        match_id = params.match_id(request)
        token = self.token_of(request)
        try:
            data = await self.body(request)
            applied = await self.run_command(match_id, token, data)
        except (InvalidCommand, TooLarge):  # a bad token is told before a bad body, as on
            # every route
            await self.seat_of(request, match_id)
            raise
        seat = MatchService.seat_of_player(applied.state, applied.player)
        here = seat
        if applied.duplicate:  # the original's version: its player may have left since
            latest = self.service.cached(match_id)
            here = None if latest is None else MatchService.seat_of_player(latest.state,
                                                                            applied.player)
        if here is not None:
            await self.polled(match_id, here)
        return await self.versioned_view(match_id, seat, applied.state, applied.version)

    async def versioned_view(self, match_id: str, seat: int | None, state: State,
                             version: int) -> Response:
        """The answer of ``GET /view`` and of a command: the seat's view of the match at
        ``version`` and, while a turn limit runs for it, ``turn_limit`` (api.md)."""
        answer: dict[str, Any] = {"version": version,
                                  "view": view_for(state, seat, version,
                                                   self.connected(match_id))}
        try:
            limit = await self.hub.turns.answer(match_id, seat, state, version)
        except UNREACHABLE as exc:  # the view is the answer; its limit is the socket's to tell
            log.warning("the turn limit of %s not read (%s)", match_id, one_line(exc))
            limit = None
        if limit is not None:
            answer["turn_limit"] = limit
        return JSONResponse(answer)

    def redacted_records(self, match_id: str, seat: int | None, since: int,
                         upto: int | None = None) -> tuple[int, list[dict[str, Any]]]:
        """The records after ``since`` (up to ``upto``) with every event redacted for ``seat``
        (everything shown once the match is over), and the last version read."""
        records = self.service.records(match_id, upto)
        if not records:
            raise NotFound("no such match")
        over = any(e.TYPE == "match_ended" for r in records for e in r.events)
        out = []
        state = State()
        for record in records:
            redacted = []
            for event in record.events:
                if record.version > since:
                    redacted.append(redact_event(state, event, seat, reveal=over))
                state = evolve(state, event)
            if record.version > since:
                out.append({"version": record.version, "actor": record.actor,
                            "events": redacted,
                            "stand_in": record.command_id == stand_in_key(record.version)})
        return records[-1].version, out

    async def events(self, request: Request) -> Response:
        self.check_address(request)
        match_id = params.match_id(request)
        since = params.int_query(request, "since", 0)
        seat: int | None = None
        upto: int | None = None
        if self.token_of(request) is not None:
            # the records up to the match the seat was found in (a later record could move
            # the player to another seat: the ace draw's swap)
            seat, _, loaded = await self.seat_of(request, match_id)
            upto = loaded.version
        version, out = await off_loop(self.redacted_records, match_id, seat, since,
                                               upto)
        return JSONResponse({"version": version, "events": out})

    async def seat(self, request: Request) -> Response:
        """``{"seat": n}``: the seat the request's token holds in the match now, or ``{"seat":
        null}`` when it holds none (never given by this match, or given up), so a client learns
        that a stored token is dead without an error (the browser logs every 4xx it meets).  A
        missing or malformed ``Authorization`` is ``bad_token`` as on every route; no match is
        ``not_found``.  Nothing is shown but whether the token is a seat's, which every token
        route tells, and the seat is not counted present (a stand-in is not kept away)."""
        self.check_address(request)
        match_id = params.match_id(request)
        token = self.required_token(request)
        held = await off_loop(self.service.seat_held, match_id, token)
        return JSONResponse({"seat": held})

    async def replay(self, request: Request) -> Response:
        self.check_address(request)
        match_id = params.match_id(request)
        loaded = await off_loop(self.service.load, match_id)
        steps = loaded.version
        step = params.int_query(request, "step", steps)
        if not 0 <= step <= steps:
            raise InvalidCommand(f"step is 0 to {steps}")
        over = loaded.state.phase == MATCH_OVER
        seat: int | None = None
        if not over:
            seat, _, _ = await self.seat_of(request, match_id)
        elif self.token_of(request) is not None:
            # every card is shown to anyone now; a token of one of the match's seats only says
            # whose replay it is (the page's point of view: its tally first, the analysis graph
            # from its side).  A token that holds no seat (given up, another match's) is
            # nobody's, as no token is: the replay of a finished match refuses no one.
            try:
                seat, _, _ = await self.seat_of(request, match_id)
            except BadToken:
                seat = None
        records = await off_loop(self.service.store.read, match_id, 0, step)
        # step 0, before the match's first record, is its own table empty (its rules, public
        # in its summary): a default State was a match of four, two teams, whatever the game
        state = State(loaded.state.rules)
        # (its id too: the empty state's is "", and a viewer heading its step 0 showed none)
        state = state.replace(match=dataclasses.replace(state.match, match_id=match_id))
        last_events: list[dict[str, Any]] = []
        for record in records:
            last_events = []
            for event in record.events:
                last_events.append(redact_event(state, event, seat, reveal=over))
                state = evolve(state, event)
        return JSONResponse({"step": step, "steps": steps,
                             "view": view_for(state, seat, step, reveal=over),
                             "events": last_events})

    async def hint(self, request: Request) -> Response:
        self.check_address(request)
        match_id = params.match_id(request)
        seat, _, loaded = await self.seat_of(request, match_id)  # the seat of that match
        since = params.int_query(request, "since", 0)
        if since > loaded.version:
            # rules.md: hints accompany three decisions from the moment they were switched
            # on, which cannot be later than now (a future version would count nothing)
            raise InvalidCommand(f"since is the version hints were switched on: at most "
                                 f"{loaded.version}")
        records = await off_loop(self.service.store.read, match_id, since)
        used = sum(1 for r in records if r.actor == seat)
        if used >= HINT_DECISIONS:
            raise HintsExhausted("hints accompany three decisions; restart them for more")
        view = view_for(loaded.state, seat, loaded.version)
        if not view["legal"]:
            raise HokmError("there is nothing for you to decide now", "not_your_turn")
        if self.advisor is None:
            raise Unavailable("hints are not available on this server")
        advice = await off_loop(self.advisor, view)
        return JSONResponse({**advice, "remaining": HINT_DECISIONS - used - 1})

    async def leave(self, request: Request) -> Response:
        self.check_address(request)
        match_id = params.match_id(request)
        data = await self.token_body(request, match_id, {"replace_with"})
        token = self.required_token(request)
        replace_with = data.get("replace_with")
        await off_loop(self.service.leave, match_id, token, replace_with,
                                self.owner(request))
        return JSONResponse({"left": True})

    async def seat_bot(self, request: Request) -> Response:
        self.check_address(request)
        match_id = params.match_id(request)
        data = await self.token_body(request, match_id, {"level"})
        token = self.required_token(request)
        seat = params.int_path(request, "seat")
        level = data.get("level", "medium")
        if not isinstance(level, str):
            raise InvalidCommand(f"level is one of {', '.join(LEVELS)}")
        await off_loop(self.service.give_to_bot, match_id, token, seat, level,
                                self.owner(request))
        return JSONResponse({"seat": seat, "bot": level})


def _seconds(value: float) -> int | float:
    """A room's setting as the summary tells it: a whole number of seconds as an integer, the
    same before and after a restart whatever number type the creator sent (60.0, -0.0)."""
    return int(value) if float(value).is_integer() else float(value)
