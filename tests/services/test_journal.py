"""The embedded server's journal (services/store/journal.py): what it records, how it replays,
its torn tail, its compaction and its lock.  The first test fails loudly if the fakeredis
internals the journal wraps change."""

from __future__ import annotations

import asyncio
import errno
import inspect
import threading
import time
from pathlib import Path
from typing import Any

import fakeredis
import fakeredis.aioredis
import msgpack
import pytest
import redis

from services.store import journal, keys
from services.store.journal import DataFolder, DataFolderBusy, JournalDamaged
from tests.conftest import wait_for

LOG, META, TOKENS = keys.log("m1"), keys.meta("m1"), keys.tokens("m1")


@pytest.fixture
def folder(tmp_path: Path) -> Any:
    """An open data folder on a new server; yields (server, client, folder)."""
    server = fakeredis.FakeServer()
    data = DataFolder.open(tmp_path, server)
    yield server, fakeredis.FakeRedis(server=server), data
    data.close()


def commands(path: Path) -> list[list[Any]]:
    return [c for _, frame in journal.read(path / journal.JOURNAL).frames for c in frame]


def dump(server: Any) -> dict[bytes, Any]:
    """Everything of every persisted key: type, content, expiry (and a stream's last id)."""
    client = fakeredis.FakeRedis(server=server)
    out: dict[bytes, Any] = {}
    for key in sorted(client.scan_iter()):
        if not journal.persisted(key):
            continue
        kind = client.type(key)
        if kind == b"stream":
            content: Any = (client.xrange(key),
                            client.xinfo_stream(key)["last-generated-id"])
        elif kind == b"hash":
            content = client.hgetall(key)
        else:
            content = client.zrange(key, 0, -1, withscores=True)
        out[key] = (kind, content, client.pexpiretime(key))
    return out


def test_the_fakeredis_internals_it_wraps_are_there() -> None:
    """If this fails, fakeredis changed: services/store/journal.py must be looked at again."""
    from fakeredis._socket._base import BaseFakeSocket

    assert fakeredis.__version__ == journal.FAKEREDIS
    journal.install()
    wrapped = BaseFakeSocket._run_command
    assert getattr(wrapped, "_hokm_journal", False)
    assert list(inspect.signature(journal._original).parameters) == [  # type: ignore[arg-type]
        "self", "func", "sig", "args", "from_script"]


def test_plain_transaction_script_and_asyncio_commands_are_all_journaled(folder: Any) -> None:
    server, client, data = folder
    client.hset(META, "secret", "s")
    pipe = client.pipeline(transaction=True)  # MULTI/EXEC: one frame
    pipe.hset(TOKENS, "h", "p1")
    pipe.zadd(keys.MATCHES, {"m1": 5})
    pipe.execute()
    client.eval("redis.call('XADD', KEYS[1], '1-0', 'd', 'x'); return 1", 1, LOG)

    async def from_asyncio() -> None:
        aclient = fakeredis.aioredis.FakeRedis(server=server)
        await aclient.xadd(LOG, {"d": "y"}, id="2-0")
        await aclient.aclose()

    # in a thread of its own: the browser tests' Playwright keeps an event loop running in
    # this one when the whole suite runs in one process
    runner = threading.Thread(target=lambda: asyncio.run(from_asyncio()))
    runner.start()
    runner.join(timeout=30)
    frames = journal.read(data.journal.path).frames
    assert [[c[1] for c in frame] for _, frame in frames] == [
        [b"hset"], [b"hset", b"zadd"], [b"xadd"], [b"xadd"]]
    assert frames[1][1][1] == [0, b"zadd", keys.MATCHES.encode(), b"5", b"m1"]
    assert frames[2][1][0] == [0, b"xadd", LOG.encode(), b"1-0", b"d", b"x"]


