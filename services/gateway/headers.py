"""Security headers on every HTTP answer of the gateway (pages, files and API alike).

* ``Content-Security-Policy``: scripts, styles, images and connections from this origin only
  (the client is ES modules and one stylesheet, no inline script); the icon is a ``data:`` URL;
  ``frame-ancestors 'none'`` so no other site can frame the table (click-jacking).
* ``X-Frame-Options: DENY`` says the same to older browsers.
* ``X-Content-Type-Options: nosniff``: a file is only ever what its type says.
* ``Referrer-Policy: no-referrer``: invite links carry match ids; leaving the site must not hand
  them to the next one.
* ``Cache-Control: no-store`` on every ``/api/`` answer (unless the route set its own): a seat's
  view, hint, events and replay carry its hand, which no browser or proxy cache may keep on disk
  after the tab is closed, and no answer of the API is the same a moment later anyway.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")

HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
)


class SecurityHeaders:
    """ASGI middleware adding ``HEADERS`` to every HTTP response start."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        api = scope.get("path", "").startswith("/api/")

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [*message.get("headers", ()), *HEADERS]
                if api and not any(k.lower() == b"cache-control" for k, _ in headers):
                    headers.append((b"cache-control", b"no-store"))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, with_headers)
