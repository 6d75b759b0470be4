"""The embedded server's journal: the matches of ``hokm serve`` without Redis, kept in a data
folder across restarts (like Redis's append-only file).

Contract:

* **Where.** One wrapper around fakeredis's command execution,
  ``BaseFakeSocket._run_command`` (fakeredis 2.41.0): plain commands, the commands of a
  MULTI/EXEC and a script's ``redis.call`` all pass through it, with the server's lock held,
  so the journal's order is the order of execution.  A server with no journal attached pays one
  attribute lookup per command and behaves exactly as before.  ``install`` refuses
  (``JournalUnavailable``) if those internals no longer look as expected.
* **What.** Only match data (``persisted``): ``hokm:{<match>}:log``, ``:meta``, ``:tokens``,
  ``:analysis`` (a finished match's post-match analysis) and the sorted set ``hokm:matches``;
  and the answers remembered for the request keys of creates and joins (``keys.create_request``,
  ``keys.join_request``: strings with a few minutes' expiry), so that a client retrying a
  create or a join across a restart gets the match or seat it got, not a second one; and the
  quotas' fixed-window counters (``keys.counter``: the creates per address, strings with their
  window's expiry), so a restart does not give every address its quota back; and the
  bots-only matches' slots (``keys.slots``: sorted sets scored by each slot's lapse time), for
  the same reason.  RQ's keys,
  presence, bot guards, analysis marks and the gateway's wake streams are never written.
* **When.** After a command succeeded and before its reply goes back to the client, what it did
  to persisted keys is appended as one frame (one frame per client command: a whole MULTI/EXEC
  or script together) with one ``os.write`` on an ``O_APPEND`` descriptor.  Once a client has its
  reply the bytes are in the kernel: they survive the process being killed.  A thread calls
  ``fsync`` about once a second (``FSYNC_EVERY_S``) when something was written, so a crash of the
  machine itself loses at most about the last second.
* **Exact replay.** What is journaled does not depend on when it is replayed: an ``XADD`` records
  the id it was given (never ``*``); an expiry command records the absolute expiry it produced
  (``PEXPIREAT``), or ``PERSIST`` or ``DEL``; a ``SET`` or an ``INCR``/``INCRBY`` (only on a
  request key or a counter, ``strings``: on match data they are refused) records the value it
  left and its absolute expiry (a plain ``SET``, then ``PEXPIREAT`` or ``PERSIST``), whatever
  its options (``NX``, ``PX``...) were; a command that emptied a key (and so deleted it) is
  followed by ``DEL``.  Each frame carries the server's
  clock, so a replay knows which keys had expired by then (it holds expiries back and applies
  them at the end: a request's answer past its expiry is not brought back).
* **Known commands only.** The commands of ``COMMANDS`` are deterministic on these keys and are
  journaled; any other write naming a persisted key is refused with an error before it runs, so
  nothing reaches match data without being journaled.
* **Framing.** The file is a sequence of msgpack objects: the header ``{"hokm-journal": 1}``,
  then frames ``[time_s, [[db, name, arg, ...], ...]]`` (name and arguments as bytes).  A torn
  last frame (the process died in the middle of a write) is incomplete msgpack: it is detected
  and dropped.  Anything else that does not decode as a frame is ``JournalDamaged``.
* **Start** (``DataFolder.open``): an exclusive ``flock`` on ``<data>/lock`` (a second server on
  the folder gets ``DataFolderBusy``), the journal replayed into the new ``FakeServer``, then
  compacted (the persisted keys rewritten as a fresh journal, fsynced, renamed over the old one),
  then attached.
* **Readers** (``load``) take no lock: the server may be appending (a torn tail is ignored) or
  compacting (the rename is atomic: a reader sees the old file or the new one).
"""

from __future__ import annotations

import collections
import contextlib
import fcntl
import inspect
import logging
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import fakeredis
import msgpack
from fakeredis._helpers import SimpleError

from . import keys

log = logging.getLogger("hokm.journal")

VERSION = 1
JOURNAL = "journal"
"""The journal's file name in the data folder."""
LOCK = "lock"
"""The lock file's name in the data folder (holds the pid of the server that has it)."""
FSYNC_EVERY_S = 1.0
"""How often the journal is fsynced when something was written."""
FAKEREDIS = "2.41.0"
"""The fakeredis whose internals the wrapper was written against (pinned in pyproject.toml)."""


