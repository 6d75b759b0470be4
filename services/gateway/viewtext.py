"""The ``view`` message of a match for each seat, as JSON text.

Views come from ``engine.view_for`` only (the one choke point of hidden information);
``view_texts`` encodes the part every seat shares once and splices in each seat's own keys, and
keeps, per match, the JSON of each shared key's last value: most of a view (seats, rules, the
draw, the commitment...) does not change from one version to the next.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from engine import PER_SEAT, seat_keys, view_for
from services.pipeline import Loaded

_ENCODE = json.JSONEncoder(separators=(",", ":")).encode


def dumps(message: dict[str, Any]) -> str:
    return _ENCODE(message)


def view_texts(loaded: Loaded, seats: Iterable[int | None],
               connected: tuple[bool, ...] | None,
               fragments: dict[str, tuple[Any, str]] | None = None) -> dict[int | None, str]:
    """The ``view`` message of ``loaded`` for each of ``seats`` (None: spectators).

    Every view comes from ``view_for``: the first seat's is built whole, its part that every
    seat shares (everything outside ``engine.PER_SEAT``, which nothing in ``view_for`` reads
    the seat for) is JSON-encoded once, and each seat's own keys, ``engine.seat_keys`` (where
    ``view_for`` takes them from), are spliced in front of it.  Building the other seats' views
    whole and comparing them with the first cost about a fifth of a gateway's CPU at full
    throughput (py-spy, ``bench/load.py``).
    ``fragments`` (kept per match by the caller) remembers the JSON of each shared key's last
    value: most of a view (seats, rules, the draw, the commitment...) does not change from one
    version to the next, so only what changed is encoded again."""
    state, version = loaded.state, loaded.version
    head = f'{{"type":"view","version":{version},"view":{{'
    out: dict[int | None, str] = {}
    base: dict[str, Any] | None = None
    shared = ""
    for seat in seats:
        if base is None:
            view = view_for(state, seat, version, connected)
            own = {k: view.pop(k) for k in PER_SEAT}
            base = view
            shared = _encode_items(view, fragments if fragments is not None else {})
        else:
            own = seat_keys(state, seat)
        if fragments is not None:  # a seat's own keys change only when it plays or must
            mark = f"\0{seat}"
            known = fragments.get(mark)
            if known is not None and known[0] == own:
                body = known[1]
            else:
                body = _encode_items(own, None)
                fragments[mark] = (own, body)
        else:
            body = _encode_items(own, None)
        body = f"{body},{shared}" if body and shared else body or shared
        out[seat] = f"{head}{body}}}}}"
    return out


def _encode_items(items: dict[str, Any], fragments: dict[str, tuple[Any, str]] | None) -> str:
    """``items`` as the inside of a JSON object (without the braces)."""
    parts = []
    for key, value in items.items():
        if fragments is not None:
            known = fragments.get(key)
            if known is not None and known[0] == value and type(known[0]) is type(value):
                parts.append(known[1])
                continue
        part = f"{_key(key)}:{_fragment(value)}"
        if fragments is not None:
            fragments[key] = (value, part)
        parts.append(part)
    return ",".join(parts)


_KEYS: dict[str, str] = {}


def _key(key: str) -> str:
    text = _KEYS.get(key)
    if text is None:
        text = _KEYS[key] = _ENCODE(key)
    return text


def _fragment(value: Any) -> str:
    """JSON of one value, with short cuts for what views are mostly made of (small integers,
    null, and lists of card or suit names); anything else goes to the JSON encoder."""
    kind = type(value)
    if kind is int:
        return str(value)
    if value is None:
        return "null"
    if kind is list and all(type(x) is str and x.isascii() and x.isalnum() for x in value):
        return '["' + '","'.join(value) + '"]' if value else "[]"
    return _ENCODE(value)