def test_only_match_data_is_journaled(folder: Any) -> None:
    _, client, data = folder
    client.rpush("rq:queue:hokm-bots", "job")  # RQ
    client.hset("rq:job:1", "data", "x")
    client.hset(keys.presence("m1"), "0:gw", "1")  # presence
    client.set(keys.bot_guard("m1", 3, 1), 1, nx=True, ex=30)  # bot guard
    client.zadd(keys.PENDING_BOTS, {"m1:3:1": 1})
    client.zadd(keys.AWAY, {"m1:0": 1})
    client.xadd("hokm:gw:abc:wake", {"w": "1"})  # a gateway's wake stream
    client.hget(META, "secret")  # a read of match data
    assert commands(data.path) == []
    client.hset(META, "a", "1")
    client.delete(LOG, keys.presence("m1"))  # only the persisted key is journaled
    assert commands(data.path) == [[0, b"hset", META.encode(), b"a", b"1"],
                                   [0, b"del", LOG.encode()]]
    for key in (LOG, META, TOKENS, keys.analysis("m1"), keys.MATCHES):
        assert journal.persisted(key.encode())
    for key in (keys.presence("m1"), keys.bot_guard("m1", 1, 2), keys.PENDING_BOTS, keys.AWAY,
                keys.analysis_mark("m1", 3),
                "hokm:{m1}:x}:log", "hokm:{}:log", "rq:queue:hokm-bots", "hokm:gw:abc:wake"):
        assert not journal.persisted(key.encode())


def test_xadd_star_records_the_id_it_was_given(folder: Any) -> None:
    _, client, data = folder
    given = client.xadd(LOG, {"d": "x"})
    trimmed = client.xadd(LOG, {"d": "y"}, maxlen=5, approximate=False)
    assert commands(data.path) == [
        [0, b"xadd", LOG.encode(), given, b"d", b"x"],
        [0, b"xadd", LOG.encode(), b"MAXLEN", b"5", trimmed, b"d", b"y"]]


def test_refused_xadd_and_failed_commands_are_not_journaled(folder: Any) -> None:
    _, client, data = folder
    client.xadd(LOG, {"d": "x"}, id="5-0")
    with pytest.raises(redis.ResponseError):
        client.xadd(LOG, {"d": "y"}, id="5-0")  # the optimistic lock's refusal
    with pytest.raises(redis.ResponseError):
        client.hset(LOG, "a", "b")  # wrong type
    assert [c[3] for c in commands(data.path)] == [b"5-0"]


def test_relative_expiries_become_absolute(folder: Any) -> None:
    _, client, data = folder
    client.hset(META, "a", "1")
    client.hset(TOKENS, "t", "p")
    client.zadd(keys.MATCHES, {"m1": 1})
    client.expire(META, 100)
    client.pexpire(TOKENS, 200_000)
    client.pexpire(keys.MATCHES, 50_000, nx=True)
    client.pexpire(keys.MATCHES, 99_000, nx=True)  # refused (NX): nothing journaled
    client.hset(LOG + "x", "a", "b")  # not persisted
    journaled = commands(data.path)[3:]
    assert journaled == [
        [0, b"pexpireat", META.encode(), b"%d" % client.pexpiretime(META)],
        [0, b"pexpireat", TOKENS.encode(), b"%d" % client.pexpiretime(TOKENS)],
        [0, b"pexpireat", keys.MATCHES.encode(), b"%d" % client.pexpiretime(keys.MATCHES)]]
    client.persist(META)
    client.expire(TOKENS, -1)  # an expiry in the past deletes the key
    assert commands(data.path)[6:] == [[0, b"persist", META.encode()],
                                       [0, b"del", TOKENS.encode()]]
    # the same absolute expiries come back from the journal, whenever it is replayed
    again = fakeredis.FakeServer()
    journal.replay(journal.read(data.journal.path).frames, again)
    other = fakeredis.FakeRedis(server=again)
    assert other.pexpiretime(keys.MATCHES) == client.pexpiretime(keys.MATCHES) > 0
    assert other.pexpiretime(META) == -1 and not other.exists(TOKENS)
    assert dump(again) == dump(folder[0])


