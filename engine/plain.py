"""Events <-> plain dicts (``{"type": tag, **fields}``), the form codecs, exports and the API use.

``from_plain(to_plain(e)) == e`` for every event.  ``from_plain`` is for trusted input (the store's
own records); it raises ``ValueError`` on an unknown tag or fields.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from .events import EVENT_TYPES, Event
from .rules import Rules


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, Rules):
        return value.to_dict()
    return value


def _tuple(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tuple(v) for v in value)
    return value


_TYPES = EVENT_TYPES
_FIELDS: dict[type, tuple[str, ...]] = {
    cls: tuple(f.name for f in fields(cls)) for cls in _TYPES.values()
}


def to_plain(event: Event) -> dict[str, Any]:
    out: dict[str, Any] = {"type": event.TYPE}
    for name in _FIELDS[type(event)]:
        out[name] = _plain(getattr(event, name))
    return out


def from_plain(data: dict[str, Any]) -> Event:
    try:
        cls = _TYPES[data["type"]]
    except (KeyError, TypeError):
        raise ValueError(f"unknown event type in {data!r:.60}") from None
    kwargs = {}
    for name in _FIELDS[cls]:
        if name in data:
            value = data[name]
            kwargs[name] = Rules.from_dict(value) if name == "rules" else _tuple(value)
    extra = set(data) - set(_FIELDS[cls]) - {"type"}
    if extra:
        raise ValueError(f"unknown fields {sorted(extra)} for {data['type']}")
    event: Event = cls(**kwargs)
    return event
