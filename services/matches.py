"""The match service: every change to a match goes through ``MatchService.handle``.

load (cached state, refreshed from the stream when needed) -> ``engine.decide`` -> append one
record at the next version.  If the append meets a conflict (another gateway or a bot worker
appended first) the service reloads and decides again, a bounded number of times; a command that is
no longer legal after the reload is refused with ``stale_version``.  After every append the service
performs the system steps the match needs to go on by itself (the ace draw, the next deal, the final
reveal of the deck secret) and schedules the bot whose turn it is.

Idempotency: a command may carry a client id.  Ids are stored in the records; the cache keeps an
index of them, so a retried command is answered with its original version and state instead of
being applied twice (also across gateways: a retry that loses the race reloads and finds its id).

Version policy (api.md leaves the choice): a command that names a version other than the current
one is refused with ``stale_version``; a command without a version is applied if legal.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine import (
    Command, CreateMatch, DealRound, DrawAces, Event, LeaveSeat, RevealSecret, Rules, State,
    TakeSeat, commitment_of, decide, derive_deck, evolve, pending_system_action,
)
from engine.decide import check_deck
from engine.errors import HokmError, InvalidCommand, MatchFull, MatchOver, SeatTaken
from engine.fairness import DRAW_LABEL, round_label
from engine.state import CHOOSING_TRUMP, MATCH_OVER, PLAYING

from .bots import LEVELS
from .errors import BadToken, NotFound, RateLimited, StaleVersion
from .quotas import BOT_SLOT_S, BOTS_ONLY, Quotas
from .store.codec import CorruptRecord, apply_payloads, decode_light, digest_of
from .store.port import Conflict, EventStore, Record, StoreUnavailable

BOT_LEVELS = LEVELS
"""``bot:<level>`` seats: exactly the levels of the API (``services.bots.LEVELS``)."""
BOT_NAMES = ("Dara", "Roxana", "Kian", "Shirin")
MAX_ATTEMPTS = 8
CACHE_SIZE = 10_000


@dataclass(slots=True)
class Loaded:
    """A match's state at ``version``, the digest of its last record, and its command ids."""

    state: State
    version: int
    head: bytes
    commands: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Outcome:
    version: int
    """The version the command produced (or, for a retried command id, produced originally)."""
    state: State
    duplicate: bool = False
    latest: Loaded | None = None
    """The match after the system steps that followed (None for a duplicate)."""


class BotScheduler(Protocol):
    def schedule(self, match_id: str, seat: int, version: int, *,
                 bots_only: bool = False) -> None:
        """Make sure the bot at ``seat`` plays the move due at ``version`` (idempotent);
        ``bots_only``: nobody but bots sits at the table (its turns wait behind tables with
        humans)."""
        ...


def bots_only(state: State) -> bool:
    """Whether every seat is taken by a bot (nobody is waiting for this match's moves)."""
    return all(s is not None and s.bot is not None for s in state.match.seats)


def command_key(player: str, client_id: str) -> str:
    """The id stored in the record for a client's command id: 48 bits of SHA-256 of the player
    and the client's id, 8 characters instead of up to 81 (ids are kept in every record; players
    cannot collide with each other's ids, and among the few hundred commands of one match a
    chance collision is about one in a billion)."""
    digest = hashlib.sha256(f"{player}:{client_id}".encode()).digest()[:6]
    return base64.urlsafe_b64encode(digest).decode()


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def fold(records: Sequence[Record], loaded: Loaded | None = None) -> Loaded:
    """Apply records (which must follow ``loaded``) and return the new ``Loaded``."""
    if loaded is None:
        loaded = Loaded(State(), 0, b"")
    state, version, head, commands = loaded.state, loaded.version, loaded.head, loaded.commands
    for record in records:
        if record.version != version + 1 or record.prev != head:
            raise CorruptLog(f"record {record.version} does not follow record {version}")
        for event in record.events:
            state = evolve(state, event)
        version, head = record.version, record.digest
        if record.command_id is not None:
            commands[record.command_id] = version
    return Loaded(state, version, head, commands)


