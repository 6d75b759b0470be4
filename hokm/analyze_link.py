"""``hokm analyze LINK``: the post-match analysis a server made of its finished match, added to
``hokm analyze`` (``worker.analysis.cli``, which analyses a match of this machine).

It lives in the composition root because it joins two layers that do not know each other: the
client library (``hokmclient``, the public API; the workers' code imports none of it) asks the
server, and the workers' report prints the answer (the terminal client imports no server code
but its bot's and the CLI plumbing: ``tests/client/test_imports.py``).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from hokmplay.cli import is_link


def register(sub: Any) -> None:
    """No command of its own (``hokm.cli``'s plugin contract): :func:`extend` adds to
    ``hokm analyze``."""


def _analyze_link(args: argparse.Namespace) -> int:
    """``hokm analyze LINK``: the analysis a server made of its finished match (``GET
    /api/matches/{id}/analysis``, asked again every half second while it is pending, a
    progress on stderr), reported as ``hokm analyze MATCH`` reports a match of this machine
    (a walkthrough's finding: the link the match's end prints was taken for a match id of
    the data folder, which did not hold it)."""
    from hokmclient import ApiError, Client, NetworkError, parse_link
    from services.clitools import CliError
    from worker.analysis.cli import Progress, report

    try:
        where = parse_link(args.match)
    except ValueError as exc:
        raise CliError(str(exc), 2) from None
    if args.local or args.data is not None:
        raise CliError(f"--{'local' if args.local else 'data'} is for a match id of this "
                       "machine: the server of a link analyses its match", 2)
    if where.match_id is None:
        raise CliError(f"{args.match!r} is a server: give a match's link "
                       "(http://HOST/m/MATCH)", 2)
    client = Client(where.base)
    progress: Progress | None = None
    deadline = time.monotonic() + args.wait
    try:
        while True:
            body = client.analysis(where.match_id)
            if body.get("status") == "done":
                break
            if progress is None:
                progress = Progress(int(body["rounds"]), "rounds", sys.stderr.isatty())
            progress.show(int(body["done"]))
            if time.monotonic() > deadline:
                raise CliError(f"the analysis of {where.match_id} was not done within "
                               f"{args.wait:g} s (its server's workers are busy or stopped)")
            time.sleep(0.5)
    except NetworkError as error:
        raise CliError(f"{where.base} does not answer ({error.message or error.code})"
                       ) from None
    except ApiError as error:
        refused = error.code in ("not_found", "match_not_over", "bad_request")
        raise CliError(f"match {where.match_id} at {where.base}: "
                       f"{error.message or error.code}", 2 if refused else 1) from None
    finally:
        if progress is not None:
            progress.close()
        client.close()
    report(where.match_id, body["rounds"], sys.stdout.isatty(), len(body["seats"]))
    return 0


def extend(sub: Any) -> None:
    """Let ``hokm analyze`` (``worker.analysis.cli``'s) take a match link too: a link asks
    that server (:func:`_analyze_link`), a match id analyses the match as before
    (``hokm.cli``'s plugin contract calls this once every plugin registered)."""
    parser = sub.choices.get("analyze")
    if parser is None:
        return
    local = parser.get_default("func")

    def run(args: argparse.Namespace) -> int:
        return _analyze_link(args) if is_link(args.match or "") else int(local(args))

    parser.set_defaults(func=run)
    parser.description = (
        f"{parser.description} With a link (http://HOST:PORT/m/MATCH) instead: the analysis "
        "that server makes of its finished match.")
    for action in parser._actions:
        if action.dest == "match":
            action.metavar = "MATCH|LINK"
            action.help = "the match id, or a match's link"
