"""A match's log as Redis holds it, without I/O: the entry id of each version and the parsing of
the replies that carry entries, shared by every Redis store, threaded (``redis_streams.py``)
or on the event loop (``redis_async.py``, ``redis_cluster.py``, ``redis_wake.py``).

Record ``v`` is the stream entry ``v-0`` whose one field ``d`` holds the encoded record.  The
functions here take the ids and replies as redis-py gives them (parsed: ``[(id, {b"d":
payload}), ...]``) or as Redis sends them (raw: ``[[id, [b"d", payload]], ...]``, a map under
RESP3) and never talk to Redis themselves; what they receive and return is their contract.
"""

from __future__ import annotations

from typing import Any

from .codec import decode
from .port import Entries, Record

FIELD = b"d"
"""The one field of every entry: the encoded record."""


def entry_id(version: int) -> bytes:
    """The id of the entry that holds record ``version`` (``b"7-0"``)."""
    return b"%d-0" % version


def version_of(raw_id: bytes | str) -> int:
    """The version of the record an entry id names (the id's first part)."""
    text = raw_id.decode() if isinstance(raw_id, bytes) else raw_id
    return int(text.split("-", 1)[0])


def first_id(after: int) -> bytes:
    """The entry id of the version after ``after`` (``XRANGE``'s start)."""
    return entry_id(after + 1)


def id_range(after: int, upto: int | None) -> tuple[bytes, bytes] | None:
    """The ``XRANGE`` bounds of the versions after ``after`` up to ``upto`` (None: the end);
    None when that range is empty (no command need be sent)."""
    if upto is not None and upto <= after:
        return None
    return first_id(after), b"+" if upto is None else entry_id(upto)


def top_version(top: Any) -> int:
    """The version of a log whose newest entry is ``top`` (the reply to ``XREVRANGE <log> + -
    COUNT 1``): 0 for an empty or missing log."""
    return version_of(top[0][0]) if top else 0


def reaches(top: Any, version: int) -> bool:
    """Whether a log whose newest entry is ``top`` (``XREVRANGE ... COUNT 1``) holds the
    version before ``version``: the append of ``version`` would leave no gap.  An empty log
    reaches nothing (callers ask only for ``version > 1``: version 1 starts a log)."""
    return bool(top) and top_version(top) >= version - 1


def payload_of(fields: Any) -> bytes:
    """The ``d`` field of one entry's fields: a dict (parsed by redis-py, or a RESP3 map) or
    the flat ``[field, value, ...]`` list Redis sends; ``KeyError`` without one."""
    if isinstance(fields, dict):
        return fields[FIELD]  # type: ignore[no-any-return]
    for i in range(0, len(fields) - 1, 2):
        if fields[i] == FIELD:
            return fields[i + 1]  # type: ignore[no-any-return]
    raise KeyError("d")


def payloads_of(entries: Any) -> Entries:
    """(version, payload) of the entries of an ``XRANGE`` or ``XREAD`` reply, parsed or raw."""
    return [(version_of(raw_id), payload_of(fields)) for raw_id, fields in entries]


def records_of(entries: Any) -> list[Record]:
    """The decoded records of an ``XRANGE`` or ``XREAD`` reply's entries (``CorruptRecord``
    for one that does not decode)."""
    return [decode(version, payload) for version, payload in payloads_of(entries)]


def raw_payloads(entries: Any) -> Entries:
    """(version, payload) of a raw ``XRANGE`` reply (``[[id, [b"d", payload]], ...]``: the one
    field of every entry, as this store writes them), the fast path of a cold load: stream ids
    strictly increase, so entries whose first and last versions are as far apart as their
    count are numbered without parsing every id."""
    if not entries:
        return []
    first, last = version_of(entries[0][0]), version_of(entries[-1][0])
    if last - first + 1 == len(entries):
        return list(zip(range(first, last + 1), [fields[1] for _, fields in entries],
                        strict=True))
    return [(version_of(raw_id), fields[1]) for raw_id, fields in entries]
