"""The HTTP half of API v1: :class:`Client` (blocking) and :class:`AsyncClient` (asyncio).

Both have the same methods with the same arguments; each returns the API's JSON answer as a
``dict`` (``docs/api.md`` lists every field), the async one as an awaitable.  A refusal raises
:class:`~hokmclient.errors.ApiError` with the API's code.

Retries (contract):

* ``429 rate_limited`` and ``503 unavailable`` did nothing on the server: every request is sent
  again after its ``Retry-After`` (at most ``retries`` times, then the error is raised), unless
  ``Retry-After`` is longer than the longest pause the library makes (:data:`MAX_BACKOFF_S`):
  a limit that lasts (the matches created per address in a window of minutes) is raised at
  once, with ``retry_after``, for the caller to wait out or give up;
* a ``503`` or a broken connection may or may not have applied the request: only requests that
  are safe to repeat are sent again after a broken connection: reads (GET), commands, which
  always carry a command ``id`` (the server answers a repeated id with the original answer and
  applies it once), and creates and joins, which always carry a request key ``id`` (the same
  for every try of one call: a retry gets the first try's match, seat and token); a request
  that timed out (a server that took the connection and did not answer in ``timeout``
  seconds) is sent again once only, so such a server holds the caller about twice
  ``timeout``, not ``retries`` times (``hokm play`` waited 148 s: an audit's finding);
* nothing else is retried: ``stale_version`` and the other refusals are the caller's to handle.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import httpx

from .errors import ApiError, NetworkError, NotHokm
from .links import parse_link

JSON = dict[str, Any]
R = TypeVar("R")
DEFAULT_RETRIES = 8
DEFAULT_TIMEOUT = 15.0
TIMED_OUT = "timed out"
"""The ``reason`` of a ``NetworkError`` whose request had no answer in time."""
MAX_BACKOFF_S = 5.0


def command_id() -> str:
    """A fresh command id (``c-`` and 16 hex digits): a command sent again with the same id
    is applied once."""
    return "c-" + secrets.token_hex(8)


def request_key() -> str:
    """A fresh request key of a create or a join (24 random base64url characters): every try
    of one call sends the same key, so a retry after a lost answer gets the seat the first try
    took (api.md) instead of taking another."""
    return secrets.token_urlsafe(18)


Choice = str | Sequence[str]
"""A decision: a card, a suit, ``keep`` / ``discard`` (the talon), or the cards to lay aside
(the talon game's discard: a sequence of cards, or one string of them separated by spaces)."""


def _cards(choice: Choice) -> list[str]:
    return choice.split() if isinstance(choice, str) else list(choice)


def command(kind: str, choice: Choice, version: int | None = None, cid: str | None = None
            ) -> JSON:
    """The command object of ``docs/api.md``: ``kind`` is ``play`` (``choice`` a card),
    ``choose_trump`` (a suit), ``discard`` (the cards to lay aside, the talon game) or
    ``draw_talon`` (``keep`` or ``discard`` the talon's top card); ``version`` the version
    decided on (None: apply if legal); ``cid`` the command id (a fresh one if None)."""
    body: JSON
    if kind == "discard":
        body = {"type": "discard", "cards": _cards(choice)}
    elif not isinstance(choice, str):
        raise ValueError(f"a {kind} command takes one choice, not a list")
    elif kind == "play":
        body = {"type": "play", "card": choice}
    elif kind == "choose_trump":
        body = {"type": "choose_trump", "suit": choice}
    elif kind == "draw_talon":
        body = {"type": "draw_talon", "choice": choice}
    else:
        raise ValueError(f"no such command: {kind!r}")
    if version is not None:
        body["version"] = version
    body["id"] = cid or command_id()
    return body


KIND_OF_PHASE = {"choosing_trump": "choose_trump", "discarding": "discard",
                 "drawing": "draw_talon", "playing": "play"}
"""The command that makes a decision in each phase that waits for one."""


def command_for(view: JSON, choice: Choice, cid: str | None = None) -> JSON:
    """The command that makes ``choice`` (a suit while choosing trump, the cards to lay aside
    while discarding, ``keep`` or ``discard`` while drawing, else a card) in the situation of
    ``view``, at that view's version."""
    kind = KIND_OF_PHASE.get(str(view.get("phase")), "play")
    return command(kind, choice, view.get("version"), cid)


@dataclass(frozen=True)
class Call:
    """One request: what :class:`Client` and :class:`AsyncClient` send."""

    method: str
    path: str
    body: JSON | None = None
    token: str | None = None
    params: dict[str, int] = field(default_factory=dict)
    repeatable: bool = False
    """Safe to send again after a broken connection (reads, commands with an id)."""


def _answer(response: httpx.Response) -> JSON:
    """The JSON of a 2xx answer, or the API's refusal raised."""
    try:
        data = response.json()
    except ValueError:
        data = None
    if response.is_success and isinstance(data, dict):
        return data
    error = data.get("error") if isinstance(data, dict) else None
    retry = response.headers.get("Retry-After")
    try:
        retry_after = float(retry) if retry is not None else None
    except ValueError:
        retry_after = None
    if isinstance(error, dict) and isinstance(error.get("code"), str):
        raise ApiError(error["code"], str(error.get("message", "")), response.status_code,
                       retry_after)
    # not the API's own answer: the gateway's plain-text limits and a proxy's passing states
    # keep their meaning (and their retries); anything else is another server
    code = PLAIN_ANSWERS.get(response.status_code)
    if code is None:
        raise NotHokm(response.status_code, response.reason_phrase)
    raise ApiError(code, f"HTTP {response.status_code} {response.reason_phrase}".strip(),
                   response.status_code, retry_after)


PLAIN_ANSWERS = {429: "rate_limited", 500: "unavailable", 502: "unavailable",
                 503: "unavailable", 504: "unavailable", 408: "bad_request", 413: "too_large",
                 414: "bad_request", 431: "bad_request"}
"""What an answer without the API's JSON means, by status: the gateway's own limits answer
in plain text (a connection over the cap 503, a slow request 408, a long head 414/431), a
proxy may answer 429, 502 to 504 or 413 while the gateway restarts or a body is too large,
and a bug's 500 is Starlette's text.  Any other status without the JSON is not from a Hokm
gateway (``NotHokm``): a 404 or a web page at a wrong address, another server's 501."""


def retry_pause(error: ApiError, attempt: int) -> float:
    """Seconds to wait before attempt ``attempt + 1``."""
    if error.retry_after is not None:
        return float(min(error.retry_after, MAX_BACKOFF_S))
    return float(min(0.05 * 2.0 ** attempt, MAX_BACKOFF_S))


def should_retry(error: ApiError, call: Call, attempt: int, retries: int) -> bool:
    """Is ``call``, refused or broken with ``error`` at attempt ``attempt``, sent again (the
    module docstring's rules)?"""
    if attempt >= retries:
        return False
    if isinstance(error, NetworkError):
        return call.repeatable and (attempt < 1 or error.reason != TIMED_OUT)
    # a Retry-After past the longest backoff is a limit that lasts: sleeping a few seconds and
    # asking again would only be refused again (and use up the attempts), so raise at once
    return error.retryable and (error.retry_after is None or error.retry_after <= MAX_BACKOFF_S)


class _Calls(Generic[R]):
    """The API's operations, each a :class:`Call` run by the subclass's ``_run``."""

    base: str

    def _run(self, call: Call) -> R:
        raise NotImplementedError

    # -- matches ---------------------------------------------------------------------------

    def create(self, *, seats: list[str] | None = None, rules: JSON | None = None,
               name: str | None = None, players: int | None = None,
               disconnect_timeout: float | None = None, turn_timeout: float | None = None,
               **extra: Any) -> R:
        """``POST /api/matches``: ``{"match_id", "seat", "token", "invite_url", "player"}``.
        ``seats`` per seat ``"human"`` or ``"bot:<level>"`` (the caller takes the first human
        seat); ``players`` (2, 3 or 4) here, in ``rules`` or both (then they must agree;
        neither: 4); ``disconnect_timeout`` and ``turn_timeout`` the room's limits (seconds, 0:
        none; unset: the server's defaults); ``extra`` passes other fields (``first_hakem``,
        ``decks``: stacked-deck servers only; ``id``: the request key, a fresh one if not
        given)."""
        body: JSON = {"id": request_key(), **extra}
        for key, value in (("seats", seats), ("rules", rules), ("name", name),
                           ("players", players), ("disconnect_timeout", disconnect_timeout),
                           ("turn_timeout", turn_timeout)):
            if value is not None:
                body[key] = value
        return self._run(Call("POST", "/api/matches", body, repeatable=True))

    def join(self, match_id: str, *, name: str | None = None, seat: int | None = None,
             key: str | None = None) -> R:
        """``POST /api/matches/{id}/join``: ``{"seat", "token", "player"}``; ``key``: the
        request key (a fresh one if not given)."""
        body: JSON = {"id": key or request_key()}
        if name is not None:
            body["name"] = name
        if seat is not None:
            body["seat"] = seat
        return self._run(Call("POST", f"/api/matches/{match_id}/join", body, repeatable=True))

    def summary(self, match_id: str) -> R:
        """``GET /api/matches/{id}``: the public summary."""
        return self._run(Call("GET", f"/api/matches/{match_id}", repeatable=True))

    def view(self, match_id: str, token: str) -> R:
        """``GET /api/matches/{id}/view``: ``{"version", "view"}`` (and ``turn_limit`` while
        the room's turn limit runs for the seat's turn: api.md)."""
        return self._run(Call("GET", f"/api/matches/{match_id}/view", token=token,
                              repeatable=True))

    def command(self, match_id: str, token: str, body: JSON) -> R:
        """``POST /api/matches/{id}/commands`` with ``body`` (see :func:`command`; an ``id``
        is added if missing, so the command is retried safely): ``{"version", "view"}``."""
        if "id" not in body:
            body = {**body, "id": command_id()}
        return self._run(Call("POST", f"/api/matches/{match_id}/commands", body, token,
                              repeatable=True))

    def play(self, match_id: str, token: str, card: str, version: int | None = None) -> R:
        """Play ``card`` (at ``version``, if given)."""
        return self.command(match_id, token, command("play", card, version))

    def choose_trump(self, match_id: str, token: str, suit: str,
                     version: int | None = None) -> R:
        """Name ``suit`` trump (the Hakem only)."""
        return self.command(match_id, token, command("choose_trump", suit, version))

    def events(self, match_id: str, since: int = 0, token: str | None = None) -> R:
        """``GET /api/matches/{id}/events?since=n``: ``{"version", "events": [records]}``,
        redacted for the token's seat (the public redaction without one)."""
        return self._run(Call("GET", f"/api/matches/{match_id}/events", token=token,
                              params={"since": since}, repeatable=True))

    def replay(self, match_id: str, step: int, token: str | None = None) -> R:
        """``GET /api/matches/{id}/replay?step=k``: ``{"step", "steps", "view", "events"}``."""
        return self._run(Call("GET", f"/api/matches/{match_id}/replay", token=token,
                              params={"step": step}, repeatable=True))

    def hint(self, match_id: str, token: str, since: int) -> R:
        """``GET /api/matches/{id}/hint?since=v``: ``{"suggestion", "reason", "reason_code",
        "reason_args", "remaining"}``."""
        return self._run(Call("GET", f"/api/matches/{match_id}/hint", token=token,
                              params={"since": since}, repeatable=True))

    def analysis(self, match_id: str) -> R:
        """``GET /api/matches/{id}/analysis``: the post-match analysis of a finished match
        (anyone may ask; asking starts it): ``{"status": "pending", "rounds", "done"}`` (202)
        until every round is analysed, then ``{"status": "done", "match", "rounds",
        "seats"}``; ``match_not_over`` before the end."""
        return self._run(Call("GET", f"/api/matches/{match_id}/analysis", repeatable=True))

    def leave(self, match_id: str, token: str, replace_with: str | None = None) -> R:
        """``POST /api/matches/{id}/leave``: frees the seat, or hands it to ``bot:<level>``."""
        body = {} if replace_with is None else {"replace_with": replace_with}
        return self._run(Call("POST", f"/api/matches/{match_id}/leave", body, token))

    def seat_bot(self, match_id: str, token: str, seat: int, level: str = "medium") -> R:
        """``POST /api/matches/{id}/seats/{seat}/bot``: give an empty seat to a bot."""
        return self._run(Call("POST", f"/api/matches/{match_id}/seats/{seat}/bot",
                              {"level": level}, token))

    def rematch(self, match_id: str, token: str) -> R:
        """``POST /api/matches/{id}/rematch``: the next match of a finished one, as ``create``
        answers (the first asker creates it, the others join it; asking again is safe)."""
        return self._run(Call("POST", f"/api/matches/{match_id}/rematch", {}, token,
                              repeatable=True))

    def request(self, method: str, path: str, body: JSON | None = None,
                token: str | None = None, **params: int) -> R:
        """Any request of the API (``path`` from ``/api/...``), with the same error and retry
        rules (a GET is repeatable)."""
        return self._run(Call(method, path, body, token, params, repeatable=method == "GET"))

    def ready(self) -> R:
        """``GET /readyz``: ``{"ok": ...}`` when the server and its store answer."""
        return self._run(Call("GET", "/readyz", repeatable=True))


def _request_args(call: Call) -> dict[str, Any]:
    headers = {"Accept": "application/json"}
    if call.token:
        headers["Authorization"] = f"Bearer {call.token}"
    args: dict[str, Any] = {"headers": headers}
    if call.params:
        args["params"] = call.params
    if call.body is not None:
        args["content"] = json.dumps(call.body)
        headers["Content-Type"] = "application/json"
    return args


def _unreachable(call: Call, exc: httpx.TransportError, base: str) -> NetworkError:
    """The ``NetworkError`` of ``call`` to the server at ``base`` failing with ``exc``, naming
    the address it could not reach (a bot's one line, ``bot.py: network: POST
    http://host:port/api/...: ...``, tells which server to check) and why: a timeout says so,
    whatever its text (an asyncio timeout's is empty, a blocking one's "timed out"), and an
    exception without a text is named by its class (an exception is true even when its text
    is empty, so ``exc or ...`` printed nothing)."""
    reason = TIMED_OUT if isinstance(exc, httpx.TimeoutException) else (
        str(exc) or type(exc).__name__)
    return NetworkError(f"{call.method} {base.rstrip('/')}{call.path}: {reason}", reason)


class Client(_Calls[JSON]):
    """The blocking client of the server at ``base`` (``http://host:port``, or any link to it).

    ``http`` may be an ``httpx.Client`` of the caller's (for instance Starlette's
    ``TestClient``, an ``httpx.Client`` over an app in the same process); the client then
    sends relative paths through it.  ``retries`` bounds the retries described in the module
    docstring (0: none)."""

    def __init__(self, base: str = "", *, http: httpx.Client | None = None,
                 retries: int = DEFAULT_RETRIES, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.base = parse_link(base).base if base else ""
        self.retries = retries
        self._own = http is None
        self.http = http or httpx.Client(base_url=self.base, timeout=timeout)

    def _run(self, call: Call) -> JSON:
        attempt = 0
        while True:
            try:
                try:
                    response = self.http.request(call.method, call.path, **_request_args(call))
                except httpx.TransportError as exc:
                    raise _unreachable(call, exc, str(self.http.base_url)) from exc
                return _answer(response)
            except ApiError as error:
                if not should_retry(error, call, attempt, self.retries):
                    raise
                time.sleep(retry_pause(error, attempt))  # backoff before a retry, not a wait
                attempt += 1

    def close(self) -> None:
        if self._own:
            self.http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncClient(_Calls[Awaitable[JSON]]):
    """The asyncio client: the methods of :class:`Client`, awaited."""

    def __init__(self, base: str = "", *, http: httpx.AsyncClient | None = None,
                 retries: int = DEFAULT_RETRIES, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.base = parse_link(base).base if base else ""
        self.retries = retries
        self._own = http is None
        self.http = http or httpx.AsyncClient(base_url=self.base, timeout=timeout)

    async def _send(self, call: Call) -> JSON:
        attempt = 0
        while True:
            try:
                try:
                    response = await self.http.request(call.method, call.path,
                                                       **_request_args(call))
                except httpx.TransportError as exc:
                    raise _unreachable(call, exc, str(self.http.base_url)) from exc
                return _answer(response)
            except ApiError as error:
                if not should_retry(error, call, attempt, self.retries):
                    raise
                await asyncio.sleep(retry_pause(error, attempt))
                attempt += 1

    def _run(self, call: Call) -> Awaitable[JSON]:
        return self._send(call)

    async def aclose(self) -> None:
        if self._own:
            await self.http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
