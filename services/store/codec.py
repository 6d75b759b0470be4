"""Records <-> bytes: msgpack with a type tag per event and a schema version per record.

A record is encoded as the msgpack array
``[SCHEMA, prev, actor, command_id, time_s, [[tag, field1, field2, ...], ...]]``
where ``tag`` is a small stable integer per event type (``TAGS``) and the fields follow the event
dataclass's field order (``Rules`` as its plain dict).  Cards are stored as their index in
``engine.cards.NAMES`` (a deck as 52 bytes, the talon game's discards as one byte a card) and
time to the second.  The two commonest records
(a card played by the record's actor, alone or completing a trick) are one small integer in
place of the list of rows (see ``_rows``).  Arrays, small integers and
bytes rather than maps and names keep a finished match small in Redis (``bench/store.py``).

The record's digest is the first ``DIGEST_SIZE`` bytes of SHA-256 of its encoding; each record
stores its predecessor's digest in ``prev``, forming a chain that ``hokm verify`` checks (an
edited entry breaks the link to the next one).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import fields
from typing import Any, TypeVar

import msgpack

from engine import CARD_INDEX, EVENT_TYPES, NAMES, Event, Rules
from engine.events import CardPlayed, TrickWon

from .port import Record

SCHEMA = 1
DIGEST_SIZE = 8
"""64 bits: enough to make an undetected single-entry edit a 2**64 search; the chain is a
tamper-evident log, not a signature (anyone able to rewrite every later entry can rebuild it)."""

TAGS: dict[str, int] = {
    "match_created": 1, "seat_taken": 2, "seat_left": 3, "hakem_drawn": 4, "round_started": 5,
    "trump_chosen": 6, "card_played": 7, "trick_won": 8, "round_ended": 9, "set_won": 10,
    "match_ended": 11, "secret_revealed": 12, "cards_discarded": 13, "talon_drawn": 14,
    "seat_renamed": 15,
}
"""Stable forever: a tag, once used, never changes meaning (new events get new numbers)."""
_BY_TAG: dict[int, type] = {tag: EVENT_TYPES[name] for name, tag in TAGS.items()}
_FIELDS: dict[type, tuple[str, ...]] = {
    cls: tuple(f.name for f in fields(cls)) for cls in EVENT_TYPES.values()
}
_TAG_OF: dict[type, int] = {EVENT_TYPES[name]: tag for name, tag in TAGS.items()}
_CARD_PLAYED = EVENT_TYPES["card_played"]
_ROUND_STARTED = EVENT_TYPES["round_started"]
_HAKEM_DRAWN = EVENT_TYPES["hakem_drawn"]
_MATCH_CREATED = EVENT_TYPES["match_created"]
_CARDS_DISCARDED = EVENT_TYPES["cards_discarded"]
_TALON_DRAWN = EVENT_TYPES["talon_drawn"]


S = TypeVar("S")


class CorruptRecord(ValueError):
    """Bytes that are not a record of a schema this code reads."""


def _event_row(event: Event) -> list[Any]:
    cls = type(event)
    row: list[Any] = [_TAG_OF[cls]]
    for name in _FIELDS[cls]:
        value = getattr(event, name)
        if isinstance(value, Rules):
            value = value.to_dict()
        elif cls is _CARD_PLAYED and name == "card":
            value = CARD_INDEX[value]
        elif cls is _ROUND_STARTED and name == "deck":
            value = bytes(CARD_INDEX[c] for c in value)
        elif cls is _HAKEM_DRAWN and name == "draw":
            value = [[seat, CARD_INDEX[card]] for seat, card in value]
        elif cls is _CARDS_DISCARDED and name == "cards":
            value = bytes(CARD_INDEX[c] for c in value)
        elif cls is _TALON_DRAWN and name in ("kept", "discarded"):
            value = CARD_INDEX[value]
        row.append(value)
    return row


def _event_of(row: Any) -> Event:
    cls = _BY_TAG[row[0]]
    values = list(row[1:])
    if cls is _CARD_PLAYED:
        values[1] = NAMES[values[1]]
    elif cls is _ROUND_STARTED:
        values[3] = tuple(NAMES[c] for c in values[3])
    elif cls is _HAKEM_DRAWN:
        values[0] = tuple((seat, NAMES[card]) for seat, card in values[0])
    elif cls is _MATCH_CREATED:
        values[1] = Rules.from_dict(values[1])
    elif cls is _CARDS_DISCARDED:
        values[1] = tuple(NAMES[c] for c in values[1])
    elif cls is _TALON_DRAWN:
        values[1], values[2] = NAMES[values[1]], NAMES[values[2]]
    event: Event = cls(*values)
    return event


def _rows(record: Record) -> Any:
    """The rows of a record's events, or the compact form of the two commonest records: one
    card played by the actor (the card's index, 0-51), or that card completing a trick won by
    seat ``w`` (``52 * (w + 1) + card``).  Either is one small integer instead of a list."""
    events = record.events
    first = events[0] if events else None
    if isinstance(first, CardPlayed) and first.seat == record.actor:
        card = CARD_INDEX[first.card]
        if len(events) == 1:
            return card
        second = events[1]
        if len(events) == 2 and isinstance(second, TrickWon) and second.banked == 1:
            return 52 * (second.seat + 1) + card
    return [_event_row(e) for e in events]


def _expand(compact: int, actor: int) -> tuple[Event, ...]:
    """The events of a compact record (see ``_rows``)."""
    if compact < 52:
        return _PLAYED_ALONE[actor][compact]
    return _PLAYED_WON[compact // 52 - 1][actor][compact % 52]


def encode(record: Record) -> bytes:
    """The bytes stored for ``record`` (its digest field is ignored)."""
    payload: bytes = msgpack.packb(
        [SCHEMA, record.prev, record.actor, record.command_id, record.time_ms // 1000,
         _rows(record)],
        use_bin_type=True,
    )
    return payload


def digest_of(payload: bytes) -> bytes:
    return hashlib.sha256(payload).digest()[:DIGEST_SIZE]


# Events are immutable values: the common ones are made once and shared by every decode.
_PLAYED = tuple(tuple(_CARD_PLAYED(seat, name) for name in NAMES) for seat in range(4))
_TRICK_WON_1 = tuple(EVENT_TYPES["trick_won"](seat, 1) for seat in range(4))
_TAG_PLAYED, _TAG_TRICK = TAGS["card_played"], TAGS["trick_won"]
_PLAYED_ALONE = tuple(tuple((event,) for event in row) for row in _PLAYED)
_PLAYED_WON = tuple(tuple(tuple((event, _TRICK_WON_1[w]) for event in row) for row in _PLAYED)
                    for w in range(4))
"""``_PLAYED_WON[winner][seat][card]``: the events of a card that completes a trick."""


def _events_fast(rows: Any) -> tuple[Event, ...]:
    out: list[Event] = []
    for row in rows:
        tag = row[0]
        if tag == _TAG_PLAYED:
            out.append(_PLAYED[row[1]][row[2]])
        elif tag == _TAG_TRICK and row[2] == 1:
            out.append(_TRICK_WON_1[row[1]])
        else:
            out.append(_event_of(row))
    return tuple(out)


def decode_light(version: int, payload: bytes
                 ) -> tuple[bytes, int | None, str | None, tuple[Event, ...]]:
    """``(prev, actor, command_id, events)`` of a payload, without building a ``Record`` or
    hashing it: the fast path for rebuilding a state from a stream."""
    try:
        schema, prev, actor, command_id, _, rows = msgpack.unpackb(
            payload, use_list=False, raw=False, strict_map_key=False
        )
        if schema != SCHEMA:
            raise CorruptRecord(f"record {version}: schema {schema!r} is not {SCHEMA}")
        if type(rows) is int:
            return prev, actor, command_id, _expand(rows, actor)
        return prev, actor, command_id, _events_fast(rows)
    except CorruptRecord:
        raise
    except Exception as exc:
        raise CorruptRecord(f"record {version} cannot be decoded: {exc}") from exc


def apply_payloads(entries: Sequence[tuple[int, bytes]], state: S, version: int,
                   step: Callable[[S, Event], S], commands: dict[str, int]) -> S:
    """Fold the events of encoded records into ``state`` with ``step`` (``engine.evolve``):
    the hot loop of rebuilding a match, written flat because it runs for every record.
    Checks that versions follow ``version``; records command ids into ``commands``."""
    unpack, played, won, tag_played, tag_trick = (
        msgpack.unpackb, _PLAYED, _TRICK_WON_1, _TAG_PLAYED, _TAG_TRICK)
    try:
        for number, payload in entries:
            schema, _, actor, command_id, _, rows = unpack(payload, use_list=False)
            if number != version + 1 or schema != SCHEMA:
                raise CorruptRecord(f"record {number} does not follow record {version}")
            if type(rows) is int:  # the compact form (see _rows): one card, perhaps a trick
                if rows < 52:
                    state = step(state, played[actor][rows])
                else:
                    state = step(step(state, played[actor][rows % 52]), won[rows // 52 - 1])
                rows = ()
            for row in rows:
                tag = row[0]
                if tag == tag_played:
                    state = step(state, played[row[1]][row[2]])
                elif tag == tag_trick and row[2] == 1:
                    state = step(state, won[row[1]])
                else:
                    state = step(state, _event_of(row))
            version = number
            if command_id is not None:
                commands[command_id] = number
    except CorruptRecord:
        raise
    except Exception as exc:
        raise CorruptRecord(f"record {version + 1} cannot be decoded: {exc}") from exc
    return state


def decode(version: int, payload: bytes) -> Record:
    """The record stored as ``payload`` at ``version``; ``CorruptRecord`` if unreadable."""
    try:
        schema, prev, actor, command_id, time_s, rows = msgpack.unpackb(
            payload, use_list=False, raw=False, strict_map_key=False
        )
        if schema != SCHEMA:
            raise CorruptRecord(f"record {version}: schema {schema!r} is not {SCHEMA}")
        events = _expand(rows, actor) if type(rows) is int else _events_fast(rows)
    except CorruptRecord:
        raise
    except Exception as exc:  # msgpack, shape or event construction errors alike
        raise CorruptRecord(f"record {version} cannot be decoded: {exc}") from exc
    return Record(version, events, actor, command_id, time_s * 1000, prev, digest_of(payload))


def sealed(record: Record) -> tuple[Record, bytes]:
    """``record`` with its digest filled in, and its encoding."""
    payload = encode(record)
    return (
        Record(record.version, record.events, record.actor, record.command_id, record.time_ms,
               record.prev, digest_of(payload)),
        payload,
    )
