"""The ``hokm`` command (the composition root): ``hokm serve``, ``hokm worker``, ``hokm play``,
``hokm replay``, ``hokm export``, ``hokm verify``, ``hokm arena``, ``hokm analyze`` and
``hokm demo``.
Sub-commands import their modules lazily so ``hokm --help`` stays fast and a missing optional
piece never breaks the others.

Errors: one line on stderr and a non-zero exit, never a traceback (``services/clitools.py``,
which lists the exit statuses: 2 the command asks what cannot be, 1 it could not be carried out);
``main`` turns what a sub-command raises into that line.  Ctrl+C ends any command quietly with
status 130 (or as the command itself handles it: ``hokm serve``, ``hokm worker``, ``hokm
play``); while the command is starting (the parser imports the command's modules: for ``hokm
play`` a few tenths of a second, for ``hokm serve`` about a second) and once it is over, SIGINT
exits at once, with no unwinding that could print a traceback (``main``).  ``--data ""`` is
refused by every command that takes ``--data`` (an empty ``HOKM_DATA`` counts as unset, as the
settings read it).  Cards in the terminal are
written as rank and suit symbol (``10♦``, ``Q♠``; ``services.audit.card_text``), the notation of
``hokm replay``; the API and the logs keep the two-letter codes (``TD``, ``QS``).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from collections.abc import Sequence
from typing import Any

from services.clitools import CliError, HokmParser, non_negative_int, say


def _demo(args: argparse.Namespace) -> int:
    """A match between random players, printed trick by trick (no server needed)."""
    import random
    import secrets

    from engine import (
        NAMES, ChooseTrump, CreateMatch, DealRound, DrawAces, PlayCard, RevealSecret, Rules,
        State, TakeSeat, commitment_of, decide, derive_deck, evolve, legal_choices, verify,
    )
    from engine.fairness import DRAW_LABEL, round_label

    from services.audit import SUIT_SYMBOL, card_text

    colour = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    rng = random.Random(args.seed)
    secret = secrets.token_hex(32) if args.seed is None else f"{args.seed:064x}"
    state = State()
    log = []

    def run(seat: int | None, command: object) -> None:
        nonlocal state
        for event in decide(state, seat, command):  # type: ignore[arg-type]
            log.append(event)
            state = evolve(state, event)

    run(None, CreateMatch("demo", Rules(), commitment_of(secret)))
    for seat in range(4):
        run(None, TakeSeat(seat, f"Player {seat}", f"p{seat}", "random"))
    run(None, DrawAces(derive_deck(secret, DRAW_LABEL)))
    print(f"Ace draw: seat {state.match.next_hakem} is Hakem")
    while state.phase != "match_over":
        run(None, DealRound(derive_deck(secret, round_label(state.deal.round_no + 1))))
        hakem: int | None = state.hakem
        assert hakem is not None
        suit = rng.choice(legal_choices(state, hakem))
        run(hakem, ChooseTrump(suit))
        print(f"\nRound {state.deal.round_no}: Hakem seat {hakem}, trump {SUIT_SYMBOL[suit]}")
        while state.phase == "playing":
            seat = state.turn  # type: ignore[assignment]
            assert seat is not None
            run(seat, PlayCard(rng.choice(legal_choices(state, seat))))
            if state.trick == ():
                cards = " ".join(f"{s}:{card_text(NAMES[c], colour)}"
                                 for s, c in state.last_trick)
                print(f"  {cards}  -> seat {state.last_winner} (tricks {list(state.tricks)})")
        r = state.match.result
        assert r is not None
        print(f"  team {r.winner} wins the round ({r.kind}, {r.points} point(s)); "
              f"score {list(state.match.score)}")
    run(None, RevealSecret(secret))
    print(f"\nTeam {state.match.winner} wins the match {list(state.match.score)}; "
          f"deals verified: {not verify(log)}")
    return 0


# Sub-commands that live with their own package register themselves here: each module has
# ``register(subparsers)`` adding its parser with ``set_defaults(func=...)``, listed by the
# commands it adds or extends (in the order ``hokm --help`` lists them), and may have
# ``extend(subparsers)``, called once every module has registered.  This is the composition root: it
# may import every layer (``services.gateway.serve`` gets the gateway's app factory, which wires
# in the worker's pieces, from ``hokm.compose``).
_SERVE = "services.gateway.serve"
_PLUGINS: dict[str, tuple[str, ...]] = {
    _SERVE: ("serve",),
    "worker.arena": ("arena",),
    "worker.main": ("worker",),
    "worker.analysis.cli": ("analyze",),
    "services.audit": ("replay", "export", "verify"),
    "hokmplay.cli": ("play", "replay"),  # (hokm replay LINK: its extend)
    "hokm.analyze_link": ("analyze",),  # (hokm analyze LINK: its extend)
}


def _register_plugins(sub: argparse._SubParsersAction,  # type: ignore[type-arg]
                      only: str | None = None) -> None:
    """Register the plugins' sub-commands: every one, or with ``only`` (a command's name) the
    modules of that command alone; then call each module's ``extend(sub)``, if it has one,
    to add to commands other plugins registered.  Importing them all (the server's stack
    with its Redis and Starlette, the bots) takes about a second of CPU, which ``hokm play``
    and every other command would pay at each start for parsers it never uses."""
    import importlib

    loaded = []
    for name, commands in _PLUGINS.items():
        if only is not None and only not in commands:
            continue
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name is not None and name.startswith(exc.name):
                continue  # that piece is not there (yet)
            raise
        if name == _SERVE:
            from .compose import gateway_app

            module.register(sub, gateway_app)
        else:
            module.register(sub)
        loaded.append(module)
    for module in loaded:  # then what a plugin adds to another's commands, whatever the order
        extend = getattr(module, "extend", None)
        if extend is not None:
            extend(sub)


def _command_of(argv: Sequence[str] | None) -> str | None:
    """The sub-command ``argv`` names when its first argument is one (``hokm play ...``), else
    None (``hokm``, ``hokm --help``, a word no command has: every command is registered, so the
    help and the error list them all)."""
    args = sys.argv[1:] if argv is None else list(argv)
    known = {command for commands in _PLUGINS.values() for command in commands}
    return args[0] if args and args[0] in known else None


class _CommandParser(HokmParser):
    """The ``hokm`` parser: also refuses what one option means across the sub-commands."""

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        parsed, extras = super().parse_known_args(args, namespace)
        command = subcommands(self).get(getattr(parsed, "cmd", None) or "")
        if extras and command is not None:  # said by the command they were given to ("hokm:
            command.error(f"unrecognized arguments: {' '.join(extras)}")  # ..." named none)
        if getattr(parsed, "output", None) == "":  # it wrote to stdout (an audit's finding)
            subcommands(self)[parsed.cmd].error(
                "argument -o/--output: the file is empty (give a file, or leave -o out for "
                "stdout)")
        if getattr(parsed, "data", None) == "":  # an empty path would be the current folder
            subcommands(self)[parsed.cmd].error(
                "argument --data: the data folder is empty (give a folder, or leave --data out "
                "for the default)")
        return parsed, extras


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The ``hokm`` parser with every sub-command registered (``demo`` and, with ``only``, the
    plugin command of that name alone: :func:`_register_plugins`)."""
    parser = _CommandParser(prog="hokm", description="Hokm: play, serve, audit.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="cmd", required=True, parser_class=HokmParser,
                                metavar="COMMAND")
    demo = sub.add_parser("demo", help="print a match between random players",
                          description="Print a match between random players, move by move.")
    demo.add_argument("--seed", type=non_negative_int, default=None,
                      help="seed of the players' choices and of the deck secret (random if "
                           "not given)")
    demo.set_defaults(func=_demo)
    _register_plugins(sub, only)
    return parser


