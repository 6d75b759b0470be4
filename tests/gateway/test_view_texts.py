"""The gateway's view messages are exactly ``view_for``'s views: the shared part encoded once,
each seat's own keys spliced in, and per-match JSON fragments reused from one version to the next
(checked over whole matches, for every seat and for spectators, at every version)."""

from __future__ import annotations

import json
import random

import pytest

from engine import view_for
from services.gateway.viewtext import view_texts
from services.matches import Loaded
from tests.engine.test_view_parts import four_player_states


@pytest.mark.parametrize("rules", [
    {}, {"target": "2x7", "deal": "5-3-3-2"}, {"must_trump": True, "satat": True},
    {"double_sar": True, "teams": "as_seated"}, {"bavney": True},
])
def test_view_texts_are_the_views(rules: dict[str, object]) -> None:
    rng = random.Random(len(repr(rules)))
    fragments: dict[str, tuple[object, str]] = {}
    connected = (True,) * 4
    for version, state in enumerate(four_player_states(len(repr(rules)), rules), start=1):
        if rng.random() < 0.1:  # presence changes now and then: the steady part is kept between
            connected = tuple(rng.random() < 0.7 for _ in range(4))
        texts = view_texts(Loaded(state, version, b""), [0, 1, 2, 3, None], connected,
                           fragments)
        for seat, text in texts.items():
            assert json.loads(text) == {"type": "view", "version": version,
                                        "view": view_for(state, seat, version, connected)}
    assert state.phase == "match_over"


@pytest.mark.parametrize(("players", "game"), [(2, "simple"), (2, "talon"), (3, None)])
def test_view_texts_are_the_views_in_every_game(players: int, game: str | None) -> None:
    """The other seats' keys come from ``engine.seat_keys`` beside the first seat's whole view:
    at every version of a whole match of each game (the talon's top card and each seat's own
    discards included), every seat's text and the spectator's are exactly ``view_for``."""
    from tests.engine.test_variants import Driver

    driver = Driver(4200 + players, players, views=False, game=game)
    driver.run()
    rng = random.Random(players)
    fragments: dict[str, tuple[object, str]] = {}
    seats: list[int | None] = [*range(players), None]
    connected = (True,) * players
    for version, state in enumerate(driver.states, start=1):
        if rng.random() < 0.1:
            connected = tuple(rng.random() < 0.7 for _ in range(players))
        rng.shuffle(seats)  # whichever seat comes first is built whole
        texts = view_texts(Loaded(state, version, b""), seats, connected, fragments)
        for seat, text in texts.items():
            assert json.loads(text) == {"type": "view", "version": version,
                                        "view": view_for(state, seat, version, connected)}
