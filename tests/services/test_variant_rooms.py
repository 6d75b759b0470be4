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


@pytest.mark.parametrize("players", [2, 3])
def test_a_variant_match_round_trips_through_the_codec(players: int) -> None:
    """The store can already keep these matches: every event of a whole simple two-player or
    three-player match (their rules, the high-card draw, a round without a winner) encodes and
    decodes to itself, and the decoded records rebuild the same state.  (Not the talon game
    yet: its events get codec tags with their golden records.)"""
    from engine import State, evolve
    from services.store.codec import apply_payloads, decode, sealed
    from services.store.port import Record
    from tests.engine.test_variants import Driver

    driver = Driver(77 + players, players, views=False, game="simple")
    driver.run()
    payloads = []
    for version, event in enumerate(driver.log, start=1):
        record, payload = sealed(Record(version, (event,), None, None, 0, b""))
        assert decode(version, payload) == record
        payloads.append((version, payload))
    rebuilt = apply_payloads(payloads, State(), 0, evolve, {})
    assert rebuilt == driver.state
    from engine.events import RoundEnded

    void = Record(1, (RoundEnded(None, 0, "no_winner", (6, 6, 5)),), 2, "c", 0, b"")
    assert decode(1, sealed(void)[1]).events == void.events
