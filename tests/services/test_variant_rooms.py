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
