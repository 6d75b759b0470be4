"""Records <-> bytes: msgpack with a type tag per event and a schema version per record.

A record is encoded as the msgpack array
``[SCHEMA, prev, actor, command_id, time_ms, [[tag, field1, field2, ...], ...]]``
where ``tag`` is a short stable code per event type (``TAGS``) and the fields follow the event
dataclass's field order (``Rules`` as its plain dict).  Arrays rather than maps keep a finished
match small in Redis.  The record's digest is the first ``DIGEST_SIZE`` bytes of SHA-256 of its
encoding; each record stores its predecessor's digest in ``prev``, forming a chain that
``hokm verify`` checks (an edited entry breaks the link to the next one).
"""

from __future__ import annotations

import hashlib
from dataclasses import fields
from typing import Any

import msgpack

from engine import EVENT_TYPES, Event, Rules

from .port import Record

SCHEMA = 1
DIGEST_SIZE = 8
"""64 bits: enough to make an undetected single-entry edit a 2**64 search; the chain is a
tamper-evident log, not a signature (anyone able to rewrite every later entry can rebuild it)."""

TAGS: dict[str, str] = {
    "match_created": "mc", "seat_taken": "st", "seat_left": "sl", "hakem_drawn": "hd",
    "round_started": "rs", "trump_chosen": "tc", "card_played": "cp", "trick_won": "tw",
    "round_ended": "re", "set_won": "sw", "match_ended": "me", "secret_revealed": "sr",
}
_BY_TAG: dict[str, type] = {tag: EVENT_TYPES[name] for name, tag in TAGS.items()}
_FIELDS: dict[type, tuple[str, ...]] = {
    cls: tuple(f.name for f in fields(cls)) for cls in EVENT_TYPES.values()
}
_TAG_OF: dict[type, str] = {EVENT_TYPES[name]: tag for name, tag in TAGS.items()}


class CorruptRecord(ValueError):
    """Bytes that are not a record of a schema this code reads."""


def _event_row(event: Event) -> list[Any]:
    row: list[Any] = [_TAG_OF[type(event)]]
    for name in _FIELDS[type(event)]:
        value = getattr(event, name)
        row.append(value.to_dict() if isinstance(value, Rules) else value)
    return row


def _event_of(row: Any) -> Event:
    cls = _BY_TAG[row[0]]
    values = list(row[1:])
    if cls is EVENT_TYPES["match_created"]:
        values[1] = Rules.from_dict(values[1])
    event: Event = cls(*values)
    return event


def encode(record: Record) -> bytes:
    """The bytes stored for ``record`` (its digest field is ignored)."""
    payload: bytes = msgpack.packb(
        [SCHEMA, record.prev, record.actor, record.command_id, record.time_ms,
         [_event_row(e) for e in record.events]],
        use_bin_type=True,
    )
    return payload


def digest_of(payload: bytes) -> bytes:
    return hashlib.sha256(payload).digest()[:DIGEST_SIZE]


def decode(version: int, payload: bytes) -> Record:
    """The record stored as ``payload`` at ``version``; ``CorruptRecord`` if unreadable."""
    try:
        schema, prev, actor, command_id, time_ms, rows = msgpack.unpackb(
            payload, use_list=False, raw=False, strict_map_key=False
        )
        if schema != SCHEMA:
            raise CorruptRecord(f"record {version}: schema {schema!r} is not {SCHEMA}")
        events = tuple(_event_of(row) for row in rows)
    except CorruptRecord:
        raise
    except Exception as exc:  # msgpack, shape or event construction errors alike
        raise CorruptRecord(f"record {version} cannot be decoded: {exc}") from exc
    return Record(version, events, actor, command_id, time_ms, prev, digest_of(payload))


def sealed(record: Record) -> tuple[Record, bytes]:
    """``record`` with its digest filled in, and its encoding."""
    payload = encode(record)
    return (
        Record(record.version, record.events, record.actor, record.command_id, record.time_ms,
               record.prev, digest_of(payload)),
        payload,
    )
