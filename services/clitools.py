"""What every ``hokm`` sub-command shares: its parser class, argument types and one-line errors.

Contract: a CLI error is one line on stderr, ``hokm <command>: <what went wrong>``, and a
non-zero exit, never a traceback (``HOKM_DEBUG=1`` shows the traceback of an unexpected error).
The exit status, the same for every sub-command (argparse's 2 for a usage error, and what most
sub-commands did already):

- 0: done.
- 2: the command asks what cannot be: a bad command line (argparse: an unknown option, a value
  of the wrong kind or out of range), options that contradict each other, a ``HOKM_`` setting
  that is not valid or missing, or something it names that is not there or not in a state the
  command takes (a match id, well-formed or not, that names no match; a ``--file`` to read or
  an ``-o`` to write that is missing, a folder, under a missing folder or not a file at all,
  a socket: :func:`open_named`; a data folder that is not hokm's, a file or under one; a
  ``--host`` that is no address of this machine; a seat or step the match has not; a match
  not over for ``export`` and ``analyze``; for ``hokm play`` the server's
  ``not_found``, ``bad_token``, ``match_full``, ``match_over``...; a server that is not a Hokm
  server; a Redis URL's database the Redis has not).
  Changing the command fixes it.
- 1: the command could not be carried out: a Redis or server that does not answer (or rate
  limits), a port in use, a damaged journal, log or file, ``hokm verify`` finding a problem,
  workers that did not answer in time, an unexpected error.  Trying again later, or repairing
  the data, may fix it.
- 130: Ctrl+C (SIGINT; ``hokm serve`` and ``hokm worker`` after stopping gracefully on it, and
  0 after SIGTERM, their operator's clean stop; started with SIGINT ignored, as a script's
  ``hokm serve &``, they leave it so); 143: SIGTERM to ``hokm play`` or ``hokm
  replay LINK``, which close their screen first (``hokmplay.cli.Ending``); 141: the reader of
  stdout went away (``| head``).
  Sub-commands raise
``CliError`` for what they detect; ``hokm.cli.main`` turns it, and the usual failures
(Redis unreachable, a file that cannot be opened, a closed pipe), into that line.
"""

from __future__ import annotations

import argparse
import errno
import json
import re
import sys
from collections.abc import Callable, Iterable
from typing import IO, Any, NoReturn
from urllib.parse import urlsplit, urlunsplit


