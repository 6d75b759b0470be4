"""The lobby: creating a match, taking and giving up seats, and seat tokens.

``Lobby`` is a part of ``MatchService`` (a mixin): every change it makes to a match is a command
through the service's ``handle``, so it takes the same pipeline as any other.  Tokens are shown
once, at creation or join; the store keeps only their SHA-256 (``token_hash``).  A token belongs
to a *player*, whose seat is looked up in the state each time (the ace draw may move players).
"""

from __future__ import annotations

import math
import time

import base64
import hashlib
import hmac
import json
import re
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engine import CreateMatch, LeaveSeat, Rules, State, TakeSeat, commitment_of
from engine.names import reads_as
from engine.decide import check_deck
from engine.errors import HokmError, InvalidCommand, MatchFull, MatchOver, SeatTaken, WrongPhase
from engine.events import SeatTaken as SeatTakenEvent
from engine.state import MATCH_OVER

from .bots import LEVELS
from .cache import Lru
from .errors import BadToken, MatchNotOver, NotFound, SeatLeft, StaleVersion
from .pipeline import Loaded
from .quotas import (
    BOT_SLOT_RETRY_S, BOT_SLOT_S, BOTS_ONLY, UNATTENDED, Quotas, RetryLater, window_left,
)
from .store.port import EventStore
from .turns import TURN_TIMEOUT_MIN_S, TURN_TIMEOUT_S

BOT_LEVELS = LEVELS
"""``bot:<level>`` seats: exactly the levels of the API (``services.bots.LEVELS``)."""
BOT_NAMES = ("Dara", "Roxana", "Kian", "Shirin")
BOT_NAMES_FA = {"Dara": "دارا", "Roxana": "رکسانا", "Kian": "کیان", "Shirin": "شیرین"}
"""The bots' names as the Persian pages write them (``bot.<name>`` in i18n/fa.json; a test
holds the two together).  A player named "دارا" reads, to whoever reads the table in Persian,
as the bot Dara: ``reads_like_bot``."""


def reads_like_bot(name: str, bot: str) -> bool:
    """Whether a player's ``name`` reads as the bot name ``bot`` in any script the pages write
    it in (in any case, in fullwidth letters...: ``reads_as``)."""
    return reads_as(name) in (reads_as(bot), reads_as(BOT_NAMES_FA.get(bot, bot)))


def bot_name(seat: int, taken: set[str]) -> str:
    """A bot's name at ``seat``: the seat's own in ``BOT_NAMES`` unless a player at the table
    has it (``taken``, as it reads, in Latin or Persian letters: ``reads_like_bot``), then
    the first of them nobody has (four names, at most three others)."""
    return next((n for n in (BOT_NAMES[seat % 4], *BOT_NAMES)
                 if not any(reads_like_bot(t, n) for t in taken)), BOT_NAMES[seat % 4])


def bots_renamed(state: State, seat: int, name: str) -> tuple[tuple[int, str], ...]:
    """The bots of ``state`` to show under another name when a player takes ``seat`` as
    ``name`` (``TakeSeat.renames``): each bot whose name reads as it (``reads_like_bot``) takes a
    ``bot_name`` nobody else at the table has.  The player keeps the name they typed: it is
    theirs (in every match they play, on their screen and their partner's), while a bot's
    is only the table's label for it."""
    if not isinstance(name, str):
        return ()  # refused by the engine (``check_name``)
    seats = state.match.seats
    renames: list[tuple[int, str]] = []
    for i, bot in enumerate(seats):
        if i != seat and bot is not None and bot.bot is not None \
                and reads_like_bot(name, bot.name):
            taken = {o.name for j, o in enumerate(seats) if j not in (i, seat) and o is not None}
            taken |= {name, *(n for _, n in renames)}
            renames.append((i, bot_name(i, taken)))
    return tuple(renames)


def creator_named(levels: Sequence[str | None], name: str) -> list[str | None]:
    """``names`` by seat for a create: the creator's at the first human seat (where it will
    sit: its bots are named otherwise), none for the others."""
    first = levels.index(None) if None in levels else None
    return [name if seat == first else None for seat in range(len(levels))]


JOIN_TRIES = 8
"""How many open seats a join without ``seat`` tries when others take them first (twice the
largest table's seats)."""


def command_key(player: str, client_id: str) -> str:
    """The id stored in the record for a client's command id: 48 bits of SHA-256 of the player
    and the client's id, 8 characters instead of up to 81 (ids are kept in every record; players
    cannot collide with each other's ids, and among the few hundred commands of one match a
    chance collision is about one in a billion)."""
    digest = hashlib.sha256(f"{player}:{client_id}".encode()).digest()[:6]
    return base64.urlsafe_b64encode(digest).decode()


def stand_in_key(version: int) -> str:
    """The command id of record ``version`` when a stand-in made it for an away human (the
    record says so to the player when they are back: ``stand_in`` in ``/events`` and the
    socket's ``missed`` records).  ``~`` is in no client's id (``command_key`` is base64url),
    so a client cannot pass a move of its own off as a stand-in's."""
    return f"~{version}"


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


REQUEST_KEY = re.compile(r"[A-Za-z0-9_-]{16,64}")
"""A client's request key of a create or a join (api.md): random, made once per request and
sent again with each of its retries."""
REQUEST_TTL_S = 600.0
"""How long a create's or a join's answer is kept for a retry under its request key."""
TOKEN_BYTES = 24
"""A seat token's random bytes (32 characters of base64url)."""


