"""The event store's contract.

A match's log is a sequence of *records* numbered 1, 2, 3...; a record's number is the match's
*version* after it.  One record holds every event of one accepted command (or system step), so a
command's events are appended atomically.  ``append`` refuses (``Conflict``) a record whose
version is not above the stored version: that is the optimistic lock.  Writers only ever append
the version they read plus one, so versions stay contiguous as long as the store loses nothing it
acknowledged; every load checks contiguity and the digest chain anyway.

A record may carry the client's command id; the store keeps it in the record and
``command_version`` finds it (the match service keeps an index of them in its cache, so retried
commands are answered with their original result instead of being applied twice).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Callable, Sequence
from typing import Protocol

from engine import Event


@dataclass(frozen=True, slots=True)
class Record:
    version: int
    events: tuple[Event, ...]
    actor: int | None = None
    """The seat that sent the command, or None for a system step (creation, seating, deals)."""
    command_id: str | None = None
    time_ms: int = 0
    """Wall-clock time of the append in ms, kept to the second (audit only: the engine never
    reads it)."""
    prev: bytes = b""
    """Digest of the previous record (empty for the first): the tamper-evident chain."""
    digest: bytes = field(default=b"", compare=False)
    """Digest of this record's encoding, filled in by the codec."""


class StoreUnavailable(Exception):
    """The store could not be reached (the connection failed): whatever a caller cached may be
    ahead of what the store now holds."""


class Conflict(Exception):
    """The record's version is not the next one: someone else appended first."""

    def __init__(self, current: int) -> None:
        super().__init__(f"the log is at version {current}")
        self.current = current


class EventStore(Protocol):
    def append(self, match_id: str, record: Record) -> Record:
        """Append ``record`` (version = stored version + 1); return it with its digest."""
        ...

    def append_sealed(self, match_id: str, version: int, payload: bytes) -> None:
        """Append an encoded record (``codec.sealed``) as ``version``; ``Conflict`` if the
        stream already holds ``version`` (another writer was first).  A stored record is never
        replaced.  Offering the very bytes already stored at ``version`` may succeed (on a
        cluster it does: that is how a retried append whose answer was lost is recognised);
        either answer then leaves the writer with the truth."""
        ...

    def read(self, match_id: str, after: int = 0, upto: int | None = None) -> list[Record]:
        """Records with ``after < version <= upto`` (all after ``after`` if ``upto`` is None)."""
        ...

    def read_raw(self, match_id: str, after: int = 0, upto: int | None = None
                 ) -> list[tuple[int, bytes]]:
        """Like ``read`` but ``(version, encoded record)`` pairs, for fast state rebuilding."""
        ...

    def tail(self, match_id: str, after: int, block_ms: int) -> list[Record]:
        """Records after ``after``; waits up to ``block_ms`` for one if there are none yet."""
        ...

    def version(self, match_id: str) -> int:
        """The stored version (0 for a match that does not exist)."""
        ...

    def command_version(self, match_id: str, command_id: str) -> int | None:
        """The version a command id was applied at, if it was."""
        ...

    def confirm_stored(self, match_id: str, version: int) -> None:
        """Return once record ``version``, read from the store, is as safe as an acknowledged
        append: with replica acknowledgements (``HOKM_REPLICA_ACKS``) once that many replicas
        hold it, else at once; ``StoreUnavailable`` otherwise.  For a record found by its
        command id: the append that stored it may have been refused as unavailable."""
        ...

    # Side data kept beside the log (secret, settings, token hashes): small string maps.
    def put_meta(self, match_id: str, name: str, values: dict[str, str]) -> None: ...

    def get_meta(self, match_id: str, name: str) -> dict[str, str]: ...

    def get_meta_field(self, match_id: str, name: str, key: str) -> str | None: ...

    def delete_meta_field(self, match_id: str, name: str, key: str) -> None: ...

    def put_meta_once(self, match_id: str, name: str, key: str, value: str) -> str:
        """Set ``key`` to ``value`` unless it is set: the value that stands (``value``, or
        the one set first; atomic, so of two writers at once exactly one wins)."""
        ...

    def remember(self, match_id: str | None, request: str, value: str, ttl_s: float) -> str:
        """Keep ``value`` for ``ttl_s`` seconds as the answer to the client request named
        ``request`` (a digest of its request key): a join of ``match_id``, or a create
        (``match_id`` None), unless one is kept already.  Returns the value that stands
        (``value``, or the one kept first: of two writers at once exactly one wins)."""
        ...

    def forget(self, match_id: str | None, request: str) -> None:
        """Drop what ``remember`` keeps for ``request`` (a refused request: its retry starts
        afresh)."""
        ...

    # Lifetime and quotas.
    def keep(self, match_id: str, seconds: float) -> None:
        """Let the match's record lapse ``seconds`` from now (0: keep it for ever)."""
        ...

    def hit(self, name: str, subject: str, window_s: float, now: float) -> int:
        """Count one ``name`` for ``subject`` in the current fixed window; the count so far."""
        ...

    def take_slot(self, pool: str, member: str, owner: str, limits: tuple[int, int],
                  lapse_at: float, now: float) -> bool:
        """Hold one of the slots of ``pool`` for ``member`` if fewer than ``limits`` = (in all,
        for ``owner``) are held (0: unlimited); False (nothing held) otherwise."""
        ...

    def release_slot(self, pool: str, member: str, owner: str) -> None: ...


