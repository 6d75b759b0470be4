"""``GET /api/matches/{id}/analysis``: the post-match analysis, once the match is over.

Anyone may ask (no token): a finished match's hands are public.  The rounds' results live beside
the match (``AnalysisStore``: one entry per round, never in the log).  While some are missing the
answer is 202 ``{"status": "pending", "rounds": N, "done": K}`` and the missing rounds are handed
to ``analyst(match_id, rounds)``, which the composition root injects (``hokm.compose``: it
enqueues one worker job per round not already queued or running, so asking again never
duplicates work); once all are there, 200 ``{"status": "done", "match", "rounds", "seats"}`` with
each seat's counts summed over the rounds.  Refusals: an unknown match ``not_found``, a match not
over ``match_not_over`` (nothing about it is read, let alone computed); a server without an
analyst answers ``unavailable``.  Every game is analysed (four players by
``worker.analysis.exact``, two and three by ``worker.analysis.nexact``); earlier servers refused
the two- and three-player games with ``analysis_unavailable``, which clients still understand.
The shape of a round is ``docs/api.md``'s.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from engine.state import MATCH_OVER
from services.errors import MatchNotOver
from services.store.port import AnalysisStore

from . import params
from .api import Api, Unavailable
from .offload import off_loop

Analyst = Callable[[str, Sequence[int]], object]
"""Enqueue the analysis of these rounds of a finished match (the worker's, handed in)."""
COUNTS = ("moves", "cost_trick", "cost_round", "cost_kot")


def endpoint(api: Callable[[], Api], store: AnalysisStore, analyst: Analyst | None
             ) -> Callable[[Request], Awaitable[Response]]:
    """The route's handler (errors are raised: the app's handler wrapper answers them)."""

    async def analysis(request: Request) -> Response:
        gateway = api()
        gateway.check_address(request)
        match_id = params.match_id(request)
        loaded = await off_loop(gateway.service.load, match_id)
        state = loaded.state
        if state.phase != MATCH_OVER:
            raise MatchNotOver("the analysis of a match opens once the match is over")
        rounds = state.deal.round_no  # every round dealt was played to its end
        status, body = await off_loop(collect, store, analyst, match_id, rounds)
        return JSONResponse(body, status_code=status)

    return analysis


def collect(store: AnalysisStore, analyst: Analyst | None, match_id: str, rounds: int
            ) -> tuple[int, dict[str, Any]]:
    """The answer's status and body: the stored rounds, or pending after asking for the rest."""
    done = store.analysis_results(match_id)
    missing = [r for r in range(rounds) if r not in done]
    if not missing:
        parsed = [json.loads(done[r]) for r in range(rounds)]
        return 200, {"status": "done", "match": match_id, "rounds": parsed,
                     "seats": summary(parsed)}
    if analyst is None:
        raise Unavailable("the analysis is not available on this server")
    analyst(match_id, missing)
    return 202, {"status": "pending", "rounds": rounds, "done": rounds - len(missing)}


def summary(rounds: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """SEATSUM per seat: each round's per-seat counts added up, and its ``players`` (who made
    the seat's moves) merged by name and bot level in the order they first moved.  A round
    stored by an earlier server has no ``players``: the match's seats then have none either
    (a partial split would misname the counts)."""
    seats = max((len(one.get("seats") or ()) for one in rounds), default=4)
    out: list[dict[str, Any]] = [{"seat": s, **{name: 0 for name in COUNTS}, "players": []}
                                 for s in range(seats)]
    split = all("players" in row for one in rounds for row in one.get("seats", ()))
    for one in rounds:
        for row in one.get("seats", ()):
            seat = out[row["seat"]]
            for name in COUNTS:
                seat[name] += int(row.get(name, 0))
            for player in row.get("players", ()) if split else ():
                key = (player.get("name", ""), player.get("bot"))
                mine = next((p for p in seat["players"] if (p["name"], p["bot"]) == key), None)
                if mine is None:
                    mine = {"name": key[0], "bot": key[1], **{name: 0 for name in COUNTS}}
                    seat["players"].append(mine)
                for name in COUNTS:
                    mine[name] += int(player.get(name, 0))
    if not split:
        for seat in out:
            del seat["players"]
    return out
