"""Replay and audit of a match's log: ``hokm replay``, ``hokm export``, ``hokm verify``.

``verify`` checks three things and names the record at fault:

1. the chain: every record stores the digest of the previous one (an edited record no longer
   matches the link its successor holds);
2. the rules: every record's command is re-derived from its events and run through
   ``engine.decide`` on the state before it, which must produce exactly the stored events;
3. fairness: once the match is over, every deck and the ace draw are recomputed from the revealed
   secret and checked against the commitment of the first record.

Exports are JSON lines, one record per line, with the record's raw bytes (base64) so the chain can
be checked offline: ``hokm verify --file match.jsonl``.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import json
import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import IO, Any

from engine import (
    NAMES, ChooseTrump, Command, CreateMatch, DealRound, DrawAces, LeaveSeat, PlayCard,
    RevealSecret, State, TakeSeat, decide, evolve, to_plain, verify, view_for,
)
from engine.cards import CARD_INDEX
from engine.commands import Discard, DrawTalon
from engine.deal import hakem_five
from engine.errors import HokmError
from engine.events import (
    CardPlayed, CardsDiscarded, Event, HakemDrawn, MatchCreated, MatchEnded, RoundEnded,
    RoundStarted, SecretRevealed, SeatLeft, SeatRenamed, SeatTaken, SetWon, TalonDrawn, TrickWon,
    TrumpChosen,
)

from .store.codec import CorruptRecord, decode, digest_of, encode
from .store.port import Record


@dataclass(frozen=True, slots=True)
class Problem:
    version: int
    message: str

    def __str__(self) -> str:
        return f"record {self.version}: {self.message}"


def _take_seat(taken: SeatTaken, after: Sequence[Event]) -> TakeSeat:
    """The ``TakeSeat`` of ``taken``, with the bots it renamed (the ``SeatRenamed`` after it)."""
    renames = tuple((e.seat, e.name) for e in after if isinstance(e, SeatRenamed))
    return TakeSeat(taken.seat, taken.name, taken.player, taken.bot, renames)


def command_for(record: Record, state: State | None = None) -> Command | None:
    """The command that produced a record's events (None if the first event is not one a
    command starts with).  A talon draw needs ``state``, the match before the record: whether
    the seat kept the talon's top card is read from the deck there."""
    first = record.events[0] if record.events else None
    if isinstance(first, MatchCreated):
        return CreateMatch(first.match_id, first.rules, first.commitment, first.first_hakem)
    if isinstance(first, SeatTaken):
        return _take_seat(first, record.events[1:])
    if isinstance(first, SeatLeft):
        then = record.events[1] if len(record.events) > 1 else None
        if isinstance(then, SeatTaken):  # handed to a newcomer in the same record
            return LeaveSeat(first.seat, _take_seat(then, record.events[2:]))
        return LeaveSeat(first.seat)
    if isinstance(first, HakemDrawn):
        # The draw only looks at the cards turned; any deck starting with them gives the same.
        turned = [card for _, card in first.draw]
        return DrawAces((*turned, *(c for c in NAMES if c not in turned)))
    if isinstance(first, RoundStarted):
        return DealRound(first.deck, first.stacked)
    if isinstance(first, TrumpChosen):
        return ChooseTrump(first.suit)
    if isinstance(first, CardPlayed):
        return PlayCard(first.card)
    if isinstance(first, SecretRevealed):
        return RevealSecret(first.secret)
    if isinstance(first, CardsDiscarded):
        return Discard(first.cards)
    if isinstance(first, TalonDrawn) and state is not None and state.deal.talon:
        return DrawTalon(CARD_INDEX[first.kept] == state.deal.deck[state.deal.talon])
    return None


