"""``hokm serve``: the gateway under uvicorn (``server.py``).

Without ``HOKM_REDIS_URL`` it is the embedded default: an in-process fakeredis server and an
in-process bot worker, nothing to install; its matches are kept in a data folder (``--data``,
``HOKM_DATA``, else ``$XDG_DATA_HOME/hokm`` or ``~/.local/share/hokm``) across restarts.  With
it, the gateway uses that Redis and bot turns go to external ``hokm worker`` processes; run
several ``hokm serve --port ...`` behind a load balancer to scale out.

Start-up, in this order, each failure being one line on stderr: the settings are read (a value
that is not valid names its variable, exit status 2), the port is bound (a busy port fails here,
exit status 1, before anything else happens; a ``--host`` that is no address of this machine,
2), the runtime is built (the data folder locked,
replayed and its unfinished matches resumed; or the Redis pinged), and only then is the address
printed and the server run.  SIGTERM and Ctrl+C (SIGINT) stop it gracefully; it then exits 0
after SIGTERM and 130 after Ctrl+C, as ``hokm worker``.
"""

from __future__ import annotations

import argparse
import dataclasses
import errno
import gc
import logging
import signal
import socket
import threading
import webbrowser
from collections.abc import Callable
from typing import Any

import redis

from services.clitools import NOT_A_FILE, CliError, host, port, redact_url, unreachable
from services.runtime import Runtime, build_runtime
from services.store.replicas import short_of_replicas
from services.settings import Settings
from services.store import connect

from . import gcpolicy
from .server import bind, limits_of, run


def _settings(args: argparse.Namespace) -> Settings:
    """The settings, before anything starts: a value that is not valid raises its
    ``SettingError`` (one line naming the variable, exit 2: ``services/settings.py``)."""
    settings = Settings.from_env()
    if args.data is not None:
        if settings.redis_url is not None:
            raise CliError("--data is for the embedded server: with HOKM_REDIS_URL the matches "
                           "live in that Redis", 2)
        settings = dataclasses.replace(settings, data_dir=args.data)
    return settings


def _run(args: argparse.Namespace) -> int:
    from services.store.journal import DataFolderForeign, JournalError

    logging.basicConfig(level=logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s %(message)s")
    settings = _settings(args)
    try:
        sock = bind(args.host, args.port)
    except OSError as exc:
        raise CliError(f"cannot listen on {args.host}:{args.port} ({exc.strerror or exc})",
                       2 if _no_such_address(exc) else 1) from None
    try:
        try:
            rt = build_runtime(settings)
        except JournalError as exc:  # (a folder not hokm's: a start given the wrong one)
            raise CliError(str(exc), 2 if isinstance(exc, DataFolderForeign) else 1) from None
        except ValueError as exc:  # what redis-py refuses in a URL that parse() let through
            raise CliError(str(exc), 2) from None
        except redis.RedisError as exc:
            assert settings.redis_url is not None
            raise unreachable(settings.redis_url, exc) from None
        except OSError as exc:
            why = exc.strerror or str(exc)
            if isinstance(exc, FileExistsError):  # mkdir met a file where the folder should be
                why = "a file is there, not a folder"
            # a path that names no folder to use (a file, under a file, too long) is the
            # command line's (2, as ``open_named``); another failure (permissions, a full or
            # failing disk) is 1
            named = isinstance(exc, FileExistsError) or exc.errno in NOT_A_FILE
            raise CliError(f"cannot use the data folder {settings.data_dir} ({why})",
                           2 if named else 1) from None
        if not rt.embedded:
            assert settings.redis_url is not None
            where = settings.redis_url
            try:
                rt.client.ping()
                connect.check_single(rt.client, settings.redis_url)
                if settings.queue_url:  # RQ's own Redis: never a cluster node either
                    where = settings.queue_url
                    connect.check_single(rt.scheduler.client, settings.queue_url,
                                         "HOKM_QUEUE_URL")
            except redis.RedisError as exc:
                raise unreachable(where, exc) from None
            if rt.replicas is not None:
                short = short_of_replicas(rt.client, settings.replica_acks)
                if short:  # (started anyway: a replica may be on its way; /readyz says 503)
                    logging.getLogger("hokm.serve").warning(
                        "HOKM_REPLICA_ACKS=%d but %s of the cluster's primaries (%s) lack "
                        "that many replicas online: their matches answer 503 until they "
                        "have them", settings.replica_acks, len(short), ", ".join(short))
    except BaseException:
        sock.close()
        raise
    # uvicorn stops gracefully on SIGTERM and SIGINT, then raises the signal again with the
    # handler it found: SIGINT's makes Ctrl+C status 130, and SIGTERM's (this one, set before
    # the address is printed) a clean stop, status 0, as ``hokm worker`` (it was killed by it)
    previous = signal.signal(signal.SIGTERM, _stopped)
    try:
        app = args.make_app(rt)
        addr, bound = sock.getsockname()[:2]
        # every address (0.0.0.0, ::) is no address a browser can open: this machine's own
        # is the one to print and open, and other machines use this machine's address
        here = LOOPBACK_OF.get(addr, addr)
        everywhere = here != addr
        url = f"http://{f'[{here}]' if ':' in here else here}:{bound}/"
        if rt.embedded:
            mode = "embedded: in-process fakeredis and bot worker"
        else:
            assert settings.redis_url is not None
            mode = f"Redis at {redact_url(settings.redis_url)}; bots need `hokm worker`"
        print(f"Hokm is running at {url} ({mode}). Press Ctrl+C to stop.", flush=True)
        if everywhere:
            print(f"It listens on every address of this machine: other machines open it at "
                  f"this machine's address, port {bound}.", flush=True)
        if rt.data is not None:
            resumed = (f"; {rt.resumed} unfinished match{'es' if rt.resumed != 1 else ''} "
                       "resumed" if rt.resumed else "")
            print(f"Matches are kept in {rt.data.path}{resumed}.", flush=True)
        elif rt.embedded:
            print("Matches are kept in memory only (no data folder).", flush=True)
        if args.open:
            threading.Timer(1.0, lambda: open_browser(url)).start()
        # Everything loaded so far (modules, classes, the app) lives as long as the process:
        # keep it out of the garbage collector's full passes, whose pauses grow with the
        # objects tracked.
        gc.collect()
        gc.freeze()
        gcpolicy.start(settings.gc_freeze_s, settings.gc_thaw_s)
        run(app, sock, limits=limits_of(rt.settings), max_frame=rt.settings.max_body,
            log_level=args.log_level)
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)
        sock.close()
        rt.close()
    return 0


