"""The gateway's HTTP server: uvicorn with limits on what one connection may cost.

uvicorn (with httptools) sets no limit on a request's head and no deadline for receiving it:
an 8 MB header was accepted, and connections trickling bytes stayed open for good.  The
protocol classes here are uvicorn's own with guards added (``ConnectionLimits``):

* the request line (``max_url``), the number of header lines (``max_headers``) and the bytes of
  the head (``max_head``) are bounded: beyond them the answer is ``414`` or ``431`` and the
  connection is closed;
* a request must arrive whole, head and body, within ``request_timeout_s`` of its first byte
  (or of the connection's opening): otherwise ``408`` and close (slow trickling clients);
* between requests uvicorn's keep-alive timeout (``keep_alive_s``) closes idle connections;
* one client address holds at most ``per_address`` connections at once (HTTP and WebSocket
  alike; a WebSocket counts until it closes).  Addresses of trusted proxies are exempt: the
  proxy multiplexes many clients and limits them itself (deploy/README.md).

A WebSocket's upgrade request is an HTTP request like any other, so the same head limits and
deadline hold for the handshake; afterwards uvicorn's pings (``ws_ping_interval`` and
``ws_ping_timeout``) close a connection whose peer stopped answering.

``RedactTokens`` is a logging filter on every handler: no log line, at any level, shows a seat
token (``?token=`` in a WebSocket URL, ``Authorization: Bearer``) or a WebSocket frame's
content (which may name a seat's cards).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import re
import signal
import socket
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httptools
import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from services.settings import Settings

from .headers import HEADERS


@dataclass(frozen=True, slots=True)
class ConnectionLimits:
    max_url: int = 4096
    """Bytes of the request target (path and query)."""
    max_headers: int = 64
    """Header lines of one request."""
    max_head: int = 16 * 1024
    """Bytes of a request's head (request line and headers)."""
    request_timeout_s: float = 10.0
    """A request (head and body) must arrive whole within this time."""
    keep_alive_s: float = 5.0
    """An idle connection between requests is closed after this."""
    per_address: int = 64
    """Connections open at once from one client address (0: no limit)."""
    exempt: tuple[str, ...] = ()
    """Addresses (or networks) not limited per address: the trusted proxies."""


_STATUS = {400: b"Bad Request", 408: b"Request Timeout", 414: b"URI Too Long",
           431: b"Request Header Fields Too Large", 503: b"Service Unavailable"}


_SECURITY = b"".join(b"%s: %s\r\n" % header for header in HEADERS)
"""The security headers of every answer (``headers.py``), on the answers the server writes
itself too."""


