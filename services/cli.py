"""The ``hokm`` command: ``hokm serve``, ``hokm worker``, ``hokm replay``, ``hokm export``,
``hokm verify``, ``hokm arena`` and ``hokm demo``.  Sub-commands import their modules lazily so
``hokm --help`` stays fast and a missing optional piece never breaks the others."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def _demo(args: argparse.Namespace) -> int:
    """A match between random players, printed trick by trick (no server needed)."""
    import random
    import secrets

    from engine import (
        NAMES, ChooseTrump, CreateMatch, DealRound, DrawAces, PlayCard, RevealSecret, Rules,
        State, TakeSeat, commitment_of, decide, derive_deck, evolve, legal_choices, verify,
    )
    from engine.fairness import DRAW_LABEL, round_label

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
        print(f"\nRound {state.deal.round_no}: Hakem seat {hakem}, trump {suit}")
        while state.phase == "playing":
            seat = state.turn  # type: ignore[assignment]
            assert seat is not None
            run(seat, PlayCard(rng.choice(legal_choices(state, seat))))
            if state.trick == ():
                cards = " ".join(f"{s}:{NAMES[c]}" for s, c in state.last_trick)
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
# ``register(subparsers)`` adding its parser with ``set_defaults(func=...)``.
_PLUGINS = ("worker.arena", "worker.main", "services.gateway.serve", "services.audit")


def _register_plugins(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    import importlib

    for name in _PLUGINS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name is not None and name.startswith(exc.name):
                continue  # that piece is not there (yet)
            raise
        module.register(sub)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="hokm", description="Hokm: play, serve, audit.")
    sub = parser.add_subparsers(dest="cmd", required=True)
    demo = sub.add_parser("demo", help="print a match between random players")
    demo.add_argument("--seed", type=int, default=None)
    demo.set_defaults(func=_demo)
    _register_plugins(sub)
    args = parser.parse_args(argv)
    result: int = args.func(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