def check(records: list[Record]) -> list[Problem]:
    """Every problem of a match's records (empty: the log is intact, legal and fair)."""
    problems: list[Problem] = []
    prev, version, whole = b"", 0, len(records)
    for i, record in enumerate(records):
        if record.version != version + 1:  # one line for a gap, not one for every record after
            problems.append(Problem(record.version, _gap(version, record.version)))
            whole = min(whole, i)
        elif record.prev != prev:  # (after a gap the link cannot match: the gap says why)
            problems.append(Problem(version, "its digest does not match the link stored in "
                                             f"record {record.version}: record {version} was "
                                             "changed")
                            if i > 0 else Problem(record.version, "the first record has a link"))
        if record.version > version:  # (a record out of order or repeated moves nothing on)
            prev, version = record.digest, record.version
    state = State()
    for record in records[:whole]:  # the rules are replayed up to the first gap
        command = command_for(record, state)
        if command is None:
            problems.append(Problem(record.version, "no command produces these events"))
            break
        try:
            expected = decide(state, record.actor, command)
        except HokmError as refusal:
            problems.append(Problem(record.version, f"the engine refuses this command "
                                                    f"({refusal.code}: {refusal.message})"))
            break
        if tuple(expected) != record.events:
            problems.append(Problem(record.version, "the stored events are not what the rules "
                                                    "produce for this command"))
            break
        for event in record.events:
            state = evolve(state, event)
    events = [e for r in records for e in r.events]
    if any(isinstance(e, SecretRevealed) for e in events):
        index_to_version = []
        for r in records:
            index_to_version.extend([r.version] * len(r.events))
        for p in verify(events):
            version = index_to_version[p.index] if p.index < len(index_to_version) else 0
            problems.append(Problem(version, p.message))
    return problems


def _gap(before: int, version: int) -> str:
    """What a record of ``version`` right after one of ``before`` says of the log."""
    if version <= before:
        return f"record {version} comes after record {before} (out of order or repeated)"
    if version == before + 2:
        return f"record {before + 1} is missing"
    return f"records {before + 1} to {version - 1} are missing"


def is_over(records: Iterable[Record]) -> bool:
    """Whether the match of ``records`` has ended (its hands and decks are then public)."""
    return any(isinstance(e, MatchEnded) for r in records for e in r.events)


def whole_chain(records: list[Record], name: str) -> None:
    """A ``CliError`` unless ``records`` are one unbroken chain (``name``: the match or file
    named in the message): read with a gap, a log would show moves never made."""
    from .clitools import CliError
    from .pipeline import CorruptLog, chained

    try:
        chained(records)
    except CorruptLog as damage:
        raise CliError(f"{name}'s log is damaged ({damage.detail}): `hokm verify` tells "
                       "more") from None


# -- printing ----------------------------------------------------------------------------------

SUIT_SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def card_text(card: str, colour: bool = False) -> str:
    """A card as the terminal shows it: rank and suit symbol, ``TD`` -> ``10♦`` (hearts and
    diamonds in red if ``colour``).  The API and the logs keep the two-letter codes."""
    text = card[0].replace("T", "10") + SUIT_SYMBOL[card[1]]
    if colour and card[1] in "HD":
        return f"\033[31m{text}\033[0m"
    return text



def describe(records: Iterable[Record], seat: int | None = None, step: int | None = None,
             colour: bool = False) -> Iterator[str]:
    """Lines describing a match move by move, as ``seat`` (None: public) could follow it.

    Once the match of ``records`` is over (at any ``step``: as the replay API answers) every
    hand is public, so every seat's cards laid aside and talon draws are named; while it is
    live only ``seat``'s own are."""
    records = list(records)
    over = is_over(records)
    state = State()
    for record in records:
        if step is not None and record.version > step:
            break
        for event in record.events:
            line = _line(state, event, seat, colour, over)
            state = evolve(state, event)
            if line:
                yield f"{record.version:>4}  {line}"
    view = view_for(state, seat, 0, reveal=over)
    yield ""
    yield (f"after record {step if step is not None else 'last'}: phase {view['phase']}, "
           f"score {view['score']}, tricks {view['tricks']}")
    if view["hand"]:
        yield "your hand: " + " ".join(card_text(c, colour) for c in view["hand"])
    if view["hands"]:
        for s, hand in enumerate(view["hands"]):
            yield f"seat {s} holds: " + " ".join(card_text(c, colour) for c in hand)


