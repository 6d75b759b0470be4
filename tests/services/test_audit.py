"""Replay and audit: verify finds an edited entry; export files check offline; the CLI."""

from __future__ import annotations

import io
import random
from dataclasses import replace

import fakeredis
import pytest

from engine import ChooseTrump, PlayCard, legal_choices, names_of_mask
from engine.events import CardPlayed, RoundStarted
from services.audit import Problem, check, command_for, describe, export_lines, read_export
from hokm.cli import main
from services.matches import MatchService
from services.store import keys
from services.store.codec import decode, encode
from services.store.redis_streams import RedisStore
from tests.conftest import real_redis_client, redis_db_url


def finished_match(service: MatchService, seed: int = 1) -> str:
    created = service.create(name="A")
    match_id = created["match_id"]
    for i in range(3):
        service.join(match_id, f"P{i}")
    rng = random.Random(seed)
    while True:
        state = service.load(match_id, fresh=False).state
        if state.turn is None:
            break
        choice = rng.choice(legal_choices(state, state.turn))
        command = ChooseTrump(choice) if state.phase == "choosing_trump" else PlayCard(choice)
        service.handle(match_id, state.turn, command)
    return match_id


def rewrite(client: fakeredis.FakeRedis, match_id: str, version: int, change) -> None:  # type: ignore[no-untyped-def]
    """Edit one stored entry in place (what an attacker with Redis access could do)."""
    entries = client.xrange(keys.log(match_id))
    client.delete(keys.log(match_id))
    for entry_id, fields in entries:
        payload = fields[b"d"]
        if int(entry_id.split(b"-")[0]) == version:
            payload = encode(change(decode(version, payload)))
        client.xadd(keys.log(match_id), {"d": payload}, id=entry_id)


def test_an_intact_match_verifies() -> None:
    service = MatchService(RedisStore(fakeredis.FakeRedis()))
    records = service.store.read(finished_match(service))
    assert check(records) == []
    assert all(command_for(r) is not None for r in records)


def test_a_deleted_record_is_one_problem_not_one_for_every_record_after() -> None:
    """A record deleted by hand used to give "expected version N" for every later record and
    blame its predecessor as "changed"."""
    service = MatchService(RedisStore(fakeredis.FakeRedis()))
    records = service.store.read(finished_match(service))
    assert check([*records[:2], *records[3:]]) == [Problem(4, "record 3 is missing")]
    assert check([*records[:2], *records[5:]]) == [Problem(6, "records 3 to 5 are missing")]
    assert check([*records[:4], records[2], *records[4:]]) == [
        Problem(3, "record 3 comes after record 4 (out of order or repeated)")]


def test_an_edited_card_is_named() -> None:
    client = fakeredis.FakeRedis()
    service = MatchService(RedisStore(client))
    match_id = finished_match(service)
    target = next(r for r in service.store.read(match_id)
                  if r.version > 40 and isinstance(r.events[0], CardPlayed))

    before = service.state_at(match_id, target.version - 1)
    seat = target.events[0].seat  # type: ignore[union-attr]
    # a card another seat holds: never legal for this seat, so the re-run refuses this record
    other = next(c for s in range(4) if s != seat for c in names_of_mask(before.hands[s]))

    def change(record):  # type: ignore[no-untyped-def]
        card = record.events[0]
        return replace(record, events=(CardPlayed(card.seat, other), *record.events[1:]))

    rewrite(client, match_id, target.version, change)
    problems = check(service.store.read(match_id))
    assert problems and all(p.version == target.version for p in problems)


def test_an_edited_deck_is_named_even_with_a_rebuilt_chain() -> None:
    client = fakeredis.FakeRedis()
    service = MatchService(RedisStore(client))
    match_id = finished_match(service, seed=2)
    deal = next(r for r in service.store.read(match_id) if isinstance(r.events[0], RoundStarted))
    records = service.store.read(match_id)
    # forge the deck of a deal and rebuild every link after it: the chain then holds, but the
    # revealed secret does not produce that deck
    forged = []
    prev = b""
    for record in records:
        if record.version == deal.version:
            event = record.events[0]
            deck = (*event.deck[1:], event.deck[0])
            record = replace(record, events=(replace(event, deck=deck),))
        record = replace(record, prev=prev)
        prev = decode(record.version, encode(record)).digest
        forged.append(decode(record.version, encode(record)))
    problems = check(forged)
    assert any(p.version == deal.version for p in problems)


def test_export_round_trips_and_describes() -> None:
    service = MatchService(RedisStore(fakeredis.FakeRedis()))
    match_id = finished_match(service, seed=3)
    records = service.store.read(match_id)
    text = "\n".join(export_lines(records)) + "\n"
    back = read_export(io.StringIO(text))
    assert back == records and [r.digest for r in back] == [r.digest for r in records]
    lines = list(describe(records))
    assert any("MATCH OVER" in line for line in lines)
    assert any("plays" in line for line in lines)
    partial = list(describe(records, seat=1, step=20))
    assert "after record 20:" in "\n".join(partial)
    # the match is over: at any step every hand is public, as the replay API shows it
    assert [line.split(" holds")[0] for line in partial if " holds: " in line] == [
        f"seat {s}" for s in range(4)]


@pytest.mark.redis
def test_the_cli(tmp_path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    client = real_redis_client(5)
    client.flushdb()
    service = MatchService(RedisStore(client))
    match_id = finished_match(service, seed=4)
    monkeypatch.setenv("HOKM_REDIS_URL", redis_db_url(5))
    assert main(["verify", match_id]) == 0
    assert "OK:" in capsys.readouterr().out
    out = tmp_path / "m.jsonl"
    assert main(["export", match_id, "-o", str(out)]) == 0
    assert main(["verify", "--file", str(out)]) == 0
    assert main(["replay", match_id, "--seat", "0", "--step", "30"]) == 0
    assert "plays" in capsys.readouterr().out
    lines = out.read_text().splitlines()
    lines[10] = lines[10].replace('"payload":"', '"payload":"AAAA')  # corrupt one record
    out.write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    assert main(["verify", "--file", str(out)]) == 1  # a failure, reported, not a traceback
    assert capsys.readouterr().out.startswith("FAIL record 11 cannot be decoded")
    client.flushdb()