class JournalError(Exception):
    """A problem with the data folder, worded for a person (one line)."""


class DataFolderBusy(JournalError):
    """Another process holds the data folder's lock."""


class DataFolderForeign(JournalError):
    """The folder given is not empty and holds no journal: some other folder (``--data
    /etc``), in which the server would write its journal and lock beside what is there."""


class JournalDamaged(JournalError):
    """The journal holds bytes that are not a frame (other than a torn last one)."""


class JournalUnavailable(JournalError):
    """fakeredis's internals are not the ones the journal wraps."""


# -- which keys and commands -----------------------------------------------------------------

_PREFIX = keys.log("\0").partition("\0")[0].encode()
_KINDS = (keys.log, keys.meta, keys.tokens, keys.analysis)
_SUFFIXES = tuple(f("\0").partition("\0")[2].encode() for f in _KINDS)
_MATCHES = keys.MATCHES.encode()
_JOIN_HEAD, _, _JOIN_MIDDLE = (
    p.encode() for p in keys.join_request("\0", "\1").partition("\1")[0].partition("\0"))
_CREATE_HEAD = keys.create_request("\0").partition("\0")[0].encode()
_COUNTER_HEAD = keys.counter("\0", "\1", 0).partition("\0")[0].encode()
_SLOTS_HEAD = keys.slots("\0").partition("\0")[0].encode()


def remembered(key: bytes) -> bool:
    """Whether ``key`` is a request's remembered answer (``keys.create_request`` or
    ``keys.join_request`` of any match): a string, journaled with its expiry."""
    if key.startswith(_CREATE_HEAD):
        request = key[len(_CREATE_HEAD):]
        return bool(request) and b"{" not in request and b"}" not in request
    if not key.startswith(_JOIN_HEAD):
        return False
    match, found, request = key[len(_JOIN_HEAD):].partition(_JOIN_MIDDLE)
    return (bool(found) and bool(match) and bool(request)
            and not any(b in part for part in (match, request) for b in (b"{", b"}")))


def counted(key: bytes) -> bool:
    """Whether ``key`` is a quota's fixed-window counter (``keys.counter``): a string,
    journaled with its window's expiry."""
    return key.startswith(_COUNTER_HEAD) and len(key) > len(_COUNTER_HEAD)


def slotted(key: bytes) -> bool:
    """Whether ``key`` holds a pool's slots (``keys.slots``, the whole pool's or one owner's):
    a sorted set scored by when each slot lapses, so a restart does not free the bots-only
    matches' slots of the matches still playing (the embedded server would then let an address
    start more of them than its quota)."""
    return key.startswith(_SLOTS_HEAD) and len(key) > len(_SLOTS_HEAD)


def strings(key: bytes) -> bool:
    """Whether ``key`` is one of the persisted strings (``remembered`` or ``counted``), the
    only keys ``SET`` and ``INCR`` are journaled on."""
    return remembered(key) or counted(key)


def persisted(key: bytes) -> bool:
    """Whether ``key`` is data the journal keeps: match data (``keys.log``, ``keys.meta``,
    ``keys.tokens`` and ``keys.analysis`` of any match, and ``keys.MATCHES``) or a request's
    remembered answer (``remembered``), a quota's counter (``counted``) or a pool's slots
    (``slotted``).  A finished match's
    analysis is kept too: it can be computed again, but that takes a worker minutes."""
    if key == _MATCHES or strings(key) or slotted(key):
        return True
    if not key.startswith(_PREFIX):
        return False
    for suffix in _SUFFIXES:
        if key.endswith(suffix):
            middle = key[len(_PREFIX):-len(suffix)]
            return bool(middle) and b"{" not in middle and b"}" not in middle
    return False


def match_keys(match_id: str) -> frozenset[bytes]:
    """The persisted keys of one match."""
    return frozenset(k(match_id).encode() for k in _KINDS)


def stored_matches(client: Any) -> list[str]:
    """The ids of the matches whose log is in ``client``'s database, sorted."""
    head, _, tail = keys.log("\0").partition("\0")
    found = []
    for key in client.scan_iter(match=keys.log("*"), count=1000):
        text = key.decode() if isinstance(key, bytes) else str(key)
        found.append(text[len(head):len(text) - len(tail)])
    return sorted(found)