def _name(state: State, seat: int) -> str:
    occupant = state.match.seats[seat]
    return f"seat {seat}" + (f" ({occupant.name})" if occupant else "")


def _side(state: State, side: int) -> str:
    """A side as the lines name it: ``team 0`` with partners, else its one seat."""
    variant = state.rules.variant
    if variant.partnerships:
        return f"team {side}"
    return _name(state, variant.sides[side][0])


def _line(state: State, event: Event, seat: int | None, colour: bool, public: bool) -> str:
    """The line of ``event`` as ``seat`` sees it (``public``: the match is over, every hand is
    shown)."""
    if isinstance(event, MatchCreated):
        return f"match {event.match_id} created, rules {event.rules.to_dict()}"
    if isinstance(event, SeatTaken):
        kind = f"bot {event.bot}" if event.bot else "human"
        return f"{event.name} takes seat {event.seat} ({kind})"
    if isinstance(event, SeatLeft):
        return f"{_name(state, event.seat)} leaves"
    if isinstance(event, SeatRenamed):
        return f"{_name(state, event.seat)} is now {event.name}"
    if isinstance(event, HakemDrawn):
        turned = " ".join(f"{s}:{card_text(c, colour)}" for s, c in event.draw)
        swap = f", seats {event.swap[0]} and {event.swap[1]} swap" if event.swap else ""
        draw = "high-card draw" if state.rules.variant.first_hakem == "high_card" else "ace draw"
        return f"{draw} {turned}: Hakem seat {event.hakem}{swap}"
    if isinstance(event, RoundStarted):
        mine = ""
        if seat == event.hakem:  # the first five of the playing deck (three: without the 2C)
            five = hakem_five(tuple(CARD_INDEX[c] for c in event.deck), state.rules)
            mine = " — your five: " + " ".join(card_text(NAMES[c], colour) for c in five)
        return (f"round {event.round}: Hakem {_name(state, event.hakem)}, dealer seat "
                f"{event.dealer}{mine}")
    if isinstance(event, TrumpChosen):
        return f"{_name(state, event.seat)} names trump {SUIT_SYMBOL[event.suit]}"
    if isinstance(event, CardPlayed):
        return f"  {_name(state, event.seat)} plays {card_text(event.card, colour)}"
    if isinstance(event, TrickWon):
        banked = "" if event.banked == 1 else f" ({event.banked} banked)"
        return f"  -> trick to {_name(state, event.seat)}{banked}"
    if isinstance(event, CardsDiscarded):
        laid = (": " + " ".join(card_text(c, colour) for c in event.cards)
                if public or seat == event.seat else "")  # face down: others see how many
        return f"{_name(state, event.seat)} lays {len(event.cards)} cards aside{laid}"
    if isinstance(event, TalonDrawn):
        seen = (f": keeps {card_text(event.kept, colour)}, lays aside "
                f"{card_text(event.discarded, colour)}" if public or seat == event.seat
                else "")
        return f"  {_name(state, event.seat)} draws from the talon{seen}"
    if isinstance(event, RoundEnded):
        if event.winner is None:
            return f"round over: nobody has 7 tricks ({event.kind}), tricks {list(event.tricks)}"
        return (f"round over: {_side(state, event.winner)} wins ({event.kind}, {event.points} "
                f"point{'s' if event.points > 1 else ''}), tricks {list(event.tricks)}")
    if isinstance(event, SetWon):
        return f"{_side(state, event.winner)} wins a set"
    if isinstance(event, MatchEnded):
        return f"MATCH OVER: {_side(state, event.winner)} wins {list(event.score)}"
    if isinstance(event, SecretRevealed):
        return f"deck secret revealed: {event.secret[:16]}…"
    return ""


# -- export files ------------------------------------------------------------------------------

def export_lines(records: Iterable[Record]) -> Iterator[str]:
    for record in records:
        payload = encode(record)
        yield json.dumps({
            "version": record.version, "actor": record.actor, "command_id": record.command_id,
            "time_ms": record.time_ms, "prev": record.prev.hex(),
            "digest": digest_of(payload).hex(),
            "events": [to_plain(e) for e in record.events],
            "payload": base64.b64encode(payload).decode(),
        }, separators=(",", ":"))


