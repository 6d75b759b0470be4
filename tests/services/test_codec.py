"""The record codec: every event type survives encode/decode exactly; garbage is refused."""

from __future__ import annotations

import random

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import NAMES, Rules
from engine.events import (
    EVENT_TYPES, CardPlayed, CardsDiscarded, HakemDrawn, MatchCreated, MatchEnded, RoundEnded,
    RoundStarted, SecretRevealed, SeatLeft, SeatRenamed, SeatTaken, SetWon, TalonDrawn, TrickWon,
    TrumpChosen,
)
from services.store.codec import TAGS, CorruptRecord, decode, encode, sealed
from services.store.port import Record

SAMPLES = [
    MatchCreated("abc", Rules.from_dict({"target": "2x7", "satat": True}), "f" * 64, 2),
    MatchCreated("abc", Rules(), "0" * 64, None),
    SeatTaken(1, "Dara (hard)", "bot-1", "hard"),
    SeatTaken(0, "پریسا", "p1", None),
    SeatLeft(3),
    SeatRenamed(2, "Roxana"),
    HakemDrawn(((0, "4H"), (1, "AS"), (2, "KD"), (0, "AC")), 1, 0, (0, 3)),
    HakemDrawn(((0, "AS"),), 0, None, None),
    RoundStarted(3, 2, 1, tuple(random.Random(1).sample(NAMES, 52)), True),
    TrumpChosen(2, "D"),
    CardPlayed(3, "TS"),
    TrickWon(1, 1),
    TrickWon(0, 0),
    RoundEnded(1, 3, "hakem_koti", (0, 7)),
    SetWon(0),
    MatchEnded(0, (8, 3)),
    SecretRevealed("ab" * 32),
    CardsDiscarded(0, ("2C", "3D", "AS")),
    CardsDiscarded(1, ("KH", "TC")),
    TalonDrawn(1, "QS", "5D"),
]


def test_every_event_type_has_a_sample_and_a_tag() -> None:
    assert {type(e) for e in SAMPLES} == set(EVENT_TYPES.values())
    assert set(TAGS) == set(EVENT_TYPES)
    assert len(set(TAGS.values())) == len(TAGS)


@pytest.mark.parametrize("event", SAMPLES, ids=lambda e: type(e).__name__)
def test_each_event_round_trips(event: object) -> None:
    record, payload = sealed(Record(7, (event,), 2, "cmd-1", 1_796_000_000_000, b"12345678"))  # type: ignore[arg-type]
    back = decode(7, payload)
    assert back == record
    assert back.events == (event,)
    assert back.digest == record.digest and len(back.digest) == 8


@given(st.lists(st.sampled_from(SAMPLES), min_size=1, max_size=6),
       st.one_of(st.none(), st.integers(0, 3)), st.one_of(st.none(), st.text(max_size=64)),
       st.integers(0, 2**40), st.binary(max_size=8))
@settings(max_examples=200, deadline=None)
def test_records_round_trip(events: list[object], actor: int | None, cid: str | None,
                            time_ms: int, prev: bytes) -> None:
    record = Record(5, tuple(events), actor, cid, time_ms, prev)  # type: ignore[arg-type]
    back = decode(5, encode(record))
    assert back.events == record.events
    assert (back.actor, back.command_id, back.prev) == (actor, cid, prev)
    assert back.time_ms == time_ms // 1000 * 1000  # kept to the second


@pytest.mark.parametrize("payload", [
    b"", b"\xc1", msgpack.packb([99, b"", None, None, 0, []]),
    msgpack.packb([1, b"", None, None, 0, [[999, 1]]]),
    msgpack.packb([1, b"", None, None, 0, [[7, 1]]]),
    msgpack.packb({"a": 1}),
])
def test_garbage_is_refused(payload: bytes) -> None:
    with pytest.raises(CorruptRecord):
        decode(1, payload)
