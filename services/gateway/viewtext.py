"""The ``view`` message of a match for each seat, as JSON text.

Views come from ``engine.view_for``'s three parts only (the one choke point of hidden
information); ``view_texts`` encodes the part every seat shares once and splices in each seat's
own keys, and keeps, per match, the JSON of the parts whose basis did not change: most of a view
(seats, rules, the draw, the commitment, the hands of the seats that did not play...) does not
change from one version to the next.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import orjson

from engine import (
    play_keys, same_basis, seat_basis, seat_keys, shows_all, steady_basis, steady_keys,
)
from services.pipeline import Loaded

_ENCODE = json.JSONEncoder(separators=(",", ":")).encode


def dumps(message: dict[str, Any]) -> str:
    return _ENCODE(message)


def view_texts(loaded: Loaded, seats: Iterable[int | None],
               connected: tuple[bool, ...] | None,
               fragments: dict[str, tuple[Any, str]] | None = None) -> dict[int | None, str]:
    """The ``view`` message of ``loaded`` for each of ``seats`` (None: spectators).

    A view is ``view_for``'s three parts (``engine.play_keys``, ``steady_keys``, ``seat_keys``,
    from which ``view_for`` itself is made): the part every seat shares is JSON-encoded once
    and each seat's own keys are spliced in front of it.  ``fragments`` (kept per match by the
    caller) remembers the JSON of the steady part and of each seat's keys with the basis they
    were made from (``engine.steady_basis``, ``seat_basis``): a card played changes neither the
    steady part nor the keys of the seats it does not concern, so most of a version's views
    are neither built nor encoded again.  Building every view whole was about a fifth of a
    gateway's CPU at full throughput (py-spy, ``bench/load.py``)."""
    state, version = loaded.state, loaded.version
    show_all = shows_all(state)
    cache = fragments if fragments is not None else {}
    basis = steady_basis(state, connected, show_all)
    known = cache.get(STEADY_MARK)
    if known is not None and same_basis(known[0], basis):
        steady = known[1]
    else:
        steady = _encode_items(steady_keys(state, connected, show_all))
        cache[STEADY_MARK] = (basis, steady)
    shared = f"{_encode_items(play_keys(state, version, show_all))},{steady}"
    head = f'{{"type":"view","version":{version},"view":{{'
    out: dict[int | None, str] = {}
    for seat in seats:
        mark = f"\0{seat}"
        basis = seat_basis(state, seat)
        known = cache.get(mark)
        if known is not None and same_basis(known[0], basis):
            body = known[1]
        else:
            body = _encode_items(seat_keys(state, seat))
            cache[mark] = (basis, body)
        out[seat] = f"{head}{body},{shared}}}}}"
    return out


STEADY_MARK = "\0steady"


def _encode_items(items: dict[str, Any]) -> str:
    """``items`` as the inside of a JSON object (without the braces)."""
    return orjson.dumps(items).decode()[1:-1]