def _stopped(signum: int, frame: object) -> None:
    """SIGTERM outside uvicorn's run (before it, or raised again once it stopped on it): end
    the command with status 0, the data folder closed on the way out."""
    raise SystemExit(0)


def _no_such_address(exc: OSError) -> bool:
    """Whether ``bind`` failed because ``--host`` names no address of this machine (a name
    that does not resolve, another machine's address): the command line's, exit 2.  A port in
    use or not allowed, or a name server that did not answer, is 1."""
    if isinstance(exc, socket.gaierror):
        return exc.errno in (socket.EAI_NONAME, getattr(socket, "EAI_NODATA", socket.EAI_NONAME))
    return exc.errno == errno.EADDRNOTAVAIL


LOOPBACK_OF = {"0.0.0.0": "127.0.0.1", "::": "::1"}  # noqa: S104 (names them, binds nothing)
"""The unspecified addresses (a socket bound to every address) and this machine's own."""


def open_browser(url: str) -> None:
    """Open ``url`` in the machine's browser, or say that none could be (a machine without a
    screen, a server reached over ssh): the address printed above is then the way in."""
    try:
        opened = webbrowser.open(url)
    except webbrowser.Error:
        opened = False
    if not opened:
        print(f"No browser could be opened here: open {url} in yours.", flush=True)


def register(sub: argparse._SubParsersAction,  # type: ignore[type-arg]
             make_app: Callable[[Runtime], Any]) -> None:
    """Add ``hokm serve``; ``make_app(runtime)`` builds the ASGI app (``hokm.compose``)."""
    parser = sub.add_parser(
        "serve", help="run the game server (embedded by default)",
        description="The game server. Without HOKM_REDIS_URL it is embedded (an in-process "
                    "fakeredis and bot worker, nothing to install) and keeps its matches in a "
                    "data folder across restarts; with it, it uses that Redis and the bots' "
                    "turns are played by `hokm worker`.",
        epilog=connect.EXTERNAL_HELP)
    parser.add_argument("--host", type=host, default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=port, default=8000,
                        help="port to listen on (0: any free port, printed at start)")
    parser.add_argument("--data", metavar="DIR", default=None,
                        help="the embedded server's data folder (default: HOKM_DATA, else "
                             "$XDG_DATA_HOME/hokm or ~/.local/share/hokm)")
    parser.add_argument("--open", action="store_true", help="open the game in a browser")
    parser.add_argument("--log-level", default="warning",
                        choices=("critical", "error", "warning", "info", "debug", "trace"),
                        help="uvicorn's and the server's log level")
    parser.set_defaults(func=_run, make_app=make_app)