def test_replay_knows_which_keys_had_expired_by_the_time_of_each_frame() -> None:
    t0 = time.time() + 1000  # in the future, so the final expiries do not delete anything
    key = META.encode()

    def replayed(frames: list[tuple[float, list[list[Any]]]]) -> dict[bytes, Any]:
        server = fakeredis.FakeServer()
        assert journal.replay(frames, server).errors == 0
        return dump(server)

    expiry = b"%d" % ((t0 + 10) * 1000)
    set_a = (t0, [[0, b"hset", key, b"a", b"1"]])
    expire = (t0, [[0, b"pexpireat", key, expiry]])
    # written again before it expired: one hash, the expiry kept
    assert replayed([set_a, expire, (t0 + 5, [[0, b"hset", key, b"b", b"2"]])]) == {
        key: (b"hash", {b"a": b"1", b"b": b"2"}, int(expiry))}
    # written after it had expired: a new hash without the old field or the expiry
    assert replayed([set_a, expire, (t0 + 20, [[0, b"hset", key, b"b", b"2"]])]) == {
        key: (b"hash", {b"b": b"2"}, -1)}


def test_a_key_emptied_by_a_command_is_deleted_in_the_journal_too(folder: Any) -> None:
    server, client, data = folder
    client.hset(META, "a", "1")
    client.expire(META, 1000)
    client.hdel(META, "a")  # the hash is empty, so it is gone (with its expiry)
    client.hset(META, "b", "2")  # a new hash, without an expiry
    assert commands(data.path)[2:] == [[0, b"hdel", META.encode(), b"a"],
                                       [0, b"del", META.encode()],
                                       [0, b"hset", META.encode(), b"b", b"2"]]
    again = fakeredis.FakeServer()
    journal.replay(journal.read(data.journal.path).frames, again)
    assert dump(again) == dump(server) == {META.encode(): (b"hash", {b"b": b"2"}, -1)}


def test_unknown_writes_on_match_data_are_refused_with_a_journal_only(folder: Any) -> None:
    _, client, data = folder
    client.hset(META, "a", "1")
    client.hset("elsewhere", "a", "1")
    with pytest.raises(redis.ResponseError, match="not journaled"):
        client.rename(META, "stolen")
    with pytest.raises(redis.ResponseError, match="not journaled"):
        client.rename("elsewhere", META)
    with pytest.raises(redis.ResponseError, match="not journaled"):
        client.eval("return redis.call('SET', KEYS[1], 'x')", 1, LOG)
    client.rename("elsewhere", "moved")  # other keys are not concerned
    assert client.hgetall(META) == {b"a": b"1"}
    assert len(commands(data.path)) == 1
    # without a journal nothing changes: the same command just runs
    plain = fakeredis.FakeRedis(server=fakeredis.FakeServer())
    plain.hset(META, "a", "1")
    plain.rename(META, "stolen")
    assert plain.hgetall("stolen") == {b"a": b"1"}


def test_a_torn_last_frame_is_dropped_and_compacted_away(tmp_path: Path) -> None:
    server = fakeredis.FakeServer()
    data = DataFolder.open(tmp_path, server)
    client = fakeredis.FakeRedis(server=server)
    client.xadd(LOG, {"d": "1"}, id="1-0")
    client.xadd(LOG, {"d": "2"}, id="2-0")
    data.close()
    path = tmp_path / journal.JOURNAL
    whole = path.read_bytes()
    frame = msgpack.packb([time.time(), [[0, b"xadd", LOG.encode(), b"3-0", b"d", b"3"]]])
    path.write_bytes(whole + frame[:len(frame) - 3])  # killed in the middle of a write
    reading = journal.read(path)
    assert reading.torn_bytes == len(frame) - 3 and len(reading.frames) == 2
    again = fakeredis.FakeServer()
    reopened = DataFolder.open(tmp_path, again)
    try:
        assert reopened.replayed.torn_bytes == len(frame) - 3
        assert [e[0] for e in fakeredis.FakeRedis(server=again).xrange(LOG)] == [b"1-0", b"2-0"]
        assert journal.read(path).torn_bytes == 0  # compaction rewrote the file whole
    finally:
        reopened.close()