class CliError(Exception):
    """A failure to report as one line (``message``), exiting with ``code``."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows an option's default in ``--help`` when it has one worth showing (not None, False
    or empty, not already in the help text)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if (action.default in (None, False, "", argparse.SUPPRESS) or "%(default)" in text
                or not (action.option_strings or action.nargs in ("?", "*"))):
            return text
        return text + " (default: %(default)s)"


class HokmParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line and whose help shows defaults (the
    sub-commands' parsers are of this class too)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def say(command: str, message: str) -> None:
    """Print the one line of a CLI error."""
    print(f"{command}: {message}", file=sys.stderr, flush=True)


NOT_A_FILE = frozenset({errno.ENOENT, errno.EISDIR, errno.ENOTDIR, errno.ENXIO, errno.ENODEV,
                        errno.ENAMETOOLONG, errno.ELOOP})
"""Why a path cannot be opened that says the command line named no file there (missing, a
folder, under a missing folder or a file, a socket): exit 2, as a missing ``--file`` was
(a folder given as ``--file`` exited 1, as if the disk had failed)."""


def open_named(path: str, option: str, write: bool = False) -> IO[str]:
    """The text file ``path`` that the command line names with ``option`` (``--file``,
    ``-o``), opened to read (or to ``write``).  A path that names no file to open is a
    ``CliError`` (2) naming the option and the path; another failure (a disk error, say) is
    left to ``hokm.cli.main`` (1)."""
    try:
        return open(path, "w" if write else "r", encoding="utf-8")
    except OSError as exc:
        if exc.errno in NOT_A_FILE:
            raise CliError(f"cannot {'write' if write else 'read'} {option} {path}: "
                           f"{exc.strerror}", 2) from None
        raise


# -- argument types --------------------------------------------------------------------------

WHOLE = re.compile(r"-?[0-9]+")
"""A whole number as the API writes one: ASCII digits only (``int`` also takes other scripts'
digits, ``٣``, and ``1_000`` or `` 3 ``, which the API refuses: a QA finding)."""


MOST_DIGITS = 30
"""The longest whole number an option takes: more than any seed or count needs (a number of
5,000 digits met Python's ``int`` limit, and the refusal echoed every digit: an audit's
finding)."""


def shown(text: str, most: int = 40) -> str:
    """``text`` quoted for an error line, cut to ``most`` characters."""
    return repr(text) if len(text) <= most else f"{text[:most]!r}… ({len(text):,} characters)"


def integer(text: str) -> int:
    """A whole number of ASCII digits (optionally negative), ``MOST_DIGITS`` at most: what
    every integer option of the command lines takes."""
    if not WHOLE.fullmatch(text):
        raise argparse.ArgumentTypeError(f"{shown(text)} is not a whole number (digits 0-9)")
    if len(text.lstrip("-")) > MOST_DIGITS:
        raise argparse.ArgumentTypeError(f"a whole number of at most {MOST_DIGITS} digits (got "
                                         f"{len(text.lstrip('-')):,} digits)")
    return int(text, 10)



def match_arg(text: str) -> str:
    """A match id as typed, in the lowercase the server makes ids in (``2C5F66FA`` is match
    ``2c5f66fa``, as in a link, the browser and the API); a link (with ``/`` or ``:``) as it
    is, its id read by the command."""
    if "/" in text or ":" in text or not text.isascii():
        return text
    return text.lower()


def players(text: str) -> int:
    """A number of players: 2, 3 or 4."""
    value = integer(text)
    if value not in (2, 3, 4):
        raise argparse.ArgumentTypeError(f"players is 2, 3 or 4 (got {value})")
    return value


def positive_int(text: str) -> int:
    """A whole number of 1 or more."""
    value = integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more (got {value})")
    return value


def positive_at_most(most: int, unit: str, hint: str = "") -> Callable[[str], int]:
    """The parser of a whole number of 1 to ``most`` ``unit`` (``hint``: what to do instead
    of more): the bound of an option that forks processes or holds one thing per unit."""
    def parse(text: str) -> int:
        value = positive_int(text)
        if value > most:
            raise argparse.ArgumentTypeError(f"at most {most:,} {unit} (got {value})"
                                             + (f"; {hint}" if hint else ""))
        return value
    return parse


def non_negative_int(text: str) -> int:
    """A whole number of 0 or more (seeds, record numbers)."""
    value = integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more (got {value})")
    return value


def port(text: str) -> int:
    """A TCP port, 0-65535 (0: any free port)."""
    value = integer(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 to 65535 (got {value})")
    return value


def host(text: str) -> str:
    """An address to listen on: not empty (an empty one meant every interface, silently)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an address is needed (0.0.0.0 for every interface)")
    return text.strip()


def seat(text: str) -> int:
    """A seat number, 0-3."""
    value = integer(text)
    if not 0 <= value <= 3:
        raise argparse.ArgumentTypeError(f"a seat is 0 to 3 (got {value})")
    return value


def json_object(text: str) -> dict[str, Any]:
    """A JSON object given on the command line."""
    example = "give a JSON object such as '{\"satat\": true}'"
    try:
        value = json.loads(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not valid JSON: {example}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"{text!r} is not a JSON object: {example}")
    return value


class RulesDisagree(ValueError):
    """An option and ``--rules`` name different games."""


def with_game(rules: dict[str, Any] | None,
              options: Iterable[tuple[str, str, Any]]) -> dict[str, Any]:
    """The house rules of ``--rules`` with each ``(option, key, value)`` given (``value`` not
    None: ``--players 3`` is ``("--players", "players", 3)``) added under ``key``.  As the API
    does (``players`` beside the rules and in them), a value given in both places must be the
    same: ``RulesDisagree`` saying which disagree.  Nothing else of the rules is checked."""
    merged = dict(rules or {})
    for option, key, value in options:
        if value is None:
            continue
        if key in merged:
            if merged[key] != value:
                raise RulesDisagree(f"{option} {value} and --rules {key} "
                                    f"{json.dumps(merged[key], default=str)} disagree")
        else:
            merged[key] = value
    return merged


def redact_url(url: str) -> str:
    """``url`` without its password, for printing."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<the URL given>"
    if parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


def unreachable(url: str, exc: BaseException) -> CliError:
    """The error of a Redis that does not answer; or (status 2, bad input) of one that answers
    that the URL's database is none it has (it read as an outage: an audit's finding)."""
    reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if "DB index is out of range" in reason:
        database = urlsplit(url).path.strip("/") or "0"
        return CliError(f"the Redis at {redact_url(url)} has no database {database} ({reason}): "
                        "the URL's database must be one it has (0 to 15 by default)", 2)
    return CliError(f"cannot reach Redis at {redact_url(url)} ({reason})")