class _Refused(Exception):
    """Raised inside a parser callback to stop parsing a request that broke a limit."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class _Addresses:
    """Open connections per client address, shared by the HTTP and WebSocket protocols of one
    server."""

    def __init__(self, limits: ConnectionLimits) -> None:
        self.limit = limits.per_address
        self.open: dict[str, int] = {}
        self._exempt_hosts = {h for h in limits.exempt if "/" not in h}
        self._exempt_nets = [ipaddress.ip_network(h, strict=False)
                             for h in limits.exempt if "/" in h]

    def exempt(self, host: str) -> bool:
        if host in self._exempt_hosts or "*" in self._exempt_hosts:
            return True
        if not self._exempt_nets:
            return False
        try:
            ip = ipaddress.ip_address(host)
        except ValueError:
            return False
        return any(ip in net for net in self._exempt_nets)

    def take(self, host: str | None) -> bool:
        """Count a new connection from ``host``; False if it is one too many (not counted)."""
        if host is None or self.limit <= 0 or self.exempt(host):
            return True
        count = self.open.get(host, 0)
        if count >= self.limit:
            return False
        self.open[host] = count + 1
        return True

    def release(self, host: str | None) -> None:
        if host is None or host not in self.open:
            return
        count = self.open[host] - 1
        if count <= 0:
            del self.open[host]
        else:
            self.open[host] = count


def protocols(limits: ConnectionLimits) -> tuple[type[asyncio.Protocol], type[asyncio.Protocol]]:
    """The HTTP and WebSocket protocol classes of one server, sharing one address count."""
    addresses = _Addresses(limits)

    class GuardedWebSocket(WebSocketsSansIOProtocol):
        """uvicorn's WebSocket protocol; the connection's address count ends with it."""

        counted: str | None = None

        def connection_lost(self, exc: Exception | None) -> None:
            addresses.release(self.counted)
            self.counted = None
            super().connection_lost(exc)

    class GuardedHttp(HttpToolsProtocol):
        """uvicorn's httptools protocol with the limits of ``ConnectionLimits``."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.counted: str | None = None
            self.head_bytes = 0
            """Bytes of the head read so far, counted as they arrive (``data_received``)."""
            self.head_tail = b""
            """The last bytes of the head read so far: the end of the head may be split."""
            self.head_parsed = 0
            """Bytes of the head the parser has handed over (the target and the headers):
            counts the heads that arrive behind another request in one read."""
            self.in_head = True
            self.header_count = 0
            self.deadline: asyncio.TimerHandle | None = None
            self.upgraded = False

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            host = self.client[0] if self.client else None
            if not addresses.take(host):
                self._refuse(503, "too many connections from this address")
                return
            self.counted = host
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            if not self.upgraded:
                addresses.release(self.counted)
                self.counted = None
            super().connection_lost(exc)

        def _arm(self) -> None:
            self._disarm()
            self.deadline = self.loop.call_later(limits.request_timeout_s, self._too_slow)

        def _disarm(self) -> None:
            if self.deadline is not None:
                self.deadline.cancel()
                self.deadline = None

        def _too_slow(self) -> None:
            self.deadline = None
            if self.transport.is_closing():
                return
            if self.cycle is not None and self.cycle.response_started:
                self.transport.close()  # too late for a status: just close
            else:
                self._refuse(408, "the request did not arrive in time")

        def _refuse(self, status: int, text: str) -> None:
            self._disarm()
            body = text.encode()
            # a 503 says when to try again, as the API's do (a slot frees when one of the
            # address's connections closes, which is soon for requests)
            retry = b"retry-after: 1\r\n" if status == 503 else b""
            self.transport.write(
                b"HTTP/1.1 %d %s\r\ncontent-type: text/plain; charset=utf-8\r\n%s%s"
                b"content-length: %d\r\nconnection: close\r\n\r\n%s"
                % (status, _STATUS[status], retry, _SECURITY, len(body), body))
            self.transport.close()

        def _head_part(self, data: bytes) -> int:
            """How many bytes of ``data`` belong to the head being read: up to the blank line
            that ends it (the body may follow in the same read, and is not the head's)."""
            seen = self.head_tail + data
            end = seen.find(b"\r\n\r\n")
            self.head_tail = seen[-3:]
            if end < 0:
                return len(data)
            return max(0, end + 4 - (len(seen) - len(data)))

        def data_received(self, data: bytes) -> None:
            if self.transport.is_closing():
                return
            if self.in_head:
                if self.deadline is None:  # a new request after a keep-alive pause
                    self._arm()
                self.head_bytes += self._head_part(data)
                if self.head_bytes > limits.max_head:
                    self._refuse(431, "the request head is too large")
                    return
            self._unset_keepalive_if_required()
            try:
                self.parser.feed_data(data)
            except httptools.HttpParserUpgrade:
                if self._should_upgrade():
                    self.handle_websocket_upgrade()
                else:
                    self._unsupported_upgrade_warning()
            except httptools.HttpParserError as exc:
                refusal = exc.__context__
                if isinstance(refusal, _Refused):
                    self._refuse(refusal.status, "the request is too large")
                    return
                msg = "Invalid HTTP request received."
                self.logger.warning(msg)
                self._refuse(400, msg)  # uvicorn's own answer carries no security headers

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self.in_head = True
            self.header_count = 0
            self.head_parsed = 0
            if self.deadline is None:
                self._arm()

        def on_url(self, url: bytes) -> None:
            super().on_url(url)
            if len(self.url) > limits.max_url:
                raise _Refused(414)
            self._parsed(len(url))

        def on_header(self, name: bytes, value: bytes) -> None:
            self.header_count += 1
            if self.header_count > limits.max_headers:
                raise _Refused(431)
            self._parsed(len(name) + len(value) + 4)  # ": " and the line's end
            super().on_header(name, value)

        def _parsed(self, size: int) -> None:
            self.head_parsed += size
            if self.head_parsed > limits.max_head:
                raise _Refused(431)

        def on_headers_complete(self) -> None:
            self._head_done()
            super().on_headers_complete()

        def on_message_complete(self) -> None:
            self._disarm()
            # what arrives next is the next request's head (keep-alive): count it from its
            # first byte, not from the on_message_begin that parsing it will call
            self.in_head = True
            self.head_tail = b""
            super().on_message_complete()

        def _head_done(self) -> None:
            self.in_head = False
            self.head_bytes = 0
            self.head_tail = b""

        def handle_websocket_upgrade(self) -> None:
            self._disarm()
            self.upgraded = True
            super().handle_websocket_upgrade()
            protocol = self.transport.get_protocol()
            if isinstance(protocol, GuardedWebSocket):
                protocol.counted, self.counted = self.counted, None
            else:
                addresses.release(self.counted)
                self.counted = None

    GuardedHttp.addresses = addresses  # type: ignore[attr-defined]
    return GuardedHttp, GuardedWebSocket


