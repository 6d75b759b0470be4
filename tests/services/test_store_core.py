"""The I/O-free core that the threaded and the asynchronous Redis stores share
(``services/store/entries.py``, ``scripts.py``'s append helpers, ``transient.translated``,
``parking.parked``): each on the replies and answers as redis-py or Redis gives them."""

from __future__ import annotations

import asyncio

import pytest
import redis
from redis import exceptions

from engine.events import SeatLeft
from services.store import entries, keys
from services.store.codec import sealed
from services.store.parking import parked
from services.store.port import Record, StoreUnavailable
from services.store.scripts import append_answer, append_args, xadd_args
from services.store.transient import TRANSIENT, UNAVAILABLE, translated
from tests.conftest import run_async


def test_entry_ids_and_versions_go_both_ways() -> None:
    assert entries.entry_id(7) == b"7-0"
    assert entries.version_of(b"7-0") == entries.version_of("7-0") == 7
    assert entries.version_of(b"1234567-3") == 1234567
    assert entries.first_id(0) == b"1-0"


def test_a_read_range_is_none_when_it_is_empty() -> None:
    assert entries.id_range(0, None) == (b"1-0", b"+")
    assert entries.id_range(2, 5) == (b"3-0", b"5-0")
    assert entries.id_range(3, 3) is None
    assert entries.id_range(4, 3) is None


def test_the_top_of_a_log_says_its_version_and_whether_an_append_follows_it() -> None:
    top = [(b"4-0", {b"d": b"x"})]
    assert entries.top_version(top) == 4 and entries.top_version([]) == 0
    assert entries.reaches(top, 5) and entries.reaches(top, 3)
    assert not entries.reaches(top, 6)  # a gap
    assert not entries.reaches([], 2)  # no log to continue


@pytest.mark.parametrize("fields", [{b"d": b"P"}, [b"d", b"P"], [b"x", b"1", b"d", b"P"]])
def test_the_payload_is_found_in_parsed_raw_and_resp3_fields(fields: object) -> None:
    assert entries.payload_of(fields) == b"P"


def test_fields_without_a_payload_are_a_key_error() -> None:
    with pytest.raises(KeyError):
        entries.payload_of([b"x", b"1"])


def test_parsed_and_raw_replies_give_the_same_entries() -> None:
    parsed = [(b"3-0", {b"d": b"c"}), (b"4-0", {b"d": b"d"})]
    raw = [[b"3-0", [b"d", b"c"]], [b"4-0", [b"d", b"d"]]]
    assert entries.payloads_of(parsed) == entries.payloads_of(raw) == [(3, b"c"), (4, b"d")]
    assert entries.raw_payloads(raw) == [(3, b"c"), (4, b"d")]
    assert entries.raw_payloads([]) == []


def test_raw_entries_with_a_gap_are_numbered_by_their_ids() -> None:
    """The fast path numbers entries from the first id only when first..last has no gap."""
    raw = [[b"1-0", [b"d", b"a"]], [b"3-0", [b"d", b"c"]], [b"4-0", [b"d", b"d"]]]
    assert entries.raw_payloads(raw) == [(1, b"a"), (3, b"c"), (4, b"d")]


def test_records_are_decoded_from_a_reply() -> None:
    record, payload = sealed(Record(2, (SeatLeft(1),), None, "c-1", 1_000, b""))
    got = entries.records_of([(b"2-0", {b"d": payload})])
    assert got == [record] and got[0].command_id == "c-1"


def test_an_append_sends_the_entry_id_and_payload_on_the_log() -> None:
    assert append_args("m", 3, b"P") == (1, keys.log("m"), b"3-0", b"P", keys.wake_channel("m"))
    assert xadd_args("m", 1, b"P") == (keys.log("m"), b"1-0", b"d", b"P")
    # past the first record a log that is gone is not started anew
    assert xadd_args("m", 2, b"P") == (keys.log("m"), "NOMKSTREAM", b"2-0", b"d", b"P")


def test_an_appends_answer_is_stored_refused_or_an_error() -> None:
    assert append_answer(1) is True and append_answer(b"5-0") is True
    assert append_answer(None) is False  # NOMKSTREAM: no log
    stale = redis.ResponseError("The ID specified in XADD is equal or smaller than the "
                                "target stream top item")
    gap = redis.ResponseError("HOKMGAP the log does not reach the entry before 5-0")
    assert append_answer(stale) is False and append_answer(gap) is False
    other = redis.ResponseError("ERR Error running script")
    assert append_answer(other) is other


def test_transient_errors_leave_as_store_unavailable_and_others_as_they_are() -> None:
    cause = exceptions.TryAgainError("TRYAGAIN")
    with pytest.raises(StoreUnavailable, match="TRYAGAIN") as info, translated():
        raise cause
    assert info.value.__cause__ is cause
    with pytest.raises(redis.ResponseError), translated():
        raise redis.ResponseError("equal or smaller")
    with pytest.raises(OSError), translated(TRANSIENT):
        raise OSError("reset")
    with pytest.raises(StoreUnavailable), translated(UNAVAILABLE):
        raise OSError("reset")


def test_a_parked_follower_is_waiting_only_while_it_waits() -> None:
    class Follower:
        waiting = False

    follower = Follower()

    async def scenario() -> None:
        event = asyncio.Event()
        seen = []

        async def park() -> None:
            with parked(follower):
                await event.wait()

        task = asyncio.create_task(park())
        for _ in range(100):  # (the task runs at the first turn of the loop)
            if follower.waiting:
                break
            await asyncio.sleep(0)
        seen.append(follower.waiting)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        seen.append(follower.waiting)
        assert seen == [True, False]

    run_async(scenario())  # (Playwright's loop may hold this thread: conftest)
