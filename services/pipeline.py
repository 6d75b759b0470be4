"""The command pipeline: the one pure step every writer takes before it appends.

Every change to a match — a player's command on the gateway's event loop or in the match
service's thread, a bot's move in a worker, a system step (the ace draw, a deal, the final
reveal) — goes through ``prepare``:

1. the client's command id, if any, must not be in the match already (``Duplicate`` carries the
   version it was applied at: the retry is answered with the original result);
2. the expected version, if given, must be the match's (``StaleVersion``);
3. ``engine.decide`` validates the command (its refusals are ``HokmError`` values);
4. the record is built (one record per command: its events, the actor, the command id, the time,
   the digest of the previous record) and sealed (encoded, its own digest computed);
5. its events are folded into the state.

``prepare`` reads no clock and does no I/O: the caller hands it the time and then appends the
sealed payload at ``after.version`` through a store port.  If the store refuses the version
(another writer was first), the caller reloads and prepares again; nothing of a refused attempt
was kept anywhere.  Writers differ only in *where* they run these steps, never in which.

``Loaded`` is a match at one version: immutable, so that a cache, a hub and a command in flight
can share it; its command-id index is a mapping that is copied, never changed, when a record
adds an id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import NamedTuple

from engine import Command, Event, State, decide, evolve

from .errors import HokmError, StaleVersion
from .store.codec import CorruptRecord, apply_payloads, decode_light, digest_of, sealed
from .store.port import Record

NO_COMMANDS: Mapping[str, int] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Loaded:
    """A match's state at ``version``, the digest of its last record, and the versions its
    client command ids were applied at."""

    state: State
    version: int
    head: bytes
    commands: Mapping[str, int] = field(default_factory=lambda: NO_COMMANDS)


EMPTY = Loaded(State(), 0, b"")
"""A match before its first record."""


class Prepared(NamedTuple):
    """A command ready to append: the sealed record, its encoding, and the match after it."""

    record: Record
    payload: bytes
    after: Loaded


class Duplicate(Exception):
    """The command id was applied already, at ``version``."""

    def __init__(self, version: int) -> None:
        super().__init__(f"already applied at version {version}")
        self.version = version


class CorruptLog(HokmError):
    """The stream is not a chain of records (an edited or missing entry): ``match_damaged``.

    The message is the players' (the same for every damage); ``detail`` says where the chain
    breaks, for the operator's log (``hokm verify`` tells the whole story)."""

    code = "match_damaged"

    def __init__(self, detail: str) -> None:
        super().__init__("this match's record is damaged, so it cannot be played or shown; "
                         "the server's operator can check it with hokm verify")
        self.detail = detail


def prepare(loaded: Loaded, actor: int | None, command: Command, *, time_ms: int,
            version: int | None = None, command_id: str | None = None) -> Prepared:
    """Steps 1-5 above for ``command`` by ``actor`` (a seat, or None for the system) on
    ``loaded``.  Raises ``Duplicate``, ``StaleVersion`` or the engine's refusal."""
    if command_id is not None and command_id in loaded.commands:
        raise Duplicate(loaded.commands[command_id])
    if version is not None and version != loaded.version:
        raise StaleVersion(f"the match is at version {loaded.version}, not {version}")
    events = decide(loaded.state, actor, command)
    return seal(loaded, events, actor, command_id, time_ms)


def seal(loaded: Loaded, events: Sequence[Event], actor: int | None, command_id: str | None,
         time_ms: int) -> Prepared:
    """Steps 4-5: the record of ``events`` at the next version, sealed, and the match after
    it (events are trusted here: ``prepare`` is the way to get them)."""
    record, payload = sealed(Record(loaded.version + 1, tuple(events), actor, command_id,
                                    time_ms, loaded.head))
    state = loaded.state
    for event in events:
        state = evolve(state, event)
    commands = loaded.commands
    if command_id is not None:
        commands = MappingProxyType({**commands, command_id: record.version})
    return Prepared(record, payload, Loaded(state, record.version, record.digest, commands))


def fold(records: Sequence[Record], loaded: Loaded = EMPTY) -> Loaded:
    """Apply decoded records, which must follow ``loaded`` (``CorruptLog`` otherwise)."""
    state, version, head = loaded.state, loaded.version, loaded.head
    added: dict[str, int] = {}
    for record in chained(records, loaded):
        for event in record.events:
            state = evolve(state, event)
        version, head = record.version, record.digest
        if record.command_id is not None:
            added[record.command_id] = version
    return Loaded(state, version, head, _with(loaded.commands, added))


def chained(records: Sequence[Record], loaded: Loaded = EMPTY) -> Sequence[Record]:
    """``records`` if each follows the one before it, the first ``loaded``'s last (its version
    and digest), else ``CorruptLog``."""
    version, head = loaded.version, loaded.head
    for record in records:
        if record.version != version + 1 or record.prev != head:
            raise CorruptLog(f"record {record.version} does not follow record {version}")
        version, head = record.version, record.digest
    return records


def fold_raw(entries: Sequence[tuple[int, bytes]], loaded: Loaded = EMPTY) -> Loaded:
    """Like ``fold`` but from encoded records: the fast path of every load.  It checks that
    versions are contiguous and that the first new record links to ``loaded``'s last one; the
    whole chain is checked by ``hokm verify`` (services/audit.py)."""
    if not entries:
        return loaded
    if decode_light(entries[0][0], entries[0][1])[0] != loaded.head:
        raise CorruptLog(f"record {entries[0][0]} does not link to record {loaded.version}")
    added: dict[str, int] = {}
    try:
        state = apply_payloads(entries, loaded.state, loaded.version, evolve, added)
    except CorruptRecord as exc:
        raise CorruptLog(str(exc)) from exc
    return Loaded(state, entries[-1][0], digest_of(entries[-1][1]),
                  _with(loaded.commands, added))


def _with(commands: Mapping[str, int], added: dict[str, int]) -> Mapping[str, int]:
    return MappingProxyType({**commands, **added}) if added else commands