def test_damage_other_than_a_torn_tail_is_reported(tmp_path: Path) -> None:
    path = tmp_path / journal.JOURNAL
    header = msgpack.packb({"hokm-journal": 1})
    good = msgpack.packb([1.0, [[0, b"hset", META.encode(), b"a", b"1"]]])
    path.write_bytes(header + msgpack.packb([1.0, [[0, b"config", b"set", b"x"]]]) + good)
    with pytest.raises(JournalDamaged, match="not a journaled command"):
        journal.read(path)
    path.write_bytes(b"not a journal at all" + good)
    with pytest.raises(JournalDamaged):
        journal.read(path)
    path.write_bytes(header + b"\xc1" + good)  # 0xc1 is never valid msgpack
    with pytest.raises(JournalDamaged, match="byte"):
        journal.read(path)


def test_compaction_keeps_the_content_equal(tmp_path: Path) -> None:
    server = fakeredis.FakeServer()
    data = DataFolder.open(tmp_path, server)
    client = fakeredis.FakeRedis(server=server)
    for match in ("a1", "b2", "c3"):
        for v in range(1, 1203 if match == "a1" else 4):  # more than one page of XRANGE
            client.xadd(keys.log(match), {"d": b"\x00\xff" * v}, id=f"{v}-0")
        client.hset(keys.meta(match), mapping={f"f{i}": f"v{i}" for i in range(1100)})
        client.hset(keys.tokens(match), "h", "p")
        client.zadd(keys.MATCHES, {match: 1 / 3 + len(match), f"{match}x": 1e17 + 3})
    client.xadd(keys.log("c3"), {"d": "top"}, id="9-0")
    client.xdel(keys.log("c3"), "9-0")  # the next entry must still be above 9-0
    client.expire(keys.meta("b2"), 3600)
    client.zadd(keys.MATCHES, {"inf": float("inf")})
    client.hset("rq:job:1", "x", "y")  # not match data: not kept
    before = dump(server)
    data.close()
    size = journal.read(tmp_path / journal.JOURNAL).size
    again = fakeredis.FakeServer()
    reopened = DataFolder.open(tmp_path, again)  # replays, then compacts
    try:
        assert dump(again) == before
        assert not fakeredis.FakeRedis(server=again).exists("rq:job:1")
        assert journal.read(tmp_path / journal.JOURNAL).size < size
        with pytest.raises(redis.ResponseError):
            fakeredis.FakeRedis(server=again).xadd(keys.log("c3"), {"d": "x"}, id="8-0")
    finally:
        reopened.close()
    third = fakeredis.FakeServer()
    journal.replay(journal.read(tmp_path / journal.JOURNAL).frames, third)
    assert dump(third) == before  # the compacted file alone holds everything


def test_a_data_folder_is_used_by_one_server_at_a_time(tmp_path: Path) -> None:
    first = DataFolder.open(tmp_path, fakeredis.FakeServer())
    try:
        with pytest.raises(DataFolderBusy, match=str(tmp_path)):
            DataFolder.open(tmp_path, fakeredis.FakeServer())
    finally:
        first.close()
    DataFolder.open(tmp_path, fakeredis.FakeServer()).close()  # free again


def test_readers_load_one_match_without_the_lock(folder: Any) -> None:
    _, client, data = folder
    for match in ("aa", "bb"):
        client.xadd(keys.log(match), {"d": match}, id="1-0")
        client.hset(keys.meta(match), "secret", match)
    loaded = fakeredis.FakeRedis(server=journal.load(data.path, "aa"))  # the server runs
    assert sorted(loaded.keys()) == [keys.log("aa").encode(), keys.meta("aa").encode()]
    everything = fakeredis.FakeRedis(server=journal.load(data.path))
    assert journal.stored_matches(everything) == ["aa", "bb"]
    with pytest.raises(FileNotFoundError):
        journal.load(data.path / "nowhere")


