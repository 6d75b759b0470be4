"""JSON objects from clients (HTTP bodies and WebSocket frames), with their nesting bounded.

Python's ``json`` recurses once per nesting level: ten thousand ``[`` raise ``RecursionError``
(a 500 over HTTP, before this module).  No command or body of the API nests deeper than a few
levels (``decks`` in a stacked create is a list of lists inside the body: depth 3), so anything
deeper than ``MAX_DEPTH`` is refused with ``bad_request`` before the parser sees it.

A key given twice in one object (``{"card": "AS", "card": "2C"}``) is ``bad_request``: parsers
disagree on which copy counts.

JSON may also spell a lone UTF-16 surrogate (``"\\ud800"``), which Python decodes into a ``str``
that no UTF-8 encoder takes: a command id holding one made a 500 where it was hashed.  No field
of the API needs one, so an object holding one anywhere (a key or a string) is ``bad_request``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from services.errors import InvalidCommand

MAX_DEPTH = 8
_MARKS = re.compile(r'["\\\[\]{}]')
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
"""The JSON escape of a UTF-16 surrogate: a pair (an emoji, say) is fine, a lone one is not."""


def depth(text: str) -> int:
    """The deepest nesting of arrays and objects in ``text`` (brackets inside strings do not
    count), in one pass.  Unbalanced text gets some number; the parser refuses it anyway."""
    deepest = level = 0
    in_string = escaped = False
    escape_at = -2
    for match in _MARKS.finditer(text):
        mark = match.group()
        if in_string:
            if escaped:  # the previous mark was a backslash right before this one
                escaped = False
                if match.start() == escape_at + 1:
                    continue
            if mark == "\\":
                escaped, escape_at = True, match.start()
            elif mark == '"':
                in_string = False
            continue
        if mark == '"':
            in_string = True
        elif mark in "[{":
            level += 1
            deepest = max(deepest, level)
        elif mark in "]}":
            level -= 1
    return deepest


def parse_object(raw: str | bytes, what: str = "the body") -> dict[str, Any]:
    """``raw`` as a JSON object; ``bad_request`` for invalid JSON, for anything but an object,
    and for nesting deeper than ``MAX_DEPTH``."""
    try:
        text = raw.decode() if isinstance(raw, bytes) else raw
    except UnicodeDecodeError:
        raise InvalidCommand(f"{what} is not valid JSON (UTF-8)") from None
    # Counting brackets first is cheap: a command has two.  Only text with more of them than
    # the limit is scanned properly (strings may hold brackets).
    if text.count("[") + text.count("{") > MAX_DEPTH and depth(text) > MAX_DEPTH:
        raise InvalidCommand(f"{what} nests deeper than {MAX_DEPTH} levels")
    try:
        data = json.loads(text, object_pairs_hook=_no_twins)
    except _Twin as twin:
        raise InvalidCommand(f"{what} gives the field {twin.args[0]!r} more than once") \
            from None
    except (ValueError, RecursionError):
        raise InvalidCommand(f"{what} is not valid JSON") from None
    if not isinstance(data, dict):
        raise InvalidCommand(f"{what} must be a JSON object")
    if _SURROGATE_ESCAPE.search(text) and not _encodable(data):
        raise InvalidCommand(f"{what} holds a lone UTF-16 surrogate (\\ud800 to \\udfff)")
    return data


class _Twin(Exception):
    """A JSON object naming one key twice (not a ``ValueError``: told apart from bad JSON)."""


def _no_twins(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object as a dict, refusing a key given twice: ``json`` keeps the last, another
    parser (a proxy's, a log's) the first, so ``{"card": "AS", "card": "2C"}`` would mean two
    things; nothing is done instead."""
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Twin(key)
            seen.add(key)
    return data


def _encodable(data: Any) -> bool:
    """Whether every string of ``data`` (keys too) is valid Unicode, i.e. encodes as UTF-8."""
    try:
        json.dumps(data, ensure_ascii=False).encode()
    except UnicodeEncodeError:
        return False
    return True


def only_fields(data: dict[str, Any], allowed: set[str]) -> None:
    """``bad_request`` naming the first field of a body or frame that it does not take (so a
    misspelt field is refused, never silently ignored)."""
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise InvalidCommand(f"unknown field {unknown[0]!r}")