class MismatchedExport(CorruptRecord):
    """An export line whose readable fields say something its payload does not (edited by
    hand, or by a tool that forgot the payload): ``hokm verify --file`` fails on it."""


def _difference(line: Any, payload: Any, where: str = "") -> str | None:
    """The first place where ``line`` (a readable field as the file holds it) differs from
    ``payload`` (the same field as the record's bytes give it), as ``events[3].card``."""
    if isinstance(payload, dict) and isinstance(line, dict):
        for key in payload.keys() | line.keys():
            if key not in payload or key not in line:
                return f"{where}.{key}".lstrip(".")
            found = _difference(line[key], payload[key], f"{where}.{key}")
            if found is not None:
                return found
        return None
    if isinstance(payload, list) and isinstance(line, list) and len(line) == len(payload):
        for i, (a, b) in enumerate(zip(line, payload, strict=True)):
            found = _difference(a, b, f"{where}[{i}]")
            if found is not None:
                return found
        return None
    # equal and of one type (True is not 1), but 5 and 5.0 are one number
    same = line == payload and (type(line) is type(payload)
                                or {type(line), type(payload)} <= {int, float})
    return None if same else where.lstrip(".")


def _check_readable(number: int, data: dict[str, Any], record: Record) -> None:
    """``MismatchedExport`` naming line ``number`` if a readable field of it (any it has of
    those ``export_lines`` writes) is not what the payload holds."""
    expected = json.loads(next(export_lines([record])))
    for key, value in expected.items():
        if key == "payload" or key not in data:
            continue
        place = _difference(data[key], value, key)
        if place is not None:
            raise MismatchedExport(
                f"line {number} (record {record.version}): {place} is "
                f"{json.dumps(_at(data, place))} but the record's bytes hold "
                f"{json.dumps(_at(expected, place))} (the readable fields were changed)")


def _at(data: Any, place: str) -> Any:
    """The value at ``place`` (``events[3].card``) of ``data``; None where it is missing."""
    for part in place.replace("[", ".[").split("."):
        if part.startswith("["):
            index = int(part[1:-1])
            data = data[index] if isinstance(data, list) and index < len(data) else None
        else:
            data = data.get(part) if isinstance(data, dict) else None
    return data


def read_export(stream: IO[str]) -> list[Record]:
    """Records from an export file, decoded from their raw bytes; the readable fields a line
    has must say what the bytes hold (``MismatchedExport`` naming the line otherwise: they
    are what a person reads, so an edited one must not pass for the record).  ``ValueError``
    naming the line for a line that is not an exported record (``json.JSONDecodeError`` for
    one that is not JSON; ``CorruptRecord`` for bytes that do not decode)."""
    records = []
    for number, line in enumerate(stream, 1):
        if not line.strip():
            continue
        data = json.loads(line)
        if not isinstance(data, dict) or type(data.get("version")) is not int \
                or not isinstance(data.get("payload"), str):
            raise ValueError(f"line {number} is not a record: it needs a version (a number) "
                             "and a payload (base64)")
        try:
            payload = base64.b64decode(data["payload"], validate=True)
        except binascii.Error:
            raise ValueError(f"line {number}: the payload is not base64") from None
        record = decode(data["version"], payload)
        _check_readable(number, data, record)
        records.append(record)
    return records


# -- the commands --------------------------------------------------------------------------------

def _where(args: argparse.Namespace) -> str:
    """Where the matches are read from: ``HOKM_REDIS_URL``, else the data folder."""
    from .clitools import redact_url

    url = os.environ.get("HOKM_REDIS_URL")
    if url:
        return f"Redis at {redact_url(url)}"
    return f"the data folder {_folder(args)}"


def _folder(args: argparse.Namespace) -> str:
    """The data folder read: ``--data``, else ``HOKM_DATA`` (an empty one is unset), else the
    default."""
    from .settings import default_data_dir, env_text

    return getattr(args, "data", None) or env_text("HOKM_DATA") or default_data_dir()