def fold_raw(entries: Sequence[tuple[int, bytes]], loaded: Loaded | None = None) -> Loaded:
    """Like ``fold`` but from encoded records: the fast path of every load.  It checks that
    versions are contiguous and that the first new record links to ``loaded``'s last one; the
    whole chain is checked by ``hokm verify`` (services/audit.py)."""
    if loaded is None:
        loaded = Loaded(State(), 0, b"")
    if not entries:
        return loaded
    if decode_light(entries[0][0], entries[0][1])[0] != loaded.head:
        raise CorruptLog(f"record {entries[0][0]} does not link to record {loaded.version}")
    try:
        state = apply_payloads(entries, loaded.state, loaded.version, evolve, loaded.commands)
    except CorruptRecord as exc:
        raise CorruptLog(str(exc)) from exc
    return Loaded(state, entries[-1][0], digest_of(entries[-1][1]), loaded.commands)


class CorruptLog(RuntimeError):
    """The stream is not a chain of records (an edited or missing entry): see ``hokm verify``."""


class MatchService:
    """Command handling, lobby and reading for matches kept in an ``EventStore``."""

    def __init__(
        self,
        store: EventStore,
        *,
        scheduler: BotScheduler | None = None,
        allow_stacked: bool = False,
        clock: Callable[[], float] = time.time,
        quotas: Quotas | None = None,
    ) -> None:
        self.store = store
        self.scheduler = scheduler
        self.allow_stacked = allow_stacked
        self.clock = clock
        self.quotas = quotas or Quotas()
        self._cache: OrderedDict[str, Loaded] = OrderedDict()
        self._lock = threading.Lock()

    # -- the cache ---------------------------------------------------------------------------

    def cached(self, match_id: str) -> Loaded | None:
        """The cached match, if any, without any I/O (it may be behind the stream).  Used with
        ``remember`` by the gateway, whose hub folds every record it sees."""
        with self._lock:
            loaded = self._cache.get(match_id)
            if loaded is not None:
                self._cache.move_to_end(match_id)
            return loaded

    def remember(self, match_id: str, loaded: Loaded) -> Loaded:
        """Keep ``loaded`` unless the cache already holds a newer version; return the newest."""
        with self._lock:
            current = self._cache.get(match_id)
            if current is not None and current.version >= loaded.version:
                return current
            self._cache[match_id] = loaded
            self._cache.move_to_end(match_id)
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
            return loaded

    def forget(self, match_id: str) -> None:
        with self._lock:
            self._cache.pop(match_id, None)

    def forget_all(self) -> None:
        with self._lock:
            self._cache.clear()

    def _refresh(self, match_id: str, loaded: Loaded | None) -> Loaded:
        after = loaded.version if loaded is not None else 0
        try:
            records = self.store.read_raw(match_id, after)
        except StoreUnavailable:
            self.forget_all()
            raise
        if not records:
            if loaded is None or loaded.version == 0:
                if loaded is not None:
                    return loaded
                raise NotFound("no such match")
            return loaded
        try:
            new = fold_raw(records, loaded)
        except CorruptLog:
            if loaded is None:
                raise
            new = fold_raw(self.store.read_raw(match_id))  # our cache went wrong: start over
        return self.remember(match_id, new)

    def load(self, match_id: str, *, fresh: bool = True) -> Loaded:
        """The match now (``fresh``: checked against the stream, one round trip)."""
        loaded = self.cached(match_id)
        if loaded is None or fresh:
            loaded = self._refresh(match_id, loaded)
        return loaded

    def observe(self, match_id: str, records: Sequence[Record]) -> Loaded:
        """Apply records read elsewhere (the gateway's tail) to the cache; returns the newest."""
        loaded = self.cached(match_id)
        if loaded is None or not records or records[0].version != loaded.version + 1:
            return self._refresh(match_id, loaded)
        return self.remember(match_id, fold(records, loaded))

    # -- commands ----------------------------------------------------------------------------

    def handle(
        self,
        match_id: str,
        actor: int | None,
        command: Command,
        *,
        version: int | None = None,
        command_id: str | None = None,
    ) -> Outcome:
        """Decide and append ``command`` by ``actor`` (a seat, or None for the system)."""
        loaded = self.cached(match_id)
        if loaded is None:
            if isinstance(command, CreateMatch):
                loaded = Loaded(State(), 0, b"")  # a new match: Conflict if the id is taken
            else:
                loaded = self._refresh(match_id, None)
        refreshed = conflicted = False
        for _ in range(MAX_ATTEMPTS):
            if command_id is not None and command_id in loaded.commands:
                return self._original(match_id, loaded.commands[command_id])
            try:
                if version is not None and version != loaded.version:
                    raise StaleVersion(f"the match is at version {loaded.version}, not {version}")
                events = decide(loaded.state, actor, command)
            except HokmError as refusal:
                if not refreshed:  # perhaps only our cache is behind: look once more
                    loaded, refreshed = self._refresh(match_id, loaded), True
                    continue
                if conflicted and not isinstance(refusal, StaleVersion):
                    raise StaleVersion(
                        f"the match moved on before this command could apply ({refusal.code})"
                    ) from refusal
                raise
            try:
                loaded = self._append(match_id, loaded, events, actor, command_id)
            except Conflict:
                loaded, refreshed, conflicted = self._refresh(match_id, loaded), True, True
                continue
            produced = loaded
            latest = self.advance(match_id, loaded)
            return Outcome(produced.version, produced.state, False, latest)
        raise StaleVersion("the match is too busy; try again")

    def _append(self, match_id: str, loaded: Loaded, events: Sequence[Event],
                actor: int | None, command_id: str | None) -> Loaded:
        record = Record(loaded.version + 1, tuple(events), actor, command_id,
                        int(self.clock() * 1000), loaded.head)
        try:
            sealed = self.store.append(match_id, record)
        except StoreUnavailable:
            # Redis may have restarted and lost writes we cached: trust only what we read next.
            self.forget_all()
            raise
        state = loaded.state
        for event in events:
            state = evolve(state, event)
        if command_id is not None:
            loaded.commands[command_id] = record.version
        if actor is None:  # a system step: the match lives on (or, once over, is archived)
            self._lifetime(match_id, state)
        return self.remember(match_id, Loaded(state, record.version, sealed.digest,
                                               loaded.commands))

    def _lifetime(self, match_id: str, state: State) -> None:
        """Give the match's keys their lifetime after a system step (``Quotas``): the idle
        lifetime while it is played, the archive's once it is over (and its bots-only slot,
        if it held one, is released)."""
        quotas = self.quotas
        if state.phase == MATCH_OVER:
            if quotas.finished_ttl_s > 0 or quotas.idle_ttl_s > 0:
                self.store.keep(match_id, quotas.finished_ttl_s)
            owner = self.store.get_meta_field(match_id, "meta", "owner")
            if owner:
                self.store.release_slot(BOTS_ONLY, match_id, owner)
        elif quotas.idle_ttl_s > 0:
            self.store.keep(match_id, quotas.idle_ttl_s)

    def _original(self, match_id: str, version: int) -> Outcome:
        return Outcome(version, self.state_at(match_id, version), True, None)

    def advance(self, match_id: str, loaded: Loaded) -> Loaded:
        """Perform the system steps the match is waiting for, then schedule a bot's turn."""
        for _ in range(MAX_ATTEMPTS * 2):
            action = pending_system_action(loaded.state)
            if action is None:
                break
            command = self._system_command(match_id, loaded.state, action)
            try:
                events = decide(loaded.state, None, command)
                loaded = self._append(match_id, loaded, events, None, None)
            except Conflict:
                loaded = self._refresh(match_id, loaded)
        self.schedule_bot(match_id, loaded)
        return loaded

    def _system_command(self, match_id: str, state: State, action: str) -> Command:
        secret = self.store.get_meta_field(match_id, "meta", "secret")
        if secret is None:
            raise NotFound("the match's secret is missing")
        if action == "draw":
            return DrawAces(derive_deck(secret, DRAW_LABEL))
        if action == "deal":
            n = state.deal.round_no + 1
            decks = json.loads(self.store.get_meta_field(match_id, "meta", "decks") or "[]")
            if n <= len(decks):
                return DealRound(tuple(decks[n - 1]), stacked=True)
            return DealRound(derive_deck(secret, round_label(n)))
        return RevealSecret(secret)

    def next_actor(self, state: State) -> int | None:
        """The seat whose decision the match waits for, if any."""
        if state.phase in (CHOOSING_TRUMP, PLAYING):
            return state.turn
        return None

    def schedule_bot(self, match_id: str, loaded: Loaded) -> None:
        seat = self.next_actor(loaded.state)
        if seat is None or self.scheduler is None:
            return
        occupant = loaded.state.match.seats[seat]
        if occupant is not None and occupant.bot is not None:
            self.scheduler.schedule(match_id, seat, loaded.version,
                                    bots_only=bots_only(loaded.state))

    # -- lobby -------------------------------------------------------------------------------

    def create(
        self,
        *,
        seats: Sequence[str] | None = None,
        rules: Any = None,
        name: str = "Player",
        players: int = 4,
        first_hakem: int | None = None,
        decks: Any = None,
        disconnect_timeout: float = 60,
        owner: str | None = None,
    ) -> dict[str, Any]:
        """Create a match; the caller takes the first human seat (with bots only, the caller
        gets no seat and watches).  Returns match id, seat, token (secret, shown once) and
        player id.  ``owner`` (the gateway's digest of the client's address) is held to the
        ``Quotas``: ``rate_limited`` beyond them, with nothing stored."""
        parsed = Rules.from_dict(rules if rules is not None else {"players": players})
        if players != parsed.players:
            raise InvalidCommand("players and rules.players disagree")
        layout = list(seats) if seats is not None else ["human"] * parsed.players
        if len(layout) != parsed.players:
            raise InvalidCommand(f"seats must list {parsed.players} seats")
        levels: list[str | None] = []
        for kind in layout:
            if kind == "human":
                levels.append(None)
            elif isinstance(kind, str) and kind.startswith("bot:") and kind[4:] in BOT_LEVELS:
                levels.append(kind[4:])
            else:
                raise InvalidCommand(f"a seat is \"human\" or \"bot:<level>\" with a level of "
                                     f"{', '.join(BOT_LEVELS)}")
        if (first_hakem is not None or decks is not None) and not self.allow_stacked:
            raise InvalidCommand("stacked decks are disabled on this server")
        deck_list: list[list[str]] = []
        if decks is not None:
            if not isinstance(decks, list) or len(decks) > 100:
                raise InvalidCommand("decks is a list of decks")
            for deck in decks:
                check_deck(deck)
                deck_list.append(list(deck))
        if not isinstance(disconnect_timeout, (int, float)) or not 0 <= disconnect_timeout <= 3600:
            raise InvalidCommand("disconnect_timeout is 0 to 3600 seconds")
        match_id = secrets.token_hex(8)
        if owner is not None:
            self._admit(match_id, owner, bots=None not in levels)
        secret = secrets.token_hex(32)
        meta = {
            "secret": secret,
            "decks": json.dumps(deck_list),
            "disconnect_timeout": str(disconnect_timeout),
            "created_ms": str(int(self.clock() * 1000)),
        }
        if owner is not None:
            meta["owner"] = owner
        self.store.put_meta(match_id, "meta", meta)
        self.handle(match_id, None, CreateMatch(match_id, parsed, commitment_of(secret),
                                                first_hakem))
        for seat, level in enumerate(levels):
            if level is not None:
                self.handle(match_id, None, TakeSeat(seat, BOT_NAMES[seat % 4],
                                                     f"bot-{seat}", level))
        if None not in levels:  # bots only: the creator watches (and may share the link)
            self.advance(match_id, self.load(match_id))
            return {"match_id": match_id, "seat": None, "token": None, "player": None}
        creator = levels.index(None)
        joined = self.join(match_id, name, creator)
        return {"match_id": match_id, **joined}

    def _admit(self, match_id: str, owner: str, *, bots: bool) -> None:
        """Hold a new match of ``owner`` to the quotas (``rate_limited`` beyond them)."""
        quotas, now = self.quotas, self.clock()
        if quotas.creates_per_window > 0 and self.store.hit(
                "create", owner, quotas.create_window_s, now) > quotas.creates_per_window:
            minutes = quotas.create_window_s / 60
            raise RateLimited(f"at most {quotas.creates_per_window} new matches per "
                              f"{minutes:g} minutes from one address; try again later")
        if bots and (quotas.bot_matches > 0 or quotas.bot_matches_per_owner > 0) and \
                not self.store.take_slot(BOTS_ONLY, match_id, owner,
                                         (quotas.bot_matches, quotas.bot_matches_per_owner),
                                         now + BOT_SLOT_S, now):
            raise RateLimited("too many bots-only matches are playing now; watch one of "
                              "them to its end, or take a seat in yours")

    def join(self, match_id: str, name: str, seat: int | None = None) -> dict[str, Any]:
        """Take an open seat (the first one if ``seat`` is None)."""
        loaded = self.load(match_id)
        state = loaded.state
        if state.phase == MATCH_OVER:
            raise MatchOver("the match is over")
        open_seats = [i for i, s in enumerate(state.match.seats) if s is None]
        if seat is None:
            if not open_seats:
                raise MatchFull("every seat is taken")
            seat = open_seats[0]
        elif type(seat) is not int or not 0 <= seat < state.rules.players:
            raise InvalidCommand("no such seat")
        elif seat not in open_seats:
            raise SeatTaken("that seat is taken")
        player = secrets.token_hex(8)
        token = secrets.token_urlsafe(24)
        digest = token_hash(token)
        self.store.put_meta(match_id, "tokens", {digest: player})
        try:
            self.handle(match_id, None, TakeSeat(seat, name, player))
        except HokmError:
            self.store.delete_meta_field(match_id, "tokens", digest)
            raise
        return {"seat": self.seat_of_player(self.load(match_id, fresh=False).state, player),
                "token": token, "player": player}

    @staticmethod
    def seat_of_player(state: State, player: str) -> int | None:
        for i, occupant in enumerate(state.match.seats):
            if occupant is not None and occupant.player == player:
                return i
        return None

    def authenticate(self, match_id: str, token: str | None) -> tuple[int, str, Loaded]:
        """The seat, player id and match of a seat token; ``bad_token`` otherwise."""
        if not token or len(token) > 128:
            raise BadToken("a seat token is required")
        player = self.store.get_meta_field(match_id, "tokens", token_hash(token))
        if player is None:
            self.load(match_id, fresh=False)  # not_found for a match that does not exist
            raise BadToken("this token does not belong to a seat of this match")
        loaded = self.load(match_id, fresh=False)
        seat = self.seat_of_player(loaded.state, player)
        if seat is None:
            loaded = self.load(match_id)
            seat = self.seat_of_player(loaded.state, player)
            if seat is None:
                raise BadToken("this token's seat was given up")
        return seat, player, loaded

    def leave(self, match_id: str, token: str, replace_with: str | None = None) -> None:
        """Give up a seat: it becomes empty, or a bot of ``replace_with`` (``bot:<level>``)."""
        seat, _, _ = self.authenticate(match_id, token)
        level = None
        if replace_with is not None:
            if not (isinstance(replace_with, str) and replace_with.startswith("bot:")
                    and replace_with[4:] in BOT_LEVELS):
                raise InvalidCommand(f"replace_with is \"bot:<level>\" with a level of "
                                     f"{', '.join(BOT_LEVELS)}")
            level = replace_with[4:]
        self.handle(match_id, None, LeaveSeat(seat))
        self.store.delete_meta_field(match_id, "tokens", token_hash(token))
        if level is not None:
            self.handle(match_id, None, TakeSeat(seat, BOT_NAMES[seat % 4],
                                                 f"bot-{seat}-{secrets.token_hex(4)}", level))

    def give_to_bot(self, match_id: str, token: str, seat: int, level: str) -> None:
        """A seated player hands an empty seat to a bot."""
        self.authenticate(match_id, token)
        if level not in BOT_LEVELS:
            raise InvalidCommand(f"level is one of {', '.join(BOT_LEVELS)}")
        self.handle(match_id, None, TakeSeat(seat, BOT_NAMES[seat % 4],
                                             f"bot-{seat}-{secrets.token_hex(4)}", level))

    # -- reading -----------------------------------------------------------------------------

    def state_at(self, match_id: str, step: int) -> State:
        """The state after record ``step`` (0: before anything)."""
        return fold_raw(self.store.read_raw(match_id, 0, step)).state if step > 0 else State()

    def meta(self, match_id: str) -> dict[str, str]:
        return self.store.get_meta(match_id, "meta")
