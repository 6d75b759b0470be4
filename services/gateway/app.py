"""The Starlette application: API v1 over HTTP and WebSocket, the browser client, health.

``create_app(runtime)`` wires one process: the match service (in threads), the hub (one tail
task for all sockets), and, in the embedded default, an in-process bot worker.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import (FileResponse, HTMLResponse, JSONResponse, RedirectResponse,
                                 Response)
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from services.errors import HokmError
from services.runtime import Runtime, build_runtime
from services.store.replicas import ReplicaCheck

from . import analysis, openapi, params, ws
from .analysis import Analyst
from .api import Api, Unavailable, error_response
from .hub import Hub
from .metrics import CONTENT_TYPE, Metrics
from .outage import UNREACHABLE, one_line
from .headers import SecurityHeaders
from .paths import ApiSlashes
from .subscriber import RawSend
from .offload import off_loop

log = logging.getLogger("hokm.gateway")
STATIC = Path(__file__).resolve().parent / "static"

NO_STORE = {"cache-control": "no-store"}
"""The health answers are the process's state now: a proxy or client that kept one (a 200
shown while the store is down) would hide an outage (``/api/`` answers get the same from
``headers.py``)."""

_PLACEHOLDER = (
    "<!doctype html><html lang=en><meta charset=utf-8><title>Hokm</title>"
    "<h1>Hokm</h1><p>The browser client is not installed. The API is at <a href=/api>/api</a>.</p>"
)


def create_app(runtime: Runtime | None = None, *,
               advisor: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
               start_worker: Callable[[Runtime], threading.Event] | None = None,
               analyst: Analyst | None = None,
               queues: Callable[[], Sequence[Any]] | None = None,
               metrics_beside: Sequence[Any] = ()) -> Starlette:
    """The gateway for ``runtime`` (built from the environment if None).  ``advisor`` gives
    the learners' hints (none: the hint route answers ``unavailable``); ``start_worker`` starts
    an in-process bot worker with the app and returns the event that stops it; ``analyst``
    enqueues post-match analyses (``analysis.py``; none: ``unavailable``); ``queues`` gives
    the RQ queues ``/metrics`` reports (none: the bot queues), ``metrics_beside`` the
    registries it shows with its own (the in-process worker's).  All come from a higher
    layer, through the composition root (``hokm.compose``)."""
    rt = runtime or build_runtime()
    holder: dict[str, Any] = {}
    metrics = Metrics(queues=queues or (lambda: rt.scheduler.queues),
                      followed=lambda: len(holder["hub"].subs) if "hub" in holder else 0,
                      beside=metrics_beside)

    def api() -> Api:
        return holder["api"]  # type: ignore[no-any-return]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        hub = Hub(rt)
        holder["hub"] = hub
        holder["api"] = Api(rt.service, hub, max_body=rt.settings.max_body,
                            rate_token=rt.settings.rate_per_token,
                            rate_address=rt.settings.rate_per_address,
                            allow_stacked=rt.settings.allow_stacked_decks, advisor=advisor,
                            metrics=metrics, public_url=rt.settings.public_url)
        hub.start()
        stop = start_worker(rt) if start_worker is not None else None
        try:
            yield
        finally:
            if stop is not None:
                stop.set()
            await hub.stop()

    def handler(name: str, own: Callable[[Request], Awaitable[Response]] | None = None) -> Any:
        async def call(request: Request) -> Response:
            start = time.perf_counter()
            code = ""
            try:
                params.only_query(request, name)
                response: Response = await (own or getattr(api(), name))(request)
            except HokmError as refusal:
                code = refusal.code
                response = error_response(refusal)
            except UNREACHABLE as exc:
                # expected and handled (a Redis restarting or failing over): one line each, no
                # traceback, or an outage of seconds buries the log in thousands of lines;
                # anything else still reaches the server's own logging with its traceback
                log.warning("%s: the store is unreachable (%s)", name, one_line(exc))
                code = Unavailable.code
                response = error_response(Unavailable("the match store is unreachable; "
                                                      "try again"))
            except ClientDisconnect:  # the client went away mid-body (or was cut off as too
                code = "client_gone"      # slow): nobody reads this answer
                response = Response(status_code=400)
            except Exception:  # a bug: Starlette answers 500 and logs it; counted all the same
                metrics.request(name, 500, "error", time.perf_counter() - start)
                raise
            metrics.request(name, response.status_code, code, time.perf_counter() - start)
            return response
        call.__name__ = name
        return call

    async def socket(websocket: WebSocket) -> None:
        metrics.sockets.inc()
        metrics.sockets_open.inc()
        try:
            await ws.endpoint(websocket, api(), holder["hub"])
        finally:
            metrics.sockets_open.dec()

    async def not_upgraded(request: Request) -> Response:
        """The socket's path asked as plain HTTP, without the WebSocket upgrade (a client
        without WebSocket support, a proxy that drops the ``Upgrade`` header): a documented
        path, so ``400`` saying how to open it, not the ``404`` of a path that does not exist
        (the finding: a client author read that 404 as a wrong URL)."""
        raise HTTPException(400, "this is the match's WebSocket: open it with a WebSocket "
                                 "client (ws:// or wss://, with the Upgrade header; a proxy "
                                 "must pass the upgrade on)")

    async def spa(request: Request) -> Response:
        # a match's page asked with its id spelt in capitals (a link typed on a phone): the
        # page of the id as the server made it, so the page's address, its stored token and
        # its recent-matches entry are the match's one (api.md: Pages)
        canonical = params.page_id(str(request.path_params.get("match_id", "")))
        if canonical is not None:
            where = request.url.path.rsplit("/", 1)[0] + "/" + canonical
            query = f"?{request.url.query}" if request.url.query else ""
            return RedirectResponse(where + query, status_code=308)
        index = STATIC / "index.html"
        if index.is_file():
            return FileResponse(index, headers={"cache-control": "no-cache"})
        return HTMLResponse(_PLACEHOLDER)

    async def favicon(request: Request) -> Response:
        """The icon a browser asks of any document without one (a JSON answer opened in a
        tab, say): the app's own, so no such look is logged as a 404."""
        return FileResponse(STATIC / "icon.svg", media_type="image/svg+xml",
                            headers={"cache-control": "max-age=86400"})

    async def healthz(request: Request) -> Response:
        return JSONResponse({"ok": True}, headers=NO_STORE)

    async def readyz(request: Request) -> Response:
        """Ready when the match store and the bot queue's Redis (``HOKM_QUEUE_URL``, which may
        be another server) both answer; the answer names each.  With ``HOKM_REPLICA_ACKS`` on
        a cluster the store is not ready while a primary lacks those replicas: its matches'
        appends would all answer ``503`` (``ReplicaCheck``, asked every few seconds)."""
        def answers(client: Any, replicas: ReplicaCheck | None = None) -> bool:
            try:
                client.ping()
                return replicas is None or replicas.ok()
            except Exception:
                return False

        store = await off_loop(answers, rt.client, rt.replicas)
        queue = await off_loop(answers, rt.scheduler.client)
        ok = store and queue
        return JSONResponse({"ok": ok, "store": store, "queue": queue},
                            status_code=200 if ok else 503,
                            headers=NO_STORE if ok else {**NO_STORE, "Retry-After": "1"})

    async def metrics_text(request: Request) -> Response:
        """The Prometheus exposition (``metrics.py``); ``HOKM_METRICS=off``: 404 like any
        path the gateway does not serve."""
        if not rt.settings.metrics:
            raise HTTPException(404)
        body = await off_loop(metrics.text)  # the queues' figures are read from RQ
        return Response(body, media_type=CONTENT_TYPE, headers={"cache-control": "no-store"})

    async def openapi_json(request: Request) -> Response:
        return JSONResponse(openapi.document())

    async def api_page(request: Request) -> Response:
        return HTMLResponse(openapi.page())

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        code = {404: "not_found", 405: "method_not_allowed", 413: "too_large"}.get(
            exc.status_code, "bad_request")
        return JSONResponse({"error": {"code": code, "message": str(exc.detail)}},
                            status_code=exc.status_code if exc.status_code < 500 else 400,
                            headers=exc.headers)  # (a 405's Allow)

    m = "/api/matches/{match_id}"
    routes = [
        Route("/api/matches", handler("create"), methods=["POST"]),
        Route(m, handler("summary"), methods=["GET"]),
        Route(m + "/join", handler("join"), methods=["POST"]),
        Route(m + "/view", handler("view"), methods=["GET"]),
        Route(m + "/commands", handler("command"), methods=["POST"]),
        Route(m + "/events", handler("events"), methods=["GET"]),
        Route(m + "/replay", handler("replay"), methods=["GET"]),
        Route(m + "/seat", handler("seat"), methods=["GET"]),
        Route(m + "/hint", handler("hint"), methods=["GET"]),
        Route(m + "/analysis", handler("analysis", analysis.endpoint(api, rt.store, analyst))),
        Route(m + "/leave", handler("leave"), methods=["POST"]),
        Route(m + "/rematch", handler("rematch"), methods=["POST"]),
        Route(m + "/seats/{seat}/bot", handler("seat_bot"), methods=["POST"]),
        WebSocketRoute(m + "/ws", socket),
        Route(m + "/ws", not_upgraded, methods=["GET"]),  # the same path without the upgrade
        Route("/favicon.ico", favicon),
        Route("/healthz", healthz),
        Route("/readyz", readyz),
        Route("/metrics", metrics_text),
        Route("/openapi.json", openapi_json),
        Route("/api", api_page),
        Route("/", spa),
        Route("/m/{match_id}", spa, name="table"),
        Route("/replay/{match_id}", spa),
        Route("/how-to-play", spa),
        Mount("/static", StaticFiles(directory=STATIC, check_dir=False), name="static"),
    ]
    middleware = [Middleware(ApiSlashes), Middleware(RawSend), Middleware(SecurityHeaders)]
    if rt.settings.trusted_proxies:
        # X-Forwarded-For is believed only from the proxies named in the settings; everyone
        # else's TCP address is the client's (rate limits are keyed on it).
        from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

        middleware.insert(0, Middleware(ProxyHeadersMiddleware,
                                        trusted_hosts=list(rt.settings.trusted_proxies)))
    app = Starlette(routes=routes, lifespan=lifespan, middleware=middleware,
                    exception_handlers={HTTPException: http_error})
    app.state.runtime = rt
    app.state.holder = holder
    app.state.metrics = metrics
    return app