def _client(args: argparse.Namespace, match_id: str | None) -> Any:
    """A client on the matches: the Redis of ``HOKM_REDIS_URL``, or a private copy of the
    embedded server's data folder (``--data``, ``HOKM_DATA`` or the default), read without its
    lock (the server may be running)."""
    import redis

    from .clitools import CliError, unreachable
    from .store import journal

    url = os.environ.get("HOKM_REDIS_URL")
    if url:
        from .store import connect

        try:  # (a URL parse() refuses is a BadStoreUrl: one line naming the variable, exit 2)
            client = connect.sync_client(connect.parse(url))  # one Redis, or a cluster
            client.ping()
        except ValueError as exc:  # what redis-py refuses in a URL that parse() let through
            raise CliError(f"HOKM_REDIS_URL is not a Redis URL ({exc})", 2) from None
        except redis.RedisError as exc:
            raise unreachable(url, exc) from None
        return client
    folder = _folder(args)
    try:
        server = journal.load(folder, match_id)
    except FileNotFoundError:
        if os.path.exists(folder) and not os.path.isdir(folder):  # ("holds no journal" misled)
            raise CliError(f"no matches in {folder}: it is a file, not a data folder", 2) from None
        raise CliError(f"no matches in {folder}: it holds no journal (the embedded server "
                       "keeps its matches there; set HOKM_REDIS_URL to read a Redis)",
                       2) from None
    except journal.JournalError as exc:
        raise CliError(str(exc)) from None
    import fakeredis

    return fakeredis.FakeRedis(server=server)


def _records(args: argparse.Namespace) -> list[Record]:
    from .clitools import CliError, open_named

    if getattr(args, "data", None) and os.environ.get("HOKM_REDIS_URL"):
        raise CliError("--data is for the embedded server's data folder: with HOKM_REDIS_URL "
                       "the matches are read from that Redis", 2)
    if getattr(args, "file", None):
        if args.match:
            raise CliError("give a match id or --file, not both (the file names its match)", 2)
        try:
            with open_named(args.file, "--file") as f:
                records = read_export(f)
            if not records:
                raise CliError(f"{args.file} holds no records (hokm export writes one a line)")
            return records
        except CorruptRecord:
            raise  # a record that does not decode: for verify, a failure like any other
        except json.JSONDecodeError:
            raise CliError(f"{args.file} is not a file written by hokm export (a line of it "
                           "is not JSON)") from None
        except (ValueError, KeyError, TypeError) as exc:
            raise CliError(f"{args.file} is not a file written by hokm export ({exc})") from None
    if not args.match:
        raise CliError(_no_match_given(args), 2)
    from .store.redis_streams import RedisStore

    records = RedisStore(_client(args, args.match)).read(args.match)
    if not records:
        raise CliError(f"no match {args.match!r} in {_where(args)}", 2)
    return records


def _no_match_given(args: argparse.Namespace) -> str:
    from .store.journal import stored_matches

    from .clitools import CliError

    try:
        ids = stored_matches(_client(args, None))
    except CliError as error:
        return f"give a match id ({error.message})"
    if not ids:
        return f"give a match id (there is none in {_where(args)})"
    shown = ", ".join(ids[:8]) + (f" and {len(ids) - 8} more" if len(ids) > 8 else "")
    return f"give a match id ({_where(args)} holds {shown})"


def _list_matches(args: argparse.Namespace) -> int:
    """``hokm replay`` without a match: every match there, one a line with its number of
    records (the README's "without MATCH: the matches there"; the error of ``export`` and
    ``verify`` named eight of them only)."""
    from .store.journal import stored_matches
    from .store.redis_streams import RedisStore

    client = _client(args, None)
    ids = stored_matches(client)
    store = RedisStore(client)
    print(f"{len(ids)} match{'es' if len(ids) != 1 else ''} in {_where(args)}"
          + (": hokm replay MATCH prints one" if ids else ""))
    for match_id in ids:
        count = store.version(match_id)
        print(f"{match_id}  {count} record{'s' if count != 1 else ''}")
    return 0