def check_request_key(key: object) -> str | None:
    """``key`` if it is a request key (or None: no key); ``bad_request`` otherwise (the message
    never repeats the key: it is as good as a token for its request's few minutes)."""
    if key is None or (isinstance(key, str) and REQUEST_KEY.fullmatch(key)):
        return key
    raise InvalidCommand("id is a request key: 16 to 64 characters of A-Z, a-z, 0-9, '-' and "
                         "'_', made at random once per create or join and sent again with "
                         "each retry of it")


def request_digest(kind: str, key: str) -> str:
    """The name a request is remembered under: a digest of its key, so the store never holds
    the key (which unseals the token, ``seal_token``).  ``kind`` is the key's namespace:
    ``create`` (the create's match), ``creator`` (the creator's seat in it) and ``join``, so a
    create's key sent in a join is a new join, never the creator's seat back."""
    return hashlib.sha256(f"{kind}:{key}".encode()).hexdigest()[:32]


def body_digest(body: dict[str, Any]) -> str:
    """A digest of what a keyed request asks (its checked fields, in a canonical form, so two
    spellings of one request agree), kept beside its answer: a retry must ask the same
    (``check_same_body``)."""
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:16]


def check_same_body(kept: str | None, asked: str) -> None:
    """``bad_request`` when a request key comes back with another body than its first try's
    (``kept``; None: kept by a server before bodies were, taken as the same), as a command id
    sent again with another command: the first answer is not this request's, and nothing is
    changed."""
    if kept is not None and kept != asked:
        raise InvalidCommand("this request key was used for another request; send a new "
                             "request with a new key")


def _pad(key: str, match_id: str) -> bytes:
    return hmac.new(key.encode(), f"hokm seat token:{match_id}".encode(),
                    hashlib.sha256).digest()[:TOKEN_BYTES]


def seal_token(key: str, match_id: str, token: str) -> str:
    """``token`` (one of ``new_token``'s) as a join keeps it for its retries: XORed with a pad
    only the request ``key`` gives (HMAC-SHA-256 of the key and the match), so what the store
    keeps is worth nothing without the key, which it never holds (``request_digest``)."""
    raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    sealed = bytes(a ^ b for a, b in zip(raw, _pad(key, match_id), strict=True))
    return base64.urlsafe_b64encode(sealed).decode()


def unseal_token(key: str, match_id: str, sealed: str) -> str:
    """The token ``seal_token`` sealed."""
    raw = bytes(a ^ b for a, b in zip(base64.urlsafe_b64decode(sealed), _pad(key, match_id),
                                      strict=True))
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


MAX_TOKEN = 128
"""No token this server makes is longer (``new_token``: 32 characters); a longer one is
``bad_token`` before anything is kept for it (not hashed: it could be 16 KiB)."""


def new_token() -> str:
    """A fresh seat token (shown once; the store keeps its ``token_hash``)."""
    return secrets.token_urlsafe(TOKEN_BYTES)


DISCONNECT_TIMEOUT_S = 60.0
"""A room's ``disconnect_timeout`` unless it says otherwise (api.md, ``POST /api/matches``)."""


@dataclass(frozen=True, slots=True)
class Room:
    """A room's settings (api.md, ``POST /api/matches``), kept in its meta and by its
    rematches: seconds, 0 meaning never."""

    disconnect_timeout: float = DISCONNECT_TIMEOUT_S
    turn_timeout: float = TURN_TIMEOUT_S

REMATCH_ASKS = 10
REMATCH_ASK_WINDOW_S = 600.0
"""A player of a finished match may ask for its rematch (each ask a new token for its seat
there: a second click, another tab) ``REMATCH_ASKS`` times in a window of this many seconds."""
REMATCH_WAIT_S = 5.0
REMATCH_HOLD_S = 300.0
"""How long a rematch's human seats are held for the finished match's players, each seat for
the player who held it at the end (by the player id it has there): the summary names the
rematch to anyone, and a stranger could otherwise take a seat promised to a player (a QA
finding).  After that the seats still open are anyone's, so a player who never comes back does
not keep the table waiting (the seated players may also give such a seat to a bot at once)."""
"""How long a player asking for a rematch another player is creating at that moment waits for
it to exist."""