def _version() -> str:
    """The installed package's version (``hokm --version``; it said a command was needed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("hokm")
    except PackageNotFoundError:
        return "(not installed)"


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The sub-command parsers of ``parser`` by name."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _exit_interrupted(signum: int, frame: object) -> None:
    """SIGINT while no command runs: exit at once, quietly (nothing is under way to stop)."""
    os._exit(130)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``hokm``; returns the exit status.  A failure is one line on stderr (see the module
    docstring); ``HOKM_DEBUG=1`` lets an unexpected error show its traceback.

    Ctrl+C: while the parser is built and the arguments read, and, as the program (``argv``
    None: the ``hokm`` script, ``python -m hokm``) after the command too, through the
    interpreter's exit, SIGINT ends the process at once with status 130
    (``_exit_interrupted``); the command runs with the handler ``main`` was called with (Python's
    KeyboardInterrupt), which it may replace.  Called with ``argv`` (tests), ``main`` gives that
    handler back.  Off the main thread, or where SIGINT is ignored, it changes nothing."""
    previous = signal.getsignal(signal.SIGINT)
    handles = (threading.current_thread() is threading.main_thread()
               and previous != signal.SIG_IGN)
    if previous is None:  # a handler not set from Python: Python's own is the default
        previous = signal.default_int_handler
    if handles:
        signal.signal(signal.SIGINT, _exit_interrupted)
    try:
        parser = build_parser(_command_of(argv))
        args = parser.parse_args(argv)
        if handles:
            signal.signal(signal.SIGINT, previous)
        try:
            return _run(args)
        except KeyboardInterrupt:  # while an error was being reported
            return 130
    finally:
        if handles:
            signal.signal(signal.SIGINT, _exit_interrupted if argv is None else previous)


def _run(args: argparse.Namespace) -> int:
    """Run the sub-command of ``args``; returns the exit status (errors: one line)."""
    command = f"hokm {args.cmd}"
    try:
        result: int = args.func(args)
        sys.stdout.flush()
        return result
    except CliError as error:
        say(command, error.message)
        return error.code
    except BrokenPipeError:
        # the reader went away (`hokm export ... | head`): say nothing, like cat; stop Python
        # from failing again while flushing stdout at exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        if os.environ.get("HOKM_DEBUG"):
            raise
        say(command, _describe(exc))
        return 1


def _describe(exc: Exception) -> str:
    """One line for an error no sub-command handled."""
    from services.store.codec import CorruptRecord
    from services.store.connect import UNREACHABLE
    from services.store.journal import JournalError

    if isinstance(exc, UNREACHABLE):
        return f"the Redis does not answer ({exc})"
    if isinstance(exc, (JournalError, CorruptRecord)):
        return str(exc)
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.strerror}: {exc.filename}" if exc.filename else exc.strerror
    text = str(exc).strip().splitlines()
    return (f"unexpected error: {type(exc).__name__}{': ' + text[0] if text else ''} "
            "(HOKM_DEBUG=1 shows the traceback)")


if __name__ == "__main__":
    sys.exit(main())