# -- logging -----------------------------------------------------------------------------------

_SECRETS = re.compile(r"(?i)(token=)[^&\s\"']+|(bearer\s+)[^\s\"',]+")
_ESCAPED_NAME = re.compile(r"([?&;\"'][^=&\s\"'?#]*%[0-9A-Fa-f]{2}[^=&\s\"'?#]*=)([^&\s\"'#]*)")
"""A query parameter whose name is percent-encoded (``t%6Fken=``), in a URL or at the start of
a quoted query string (an ASGI scope's, at trace level): Starlette decodes names, so
``ws?t%6Fken=...`` is a seat's socket, and its access-log line must not show the token."""


def _escaped_token(match: re.Match[str]) -> str:
    name = urllib.parse.unquote_plus(match.group(1)[1:-1])
    return match.group(1) + "<redacted>" if name.lower() == "token" else match.group(0)


def redact(text: str) -> str:
    """``text`` with every seat token replaced (query parameters, under any spelling of their
    name that decodes to ``token``, and bearer headers)."""
    if "oken=" not in text and "earer" not in text and "OKEN=" not in text \
            and "EARER" not in text and "%" not in text:
        return text
    if "%" in text:
        text = _ESCAPED_NAME.sub(_escaped_token, text)
    return _SECRETS.sub(lambda m: (m.group(1) or m.group(2)) + "<redacted>", text)


FRAME_LINES = frozenset({"< %s", "> %s"})
"""The formats of the ``websockets`` library's debug line for each WebSocket frame received or
sent (its start and end, under uvicorn's logger): a client's ``discard`` frame is short enough
to be logged whole, and a ``missed`` frame ends with a record that may hold a seat's cards."""


def _cancelled_at_exit(record: logging.LogRecord) -> bool:
    """Whether ``record`` is Starlette's lifespan reporting its own cancellation: a second
    Ctrl+C (uvicorn's forced exit) skips the lifespan's shutdown, and the loop's end cancels
    the lifespan task waiting for it, which Starlette reports as a failed shutdown, a traceback
    logged whole (an audit's finding: "never a traceback").  The server is stopping as asked;
    its runtime is closed by ``serve`` all the same."""
    text = record.msg
    return (record.name == "uvicorn.error" and isinstance(text, str)
            and text.startswith("Traceback") and text.rstrip().endswith("CancelledError"))


