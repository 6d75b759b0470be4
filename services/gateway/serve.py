"""``hokm serve``: the gateway under uvicorn.

Without ``HOKM_REDIS_URL`` it is the embedded default: an in-process fakeredis server and an
in-process bot worker, nothing to install.  With it, the gateway uses that Redis and bot turns go
to external ``hokm worker`` processes; run several ``hokm serve --port ...`` behind a load
balancer to scale out.
"""

from __future__ import annotations

import argparse
import gc
import logging
import threading
import webbrowser

import uvicorn

from services.runtime import build_runtime

from .app import create_app


def _run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    rt = build_runtime()
    app = create_app(rt)
    url = f"http://{args.host}:{args.port}/"
    mode = ("embedded: in-process fakeredis and bot worker" if rt.embedded
            else f"Redis at {rt.settings.redis_url}; bots need `hokm worker`")
    print(f"Hokm is running at {url} ({mode}). Press Ctrl+C to stop.", flush=True)
    if args.open:
        threading.Timer(1.0, lambda: webbrowser.open(url)).start()
    # Everything loaded so far (modules, classes, the app) lives as long as the process: keep
    # it out of the garbage collector's full passes, whose pauses grow with the objects tracked.
    gc.collect()
    gc.freeze()
    # No per-message deflate: a view is about 1 KB, and compressing every frame cost about a
    # tenth of the gateway's CPU under load (bench/load.py) for bandwidth nobody is short of.
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level,
                ws_max_size=rt.settings.max_body, ws_ping_interval=20, ws_ping_timeout=20,
                ws_per_message_deflate=False, timeout_graceful_shutdown=3)
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("serve", help="run the game server (embedded by default)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--open", action="store_true", help="open the game in a browser")
    parser.add_argument("--log-level", default="warning")
    parser.set_defaults(func=_run)
