"""``view_for`` is the union of three parts, and each part's basis determines it: the contract
that lets the gateway keep a part's encoding while its basis holds (``services/gateway/
viewtext.py``).  Checked over whole random matches of every game: for every seat and for
spectators, any two states of a match with equal bases have equal parts."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine import (
    PER_SEAT, STEADY, ChooseTrump, CreateMatch, DealRound, DrawAces, PlayCard, RevealSecret,
    Rules, TakeSeat, commitment_of, decide, derive_deck, evolve, legal_choices,
    pending_system_action, play_keys, same_basis, seat_basis, seat_keys, shows_all,
    steady_basis, steady_keys, view_for,
)
from engine.fairness import DRAW_LABEL, round_label
from engine.state import State
from tests.engine.test_variants import Driver

SECRET = "ab" * 32


def four_player_states(seed: int, rules: dict[str, Any]) -> list[State]:
    """Every state of one whole four-player match with random legal play (the system steps
    as the match service makes them), one per command."""
    rng = random.Random(seed)
    state = State()
    states: list[State] = []

    def run(seat: int | None, command: Any) -> None:
        nonlocal state
        for event in decide(state, seat, command):
            state = evolve(state, event)
        states.append(state)

    run(None, CreateMatch("m", Rules.from_dict(rules), commitment_of(SECRET)))
    for seat in range(4):
        run(None, TakeSeat(seat, f"Pläyer \"{seat}\"", f"p{seat}", "easy" if seat else None))
    while state.phase != "match_over" or state.match.secret is None:
        action = pending_system_action(state)
        if action == "draw":
            run(None, DrawAces(derive_deck(SECRET, DRAW_LABEL)))
        elif action == "deal":
            run(None, DealRound(derive_deck(SECRET, round_label(state.deal.round_no + 1))))
        elif action == "reveal":
            run(None, RevealSecret(SECRET))
        else:
            seat = state.turn
            assert seat is not None
            choice = rng.choice(legal_choices(state, seat))
            run(seat, ChooseTrump(choice) if state.phase == "choosing_trump"
                else PlayCard(choice))
    return states


def _states(players: int, game: str | None, seed: int) -> list[State]:
    if players == 4:
        return four_player_states(seed, {"must_trump": True} if seed % 2 else {})
    driver = Driver(seed, players, views=False, game=game)
    driver.run()
    return driver.states


GAMES = [(4, None, 11), (4, None, 12), (2, "simple", 13), (2, "talon", 14), (3, None, 15)]


@pytest.mark.parametrize(("players", "game", "seed"), GAMES)
def test_the_three_parts_make_the_view_and_do_not_overlap(players: int, game: str | None,
                                                          seed: int) -> None:
    states = _states(players, game, seed)
    for version, state in enumerate(states[::7], start=1):
        for seat in [*range(players), None]:
            view = view_for(state, seat, version, (True,) * players)
            play = play_keys(state, version, shows_all(state))
            assert set(play).isdisjoint(STEADY) and set(play).isdisjoint(PER_SEAT)
            assert set(STEADY).isdisjoint(PER_SEAT)
            assert set(view) == set(play) | set(STEADY) | set(PER_SEAT)
            assert {k: view[k] for k in PER_SEAT} == seat_keys(state, seat)
            assert {k: view[k] for k in STEADY} == steady_keys(
                state, (True,) * players, shows_all(state))


@pytest.mark.parametrize(("players", "game", "seed"), GAMES)
def test_equal_bases_give_equal_parts(players: int, game: str | None, seed: int) -> None:
    """Every pair of states of a round (and across rounds) with equal bases: most pairs differ,
    and the pairs that share a basis are the ones the gateway's cache reuses."""
    states = _states(players, game, seed)
    shared = 0
    for seat in [*range(players), None]:
        parts = [(seat_basis(s, seat), seat_keys(s, seat)) for s in states]
        for i, (basis, keys) in enumerate(parts):
            for other_basis, other_keys in parts[i + 1:i + 120]:
                if same_basis(basis, other_basis):
                    shared += 1
                    assert keys == other_keys
    steady = [(steady_basis(s, None, shows_all(s)), steady_keys(s, None, shows_all(s)))
              for s in states]
    for i, (basis, keys) in enumerate(steady):
        for other_basis, other_keys in steady[i + 1:i + 120]:
            if same_basis(basis, other_basis):
                shared += 1
                assert keys == other_keys
    assert shared > len(states)  # the bases do repeat: the check above is not empty