class RedactTokens(logging.Filter):
    """Rewrites a record so that neither its message nor its traceback shows a token, and
    drops the lines that show a WebSocket frame's content (``FRAME_LINES``: a seat's cards,
    which no log line may show, whatever the level)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg in FRAME_LINES or _cancelled_at_exit(record):
            return False
        message = record.getMessage()
        clean = redact(message)
        if clean is not message:
            record.msg, record.args = clean, ()
        if record.exc_info:
            text = logging.Formatter().formatException(record.exc_info)
            record.exc_text, record.exc_info = redact(text), None
        elif record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True


def log_config(level: str) -> dict[str, Any]:
    """uvicorn's logging, and the root logger's, with ``RedactTokens`` on every handler."""
    level = level.upper()
    fmt = "%(asctime)s %(levelname)s %(name)s %(message)s"
    handler = {"class": "logging.StreamHandler", "formatter": "plain",
               "filters": ["redact"], "stream": "ext://sys.stderr"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"redact": {"()": RedactTokens}},
        "formatters": {"plain": {"format": fmt}},
        "handlers": {"default": handler},
        "root": {"handlers": ["default"], "level": level},
        "loggers": {
            "uvicorn": {"level": level, "handlers": [], "propagate": True},
            "uvicorn.error": {"level": level, "handlers": [], "propagate": True},
            "uvicorn.access": {"level": level, "handlers": [], "propagate": True},
        },
    }


# -- serving -----------------------------------------------------------------------------------


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (``OSError`` if the port is taken): bound before the
    server says where it runs."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)
        sock.set_inheritable(True)
    except OSError:
        sock.close()
        raise
    return sock


class Server(uvicorn.Server):
    """uvicorn's server, which leaves SIGINT ignored where the process started with it ignored:
    a server started in the background by a script (``hokm serve &``: the shell ignores
    SIGINT for it, as ``nohup`` does SIGHUP) is not stopped by the Ctrl+C meant for the
    script's foreground.  uvicorn took SIGINT over anyway, stopped, and then raised the
    signal again into the ignored disposition, so the process ended with status 0 (the
    README's 130 is for a Ctrl+C that stops it)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        ignored = signal.getsignal(signal.SIGINT) == signal.SIG_IGN
        with super().capture_signals():
            if ignored:
                signal.signal(signal.SIGINT, signal.SIG_IGN)
            yield


def make_server(app: Any, *, limits: ConnectionLimits, max_frame: int,
                log_level: str = "warning", configure_logging: bool = True) -> uvicorn.Server:
    """The uvicorn server of ``app`` with the guards of ``limits`` (``.run(sockets=[...])``
    serves until interrupted; tests ``await .serve(sockets=[...])`` on a loop of theirs)."""
    http, ws = protocols(limits)
    # No per-message deflate: a view is about 1 KB, and compressing every frame cost about a
    # tenth of the gateway's CPU under load (bench/load.py) for bandwidth nobody is short of.
    config = uvicorn.Config(
        app, http=http, ws=ws, log_level=log_level,
        log_config=log_config(log_level) if configure_logging else None,
        proxy_headers=False,  # the app trusts forwarding headers from HOKM_TRUSTED_PROXIES only
        server_header=False, timeout_keep_alive=max(1, round(limits.keep_alive_s)),
        ws_max_size=max_frame, ws_ping_interval=20, ws_ping_timeout=20,
        ws_per_message_deflate=False, timeout_graceful_shutdown=3,
    )
    return Server(config)


def limits_of(settings: Settings) -> ConnectionLimits:
    """The connection limits of ``Settings``."""
    return ConnectionLimits(
        request_timeout_s=settings.request_timeout_s, keep_alive_s=settings.keep_alive_s,
        per_address=settings.connections_per_address, exempt=tuple(settings.trusted_proxies))


def run(app: Any, sock: socket.socket, *, limits: ConnectionLimits, max_frame: int,
        log_level: str = "warning") -> None:
    """Serve ``app`` on the bound ``sock`` until interrupted."""
    make_server(app, limits=limits, max_frame=max_frame, log_level=log_level).run(
        sockets=[sock])
