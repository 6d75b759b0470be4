"""Golden records: bytes stored by the codec as it was, checked in, read back today.

``golden/records.hex`` holds a chain of encoded records (version and hex per line), written once
by ``golden/make_records.py`` and never by this test.  The records cover every event type of
``engine.events`` and every shape the codec writes: the compact card played by its actor (alone,
and completing a trick won by each kind of seat), a card played by someone other than the
record's actor, tricks banked 0 and more than 1 (double_sar), a card ending a round, system
records (no actor), records with and without a command id, several events in one record, rules
with every option, a time of zero.  It is not one playable match: just every form.

Both directions are pinned: each stored record must decode (by ``decode``, ``decode_light`` and
the rebuilding loop ``apply_payloads``) to exactly the Record written out literally below (not
computed by the codec), and encoding that Record today must give exactly the stored bytes.  The
``prev`` links must be the first 8 bytes of the SHA-256 of the stored record before.

If this test fails, the codec would misread streams already in Redis (or write a form old readers
do not know): a new form needs a new tag or a new schema number read beside the old, never a
changed meaning.  Do not regenerate the file to make this test pass.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path

import msgpack
import pytest

from engine import Event, Rules
from engine.events import (
    EVENT_TYPES, CardPlayed, CardsDiscarded, HakemDrawn, MatchCreated, MatchEnded, RoundEnded,
    RoundStarted, SecretRevealed, SeatLeft, SeatRenamed, SeatTaken, SetWon, TalonDrawn, TrickWon,
    TrumpChosen,
)
from services.store.codec import apply_payloads, decode, decode_light, encode, sealed
from services.store.port import Record

GOLDEN = Path(__file__).parent / "golden" / "records.hex"

DECK = tuple(
    "6D 6H 5C 9D QC JH JS KH 2S QH AC KC 5D AD 3H JD 6C 8C 4D TC QS 7D JC 8S 3S 7H 2C 4S 5H TH "
    "4C AS 7C QD 3D 8D 9S 3C AH 4H KD 9C 2H 8H 7S 6S TD KS 2D TS 5S 9H".split()
)
SECRET = "5be1" * 16
COMMITMENT = "c0ffee00" * 8
T0 = 1_796_000_000_000
"""Times are kept to the second, so these are whole seconds (in ms)."""

EXPECTED: list[Record] = [
    # system records: creation with every house rule set, seating
    Record(1, (MatchCreated("k3x9q2", Rules(target=7, sets=2, deal="5-3-3-2", teams="as_seated",
                                            must_trump=True, satat=True, double_sar=True),
                            COMMITMENT, None),),
           None, None, T0, b""),
    Record(2, (SeatTaken(0, "پریسا", "p-5f2a", None),), None, "Xy3_ab-Q", T0 + 2000,
           bytes.fromhex("3798f51a30f105f9")),
    Record(3, (SeatTaken(1, "Dara (hard)", "bot-1", "hard"),
               SeatTaken(2, "Mina (medium)", "bot-2", "medium"),
               SeatTaken(3, "Kian (easy)", "bot-3", "easy")),
           None, None, T0 + 3000, bytes.fromhex("b20fe6f384c9f461")),
    # a player's command with several events
    Record(4, (SeatLeft(0), SeatTaken(0, "Roya", "p-91c0", None)), 0, "k0Lp9sQ2", T0 + 61_000,
           bytes.fromhex("8dab2be289da1411")),
    Record(5, (HakemDrawn(((0, "4H"), (1, "KD"), (2, "9C"), (3, "AS")), 3, 1, (1, 2)),),
           None, None, T0 + 62_000, bytes.fromhex("b11779f362f97d56")),
    Record(6, (RoundStarted(1, 3, 2, DECK, False),), None, None, T0 + 62_000,
           bytes.fromhex("2306bc2ec5fcfd71")),
    Record(7, (TrumpChosen(3, "S"),), 3, "9vT-4wZa", T0 + 70_000,
           bytes.fromhex("099676379f713028")),
    # compact: a card played by the record's actor, with and without a command id
    Record(8, (CardPlayed(3, "AS"),), 3, "Hq2mN8cE", T0 + 75_000,
           bytes.fromhex("44bbf6247d3afe82")),
    Record(9, (CardPlayed(0, "2S"),), 0, None, T0 + 76_000, bytes.fromhex("d1654742401ce1ea")),
    Record(10, (CardPlayed(1, "KS"),), 1, None, T0 + 76_000, bytes.fromhex("51f7eedc9c15e214")),
    # compact: the card completes a trick won by seat 3, then by seat 0
    Record(11, (CardPlayed(2, "QS"), TrickWon(3, 1)), 2, None, T0 + 77_000,
           bytes.fromhex("31f7b8b39b79d732")),
    Record(12, (CardPlayed(0, "8C"), TrickWon(0, 1)), 0, "zz-Q7_0A", T0 + 90_000,
           bytes.fromhex("8dd6756146a92c86")),
    # not compact: a card played for a seat by a system step (a stand-in move)
    Record(13, (CardPlayed(1, "TS"),), None, None, T0 + 120_000,
           bytes.fromhex("f659fc91b2f304d1")),
    # not compact: double_sar piles (banked 0, then 3 at once)
    Record(14, (CardPlayed(2, "9H"), TrickWon(0, 0)), 2, None, T0 + 121_000,
           bytes.fromhex("1af370624ed32cd8")),
    Record(15, (CardPlayed(3, "7D"), TrickWon(2, 3), RoundEnded(0, 2, "kot", (7, 0))), 3,
           "Wb0Xc1Yd", T0 + 122_000, bytes.fromhex("32b4043b67b7ab41")),
    # the next deal (stacked), the end of a set, of the match, and the reveal
    Record(16, (RoundStarted(2, 0, 3, tuple(reversed(DECK)), True),), None, None, T0 + 123_000,
           bytes.fromhex("96f39b316b8e5137")),
    Record(17, (RoundEnded(1, 3, "hakem_koti", (0, 7)), SetWon(1)), None, None, T0 + 200_000,
           bytes.fromhex("72a8302efc94cc47")),
    Record(18, (MatchEnded(1, (1, 2)), SecretRevealed(SECRET)), None, None, T0 + 200_000,
           bytes.fromhex("69eb4230c60225f9")),
    # a second creation form: other rules, a fixed first Hakem, time zero
    Record(19, (MatchCreated("a0", Rules(target=10, bavney=True), "0" * 64, 2),), None, None, 0,
           bytes.fromhex("77899afe5bbae333")),
    # appended with the variants (issue 13): their rules, the talon game's two events (tags 13
    # and 14), a three-player round nobody won
    Record(20, (MatchCreated("t2", Rules(players=2, two_player="talon", deal="talon", target=10,
                                         satat=True), COMMITMENT, None),),
           None, None, T0 + 300_000, bytes.fromhex("7fb0a18289c9d268")),
    Record(21, (CardsDiscarded(0, ("2C", "3D", "4H")),), 0, "dS-3x9Lq", T0 + 301_000,
           bytes.fromhex("dbe25e82cdc048ff")),
    Record(22, (CardsDiscarded(1, ("AS", "KH")),), 1, None, T0 + 302_000,
           bytes.fromhex("38706ccbcc810aac")),
    Record(23, (TalonDrawn(0, "QS", "5D"), TalonDrawn(1, "2H", "TC")), 1, "tD_0aA7z",
           T0 + 303_000, bytes.fromhex("4b8a6ffbd44d2fe6")),
    Record(24, (MatchCreated("s3", Rules(players=3, deal="5-4-4-4"), "1" * 64, 1),
                MatchCreated("s2", Rules(players=2, two_player="simple"), "2" * 64, None)),
           None, None, T0 + 304_000, bytes.fromhex("def8200635fa9db6")),
    Record(25, (RoundEnded(None, 0, "no_winner", (6, 6, 5)),
                RoundEnded(2, 1, "normal", (7, 4, 6))),
           None, None, T0 + 305_000, bytes.fromhex("d986469246021772")),
    # appended with seat_renamed (tag 15): a player takes a seat under a bot's name, and the
    # bot is shown under another in the same record
    Record(26, (SeatTaken(1, "ＫＩＡＮ", "p-9c1e", None), SeatRenamed(2, "Dara")), None,
           "Zq8-_x1P", T0 + 306_000, bytes.fromhex("9afa7eacb07e9434")),
]


def _stored() -> list[tuple[int, bytes]]:
    entries: list[tuple[int, bytes]] = []
    if not GOLDEN.exists():  # only while make_records.py writes it the first time
        return entries
    for line in GOLDEN.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            version, payload = line.split()
            entries.append((int(version), bytes.fromhex(payload)))
    return entries


STORED = _stored()


def test_the_file_holds_one_record_per_expected_one() -> None:
    assert [v for v, _ in STORED] == [r.version for r in EXPECTED] == list(range(1, 27))


def test_every_event_type_and_record_shape_is_covered() -> None:
    kinds = {type(e) for r in EXPECTED for e in r.events}
    assert kinds == set(EVENT_TYPES.values())
    # the shapes, read from the stored bytes themselves (msgpack, not the codec)
    rows = [msgpack.unpackb(p)[5] for _, p in STORED]
    assert any(type(r) is int and r < 52 for r in rows)  # a card played alone
    assert {r // 52 - 1 for r in rows if type(r) is int and r >= 52} == {0, 3}  # won by 0, 3
    assert any(type(r) is list for r in rows)
    assert {r.actor is None for r in EXPECTED} == {True, False}
    assert {r.command_id is None for r in EXPECTED} == {True, False}
    assert any(len(r.events) > 2 for r in EXPECTED)


@pytest.mark.parametrize("index", range(len(EXPECTED)), ids=lambda i: f"v{i + 1}")
def test_stored_bytes_decode_to_the_expected_record(index: int) -> None:
    version, payload = STORED[index]
    expected = EXPECTED[index]
    record = decode(version, payload)
    assert record == expected  # every field but the digest, which is checked next
    assert record.digest == hashlib.sha256(payload).digest()[:8]
    assert decode_light(version, payload) == (
        expected.prev, expected.actor, expected.command_id, expected.events)


@pytest.mark.parametrize("index", range(len(EXPECTED)), ids=lambda i: f"v{i + 1}")
def test_expected_record_encodes_to_the_stored_bytes(index: int) -> None:
    _, payload = STORED[index]
    assert encode(EXPECTED[index]) == payload
    record, sealed_payload = sealed(EXPECTED[index])
    assert sealed_payload == payload
    assert record.digest == hashlib.sha256(payload).digest()[:8]


def test_time_is_stored_to_the_second_rounded_down() -> None:
    record = EXPECTED[7]
    assert record.time_ms % 1000 == 0
    assert encode(replace(record, time_ms=record.time_ms + 999)) == STORED[7][1]


def test_the_chain_links_each_record_to_the_bytes_before() -> None:
    assert EXPECTED[0].prev == b""
    for (_, before), record in zip(STORED[:-1], EXPECTED[1:], strict=True):
        assert record.prev == hashlib.sha256(before).digest()[:8], record.version
    # and the codec reads the links from the bytes themselves
    for (version, payload), (_, before) in zip(STORED[1:], STORED[:-1], strict=True):
        assert decode(version, payload).prev == decode(version - 1, before).digest


def _collect(events: list[Event], event: Event) -> list[Event]:
    return [*events, event]


def test_rebuilding_folds_exactly_the_expected_events() -> None:
    commands: dict[str, int] = {}
    start: list[Event] = []
    folded = apply_payloads(STORED, start, 0, _collect, commands)
    assert folded == [e for r in EXPECTED for e in r.events]
    assert commands == {r.command_id: r.version for r in EXPECTED if r.command_id is not None}
