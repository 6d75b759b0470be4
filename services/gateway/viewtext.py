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

from engine import view_for
from services.pipeline import Loaded

_ENCODE = json.JSONEncoder(separators=(",", ":")).encode


def dumps(message: dict[str, Any]) -> str:
    return _ENCODE(message)


PER_SEAT = ("seat", "hand", "legal", "talon")
"""The keys in which one seat's view differs from another's (checked for every view built):
``talon`` (the talon game) holds the top card for the seat to draw only and each seat's own
discards (``engine.views``), so it is spliced per seat like the hand."""


def view_texts(loaded: Loaded, seats: Iterable[int | None],
               connected: tuple[bool, ...] | None,
               fragments: dict[str, tuple[Any, str]] | None = None) -> dict[int | None, str]:
    """The ``view`` message of ``loaded`` for each of ``seats`` (None: spectators).

    Every view comes from ``view_for``; the part that every seat shares is JSON-encoded once and
    each seat's own keys are spliced in front of it.  A view that differs from the first one
    anywhere outside ``PER_SEAT`` is encoded whole, so the text is always exactly its view.
    ``fragments`` (kept per match by the caller) remembers the JSON of each shared key's last
    value: most of a view (seats, rules, the draw, the commitment...) does not change from one
    version to the next, so only what changed is encoded again."""
    state, version = loaded.state, loaded.version
    head = f'{{"type":"view","version":{version},"view":{{'
    out: dict[int | None, str] = {}
    base: dict[str, Any] | None = None
    shared = ""
    for seat in seats:
        view = view_for(state, seat, version, connected)
        own = {k: view.pop(k) for k in PER_SEAT if k in view}
        if base is None:
            base = view
            shared = _encode_items(view, fragments if fragments is not None else {})
        elif view != base:  # some other key differs: this view is encoded whole
            view.update(own)
            out[seat] = f'{{"type":"view","version":{version},"view":{_ENCODE(view)}}}'
            continue
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
