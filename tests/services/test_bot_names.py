"""A player joining a table under a bot's name keeps it; the bot is shown under another name,
in the join's own record (``seat_renamed``), so the table never shows two of one name."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import fakeredis
import pytest

from engine import replay
from engine.events import SeatRenamed, SeatTaken
from services.audit import check, describe
from services.lobby import BOT_NAMES, BOT_NAMES_FA
from services.matches import MatchService
from services.store.redis_streams import RedisStore


def reads(name: str) -> str:
    return unicodedata.normalize("NFKC", name).casefold()


def table(service: MatchService, match_id: str) -> list[str]:
    return [s.name for s in service.load(match_id).state.match.seats if s is not None]


@pytest.mark.parametrize(("name", "key"), [
    ("Kian", None), ("kian", None), ("\uff2b\uff29\uff21\uff2e", None),  # fullwidth "KIAN"
    (" KIAN ", "k" * 20),  # a keyed join (safe to retry) takes the same path
])
def test_a_player_named_as_a_bot_keeps_the_name_and_the_bot_takes_another(
        name: str, key: str | None) -> None:
    service = MatchService(RedisStore(fakeredis.FakeRedis()))
    created = service.create(name="Ali", seats=["human", "human", "bot:easy", "bot:easy"])
    match_id = created["match_id"]
    assert table(service, match_id) == ["Ali", "Kian", "Shirin"]  # seat 2's own bot name
    joined = service.join(match_id, name, key=key)
    names = table(service, match_id)
    assert len({reads(n) for n in names}) == 4, names
    state = service.load(match_id).state
    seated = state.match.seats[service.seat_of_player(state, joined["player"])]  # type: ignore[index]
    assert seated is not None and seated.name == name.strip()  # the player's name, as typed
    bots = sorted(s.name for s in state.match.seats if s is not None and s.bot is not None)
    assert bots == ["Dara", "Shirin"] and set(bots) <= set(BOT_NAMES)
    # one record: the seat and the bot's new name, replayable and verified
    records = service.store.read(match_id)
    record = next(r for r in records if any(isinstance(e, SeatTaken) and e.bot is None
                                            and e.name == name.strip() for e in r.events))
    assert [type(e) for e in record.events] == [SeatTaken, SeatRenamed]
    assert replay([e for r in records for e in r.events]).match.seats == state.match.seats
    assert check(records) == []
    assert any(line.endswith("seat 2 (Kian) is now Dara") for line in describe(records))
    # a retry of the keyed join changes nothing more
    if key is not None:
        assert service.join(match_id, name, key=key)["player"] == joined["player"]
        assert table(service, match_id) == names


def test_a_name_no_bot_has_renames_nobody() -> None:
    service = MatchService(RedisStore(fakeredis.FakeRedis()))
    created = service.create(name="Ali", seats=["human", "human", "bot:easy", "bot:easy"])
    match_id = created["match_id"]
    before = len(service.store.read(match_id))
    service.join(match_id, "Kiana", seat=1)
    assert sorted(table(service, match_id)) == ["Ali", "Kian", "Kiana", "Shirin"]
    record = service.store.read(match_id)[before]
    assert [type(e) for e in record.events] == [SeatTaken]


@pytest.mark.parametrize("name", ["کیان", " کیان "])
def test_a_player_named_as_a_bot_in_persian_letters_keeps_the_name_and_the_bot_takes_another(
        name: str) -> None:
    """A Persian page writes the bot Kian "کیان" (``BOT_NAMES_FA``): a player who joins as
    "کیان" reads as that bot to whoever reads the table in Persian, so the bot takes another
    name, as for a player named "Kian"; and a creator so named gets no bot of that name."""
    service = MatchService(RedisStore(fakeredis.FakeRedis()))
    created = service.create(name="Ali", seats=["human", "human", "bot:easy", "bot:easy"])
    match_id = created["match_id"]
    assert table(service, match_id) == ["Ali", "Kian", "Shirin"]
    service.join(match_id, name)
    names = table(service, match_id)
    assert name.strip() in names and "Kian" not in names, names
    alone = service.create(name=name, seats=["human", "bot:easy", "bot:easy", "bot:easy"])
    assert "Kian" not in table(service, alone["match_id"])


def test_every_language_of_the_pages_names_every_bot() -> None:
    """The pages' ``bot.<name>`` keys hold the server's bot names: the Persian page's are
    ``BOT_NAMES_FA`` (which the server's name checks use), the others' the names as they are."""
    static = Path(__file__).resolve().parents[2] / "services/gateway/static/i18n"
    for path in sorted(static.glob("*.json")):
        strings = json.loads(path.read_text(encoding="utf-8"))
        want = BOT_NAMES_FA if path.stem == "fa" else {n: n for n in BOT_NAMES}
        assert {n: strings.get(f"bot.{n}") for n in BOT_NAMES} == want, path.name
