"""One address per resource of the API: a path under ``/api/`` with a trailing slash is the
same route as the path without it.

Starlette's router answers such a path with a ``307`` redirect: no body and no error code (a
client that does not follow redirects, as ``httpx`` by default, saw an empty answer to
``POST /api/matches/``), and a ``Location`` made from the request's ``Host`` and scheme, which a
proxy terminating TLS may not pass on.  The API's routes take no trailing slash anywhere, so
dropping it changes no other route's meaning; a path that still matches nothing is the
API's ``404 not_found`` in JSON.  Pages (``/m/...``) keep Starlette's redirect: a browser
follows it and shows the address without the slash.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send


def api_path(path: str) -> str:
    """``path`` without trailing slashes when it is under ``/api/`` (``/api/`` is ``/api``)."""
    if path.startswith("/api/") and path.endswith("/"):
        return path.rstrip("/")
    return path


class ApiSlashes:
    """ASGI middleware (outermost): routes ``/api/...//`` as ``/api/...``, HTTP and WebSocket."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            path = scope.get("path", "")
            route = api_path(path)
            if route != path:
                raw = scope.get("raw_path")
                scope = {**scope, "path": route}
                if isinstance(raw, bytes):
                    scope["raw_path"] = raw.rstrip(b"/")
        await self.app(scope, receive, send)
