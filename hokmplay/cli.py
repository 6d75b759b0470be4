"""``hokm play URL``: play one seat of a match from a terminal.

``URL`` is an invite link or match URL (``http://HOST/m/MATCH``: the first open seat is claimed,
or, with ``--token``, the seat of that token is taken back), or a server URL
(``http://HOST:PORT``: a solo match against bots is created; ``--players`` / ``--game`` for
the two- and three-player games).  ``--spectate`` watches instead; ``--bot LEVEL`` lets a
policy of this machine play the seat.  Without a terminal
(output to a pipe or a file) only ``--bot`` and ``--spectate`` run, printing a line per trick.

Errors are one line and a non-zero exit (``services/clitools.py``'s contract): a link that is
not one, a match that does not exist or has no open seat, a refused token, a server that is no
Hokm server (2: :data:`REFUSED_INPUT`); a server that does not answer or rate limits, or a
match the server no longer has once the table is shown (1).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import re
import signal
import sys
import threading
from typing import Any

from typing import TYPE_CHECKING

from . import LEVELS
from .keys import KEYS_HELP

if TYPE_CHECKING:  # the client library is imported when the command runs: hokm --help is fast
    from hokmclient import ApiError, AsyncSeat


class PlayError(Exception):
    """A failure of ``hokm play`` to report in one line (``code``: the exit status)."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


BARE_WORD = re.compile(r"[^./:\[\]@?#]+")
"""A URL argument that is a word alone (``notaurl``): no scheme, dot, port or path."""


