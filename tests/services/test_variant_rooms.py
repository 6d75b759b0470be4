"""The engine plays the two- and three-player games, but rooms for them are refused by the
match service (``bad_rules``) until the bots and the browser play them (issue 13)."""

from __future__ import annotations

from typing import Any

import pytest

from engine.errors import HokmError
from services.matches import MatchService
from services.store.memory import MemoryStore


@pytest.mark.parametrize("kwargs", [
    {"players": 2}, {"players": 3}, {"rules": {"players": 2}}, {"rules": {"players": 3}},
    {"players": 2, "rules": {"players": 2, "two_player": "simple"}},
    {"players": 3, "seats": ["human", "bot:easy", "bot:easy"]},
])
def test_two_and_three_player_rooms_are_refused(kwargs: dict[str, Any]) -> None:
    service = MatchService(MemoryStore())
    with pytest.raises(HokmError) as refused:
        service.create(name="A", **kwargs)
    assert refused.value.code == "bad_rules"
    assert "not available yet" in refused.value.message
    assert service.create(name="A")["seat"] == 0  # four players still are


@pytest.mark.parametrize(("players", "game"), [(2, "simple"), (2, "talon"), (3, None)])
def test_a_variant_match_round_trips_through_the_codec(players: int, game: str | None) -> None:
    """The store keeps these matches: every event of a whole match of each variant (their
    rules, the high-card draw, the talon game's discards and draws, a round without a winner)
    encodes and decodes to itself, and the decoded records rebuild the same state."""
    from engine import State, evolve
    from engine.events import CardsDiscarded, RoundEnded, TalonDrawn
    from services.store.codec import apply_payloads, decode, sealed
    from services.store.port import Record
    from tests.engine.test_variants import Driver

    driver = Driver(77 + players, players, views=False, game=game)
    driver.run()
    kinds = {type(e) for e in driver.log}
    assert (CardsDiscarded in kinds and TalonDrawn in kinds) == (game == "talon")
    payloads = []
    for version, event in enumerate(driver.log, start=1):
        record, payload = sealed(Record(version, (event,), None, None, 0, b""))
        assert decode(version, payload) == record
        payloads.append((version, payload))
    rebuilt = apply_payloads(payloads, State(), 0, evolve, {})
    assert rebuilt == driver.state

    void = Record(1, (RoundEnded(None, 0, "no_winner", (6, 6, 5)),), 2, "c", 0, b"")
    assert decode(1, sealed(void)[1]).events == void.events
