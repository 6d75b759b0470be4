"""hokmclient: a client of the Hokm gateway's API v1 (``docs/client.md``), over HTTP and the
WebSocket only.

* :class:`Client` / :class:`AsyncClient`: every HTTP operation, errors as :class:`ApiError`
  with the API's codes, safe retries;
* :class:`Seat` / :class:`AsyncSeat`: one seat (or a spectator) following a match over its
  WebSocket, reconnecting with ``since`` catch-up, waiting for its turn without polling, and
  playing with command ids;
* :func:`parse_link`: invite links, match and server URLs;
* :mod:`hokmclient.cards`: card codes and their terminal text;
* :class:`LocalServer`: ``hokm serve`` in a subprocess, for bots, tests and benchmarks.

It imports nothing of the server (``engine``, ``services``, ``worker``): a program using it
depends only on the public API.
"""

from .cards import card_text, parse_card, parse_suit, rank_of, suit_of
from .errors import CODES, ApiError, NetworkError, NotHokm
from .http import (AsyncClient, Choice, Client, command, command_for, command_id,
                   request_key)
from .links import Link, match_link, parse_link
from .local import NO_LIMITS, LocalServer, free_port
from .seat import AsyncSeat, my_turn, over
from .sync import Seat

__all__ = [
    "ApiError", "AsyncClient", "AsyncSeat", "CODES", "Choice", "Client", "Link", "LocalServer",
    "NO_LIMITS", "NetworkError", "NotHokm", "Seat", "card_text", "command", "command_for",
    "command_id", "free_port", "match_link", "my_turn", "over", "parse_card", "parse_link",
    "parse_suit", "rank_of", "request_key", "suit_of",
]