_FIRST, _ALL = 1, 2
COMMANDS: dict[str, int] = {
    "xadd": _FIRST, "xdel": _FIRST, "xtrim": _FIRST,
    "hset": _FIRST, "hsetnx": _FIRST, "hmset": _FIRST, "hdel": _FIRST, "hincrby": _FIRST,
    "hincrbyfloat": _FIRST,
    "zadd": _FIRST, "zincrby": _FIRST, "zrem": _FIRST, "zremrangebyscore": _FIRST,
    "zremrangebyrank": _FIRST, "zremrangebylex": _FIRST, "zpopmin": _FIRST, "zpopmax": _FIRST,
    "del": _ALL, "unlink": _ALL,
    "expire": _FIRST, "pexpire": _FIRST, "expireat": _FIRST, "pexpireat": _FIRST,
    "persist": _FIRST,
    "set": _FIRST, "incr": _FIRST, "incrby": _FIRST,
}
"""The writes journaled on persisted keys, and where they name them (the first argument, or
all of them).  Each is deterministic given the key's value and its arguments (after the
normalisation of ``XADD`` ids, expiries, ``SET`` and ``INCR``, which are journaled on request
keys and counters only, ``strings``)."""
_STRING_WRITES = frozenset({"set", "incr", "incrby"})
"""The writes of ``strings``, journaled as the value they left (redis-py sends ``INCR`` as
``INCRBY key 1``)."""
_EXPIRY = frozenset({"expire", "pexpire", "expireat", "pexpireat", "persist"})
_WHOLE_DB = frozenset({"flushall", "flushdb"})
_REPLAYED = frozenset(
    n.encode() for n in (set(COMMANDS) - {"expire", "pexpire", "expireat", "incr", "incrby"})
    | _WHOLE_DB)
"""The command names a journal may hold."""
_REFUSED = frozenset({"swapdb"})
"""Writes refused whenever a journal is attached (they move whole databases)."""


def _named(mode: int, args: list[bytes]) -> list[bytes]:
    """The persisted keys among the arguments of a command of ``COMMANDS``."""
    named = args if mode == _ALL else args[:1]
    return [a for a in named if type(a) is bytes and persisted(a)]


_XADD_FLAGS = frozenset({b"NOMKSTREAM", b"KEEPREF", b"DELREF", b"ACKED"})


def _xadd_id_index(args: list[bytes]) -> int | None:
    """The position of the entry id among an XADD's arguments (None: an option the journal does
    not replay exactly, the idempotent-producer ones)."""
    i = 1
    while i < len(args):
        word = args[i].upper()
        if word in _XADD_FLAGS:
            i += 1
        elif word in (b"MAXLEN", b"MINID"):
            i += 3 if i + 1 < len(args) and args[i + 1] in (b"=", b"~") else 2
        elif word == b"LIMIT":
            i += 2
        elif word in (b"IDMP", b"IDMPAUTO"):
            return None
        else:
            return i
    return None


_write_flags: dict[str, bool] = {}


def _writes(name: str) -> bool:
    """Whether fakeredis's command table flags ``name`` as a write."""
    known = _write_flags.get(name)
    if known is None:
        from fakeredis.model._command_info import is_write_command

        known = is_write_command(name.encode()) or (
            " " in name and is_write_command(name.split(" ", 1)[0].encode()))
        _write_flags[name] = known
    return known


# -- the wrapper -----------------------------------------------------------------------------

_ATTR = "_hokm_journal"
_FRAME = "_hokm_journal_frame"
_original: Callable[..., Any] | None = None
_install_lock = threading.Lock()


def _journaled_run_command(self: Any, func: Any, sig: Any, args: list[Any],
                           from_script: bool) -> Any:
    """``BaseFakeSocket._run_command`` with the journal of the socket's server, if any."""
    journal: Journal | None = getattr(self._server, _ATTR, None)
    assert _original is not None
    if journal is None:
        return _original(self, func, sig, args, from_script)
    state = self.__dict__
    frame: list[list[Any]] | None = state.get(_FRAME)
    if frame is not None:  # inside an EXEC or a script: the outer command writes the frame
        return journal.run(self, func, sig, args, from_script, frame)
    frame = state[_FRAME] = []
    now = self._db.time
    try:
        return journal.run(self, func, sig, args, from_script, frame)
    finally:
        state.pop(_FRAME, None)
        if frame:
            journal.append(now, frame)