def link(text: str) -> str:
    """An argparse type: a link ``parse_link`` accepts.  A word alone (no scheme, no dot, no
    port, no path; ``localhost`` aside) is no link at all, a bad argument (exit 2), though
    ``parse_link`` would read it as ``http://WORD``: a host name that does not resolve is
    otherwise a server that cannot be reached (1: the name server may be down)."""
    from hokmclient import parse_link

    word = text.strip()
    if BARE_WORD.fullmatch(word) and word.lower() != "localhost":
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a link: give a server (http://HOST:PORT) or an invite link "
            f"(http://HOST/m/MATCH); a host name alone is written http://{word}")
    try:
        parse_link(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def seat_number(text: str) -> int:
    from services.clitools import integer  # ASCII digits only, as the API's seat numbers

    value = integer(text)
    if not 0 <= value <= 3:
        raise argparse.ArgumentTypeError(f"a seat is 0 to 3 (got {value})")
    return value


def _explain(error: ApiError, where: str) -> str:
    from hokmclient import NetworkError

    if isinstance(error, NetworkError):
        return f"cannot reach the server at {where} ({error.reason})"  # (the address once)
    if error.code == "not_hokm":
        return f"the server at {where} is not a Hokm server (it answered HTTP {error.status})"
    words = {"not_found": "there is no such match (the link may have expired)",
             "match_full": "every seat of this match is taken (--spectate watches it)",
             "seat_taken": "that seat is taken",
             "bad_token": "the server does not know this token for this match",
             "rate_limited": "the server is busy: try again in a moment"}
    return words.get(error.code, f"the server refused: {error.code} ({error.message})")


NAME = "Player"
"""The name of a seat whose player gave none (``--name``), as the API's default."""

REFUSED_INPUT = frozenset({"not_found", "not_hokm", "bad_token", "bad_request", "bad_rules",
                           "match_full", "seat_taken", "match_over"})
"""The refusals of a match's opening that mean the command names what is not there or not
open to it (exit status 2, as every ``hokm`` command's bad input: ``services/clitools.py``);
any other (no answer, rate limited, a server error) is a failure to carry it out (1)."""


def _status(error: ApiError) -> int:
    """The exit status of ``hokm play`` whose opening request was refused with ``error``."""
    from hokmclient import NetworkError

    return 2 if not isinstance(error, NetworkError) and error.code in REFUSED_INPUT else 1


def _held(summary: dict[str, Any], seat: int | None) -> str | None:
    """Why a join was refused when the open seats (or the seat asked) are kept for the players
    of the last match (a rematch's hold: the summary's ``held`` and ``held_for``), else None."""
    seats = summary.get("seats") or []
    held = [i for i, s in enumerate(seats) if isinstance(s, dict) and s.get("held")]
    left = summary.get("held_for") or 0
    if not held or (seat is not None and seat not in held) or not left:
        return None
    kept = ("the open seat of this match is kept for a player" if len(held) == 1 or seat is not None
            else "the open seats of this match are kept for players")
    return f"{kept} of the last match for {left} more seconds (--spectate watches it)"


async def _refused_join(error: ApiError, args: argparse.Namespace) -> str | None:
    """The words for a refused join of a rematch's kept seat (the code alone, ``match_full``
    or ``seat_taken``, reads as "every seat is taken" while one is open), of a ``--seat``
    the match has not (``bad_request``: its seats are named), or of a match that is over (the
    replay's command)."""
    from hokmclient import ApiError, AsyncClient, parse_link

    where = parse_link(args.url)
    if error.code == "match_over" and where.match_id is not None:  # (it said "refused")
        return (f"this match is over: hokm replay {where.base}/m/{where.match_id} shows it "
                "move by move")
    asked = args.seat is not None and error.code == "bad_request"  # (a seat the match lacks)
    if where.match_id is None or (not asked and error.code not in ("match_full", "seat_taken")):
        return None
    client = AsyncClient(where.base)
    try:
        summary = await client.summary(where.match_id)
        seats = len(summary.get("seats") or [])
        if asked and seats and args.seat >= seats:
            return f"--seat {args.seat}: this match has seats 0 to {seats - 1}"
        return None if asked else _held(summary, args.seat)
    except ApiError:
        return None  # the refusal's own words, then
    finally:
        await client.aclose()


async def _open(args: argparse.Namespace) -> tuple[AsyncSeat, str | None]:
    """The seat to play (joined, created, resumed or spectating) and its invite link."""
    from hokmclient import AsyncSeat, parse_link

    where = parse_link(args.url)
    if where.match_id is None:
        if args.spectate or args.token:
            raise PlayError("--spectate and --token need a match link (http://HOST/m/MATCH)",
                            2)
        rules = dict(args.rules or {})  # (agreeing with the options: _game_options_agree)
        if args.players is not None:
            rules["players"] = args.players
        if args.game is not None:
            rules["two_player"] = args.game
            rules.setdefault("players", 2)
        players = rules.get("players", 4)
        if not isinstance(players, int) or isinstance(players, bool):
            raise PlayError("\"players\" in --rules must be 2, 3 or 4", 2)
        if args.seat is not None and not 0 <= args.seat < players:
            raise PlayError(f"--seat {args.seat}: a match of {players} players has seats 0 to "
                            f"{players - 1}", 2)
        seats = [f"bot:{args.level}"] * players
        seats[args.seat or 0] = "human"  # the creator takes the human seat (lobby.create)
        seat = await AsyncSeat.create(where.base, seats=seats, name=args.name or NAME,
                                      rules=rules or None)
        return seat, (seat.created or {}).get("invite_url")
    if args.spectate:
        seat = AsyncSeat.spectate(args.url)
        await seat.client.summary(seat.match_id)  # fails now if there is no such match
        return seat, None
    if args.token:
        seat = AsyncSeat.resume(args.url, args.token)
        await seat.client.view(seat.match_id, args.token)  # fails now on a bad token
        return seat, None
    seat = await AsyncSeat.join(args.url, name=args.name or NAME, seat=args.seat)
    return seat, where.invite_url


async def _play(args: argparse.Namespace, tty: bool, ending: Ending) -> int:
    from hokmclient import ApiError, parse_link
    from services.clitools import redact_url

    from .bot import LocalBot
    from .lines import run_lines

    base = parse_link(args.url).base
    # The requests before the table may take long (a server that does not answer: ~12 s of
    # retries), so say what is being waited for, in the line the table or the error's line
    # then replaces.  Without a terminal, stdout is the trick lines (for a file or a pipe):
    # the note goes to stderr, and only when that is a terminal, where it can be wiped; on a
    # captured stderr it would be a second line beside the error's one.
    note = sys.stdout if tty else sys.stderr if sys.stderr.isatty() else None
    ending.install()
    if note is not None:
        # (the link without a password it may hold, as the error's line says it)
        print(f"connecting to {redact_url(args.url)} …", end="", flush=True, file=note)
    try:
        bot = LocalBot(args.bot) if args.bot else None
        seat, invite = await _open(args)
    except ApiError as error:
        raise PlayError(await _refused_join(error, args) or _explain(error, base),
                        _status(error)) from None
    finally:
        if note is not None:  # the table, or the error's line, in its place
            print("\r\x1b[K", end="", flush=True, file=note)
    try:
        left = None
        if tty:
            from hokmclient import AsyncSeat

            from .app import PlayApp

            app = PlayApp(seat, bot, invite)
            ending.screen = app.app
            status = await app.run()
            while app.rematch is not None and ending.signum is None:  # R at the end: on at
                await seat.close()  # the next match's table
                seat = AsyncSeat.resume(app.rematch["invite_url"], app.rematch["token"])
                app = PlayApp(seat, bot, app.rematch["invite_url"])
                ending.screen = app.app
                status = await app.run()
            ending.screen = None
            left = app.left
        else:
            try:
                status = await run_lines(seat, bot)
            except asyncio.CancelledError:  # Ctrl+C (asyncio.run cancels the task on SIGINT),
                await _take_back(seat, args)  # or SIGTERM (``Ending``); it said nothing: the seat
                raise  # was lost to its player
        if left:  # L L: the seat is a bot's, its token gone
            print(f"{left}\nTo watch it: hokm play {seat.client.base}/m/{seat.match_id} "
                  "--spectate", file=sys.stderr)
        else:
            await _take_back(seat, args)
        return status
    except ApiError as error:
        raise PlayError(_explain(error, base)) from None
    finally:
        await seat.close()


async def _take_back(seat: AsyncSeat, args: argparse.Namespace) -> None:
    """Print the command that takes the seat back (on stderr), unless there is none to take
    (a spectator, a match over) or the player gave it (``--token``); and what becomes of the
    seat's turns meanwhile (``away_words``)."""
    from hokmclient import over

    if seat.token and not args.token and not over(seat.view or {}):
        # --token=... : a token may begin with "-", which a separate argument cannot
        print(f"To take this seat back: hokm play {seat.client.base}/m/{seat.match_id} "
              f"--token={seat.token}", file=sys.stderr, flush=True)
        away = await away_words(seat)
        if away:
            print(away, file=sys.stderr, flush=True)


async def away_words(seat: AsyncSeat) -> str | None:
    """What becomes of the seat's turns while its player is away, by the room's
    ``disconnect_timeout`` (a walkthrough's finding: a player came back to a match a stand-in
    had played to its end, nothing having said it would).  None when the server does not
    answer at once (one try, two seconds: quitting is not held up)."""
    from hokmclient import ApiError, AsyncClient

    client = AsyncClient(seat.client.base, retries=0, timeout=2.0)
    try:
        summary = await client.summary(seat.match_id)
    except ApiError:
        return None
    finally:
        await client.aclose()
    limit = summary.get("disconnect_timeout")
    if not isinstance(limit, (int, float)) or isinstance(limit, bool):
        return None
    if limit <= 0:
        return "Meanwhile the table waits for you: this room never plays an away seat's turns."
    said = (f"Meanwhile, from {limit:g} s away, a stand-in plays your turns (the seat stays "
            "yours).")
    listed = summary.get("seats")
    seats: list[Any] = listed if isinstance(listed, list) else []
    humans = len([s for s in seats if isinstance(s, dict) and not s.get("bot")
                  and not s.get("empty")])
    if humans <= 1:  # only this player: the stand-in would play on to bots alone, which the
        # server allows to a few tables of an address at a time (``Lobby.hold_unattended``; a
        # walkthrough's finding: the promise was not kept, and nothing had said it might not be)
        said += (" With nobody else at this table, it waits for you instead while too many "
                 "of your tables already play on without anyone.")
    return said


def _game_options_agree(args: argparse.Namespace) -> None:
    """A ``CliError`` (exit 2) if ``--players`` / ``--game`` and ``--rules`` name different
    games (as ``hokm arena`` and the API refuse them; QA: ``--players 2 --rules
    '{"players": 3}'`` silently started a match of two).  ``rules.players`` alone sets the
    game."""
    from services.clitools import CliError, RulesDisagree, with_game

    players = args.players if args.players is not None else 2 if args.game else None
    if args.game is not None and players != 2:
        # (the server would refuse the rules, bad_rules, after a round trip)
        raise CliError(f"--game {args.game} is a two-player game: it cannot go with "
                       f"--players {players}", 2)
    rules = args.rules or {}
    if args.game is not None and rules.get("players", 2) != 2:
        raise CliError(f"--game {args.game} is a two-player game: it cannot go with --rules "
                       f"players {json.dumps(rules['players'])}", 2)
    try:
        with_game(rules, (("--players", "players", args.players),
                          ("--game", "two_player", args.game)))
    except RulesDisagree as exc:
        raise CliError(str(exc), 2) from None


class Ending:
    """SIGTERM (a ``kill``, a service manager, a closing session) ends ``hokm play`` and
    ``hokm replay LINK`` as their quit key does: the full screen closed (the terminal given
    back as it was, the cursor shown), the line that takes the seat back printed, and the
    status 128 + 15.  Without it the process died with the terminal left in the game's
    screen, the cursor hidden, and the seat's token lost (an audit's finding).

    ``screen``: the prompt_toolkit application showing, if any (its ``exit`` is the quit
    key's way out); otherwise the main task is cancelled, as Ctrl+C cancels it."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self.screen: Any = None
        self._task: asyncio.Task[Any] | None = None

    def install(self) -> None:
        """Catch SIGTERM in the running loop (for the task calling this); only where signals
        can be handled: the main thread (``hokm.cli.main`` run in a thread by a test, say,
        leaves SIGTERM as it is)."""
        self._task = asyncio.current_task()
        if threading.current_thread() is threading.main_thread():
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, self._on,
                                                          signal.SIGTERM)

    def _on(self, signum: int) -> None:
        first = self.signum is None
        self.signum = signum
        if first and self.screen is not None and self.screen.is_running:
            self.screen.exit(result=self.status)
        elif self._task is not None:
            self._task.cancel()

    @property
    def status(self) -> int:
        return 128 + (self.signum or 0)


def _run(args: argparse.Namespace) -> int:
    from services.clitools import CliError

    tty = sys.stdin.isatty() and sys.stdout.isatty()
    if args.spectate and args.bot:
        raise CliError("--spectate watches without a seat: a --bot has no seat to play", 2)
    if args.spectate and args.token:
        raise CliError("--spectate watches without a seat: a spectator has no --token", 2)
    if args.token and args.name is not None:  # (it was ignored unsaid: a walkthrough's finding)
        raise CliError("--name names a new seat: a seat taken back with --token keeps its name",
                       2)
    _game_options_agree(args)
    if not tty and not (args.bot or args.spectate):
        raise CliError("playing needs a terminal (without one, --bot LEVEL plays the seat "
                       "and --spectate watches)", 2)
    ending = Ending()
    try:
        return asyncio.run(_play(args, tty, ending))
    except PlayError as error:
        raise CliError(error.message, error.code) from None
    except asyncio.CancelledError:
        if ending.signum is None:
            raise
        return ending.status


REPLAY_KEYS_HELP = """\
keys of the replay:
  ←/→              one step back or forward (a step is one record: a card, a
                   trump, a deal)
  [ / ]            one trick: back to the step that won the last trick, on to
                   the next
  PgUp/PgDn        one round: back to the last deal, on to the next
  Home/End         the first step, the last step (with the summary per player)
  s                show or hide the summary per player (the analysis, whole
                   match)
  q, Ctrl+C        quit"""
"""The keys of ``hokmplay.replay.ReplayApp``, for ``hokm replay --help`` (a test holds it to
the keys the app binds)."""


def is_link(text: str) -> bool:
    """Whether a ``hokm replay`` argument is a link (``http://HOST/m/MATCH``, ``HOST:PORT/...``)
    rather than a match id of the data folder (letters and digits alone)."""
    return "/" in text or ":" in text


def _replay_link(args: argparse.Namespace) -> int:
    """``hokm replay LINK``: the terminal viewer (``hokmplay.replay``)."""
    from hokmclient import parse_link
    from services.clitools import CliError

    from .replay import ReplayApp, Refused, open_replay

    local = next((o for o in ("seat", "file", "data") if getattr(args, o, None) is not None),
                 None)
    try:
        where = parse_link(args.match)
    except ValueError as exc:
        if local is not None:  # a match of the data folder was meant (../x --data D)
            raise CliError(f"{args.match!r} is not a match id (letters and digits) nor a "
                           "match's link", 2) from None
        raise CliError(str(exc), 2) from None
    if local is not None:
        raise CliError(f"--{local} is for a match of the data folder: the replay of a "
                       "link shows a finished match, every hand", 2)
    if where.match_id is None:
        raise CliError(f"{args.match!r} is a server: give a match's link "
                       "(http://HOST/m/MATCH or http://HOST/replay/MATCH)", 2)
    tty = sys.stdin.isatty() and sys.stdout.isatty()

    ending = Ending()

    async def show() -> int:
        ending.install()
        client, story, step = await open_replay(where, args.step)
        if not tty:
            await client.aclose()
            raise Refused("the replay viewer needs a terminal (hokm analyze "
                          f"{where.base}/m/{where.match_id} prints the analysis; a browser "
                          f"shows the replay at {where.base}/replay/{where.match_id})", 2)
        viewer = ReplayApp(client, str(where.match_id), story, step)
        ending.screen = viewer.app
        return await viewer.run()

    try:
        return asyncio.run(show())
    except Refused as error:
        raise CliError(error.message, error.code) from None
    except asyncio.CancelledError:
        if ending.signum is None:
            raise
        return ending.status


def _link_replay(sub: Any, formatter: Any) -> None:
    """Let ``hokm replay`` (``services.audit``'s) take a match link too: a link opens the
    terminal viewer, a match id prints the match of the data folder as before."""
    parser = sub.choices.get("replay")
    if parser is None:
        return
    local = parser.get_default("func")

    def run(args: argparse.Namespace) -> int:
        from services.clitools import CliError

        if args.match is not None and not args.match.strip():  # ("" listed the matches)
            raise CliError("MATCH is empty: give a match id or a link (without MATCH, hokm "
                           "replay lists the data folder's matches)", 2)
        return _replay_link(args) if is_link(args.match or "") else int(local(args))

    parser.set_defaults(func=run)
    parser.description = (
        f"{parser.description} With a link (http://HOST:PORT/m/MATCH, or /replay/MATCH) "
        "instead: a finished match of that server in the terminal, move by move with every "
        "hand, and its analysis (--step: the step to start at).")
    parser.epilog = REPLAY_KEYS_HELP
    parser.formatter_class = formatter
    for action in parser._actions:
        if action.dest == "step":
            action.help = f"{action.help} (of a link: the step to start at)"
        if action.dest == "match":
            action.help = ("the match id, or a match's link (http://HOST:PORT/m/MATCH): the "
                           "terminal viewer")
            action.metavar = "MATCH|LINK"


@functools.cache
def _keys_help() -> type:
    """The ``hokm`` help formatter (defaults shown), but the keys' list (the epilog) kept as
    written (imported when a parser is built: ``hokm play``'s start stays light)."""
    from services.clitools import HelpFormatter

    class KeysHelp(HelpFormatter):
        def _fill_text(self, text: str, width: int, indent: str) -> str:
            if text.startswith(("keys at the table:", "keys of the replay:")):
                return text
            return super()._fill_text(text, width, indent)

    return KeysHelp


def extend(sub: Any) -> None:
    """Let ``hokm replay`` take match links (:func:`_link_replay`): ``hokm.cli``'s plugin
    contract calls this once every plugin's commands are registered."""
    _link_replay(sub, _keys_help())


def register(sub: Any) -> None:
    """Add ``hokm play`` to the ``hokm`` command (``hokm.cli``'s plugin contract)."""
    from services.clitools import json_object, players

    parser = sub.add_parser(
        "play", help="play a match from the terminal (an invite link, or a server for solo)",
        description="Play one seat of a match in the terminal: URL is an invite link "
                    "(http://HOST/m/MATCH) or a server (http://HOST:PORT, a solo match "
                    "against bots; --players and --game for the two- and three-player "
                    "games). Choose with the arrows and Enter, or type a card (QH, 10D) and "
                    "Enter.", epilog=KEYS_HELP, formatter_class=_keys_help())
    parser.add_argument("url", metavar="URL", type=link,
                        help="an invite link, a match URL, or a server URL for a solo match")
    parser.add_argument("--name", default=None,
                        help=f"your name at the table (default: {NAME}; a seat taken back with "
                             "--token keeps the name it has)")
    parser.add_argument("--seat", type=seat_number, default=None,
                        help="the open seat to claim (default: the first one); of a solo "
                             "match, the seat to sit at (the ace draw of four may move you)")
    parser.add_argument("--token", default=None,
                        help="take back your seat: the token printed when you left")
    parser.add_argument("--bot", choices=LEVELS, default=None,
                        help="let a bot of this level play the seat on this machine")
    parser.add_argument("--spectate", action="store_true", help="watch, without a seat")
    parser.add_argument("--level", choices=LEVELS, default="medium",
                        help="the level of the bots of a solo match")
    parser.add_argument("--rules", type=json_object, default=None,
                        help="house rules of a solo match, as JSON ('{\"target\": 10}')")
    parser.add_argument("--players", type=players, default=None,
                        help="players of a solo match (default 4; 2 and 3: see --game)")
    parser.add_argument("--game", choices=("simple", "talon"), default=None,
                        help="the two-player game of a solo match (implies --players 2; "
                             "default simple)")
    parser.set_defaults(func=_run)