def test_the_journal_is_fsynced_by_a_thread_after_writes(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[int] = []
    real_fsync = journal.os.fsync
    monkeypatch.setattr(journal, "FSYNC_EVERY_S", 0.01)
    monkeypatch.setattr(journal.os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd)))
    server = fakeredis.FakeServer()
    data = DataFolder.open(tmp_path, server)
    try:
        fd = data.journal._fd
        synced.clear()  # the compaction's own fsyncs
        fakeredis.FakeRedis(server=server).hset(META, "a", "1")
        wait_for(lambda: fd in synced, what="an fsync of the journal")
    finally:
        data.close()
    assert [c[1] for c in commands(tmp_path)] == [b"hset"]


def test_a_finished_matchs_analysis_survives_a_restart(tmp_path: Path) -> None:
    """The analysis results stored beside a match (``RedisStore.put_analysis``: the hash and
    its absolute expiry, the log's) are journaled, replayed and compacted with the match; the
    running marks are not."""
    from services.store.redis_streams import RedisStore

    server = fakeredis.FakeServer()
    data = DataFolder.open(tmp_path, server)
    client = fakeredis.FakeRedis(server=server)
    client.xadd(LOG, {"d": b"x"}, id="1-0")
    client.expire(LOG, 3600)
    store = RedisStore(client)
    assert store.mark_analysis("m1", 2, 60, new=True)
    store.put_analysis("m1", 1, b'{"round": 1}')
    assert store.mark_analysis("m1", 2, 60, new=True) is False  # still running
    before = dump(server)
    assert keys.analysis("m1").encode() in before
    data.close()
    again = fakeredis.FakeServer()
    reopened = DataFolder.open(tmp_path, again)
    try:
        assert dump(again) == before
        restored = fakeredis.FakeRedis(server=again)
        assert restored.hgetall(keys.analysis("m1")) == {b"1": b'{"round": 1}'}
        assert restored.pexpiretime(keys.analysis("m1")) == restored.pexpiretime(LOG) > 0
        assert not restored.exists(keys.analysis_mark("m1", 2))
    finally:
        reopened.close()


def test_frames_that_could_not_be_written_are_written_later_in_order(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The finding (a new user whose disk filled, then had room again): the frames that could
    not be written were dropped and the next ones written after the gap, so at the next start
    the match could not be read ("record 27 does not follow record 23") and every request for it
    answered 500.  Now they wait in memory and are written, in order, before any later one."""
    server = fakeredis.FakeServer()
    data = DataFolder.open(tmp_path, server)
    fd, full = data.journal._fd, [False]
    real_write = journal.os.write

    def write(to: int, chunk: Any) -> int:
        if full[0] and to == fd:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(to, chunk)

    monkeypatch.setattr(journal.os, "write", write)
    client = fakeredis.FakeRedis(server=server)
    try:
        client.xadd(LOG, {"d": b"1"}, id="1-0")
        full[0] = True  # the disk is full: two records are acknowledged meanwhile
        client.xadd(LOG, {"d": b"2"}, id="2-0")
        client.xadd(LOG, {"d": b"3"}, id="3-0")
        full[0] = False  # room again
        client.xadd(LOG, {"d": b"4"}, id="4-0")
    finally:
        data.close()
    ids = [c[3] for c in commands(tmp_path) if c[1] == b"xadd"]
    assert ids == [b"1-0", b"2-0", b"3-0", b"4-0"]  # the finding: [1-0, 4-0]
    again = fakeredis.FakeServer()
    reopened = DataFolder.open(tmp_path, again)
    try:
        entries = fakeredis.FakeRedis(server=again).xrange(LOG)
        assert [e[0] for e in entries] == [b"1-0", b"2-0", b"3-0", b"4-0"]
    finally:
        reopened.close()