class AnalysisStore(Protocol):
    """The post-match analysis kept beside a match (``worker/analysis``): one encoded result
    per round, and a mark per round while it is queued or computed."""

    def analysis_results(self, match_id: str) -> dict[int, bytes]:
        """The stored results by round number."""
        ...

    def put_analysis(self, match_id: str, round_no: int, payload: bytes) -> None:
        """Store a round's result (it lapses with the match's log) and clear its mark."""
        ...

    def mark_analysis(self, match_id: str, round_no: int, ttl_s: float, *, new: bool) -> bool:
        """Mark the round queued or running for ``ttl_s``: with ``new`` only if no mark is
        there (True when this call set it: the caller enqueues); else refresh it (True)."""
        ...


Entries = list[tuple[int, bytes]]
"""Encoded records as ``(version, payload)`` pairs, in version order."""


def move_up(positions: dict[str, int], match_id: str, version: int) -> None:
    """``Follower.seen`` for a follower that keeps its positions in ``positions``: a followed
    match's position moves up to ``version``, never back."""
    at = positions.get(match_id)
    if at is not None and version > at:
        positions[match_id] = version


class Follower(Protocol):
    """New records of a changing set of matches, as they are appended (by anyone).

    ``follow(match, after)`` starts (or moves) following a match from the record after
    ``after``; ``drop(match)`` stops.  ``next_batch()`` waits until some followed match has
    records past its position and returns them: for each match, the entries that follow its
    position, in order, and the position moves past them.  Nothing appended while a match is
    followed is ever skipped, whatever happens to the connections in between (a follower that
    loses its connection reads from its positions again once it has a new one).  One follower
    serves one asyncio event loop.  ``commands`` counts the commands it has sent to the store
    (its cost: an idle follower's must not grow with the matches it follows).  ``waiting`` is
    True while ``next_batch`` is parked until news comes (its wake-up awaited, or its blocking
    read sent and unanswered): what a test waits for before it changes the store under a
    waiting follower, instead of a fixed sleep.

    ``noted`` (None: nobody listens) is called with a followed match whose side state changed
    beside its log, as the store's wake-ups tell (``scripts.TURN_NOTE``: a process set its
    turn's deadline or gave it more time), so the caller can look at it again at once.  Only a
    follower woken by the store's wake channels (a real Redis) calls it; on fakeredis and in
    memory one process makes every change, and tells its own sockets itself.

    ``rewound`` (None: nobody listens) is called with a followed match whose log no longer
    holds the record at the follower's position, found when the follower reads a match again
    after its connection was lost or moved (a Redis restarted from an older snapshot or
    without its data, a replica promoted without the newest records): the follower stops
    following it (its records past the lost ones could not be folded onto what the caller
    holds), and the caller reads the match afresh.  Only the followers of a real Redis call it;
    fakeredis and memory lose nothing while the process runs."""

    commands: int
    waiting: bool
    noted: Callable[[str], None] | None
    rewound: Callable[[str], None] | None

    def follow(self, match_id: str, after: int) -> None: ...

    def drop(self, match_id: str) -> None: ...

    def seen(self, match_id: str, version: int) -> None:
        """The caller has the records of a followed match up to ``version`` already (it
        appended them itself): the position moves up to ``version``, so the follower need not
        read them back (it may still deliver some that were on their way)."""
        ...

    async def next_batch(self) -> list[tuple[str, Entries]]: ...

    async def close(self) -> None: ...


class AsyncEventStore(Protocol):
    """What the gateway's event loop needs of the store: appends that do not wait for each
    other's round trips (pipelined across matches where the backend allows it), reads, and a
    follower."""

    async def append(self, match_id: str, version: int, payload: bytes) -> bool:
        """Append an encoded record as ``version``: True once it is stored, False if the stream
        already holds that version (another writer was first).  ``StoreUnavailable`` when the
        store cannot be reached (then it may or may not be stored: the caller reloads)."""
        ...

    async def read_raw(self, match_id: str, after: int = 0, upto: int | None = None
                       ) -> Entries:
        """Encoded records with ``after < version <= upto``, in order."""
        ...

    def follower(self) -> Follower:
        """A new follower on this store (for the calling event loop)."""
        ...

    async def close(self) -> None: ...


def contiguous(entries: Sequence[tuple[int, bytes]], after: int) -> bool:
    """Whether ``entries`` are exactly the versions ``after + 1, after + 2, ...``."""
    return all(v == after + i + 1 for i, (v, _) in enumerate(entries))