def _replay(args: argparse.Namespace) -> int:
    from .clitools import CliError

    colour = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    if not args.match and not getattr(args, "file", None):
        return _list_matches(args)
    records = _records(args)
    whole_chain(records, f"match {args.match}" if args.match else args.file)
    players = records[0].events[0].rules.players if records and isinstance(
        records[0].events[0], MatchCreated) else 4
    if args.seat is not None and args.seat >= players:
        raise CliError(f"--seat {args.seat}: this match has seats 0 to {players - 1}", 2)
    last = records[-1].version
    if args.step is not None and args.step > last:
        raise CliError(f"--step {args.step}: this match has records 1 to {last} (0: before "
                       "the first)", 2)
    for line in describe(records, args.seat, args.step, colour):
        print(line)
    return 0


def _export(args: argparse.Namespace) -> int:
    from .clitools import CliError, open_named

    records = _records(args)  # before creating the output file: no empty file on an error
    if not args.unfinished and not is_over(records):
        raise CliError(f"match {args.match} is not over: its log holds every hand and the "
                       "undealt deck; --unfinished exports it all the same", 2)
    out: IO[str] = open_named(args.output, "-o", write=True) if args.output else sys.stdout
    try:
        for line in export_lines(records):
            out.write(line + "\n")
    finally:
        if out is not sys.stdout:
            out.close()
    return 0


def _verify(args: argparse.Namespace) -> int:
    try:
        records = _records(args)
    except CorruptRecord as exc:
        print(f"FAIL {exc}")
        return 1
    problems = check(records)
    for problem in problems:
        print(f"FAIL {problem}")
    if not problems:
        over = any(isinstance(e, SecretRevealed) for r in records for e in r.events)
        print(f"OK: {len(records)} records; chain intact; every command legal"
              + ("; every deal matches the revealed secret" if over else
                 "; deals not checked yet (the secret is revealed when the match ends)"))
    return 1 if problems else 0


_DATA_HELP = ("the embedded server's data folder, read when HOKM_REDIS_URL is not set "
              "(default: HOKM_DATA, else $XDG_DATA_HOME/hokm or ~/.local/share/hokm)")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from .clitools import match_arg, non_negative_int, seat

    p = sub.add_parser("replay", help="print a match move by move",
                       description="Print a match move by move (every hand once it is over; "
                                   "--seat: only what that seat saw). Without a match id, "
                                   "list the matches there.")
    p.add_argument("match", nargs="?", default=None, type=match_arg, help="the match id")
    p.add_argument("--seat", type=seat, default=None, help="follow the match as this seat")
    p.add_argument("--step", type=non_negative_int, default=None,
                   help="stop after this record")
    p.add_argument("--file", help="read an export file instead of the store")
    p.add_argument("--data", metavar="DIR", help=_DATA_HELP)
    p.set_defaults(func=_replay)
    e = sub.add_parser("export", help="write a match's log as JSON lines",
                       description="Write a finished match's log as JSON lines, one record a "
                                   "line, for an audit or another server.")
    e.add_argument("match", nargs="?", default="", type=match_arg, help="the match id")
    e.add_argument("-o", "--output", help="write to this file instead of stdout")
    e.add_argument("--data", metavar="DIR", help=_DATA_HELP)
    e.add_argument("--file", help=argparse.SUPPRESS)
    e.add_argument("--unfinished", action="store_true",
                   help="export a match still in play (its log holds every hand: an "
                        "operator's tool, never to be shown to a player)")
    e.set_defaults(func=_export)
    v = sub.add_parser("verify", help="check a match's chain, rules and deals",
                       description="Check a match's record: its hash chain, every move "
                                   "against the rules, and the deals against the deck secret.")
    v.add_argument("match", nargs="?", default="", type=match_arg, help="the match id")
    v.add_argument("--file", help="read an export file instead of the store")
    v.add_argument("--data", metavar="DIR", help=_DATA_HELP)
    v.set_defaults(func=_verify)


__all__ = ["SUIT_SYMBOL", "Problem", "card_text", "check", "command_for", "describe",
           "export_lines", "is_over", "read_export", "register", "whole_chain"]