_journaled_run_command._hokm_journal = True  # type: ignore[attr-defined]


def install() -> None:
    """Wrap fakeredis's command execution (once; idempotent).  ``JournalUnavailable`` if the
    internals it relies on changed."""
    global _original
    with _install_lock:
        from fakeredis._socket._base import BaseFakeSocket

        current = BaseFakeSocket._run_command
        if getattr(current, "_hokm_journal", False):
            return
        expected = ["self", "func", "sig", "args", "from_script"]
        found = list(inspect.signature(current).parameters)
        if found != expected:
            raise JournalUnavailable(
                f"fakeredis {fakeredis.__version__}: BaseFakeSocket._run_command takes {found}, "
                f"not {expected}; the journal was written for fakeredis {FAKEREDIS}")
        _original = current
        BaseFakeSocket._run_command = _journaled_run_command  # type: ignore[method-assign]


def attach(server: Any, journal: Journal) -> None:
    """From now on every journaled write on ``server`` is appended to ``journal``."""
    install()
    with server.lock:
        setattr(server, _ATTR, journal)


def detach(server: Any) -> None:
    with server.lock:
        if hasattr(server, _ATTR):
            delattr(server, _ATTR)


def _error(text: str) -> Any:
    return SimpleError(text)


# -- writing ---------------------------------------------------------------------------------

