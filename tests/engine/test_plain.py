"""to_plain / from_plain: every event type becomes plain data and comes back equal."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import EVENT_TYPES, NAMES, Event, Rules, from_plain, to_plain
from engine.events import (
    CardPlayed, CardsDiscarded, HakemDrawn, MatchCreated, MatchEnded, RoundEnded, RoundStarted,
    SecretRevealed, SeatLeft, SeatRenamed, SeatTaken, SetWon, TalonDrawn, TrickWon, TrumpChosen,
)

from .playout import play_match

EXAMPLES: list[Event] = [
    MatchCreated("m1", Rules(), "ab" * 32, None),
    MatchCreated("m2", Rules.from_dict({"target": "2x7", "satat": True, "deal": "5-3-3-2"}),
                 "cd" * 32, 2),
    SeatTaken(0, "Ana", "id-0", None),
    SeatTaken(3, "Bot", "id-3", "hard"),
    SeatLeft(2),
    SeatRenamed(3, "Roxana"),
    HakemDrawn(((0, "2C"), (1, "AS"), (2, "AH")), 1, 2, (2, 3)),
    HakemDrawn(((0, "AS"),), 0, None, None),
    RoundStarted(1, 0, 3, NAMES, False),
    RoundStarted(9, 2, 1, tuple(reversed(NAMES)), True),
    TrumpChosen(0, "H"),
    CardPlayed(1, "TH"),
    TrickWon(2),
    TrickWon(3, 0),
    TrickWon(1, 5),
    RoundEnded(0, 1, "normal", (7, 3)),
    RoundEnded(1, 3, "bavney", (0, 13)),
    SetWon(1),
    MatchEnded(0, (8, 1)),
    SecretRevealed("5e" * 32),
    CardsDiscarded(0, ("2C", "3D", "AS")),
    TalonDrawn(1, "QS", "5D"),
]


def is_plain(value: Any) -> bool:
    if value is None or type(value) in (str, int, bool):
        return True
    if type(value) is list:
        return all(is_plain(v) for v in value)
    if type(value) is dict:
        return all(type(k) is str and is_plain(v) for k, v in value.items())
    return False


def test_the_examples_cover_every_event_type() -> None:
    assert {type(e) for e in EXAMPLES} == set(EVENT_TYPES.values())


@pytest.mark.parametrize("event", EXAMPLES, ids=lambda e: type(e).__name__)
def test_round_trip(event: Event) -> None:
    plain = to_plain(event)
    assert is_plain(plain)
    assert plain["type"] == event.TYPE
    assert from_plain(plain) == event
    assert from_plain(json.loads(json.dumps(plain))) == event


def test_a_whole_match_log_round_trips() -> None:
    out = play_match(11, Rules.from_dict({"double_sar": True, "target": "2x7"}), None)
    kinds = set()
    for event in out.log:
        plain = to_plain(event)
        assert is_plain(plain)
        assert from_plain(json.loads(json.dumps(plain))) == event
        kinds.add(type(event))
    assert len(kinds) >= 10


@pytest.mark.parametrize("bad", [
    {}, {"type": "nope"}, {"type": None}, {"type": "seat_left", "seat": 1, "extra": 2}, [],
])
def test_from_plain_refuses_unknown_types_and_fields(bad: Any) -> None:
    with pytest.raises(ValueError):
        from_plain(bad)


cards = st.sampled_from(NAMES)
seats = st.integers(0, 3)
events = st.one_of(
    st.builds(CardPlayed, seats, cards),
    st.builds(TrickWon, seats, st.integers(0, 13)),
    st.builds(TrumpChosen, seats, st.sampled_from("SHDC")),
    st.builds(RoundStarted, st.integers(1, 99), seats, seats, st.permutations(NAMES).map(tuple),
              st.booleans()),
    st.builds(RoundEnded, st.integers(0, 1), st.integers(1, 3),
              st.sampled_from(["normal", "kot", "hakem_koti", "bavney"]),
              st.tuples(st.integers(0, 13), st.integers(0, 13))),
    st.builds(HakemDrawn, st.lists(st.tuples(seats, cards), min_size=1, max_size=20).map(tuple),
              seats, st.none() | seats, st.none() | st.tuples(seats, seats)),
    st.builds(SeatTaken, seats, st.text(min_size=1, max_size=40), st.text(min_size=1),
              st.none() | st.text(min_size=1)),
    st.builds(MatchEnded, st.integers(0, 1), st.tuples(st.integers(0, 20), st.integers(0, 20))),
)


@settings(max_examples=200, deadline=None)
@given(events)
def test_round_trip_property(event: Event) -> None:
    plain = to_plain(event)
    assert is_plain(plain)
    assert from_plain(json.loads(json.dumps(plain))) == event