class Lobby:
    """Match creation and seats, on top of the service's ``handle`` / ``advance`` / ``load``."""

    store: EventStore
    quotas: Quotas
    rooms: Lru[Room]
    clock: Callable[[], float]
    allow_stacked: bool

    # provided by MatchService
    def handle(self, match_id: str, actor: int | None, command: Any, *,
               version: int | None = None, command_id: str | None = None,
               player: str | None = None) -> Any:
        raise NotImplementedError

    def advance(self, match_id: str, loaded: Loaded) -> Loaded:
        raise NotImplementedError

    def load(self, match_id: str, *, fresh: bool = True) -> Loaded:
        raise NotImplementedError

    def _move_on(self, match_id: str, loaded: Loaded) -> None:
        raise NotImplementedError


    def create(
        self,
        *,
        seats: Sequence[str] | None = None,
        rules: Any = None,
        name: str = "Player",
        players: int | None = None,
        first_hakem: int | None = None,
        decks: Any = None,
        disconnect_timeout: float = DISCONNECT_TIMEOUT_S,
        turn_timeout: float = TURN_TIMEOUT_S,
        owner: str | None = None,
        key: str | None = None,
    ) -> dict[str, Any]:
        """Create a match; the caller takes the first human seat (with bots only, the caller
        gets no seat and watches).  ``players`` (2, 3 or 4) may be given here, in ``rules`` or
        both (then they must agree; neither: 4); ``rules`` are validated by ``Rules.from_dict``,
        which refuses a house rule the variant does not play.  Returns match id, seat, token
        (secret, shown once) and player id.  ``owner`` (the gateway's digest of the client's
        address) is held to the ``Quotas``: ``rate_limited`` beyond them, with nothing
        stored.  ``key`` (a client's request key, ``check_request_key``) makes the create safe to
        retry: a retry with the same key within ``REQUEST_TTL_S`` answers the same match, seat,
        player and token, finishing what the first try left undone, and stores nothing new
        (``_create_once``)."""
        if isinstance(rules, dict) and players is not None and "players" not in rules:
            rules = {**rules, "players": players}
        parsed = Rules.from_dict(rules if rules is not None else {"players": players or 4})
        if players is not None and players != parsed.players:
            raise InvalidCommand("players and rules.players disagree")
        if first_hakem is not None and (type(first_hakem) is not int
                                        or not 0 <= first_hakem < parsed.players):
            raise InvalidCommand("first_hakem is a seat number")
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
        for setting, value in (("disconnect_timeout", disconnect_timeout),
                               ("turn_timeout", turn_timeout)):
            if not isinstance(value, (int, float)) or not 0 <= value <= 3600:
                raise InvalidCommand(f"{setting} is 0 to 3600 seconds")
        if 0 < turn_timeout < TURN_TIMEOUT_MIN_S:
            raise InvalidCommand(f"turn_timeout is 0 (no limit) or {TURN_TIMEOUT_MIN_S:g} to "
                                 f"3600 seconds")
        check_request_key(key)
        room = Room(disconnect_timeout, turn_timeout)
        if key is not None:
            asked = body_digest({
                "rules": parsed.to_dict(), "seats": levels, "decks": deck_list,
                "first_hakem": first_hakem, "name": name,
                "room": [float(disconnect_timeout), float(turn_timeout)]})
            return self._create_once(key, parsed, levels, deck_list, room, owner, first_hakem,
                                     name, asked)
        match_id = secrets.token_hex(8)
        self._open(match_id, parsed, levels, deck_list, room, owner, first_hakem,
                   creator_named(levels, name))
        return self._seat_creator(match_id, levels, name, None)

    def _seat_creator(self, match_id: str, levels: Sequence[str | None], name: str,
                      key: str | None, creator: str | None = None) -> dict[str, Any]:
        """The create's answer once its match is open: the creator joins the first human seat
        (under the create's request ``key``, as the player ``creator``), or with bots only
        watches while the match is dealt."""
        if None not in levels:  # bots only: the creator watches (and may share the link)
            self.advance(match_id, self.load(match_id))
            return {"match_id": match_id, "seat": None, "token": None, "player": None}
        seat = levels.index(None)
        if key is None:
            joined = self.join(match_id, name, seat)
        else:  # under the create's key, in a namespace of its own (``request_digest``)
            joined = self._join_once(match_id, name, seat, key, kind="creator",
                                     player=creator)
        return {"match_id": match_id, **joined}

    def _create_once(self, key: str, parsed: Rules, levels: Sequence[str | None],
                     deck_list: list[list[str]], room: Room, owner: str | None,
                     first_hakem: int | None, name: str, asked: str) -> dict[str, Any]:
        """``create`` under a request key.  The match id is remembered first (``remember``, a
        key of its own: the match does not exist yet), with the digest of what the create
        asks (``asked``: a retry asking otherwise is ``bad_request``, ``check_same_body``), so
        whatever a try stored before its answer was lost, a retry finds it: it opens the match
        if its log is not there yet (only the try that named the id counts against the create
        quota), seats the bots still missing and joins the creator under the same key
        (``_join_once``), which finds the creator's seat if it was taken (``seat_left`` if the
        creator has left it since).  A refusal before the match exists forgets the id, so the
        retry is a create afresh (held to the quota again)."""
        digest = request_digest("create", key)
        fresh, creator = secrets.token_hex(8), secrets.token_hex(8)
        # the creator's player id too: a retry knows who the creator is before it stores a
        # thing (its seat may have moved, the ace draw; it may have left)
        match_id, *kept = self.store.remember(None, digest, f"{fresh} {asked} {creator}",
                                              REQUEST_TTL_S).split(" ")
        check_same_body(kept[0] if kept else None, asked)
        creator = kept[1] if len(kept) > 1 else creator
        try:
            state = self.load(match_id).state
        except NotFound:
            state = None
        if state is not None and None in levels and len(kept) > 1 and \
                self.seat_of_player(state, creator) is None and self._has_left(match_id, creator):
            # before the bots: the seat the creator left may be one a bot's seat moved to
            raise SeatLeft("the player of this request key has left the match: its token "
                           "works no more; create with a new key for a new match")
        try:
            if state is None:
                self._open(match_id, parsed, levels, deck_list, room, owner, first_hakem,
                           creator_named(levels, name), counted=match_id == fresh)
            else:
                self._seat_bots(match_id, levels, creator_named(levels, name), state)
        except HokmError:
            if self.store.version(match_id) == 0:
                self.store.forget(None, digest)
            raise
        return self._seat_creator(match_id, levels, name, key, creator)

    def _open(self, match_id: str, parsed: Rules, levels: Sequence[str | None],
              deck_list: list[list[str]], room: Room, owner: str | None,
              first_hakem: int | None, names: Sequence[str | None] = (),
              held: dict[int, str] | None = None, *, counted: bool = True) -> None:
        """Store a new match of checked arguments and ``room`` settings, its bots seated (its
        humans' seats open), each bot under its name in ``names`` (by seat) or the seat's
        default name; ``held``: seats held for players (``REMATCH_HOLD_S``, ``join``).
        ``counted``: the create counts against ``owner``'s create quota (not a retry's).  Safe
        to run again for the same id while its log is empty (a retried create, even one whose
        first try runs on): the deck secret is set once, and a ``CreateMatch`` another try
        stored first is no refusal."""
        if owner is not None:
            self._admit(match_id, owner, bots=None not in levels, counted=counted)
        # set once: the commitment in the log must be to the secret the meta keeps
        secret = self.store.put_meta_once(match_id, "meta", "secret", secrets.token_hex(32))
        meta = {
            "decks": json.dumps(deck_list),
            "disconnect_timeout": str(room.disconnect_timeout),
            "turn_timeout": str(room.turn_timeout),
            "created_ms": str(int(self.clock() * 1000)),
        }
        if owner is not None:
            meta["owner"] = owner
        if held:
            meta["held"] = json.dumps({
                "until_ms": int((self.clock() + REMATCH_HOLD_S) * 1000),
                "seats": {str(seat): player for seat, player in held.items()}})
        self.store.put_meta(match_id, "meta", meta)
        self.rooms.put(match_id, room)
        try:
            self.handle(match_id, None, CreateMatch(match_id, parsed, commitment_of(secret),
                                                    first_hakem))
        except (WrongPhase, StaleVersion):
            if self.store.version(match_id) == 0:
                raise
            # another try of the same create stored it first: seat what it has not yet
        self._seat_bots(match_id, levels, names, self.load(match_id).state)

    def _seat_bots(self, match_id: str, levels: Sequence[str | None],
                   names: Sequence[str | None], state: State) -> None:
        """Seat the bots of ``levels`` whose seats are empty in ``state`` (all of them in a new
        match; in a retried create, those its first try did not), each under its name in
        ``names`` (by seat) or a default name that no other player has (``bot_name``; the
        names of ``names`` at human seats count: the creator's, a rematch's players')."""
        taken = {s.name for s in state.match.seats if s is not None}
        taken |= {n for n in names if n}
        for seat, level in enumerate(levels):
            if level is not None and state.match.seats[seat] is None:
                name = (names[seat] if seat < len(names) else None) or bot_name(seat, taken)
                taken.add(name)
                try:
                    self.handle(match_id, None, TakeSeat(seat, name, f"bot-{seat}", level))
                except SeatTaken:
                    if self.load(match_id).state.match.seats[seat] is None:
                        raise
                    # another try of the same create seated it meanwhile

    @staticmethod
    def rematch_player(player: str, rematch_id: str) -> str:
        """The id in the rematch ``rematch_id`` of the finished match's ``player``."""
        return hashlib.sha256(f"{player}:{rematch_id}".encode()).hexdigest()[:16]

    def held_seats(self, match_id: str, player: str | None) -> tuple[set[int], float]:
        """The seats of ``match_id`` held for players other than ``player`` (a rematch's, for
        the finished match's players: ``REMATCH_HOLD_S``), and the seconds the hold has left."""
        raw = self.store.get_meta_field(match_id, "meta", "held")
        if raw is None:
            return set(), 0.0
        held = json.loads(raw)
        left = held["until_ms"] / 1000 - self.clock()
        if left <= 0:
            return set(), 0.0
        return {int(seat) for seat, p in held["seats"].items() if p != player}, left

    def rematch_of(self, match_id: str) -> str | None:
        """The id of the finished match's rematch, once a player asked for it."""
        return self.store.get_meta_field(match_id, "meta", "rematch")

    def rematch(self, match_id: str, player: str, owner: str | None = None, *,
                repaired: bool = False) -> tuple[dict[str, Any], bool]:
        """The next match of a finished one, for its human ``player``: the same rules, bots
        and room settings, a new deck; the player takes the seat it held at the end (or the
        first open one).  The first player to ask creates it (held to the quotas, as
        ``create``); the others join it: one rematch a match, whoever asks and however many
        ask at once.  Returns its match id, the seat, token and player id, and whether this
        call created it."""
        state = self.load(match_id).state
        if state.phase != MATCH_OVER:
            raise MatchNotOver("a rematch opens at the match's end")
        seat = self.seat_of_player(state, player)
        occupant = state.match.seats[seat] if seat is not None else None
        if seat is None or occupant is None:  # the seat was given up before the end
            raise BadToken("this token has no seat at the end of the match")
        new_id = secrets.token_hex(8)
        standing = self.store.put_meta_once(match_id, "meta", "rematch", new_id)
        if standing == new_id:
            levels = [o.bot if o is not None else None for o in state.match.seats]
            names = [o.name if o is not None else None for o in state.match.seats]
            holds = {i: self.rematch_player(o.player, new_id)
                     for i, o in enumerate(state.match.seats) if o is not None and o.bot is None}
            try:
                self._open(new_id, state.rules, levels, [], self.room(match_id), owner, None,
                           names, holds)
            except BaseException:  # refused (a quota) or failed: the next asker tries again
                self.store.delete_meta_field(match_id, "meta", "rematch")
                raise
        deadline = self.clock() + REMATCH_WAIT_S
        while True:  # another asker may be creating it this moment
            try:
                self.load(standing)
                break
            except NotFound:
                if self.rematch_of(match_id) != standing:  # its creator was refused (a quota)
                    # or failed: ask again
                    return self.rematch(match_id, player, owner, repaired=repaired)
                if self.clock() <= deadline:
                    time.sleep(0.02)
                    continue
                if repaired:
                    raise
                # its creator died between naming it and making it: name another
                self.store.delete_meta_field(match_id, "meta", "rematch")
                return self.rematch(match_id, player, owner, repaired=True)
        # the player's id there follows from its id here, so that asking again (a second
        # click, another tab, at the same moment too) gives the seat it has there already,
        # with a token of its own
        again = self.rematch_player(player, standing)
        self._count_rematch_ask(match_id, again)
        for _ in range(3):
            seats = self.load(standing).state.match.seats
            held = next((i for i, o in enumerate(seats)
                         if o is not None and o.player == again), None)
            if held is not None:
                token = new_token()
                self.store.put_meta(standing, "tokens", {token_hash(token): again})
                joined = {"seat": held, "token": token, "player": again}
                break
            if self._has_left(standing, again):
                # seating ``again`` anew would bring back every token it ever had there: its
                # tokens map to it, and leave keeps them, promising they stay dead
                raise SeatLeft("you left the rematch: its tokens work no more; open its "
                               "link to join it as a new player")
            try:
                joined = self.join(standing, occupant.name,
                                   seat if seats[seat] is None else None, player=again)
                break
            except (SeatTaken, StaleVersion):  # the same player's other ask, or another's
                continue
        else:
            raise StaleVersion("the rematch's seats are moving; try again")
        return {"match_id": standing, **joined}, standing == new_id

    def _count_rematch_ask(self, match_id: str, player: str) -> None:
        """Count one more ask of ``player`` (its id in the rematch) for the rematch of
        ``match_id``; ``rate_limited`` beyond ``REMATCH_ASKS`` in ``REMATCH_ASK_WINDOW_S``.
        Each ask stores one more token for the player's seat there, so without a bound a loop
        of asks grew the rematch's tokens for as long as it kept the match."""
        now = self.clock()
        if self.store.hit("rematch", f"{match_id}:{player}", REMATCH_ASK_WINDOW_S,
                          now) > REMATCH_ASKS:
            raise RetryLater(f"at most {REMATCH_ASKS} asks for a rematch per player in "
                             f"{REMATCH_ASK_WINDOW_S / 60:g} minutes; use a token you were "
                             f"given, or try again later", window_left(REMATCH_ASK_WINDOW_S, now))

    def _admit(self, match_id: str, owner: str, *, bots: bool, counted: bool = True) -> None:
        """Hold a new match of ``owner`` to the quotas (``rate_limited`` beyond them); not
        ``counted``: a retried create, counted by its first try (its bots-only slot is taken
        again: taking the match's own slot takes no other).  A create refused by one limit
        costs nothing of the other: the bots-only slot is taken first (a refusal there is
        counted as no create: retrying it after its ``Retry-After``, as told, does not use
        up the creates of the window), and given back when the create quota refuses."""
        quotas, now = self.quotas, self.clock()
        if bots:
            self._take_bot_slot(match_id, owner)
        if counted and quotas.creates_per_window > 0 and self.store.hit(
                "create", owner, quotas.create_window_s, now) > quotas.creates_per_window:
            if bots:  # a new match's id (counted): the slot is the one just taken
                self.store.release_slot(BOTS_ONLY, match_id, owner)
            minutes = quotas.create_window_s / 60
            raise RetryLater(f"at most {quotas.creates_per_window} new matches per "
                             f"{minutes:g} minutes from one address; try again later",
                             window_left(quotas.create_window_s, now))

    def _take_bot_slot(self, match_id: str, owner: str) -> None:
        """Give ``match_id`` a bots-only slot of ``owner`` (``rate_limited`` when none is free;
        none taken then).  Taking one the match holds already takes no other."""
        quotas, now = self.quotas, self.clock()
        if (quotas.bot_matches > 0 or quotas.bot_matches_per_owner > 0) and \
                not self.store.take_slot(BOTS_ONLY, match_id, owner,
                                         (quotas.bot_matches, quotas.bot_matches_per_owner),
                                         now + BOT_SLOT_S, now):
            raise RetryLater("too many bots-only matches are playing now; watch one of "
                             "them to its end, or take a seat in yours", BOT_SLOT_RETRY_S)

    def _bot_slot(self, match_id: str, owner: str | None) -> str | None:
        """A match about to be left to bots alone takes a bots-only slot of its owner: who
        created it, if recorded, else ``owner`` (who asks), then recorded so that the match's
        end releases it (``MatchService.renew``).  Returns the owner holding the slot (None:
        no owner known, no limit).  ``rate_limited`` when none is free, nothing changed."""
        recorded = self.store.get_meta_field(match_id, "meta", "owner")
        holder = recorded or owner
        if holder is None:
            return None
        self._take_bot_slot(match_id, holder)
        if recorded is None:
            self.store.put_meta(match_id, "meta", {"owner": holder})
        return holder

    def hold_unattended(self, match_id: str) -> None:
        """A match whose every human is away past the room's timeout, a stand-in about to play
        for one of them, is played by bots alone with nobody waiting: it takes a slot of its
        owner in ``UNATTENDED`` first (as many as the bots-only limit per owner; one it holds
        already takes no other), released at its end.  ``rate_limited`` when none is free: the
        stand-in waits (``worker.jobs.away_due``) until a slot frees or a player comes back.
        Without it, creating matches whose human never connects ran bots-only matches past the
        limit (an audit's finding).  Not the bots-only pool itself: tables players walked away
        from would then keep others from watching bots play."""
        quotas, now = self.quotas, self.clock()
        owner = self.store.get_meta_field(match_id, "meta", "owner")
        if quotas.bot_matches_per_owner <= 0 or owner is None:
            return
        if not self.store.take_slot(UNATTENDED, match_id, owner,
                                    (0, quotas.bot_matches_per_owner), now + BOT_SLOT_S, now):
            raise RetryLater("too many of this address's tables are played by stand-ins with "
                             "nobody there", BOT_SLOT_RETRY_S)

    def room(self, match_id: str) -> Room:
        """The room's settings as the match was created with them: read from its meta once,
        then kept (``rooms``: they never change)."""
        known = self.rooms.get(match_id)
        if known is not None:
            return known
        meta = self.store.get_meta(match_id, "meta")
        if not meta:
            self.load(match_id)  # not_found for a match that does not exist (or no longer)
        disconnect = meta.get("disconnect_timeout")
        turn = meta.get("turn_timeout")
        # a match made before the turn limit existed has none (its players were promised none)
        # (a room stored before the floor keeps a limit, at the floor)
        return self.rooms.put(match_id, Room(
            float(disconnect) if disconnect else DISCONNECT_TIMEOUT_S,
            max(float(turn), TURN_TIMEOUT_MIN_S) if turn and float(turn) > 0 else 0.0))

    def disconnect_timeout(self, match_id: str) -> float:
        """The room's ``disconnect_timeout`` in seconds: how long a human seat may be away
        before a stand-in plays for it; infinite when the room set 0 (never substitute)."""
        value = self.room(match_id).disconnect_timeout
        return value if value > 0 else math.inf

    def join(self, match_id: str, name: str, seat: int | None = None,
             player: str | None = None, *, key: str | None = None) -> dict[str, Any]:
        """Take an open seat (the first one if ``seat`` is None) as a new player (``player``:
        one of this service's choosing).  Without ``seat``, a seat another join took first is
        no refusal: the next open one is tried, so a burst of players opening one invite link
        fills every seat (``match_full`` only when none is left).  A seat held for another
        player (a rematch's: ``held_seats``) is not open to this one while the hold lasts.
        ``key`` (a client's request key, ``check_request_key``) makes the join safe to retry:
        ``_join_once``."""
        checked = check_request_key(key)
        if checked is not None:
            return self._join_once(match_id, name, seat, checked)
        return self._take(match_id, name, seat, player or secrets.token_hex(8), new_token())

    def _join_once(self, match_id: str, name: str, asked: int | None, key: str, *,
                   kind: str = "join", player: str | None = None) -> dict[str, Any]:
        """``join`` under a request key (``kind``: ``creator`` for a create's creator,
        ``request_digest``; ``player``: the player id a first try takes, else a new one).  The
        player id and the token the join will use are remembered first (``remember``, beside
        the match for ``REQUEST_TTL_S``; the token sealed by the key, ``seal_token``; the
        digest of the name and seat asked, which a retry must ask again: ``check_same_body``),
        then the token's hash, then the seat: a retry with the same key gets the same player
        and token, and the player's seat if a try took it (whatever failed after it: a lost
        answer, a replica's wait), else takes one for them.  The engine gives a player one
        seat at most, so tries running at once end with one seat.  A player who took a seat
        and left it (``leave``) is not seated again: the retry is ``seat_left`` (the token
        stays dead, as leave says).  A refusal that leaves the player without a seat forgets
        the request and the token: the retry is a join afresh."""
        state = self.load(match_id).state  # not_found: nothing is kept for no match
        digest = request_digest(kind, key)
        asked_body = body_digest({"name": name, "seat": asked})
        player, token = player or secrets.token_hex(8), new_token()
        mine = f"{player} {seal_token(key, match_id, token)} {asked_body}"
        kept = self.store.remember(match_id, digest, mine, REQUEST_TTL_S)
        player, sealed, *body = kept.split(" ")
        check_same_body(body[0] if body else None, asked_body)
        token = unseal_token(key, match_id, sealed)
        seat = self.seat_of_player(state, player)
        if seat is None and kept != mine and self._has_left(match_id, player):
            raise SeatLeft("the player of this request key has left the match: its token "
                           "works no more; join with a new key to take a seat again")
        try:
            if seat is None:
                return self._take(match_id, name, asked, player, token, keyed=True)
        except HokmError:
            loaded = self.load(match_id)
            seat = self.seat_of_player(loaded.state, player)
            if seat is None:
                self.store.delete_meta_field(match_id, "tokens", token_hash(token))
                self.store.forget(match_id, digest)
                raise
            # another try of this request took the seat meanwhile
        # the token's hash again (the same field, the same value): a failover may have lost it
        # while keeping the seat's record, which replicas acknowledged (HOKM_REPLICA_ACKS)
        self.store.put_meta(match_id, "tokens", {token_hash(token): player})
        # the try that took the seat may have died before the steps that follow it (the ace
        # draw, a deal): this retry may be the only request that comes
        self._move_on(match_id, self.load(match_id, fresh=False))
        # its seat now (the ace draw may have moved the player, as in any join's answer)
        seat = self.seat_of_player(self.load(match_id, fresh=False).state, player)
        return {"seat": seat, "token": token, "player": player}

    def _has_left(self, match_id: str, player: str) -> bool:
        """Whether ``player``, seated in no seat now, took one in the match before (and so
        left it: nothing else unseats a player).  Reads the match's log: asked only by a
        keyed retry whose player holds no seat, which is rare."""
        return any(isinstance(event, SeatTakenEvent) and event.player == player
                   for record in self.store.read(match_id) for event in record.events)

    def _take(self, match_id: str, name: str, seat: int | None, player: str, token: str,
              *, keyed: bool = False) -> dict[str, Any]:
        """``join``'s seat-taking for ``player`` with ``token``: the token's hash is stored,
        then the seat is taken.  A refusal deletes the hash again, unless ``keyed``
        (``_join_once`` decides, since another try may hold the seat)."""
        asked = seat
        held, left = self.held_seats(match_id, player)
        wait = f"for a player of the last match for {math.ceil(left)} more seconds"
        digest = token_hash(token)
        stored = False
        try:
            for _ in range(JOIN_TRIES):
                loaded = self.load(match_id)
                state = loaded.state
                if keyed and self.seat_of_player(state, player) is not None:
                    break  # another try of the same request took a seat for the player
                if state.phase == MATCH_OVER:
                    raise MatchOver("the match is over")
                open_seats = [i for i, s in enumerate(state.match.seats)
                              if s is None and i not in held]
                if asked is None:
                    if not open_seats:
                        if any(state.match.seats[i] is None for i in held):
                            raise MatchFull(f"the open seats are held {wait}")
                        raise MatchFull("every seat is taken")
                    seat = open_seats[0]
                elif type(asked) is not int or not 0 <= asked < state.rules.players:
                    raise InvalidCommand("no such seat")
                elif asked not in open_seats:
                    if asked in held and state.match.seats[asked] is None:
                        raise SeatTaken(f"that seat is held {wait}")
                    raise SeatTaken("that seat is taken")
                assert seat is not None
                if not stored:
                    self.store.put_meta(match_id, "tokens", {digest: player})
                    stored = True
                try:
                    # Of this look's version: the bots renamed are of this look, and a bot
                    # given an empty seat meanwhile (named from what it saw, ``_to_bot``)
                    # moves the match, so the join looks again rather than sit beside a bot
                    # of its name.
                    self.seat_command(match_id, TakeSeat(seat, name, player,
                                                         renames=bots_renamed(state, seat, name)),
                                      version=loaded.version)
                    break
                except StaleVersion:
                    continue  # the match moved on (a move, a seat): look again
                except SeatTaken:
                    if asked is not None:
                        raise
                    # another join took it between our look and our write: look again (a
                    # seat was taken each time, so a table's seats end it unless players
                    # keep leaving too)
            else:
                raise StaleVersion("the seats are moving; try again")
        except HokmError:
            if stored and not keyed:
                self.store.delete_meta_field(match_id, "tokens", digest)
            raise
        return {"seat": self.seat_of_player(self.load(match_id, fresh=False).state, player),
                "token": token, "player": player}

    def seat_command(self, match_id: str, command: TakeSeat | LeaveSeat,
                     version: int | None = None) -> None:
        """Apply a seating command of the lobby's.  The pipeline answers a refusal that follows
        a lost race with ``stale_version`` ("the match moved on"), which suits a move sent for
        a version; a seating command names no version, so its answer is the refusal itself
        (``seat_taken`` when another join or bot took the seat first), as api.md lists.  With
        ``version`` (the lobby's own checks were of that version) a match found at another is
        ``stale_version``."""
        try:
            self.handle(match_id, None, command, version=version)
        except StaleVersion as moved:
            if isinstance(moved.__cause__, HokmError):
                raise moved.__cause__ from None
            raise

    @staticmethod
    def seat_of_player(state: State, player: str) -> int | None:
        for i, occupant in enumerate(state.match.seats):
            if occupant is not None and occupant.player == player:
                return i
        return None

    def authenticate(self, match_id: str, token: str | None) -> tuple[int, str, Loaded]:
        """The seat, player id and match of a seat token; ``bad_token`` otherwise.

        The seat is the player's in the returned match, which is read fresh: a player's seat
        can move (the ace draw of ``teams: ace_draw`` swaps two players), so a match cached
        before the move would name the seat of another player, whose hand a view, the events
        or a command of this token would then be about (a QA finding with two gateways).  A
        caller uses the seat with this match, or with records up to its version; one that
        reads the match again resolves the seat again (``handle``'s ``player``)."""
        player = self.player_of(match_id, token)
        loaded = self.load(match_id)
        return self.seat_in(loaded.state, player), player, loaded

    def seat_held(self, match_id: str, token: str) -> int | None:
        """The seat ``token`` holds in ``match_id`` now, or None when it holds none (a token
        the match never gave, or one whose seat was given up: the two are not told apart);
        ``not_found`` for no match.  Reveals no more than ``authenticate``, which tells a
        token's seat to its holder and refuses any other token."""
        try:
            seat, _, _ = self.authenticate(match_id, token)
        except BadToken:
            return None
        return seat

    def player_of(self, match_id: str, token: str | None) -> str:
        """The player id of a token of ``match_id``, seated or not (a player who left keeps
        it: a keyed retry of a command applied before the leave is still answered, ``handle``);
        ``bad_token`` for a token the match never gave, ``not_found`` for no match."""
        if not token:
            raise BadToken("a seat token is required")
        if len(token) > MAX_TOKEN:
            raise BadToken("this token does not belong to a seat of this match")
        player = self.store.get_meta_field(match_id, "tokens", token_hash(token))
        if player is None:
            self.load(match_id)  # not_found for a match that does not exist (or no longer)
            raise BadToken("this token does not belong to a seat of this match")
        return player

    @classmethod
    def seat_in(cls, state: State, player: str) -> int:
        """``player``'s seat in ``state``; ``bad_token`` when the player holds none."""
        seat = cls.seat_of_player(state, player)
        if seat is None:
            raise BadToken("this token's seat was given up")
        return seat

    def leave(self, match_id: str, token: str, replace_with: str | None = None,
              owner: str | None = None) -> None:
        """Give up a seat: it becomes empty, or a bot of ``replace_with`` (``bot:<level>``).
        A bot that leaves the match, still in play, to bots alone takes a bots-only slot first
        (``_to_bot``; ``owner``: who asks).  Empty, the seat stops the match at its turn
        (nobody plays it), so a leave without a bot takes none.  The seat left is the
        player's in the match the command applies to (of one version: it may have moved since,
        the ace draw's swap, and must never be another player's)."""
        seat, player, loaded = self.authenticate(match_id, token)  # told before a bad body
        level = None
        if replace_with is not None:
            if not (isinstance(replace_with, str) and replace_with.startswith("bot:")
                    and replace_with[4:] in BOT_LEVELS):
                raise InvalidCommand(f"replace_with is \"bot:<level>\" with a level of "
                                     f"{', '.join(BOT_LEVELS)}")
            level = replace_with[4:]
        for attempt in range(JOIN_TRIES):
            if attempt:  # the match moved on since: find the player's seat again
                seat, player, loaded = self.authenticate(match_id, token)
            try:
                if level is None:
                    self.seat_command(match_id, LeaveSeat(seat), version=loaded.version)
                else:  # one record: the seat is never seen empty, a refusal changes nothing
                    self._to_bot(match_id, seat, self._leave_to_bot(seat, level), owner,
                                 player)
                break
            except StaleVersion:
                continue
        else:
            raise StaleVersion("the match is too busy; try again")
        # The token's hash stays: the player holds no seat now, so ``authenticate`` refuses the
        # token everywhere (``bad_token``), and nothing seats a player who left again (a join's
        # retry is ``seat_left``).  Only a keyed retry of a command applied before the leave
        # still finds its player, and gets the original answer (``handle``): deleting it
        # answered that retry 401 while the command itself was answered 200.

    def give_to_bot(self, match_id: str, token: str, seat: int, level: str,
                    owner: str | None = None) -> None:
        """A seated player hands an empty seat to a bot (held to the bots-only limits as
        ``leave``: the player may have left meanwhile)."""
        self.authenticate(match_id, token)
        if level not in BOT_LEVELS:
            raise InvalidCommand(f"level is one of {', '.join(BOT_LEVELS)}")
        self._to_bot(match_id, seat, lambda state: self._bot(seat, level, state), owner)

    @classmethod
    def _leave_to_bot(cls, seat: int, level: str) -> Callable[[State], LeaveSeat]:
        """The leave of ``seat`` that seats a bot of ``level`` in the same record, of a
        match as read (``_to_bot``)."""
        return lambda state: LeaveSeat(seat, cls._bot(seat, level, state))

    @staticmethod
    def _bot(seat: int, level: str, state: State) -> TakeSeat:
        """A bot of ``level`` taking ``seat`` (a new player id each time), under a name no
        other seat of ``state`` has (``bot_name``: the ace draw moves seats, and a player may
        be called so).  Two players of one name at a table made every line that names them
        ambiguous ("Shirin plays the Ace of clubs": a screen reader's only way to know who)."""
        taken = {other.name for i, other in enumerate(state.match.seats)
                 if i != seat and other is not None}
        return TakeSeat(seat, bot_name(seat, taken), f"bot-{seat}-{secrets.token_hex(4)}", level)

    def _to_bot(self, match_id: str, seat: int, command: Callable[[State], TakeSeat | LeaveSeat],
                owner: str | None, player: str | None = None) -> None:
        """Apply ``command`` of the match as read, which gives ``seat`` to a bot (a
        ``TakeSeat`` of an empty seat, or a ``LeaveSeat`` whose ``then`` seats the bot in the
        same record): made of the version it is written against, so the bot's name is none a
        player took meanwhile (``bot_name``; a join is of one version too).  If that leaves
        the match, still in play, to bots alone, the match takes a bots-only slot first
        (``_bot_slot``: ``rate_limited`` when none is free, and nothing is done).  The check
        and the command are of one version (a change by anyone between them: look again), so
        two players handing their seats to bots at once cannot both miss it: the second
        hears ``rate_limited`` and keeps its seat.  With ``player`` (a leave), ``seat`` must be
        that player's in the match the command applies to: ``stale_version`` otherwise (the
        caller looks for the player's seat again)."""
        limited = self.quotas.bot_matches > 0 or self.quotas.bot_matches_per_owner > 0
        held: str | None = None
        try:
            for _ in range(JOIN_TRIES):
                loaded = self.load(match_id)
                state = loaded.state
                if player is not None and self.seat_of_player(state, player) != seat:
                    raise StaleVersion("the seat moved")
                alone = limited and state.phase != MATCH_OVER and all(
                    o is not None and o.bot is not None
                    for i, o in enumerate(state.match.seats) if i != seat)
                if alone and held is None:
                    held = self._bot_slot(match_id, owner)
                elif not alone and held is not None:  # a human sat down meanwhile
                    self.store.release_slot(BOTS_ONLY, match_id, held)
                    held = None
                try:
                    self.seat_command(match_id, command(state), version=loaded.version)
                    return
                except StaleVersion:
                    continue  # the match moved (a move, a seat): check again
            raise StaleVersion("the match is too busy; try again")
        except BaseException:
            if held is not None:
                self.store.release_slot(BOTS_ONLY, match_id, held)
            raise