class Journal:
    """An open journal file that frames are appended to (see the module's contract)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        self._size = os.fstat(self._fd).st_size
        self._dirty = False
        self._failing = False
        self._pending: collections.deque[bytes] = collections.deque()
        """Frames not written yet (the disk was full, say), in order: written before any later
        one, so the file never holds a frame after a gap."""
        self._closed = threading.Event()
        self._io = threading.Lock()
        if self._size == 0:
            self._write(_pack_header())
        self._syncer = threading.Thread(target=self._sync_loop, name="hokm-journal-fsync",
                                        daemon=True)
        self._syncer.start()

    # called by the wrapper, with the server's lock held
    def run(self, sock: Any, func: Any, sig: Any, args: list[Any], from_script: bool,
            frame: list[list[Any]]) -> Any:
        """Run one command; add what it did to persisted keys to ``frame``."""
        assert _original is not None
        name: str = sig.name
        mode = COMMANDS.get(name)
        if mode is None:
            if name in _WHOLE_DB:
                result = _original(sock, func, sig, args, from_script)
                if not _failed(result):
                    frame.append([sock._db_num, name.encode(), *args])
                return result
            if name in _REFUSED or (_writes(name) and any(
                    type(a) is bytes and persisted(a) for a in args)):
                return _error(f"ERR {name.upper()} is not journaled by the embedded server: it "
                              "may not write match data (services/store/journal.py)")
            return _original(sock, func, sig, args, from_script)
        named = _named(mode, args)
        if not named:
            return _original(sock, func, sig, args, from_script)
        id_index = _xadd_id_index(args) if name == "xadd" else 0
        if id_index is None:
            return _error("ERR XADD with IDMP is not journaled by the embedded server")
        if name in _STRING_WRITES and not strings(named[0]):
            return _error(f"ERR {name.upper()} is not journaled by the embedded server on match "
                          "data (services/store/journal.py)")
        result = _original(sock, func, sig, args, from_script)
        if _failed(result):
            return result
        db_num: int = sock._db_num
        db = sock._db
        if name in _STRING_WRITES:  # what it left, not how (NX, PX, GET...: relative or
            # conditional; an INCR's count, so a replay never counts twice)
            item = db.get(named[0])
            if item is None:
                frame.append([db_num, b"del", named[0]])
            else:
                frame.append([db_num, b"set", named[0], bytes(item.value)])
                frame.append([db_num, b"persist", named[0]] if item.expireat is None else
                             [db_num, b"pexpireat", named[0],
                              b"%d" % int(item.expireat * 1000)])
            return result
        if name in _EXPIRY:
            if result == 1:
                item = db.get(named[0])
                if item is None:
                    frame.append([db_num, b"del", named[0]])
                elif item.expireat is None:
                    frame.append([db_num, b"persist", named[0]])
                else:
                    # in ms as PEXPIRETIME reports it (ms / 1000 * 1000 gives ms back)
                    frame.append([db_num, b"pexpireat", named[0],
                                  b"%d" % int(item.expireat * 1000)])
            return result
        if mode == _ALL:
            frame.append([db_num, name.encode(), *named])
            return result
        if name == "xadd":
            if result is None:  # NOMKSTREAM on a missing stream: nothing happened
                return result
            args = [*args[:id_index], bytes(result), *args[id_index + 1:]]
        frame.append([db_num, name.encode(), *args])
        if db.get(named[0]) is None:  # the command emptied the key, which deleted it
            frame.append([db_num, b"del", named[0]])
        return result

    def append(self, now: float, commands: list[list[Any]]) -> None:
        """Append one frame (one ``os.write``)."""
        self._write(msgpack.packb([now, commands], use_bin_type=True))

    def _write(self, data: bytes) -> None:
        with self._io:
            self._pending.append(data)
            self._flush()

    def _flush(self) -> None:
        """Write the pending frames, oldest first, as far as the file takes them (with ``_io``
        held).  A frame that cannot be written stays pending with every later one: a frame
        dropped and the next ones written after it would leave a gap, and the match of the
        missing record could never be read again (found with a disk that filled, then had
        room again: "record 27 does not follow record 23" at the next start)."""
        while self._pending and self._fd >= 0:
            data = self._pending[0]
            start = self._size
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(self._fd, view):]
            except OSError as exc:
                # never leave half a frame in the middle of the file: later frames would be lost
                try:
                    os.ftruncate(self._fd, start)
                except OSError:
                    pass
                if not self._failing:
                    log.error("the journal %s could not be written (%s): matches are kept in "
                              "memory and saved, in order, once it can be written again (a "
                              "crash until then loses what was not saved)", self.path, exc)
                self._failing = True
                return
            self._pending.popleft()
            self._size = start + len(data)
            self._dirty = True
        if self._failing and not self._pending:
            log.warning("the journal %s is being written again", self.path)
            self._failing = False

    def _sync_loop(self) -> None:
        while not self._closed.wait(FSYNC_EVERY_S):
            self.sync()

    def sync(self) -> None:
        """fsync the journal if something was written since the last time (and write what is
        pending first, so a journal that failed catches up without waiting for a new frame).
        Outside the lock: appends (made with the server's lock held) never wait for the disk."""
        with self._io:
            self._flush()
            if not self._dirty or self._fd < 0:
                return
            self._dirty = False
            fd = self._fd
        try:
            os.fsync(fd)
        except OSError as exc:
            log.error("the journal %s could not be synced: %s", self.path, exc)

    def close(self) -> None:
        """fsync and close (the caller has detached it from its server first; the fsync
        thread is stopped before, so nothing syncs the descriptor as it closes)."""
        self._closed.set()
        self._syncer.join()
        self.sync()
        with self._io:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1


def _failed(result: Any) -> bool:
    return isinstance(result, SimpleError)


def _pack_header() -> bytes:
    data: bytes = msgpack.packb({"hokm-journal": VERSION}, use_bin_type=True)
    return data


# -- reading and replaying -------------------------------------------------------------------

Frame = tuple[float, list[list[Any]]]


@dataclass
class Reading:
    """The frames of a journal file and the bytes of a torn last frame, if any."""

    frames: list[Frame] = field(default_factory=list)
    torn_bytes: int = 0
    size: int = 0


def read(path: str | os.PathLike[str]) -> Reading:
    """Every frame of the journal at ``path`` (an empty ``Reading`` if there is no file).
    ``JournalDamaged`` if something other than a torn last frame does not decode."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return Reading()
    reading = Reading(size=len(data))
    if not data:
        return reading
    unpacker = msgpack.Unpacker(raw=True, strict_map_key=False,
                                max_buffer_size=max(len(data), 1 << 20))
    unpacker.feed(data)
    offset = 0
    try:
        for obj in unpacker:
            if offset == 0:
                if not isinstance(obj, dict) or obj.get(b"hokm-journal") != VERSION:
                    raise JournalDamaged(f"{path} is not a hokm journal of version {VERSION}")
            else:
                reading.frames.append(_frame(obj, path, offset))
            offset = unpacker.tell()
    except JournalDamaged:
        raise
    except Exception as exc:  # msgpack's own errors: bytes that are not msgpack
        # (some of them, FormatError for one, come without a message)
        why = str(exc).strip() or f"bytes that are not msgpack ({type(exc).__name__})"
        raise JournalDamaged(f"{path} is damaged at byte {offset}: {why}") from None
    reading.torn_bytes = len(data) - offset
    return reading


def _frame(obj: Any, path: Path, offset: int) -> Frame:
    def bad(why: str) -> JournalDamaged:
        return JournalDamaged(f"{path} is damaged at byte {offset}: {why}")

    if not isinstance(obj, list) or len(obj) != 2:
        raise bad("not a frame")
    now, commands = obj
    if type(now) not in (int, float) or not isinstance(commands, list):
        raise bad("not a frame")
    for command in commands:
        if (not isinstance(command, list) or len(command) < 2 or type(command[0]) is not int
                or command[0] < 0 or command[1] not in _REPLAYED
                or any(type(a) is not bytes for a in command[1:])):
            raise bad("not a journaled command")
    return float(now), commands


@dataclass
class Replay:
    """What a replay did."""

    frames: int = 0
    commands: int = 0
    errors: int = 0
    """Commands the new server refused (0 unless the journal was edited by hand)."""
    torn_bytes: int = 0
    dbs: set[int] = field(default_factory=set)


_BATCH = 1000
"""Entries per XRANGE page and fields or members per HSET or ZADD of a compacted journal."""


def replay(frames: Iterable[Frame], server: Any,
           keep: Callable[[bytes], bool] | None = None) -> Replay:
    """Run the journaled commands on ``server`` (which has no journal attached), keeping only
    those naming a key ``keep`` accepts (all if None).  Expiries are held back and set at the
    end, and a key whose expiry had passed by the time of a later frame is deleted first, so the
    outcome is the one the journal recorded whatever the time now."""
    done = Replay()
    pending: dict[tuple[int, bytes], int] = {}
    run = _Executor(server)

    def send(db: int, *command: bytes) -> None:
        done.dbs.add(db)
        done.commands += 1
        if not run(db, command[0].decode(), list(command[1:])):
            done.errors += 1

    for now, commands in frames:
        done.frames += 1
        now_ms = now * 1000
        for db, name, *args in commands:
            text = name.decode()
            if text in _WHOLE_DB:
                for held in [k for k in pending if text == "flushall" or k[0] == db]:
                    del pending[held]
                send(db, name, *args)
                continue
            named = _named(COMMANDS[text], args)
            if keep is not None and not any(keep(k) for k in named):
                continue
            for key in named:
                due = pending.get((db, key))
                if due is not None and due < now_ms:  # it had expired before this command
                    del pending[(db, key)]
                    send(db, b"del", key)
            if text == "pexpireat":
                pending[(db, args[0])] = int(args[1])
                continue
            if text == "persist":
                pending.pop((db, args[0]), None)
                continue
            if text in ("del", "unlink"):
                for key in named:
                    pending.pop((db, key), None)
            send(db, name, *args)
    for (db, key), due in pending.items():
        send(db, b"pexpireat", key, b"%d" % due)
    run.close()
    return done


class _Executor:
    """Runs commands on a server the way its sockets do, without a client: the replay's fast
    path (about twice as fast as a pipelined client, which spends the difference encoding and
    parsing the protocol).  The same fakeredis internals as the journal's wrapper, plus
    ``FakeSocket``'s constructor."""

    def __init__(self, server: Any) -> None:
        install()
        self.server = server
        self.sockets: dict[int, Any] = {}

    def __call__(self, db: int, name: str, args: list[bytes]) -> bool:
        """Run one command; False if the server refused it."""
        import time

        assert _original is not None
        sock = self.sockets.get(db)
        if sock is None:
            import redis
            from fakeredis._socket._fakesocket import FakeSocket

            sock = self.sockets[db] = FakeSocket(self.server, db, client_class=redis.Redis)
        func, sig = sock._name_to_func(name)
        with self.server.lock:
            sock._db.time = time.time()  # as for a client's command: expiries are against now
            return not _failed(_original(sock, func, sig, args, False))

    def close(self) -> None:
        for sock in self.sockets.values():
            sock.close()
        self.sockets.clear()


def snapshot(server: Any, dbs: Iterable[int]) -> Iterator[list[list[Any]]]:
    """The commands that rebuild each persisted key of ``server`` (one list per key): the
    content of a compacted journal."""
    for db in sorted(set(dbs)):
        client = fakeredis.FakeRedis(server=server, db=db)
        for command in ("XRANGE", "HGETALL", "ZRANGE", "XINFO STREAM"):
            client.set_response_callback(command, lambda response, **_: response)
        for key in sorted(k for k in client.scan_iter(count=1000) if persisted(k)):
            commands = _rebuild(client, db, key)
            if commands:
                yield commands


def _rebuild(client: Any, db: int, key: bytes) -> list[list[Any]]:
    kind = client.type(key)
    out: list[list[Any]] = []
    if kind == b"stream":
        start = b"-"
        last = None
        while True:
            entries = client.execute_command("XRANGE", key, start, b"+", b"COUNT", _BATCH)
            for entry_id, fields in entries:
                out.append([db, b"xadd", key, entry_id, *fields])
                last = entry_id
            if len(entries) < _BATCH:
                break
            start = b"(" + last  # type: ignore[operator]
        info = client.execute_command("XINFO STREAM", key)
        generated = dict(zip(info[::2], info[1::2], strict=True)).get(b"last-generated-id")
        if generated and last is not None and _entry_id(generated) > _entry_id(last):
            # entries were deleted at the top: keep the id later entries must be above
            out.append([db, b"xadd", key, generated, b"_", b""])
            out.append([db, b"xdel", key, generated])
    elif kind == b"hash":
        fields = _pairs(client.execute_command("HGETALL", key))
        for i in range(0, len(fields), _BATCH):
            out.append([db, b"hset", key, *(x for pair in fields[i:i + _BATCH] for x in pair)])
    elif kind == b"zset":
        # a score as repr() of its float: the shortest text that parses back to the same one
        pairs = [(_score(score), member) for member, score
                 in _pairs(client.execute_command("ZRANGE", key, 0, -1, b"WITHSCORES"))]
        for i in range(0, len(pairs), _BATCH):
            out.append([db, b"zadd", key, *(x for pair in pairs[i:i + _BATCH] for x in pair)])
    elif kind == b"string":  # a request's remembered answer or a counter (``strings``)
        value = client.get(key)
        if value is None:  # expired while we looked
            return []
        out.append([db, b"set", key, value])
    elif kind == b"none":  # expired while we looked
        return []
    else:
        raise JournalError(f"the persisted key {key!r} holds a {kind!r}: not journaled")
    expiry = int(client.execute_command("PEXPIRETIME", key))
    if expiry >= 0:
        out.append([db, b"pexpireat", key, b"%d" % expiry])
    return [[c[0], *(a if isinstance(a, bytes) else str(a).encode() for a in c[1:])]
            for c in out]


def _pairs(reply: Any) -> list[tuple[Any, Any]]:
    """Field-value pairs of a reply, whether fakeredis gave a map, pairs or a flat list."""
    if isinstance(reply, dict):
        return list(reply.items())
    if reply and isinstance(reply[0], (list, tuple)):
        return [(a, b) for a, b in reply]
    return list(zip(reply[::2], reply[1::2], strict=True))


def _score(value: Any) -> bytes:
    return repr(float(value)).encode()


def _entry_id(raw: bytes) -> tuple[int, int]:
    ms, _, seq = raw.partition(b"-")
    return int(ms), int(seq or 0)


def compact(server: Any, path: str | os.PathLike[str], dbs: Iterable[int], now: float) -> int:
    """Write the persisted keys of ``server`` as a fresh journal at ``path``: to a temporary
    file, fsynced, then renamed over ``path`` (atomic) and the folder fsynced.  Returns the
    new file's size."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    size = 0
    try:
        buffer = bytearray(_pack_header())
        for commands in snapshot(server, dbs):
            buffer += msgpack.packb([now, commands], use_bin_type=True)
            if len(buffer) >= 1 << 20:
                size += _write_all(fd, bytes(buffer))
                buffer.clear()
        size += _write_all(fd, bytes(buffer))
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)
    return size


def _write_all(fd: int, data: bytes) -> int:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    return len(data)


# -- the data folder -------------------------------------------------------------------------

def _ours(folder: Path) -> None:
    """``DataFolderForeign`` unless ``folder`` is missing, empty, or hokm's: it holds a
    ``journal``, or nothing but what a start leaves before it writes one (the lock, the
    journal's temporary file)."""
    try:
        names = {entry.name for entry in os.scandir(folder)}
    except (FileNotFoundError, NotADirectoryError):
        return  # (mkdir creates it, or says what is there instead)
    if JOURNAL in names or names <= {LOCK, JOURNAL + ".tmp"}:
        return
    raise DataFolderForeign(f"the data folder {folder} is not hokm's: it is not empty and "
                            f"holds no {JOURNAL} (give an empty or new folder)")


def _lock(path: Path) -> int:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.read(fd, 32).decode(errors="replace").strip()
        os.close(fd)
        who = f" (process {holder})" if holder.isdigit() else ""
        raise DataFolderBusy(f"the data folder {path.parent} is in use by another hokm "
                             f"serve{who}") from None
    except BaseException:
        os.close(fd)
        raise
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    return fd


class DataFolder:
    """The data folder of a running embedded server: its lock, held until ``close``, and its
    journal, attached to the server."""

    def __init__(self, path: Path, server: Any, journal: Journal, lock_fd: int,
                 replayed: Replay) -> None:
        self.path = path
        self.server = server
        self.journal = journal
        self.replayed = replayed
        self._lock_fd = lock_fd

    @classmethod
    def open(cls, path: str | os.PathLike[str], server: Any) -> DataFolder:
        """Lock the folder (created if need be), replay its journal into ``server`` (a new
        ``FakeServer``), compact it and attach it.  ``DataFolderBusy``, ``JournalDamaged``,
        ``JournalUnavailable`` or ``OSError`` (a folder that cannot be created or written)."""
        import time

        install()  # before anything is changed: refuse early if fakeredis is not the one known
        folder = Path(path).expanduser().absolute()
        _ours(folder)
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        locked = os.path.lexists(folder / LOCK)
        lock_fd = _lock(folder / LOCK)
        try:
            file = folder / JOURNAL
            reading = read(file)
            replayed = replay(reading.frames, server)
            replayed.torn_bytes = reading.torn_bytes
            if reading.torn_bytes:
                log.warning("%s: dropped a torn last entry (%d bytes)", file,
                            reading.torn_bytes)
            if replayed.errors:
                log.warning("%s: %d journaled commands were refused on replay", file,
                            replayed.errors)
            compact(server, file, replayed.dbs | {0}, time.time())
            journal = Journal(file)
            attach(server, journal)
        except BaseException:
            if not locked:  # a folder refused is left as it was found (QA: a lock left in
                with contextlib.suppress(OSError):  # a folder whose journal was not ours)
                    os.unlink(folder / LOCK)
            os.close(lock_fd)
            raise
        return cls(folder, server, journal, lock_fd, replayed)

    def close(self) -> None:
        """Detach and close the journal (fsynced), then release the lock."""
        detach(self.server)
        self.journal.close()
        if self._lock_fd >= 0:
            os.close(self._lock_fd)
            self._lock_fd = -1


def load(path: str | os.PathLike[str], match_id: str | None = None) -> Any:
    """A new ``FakeServer`` holding what the data folder at ``path`` holds (only one match's
    keys if ``match_id`` is given), read without the lock.  ``FileNotFoundError`` if there is
    no journal there; ``JournalDamaged``."""
    file = Path(path).expanduser() / JOURNAL
    if not file.is_file():
        raise FileNotFoundError(2, "no journal", str(file))
    server = fakeredis.FakeServer()
    wanted = match_keys(match_id) if match_id is not None else None
    replay(read(file).frames, server, None if wanted is None else wanted.__contains__)
    return server


__all__ = ["COMMANDS", "DataFolder", "DataFolderBusy", "DataFolderForeign", "Journal",
           "JournalDamaged", "JournalError", "JournalUnavailable", "Reading", "Replay", "attach",
           "compact", "detach", "install", "load", "match_keys", "persisted", "read", "replay",
           "snapshot", "stored_matches"]
