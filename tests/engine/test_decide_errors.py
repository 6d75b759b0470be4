"""decide refuses malformed and out-of-phase commands with stable codes and never changes state."""

from __future__ import annotations

import pytest

from engine import (
    NAMES, ChooseTrump, CreateMatch, DealRound, DrawAces, LeaveSeat, PlayCard, RevealSecret,
    Rules, State, TakeSeat, commitment_of, decide, pending_system_action,
)
from engine.errors import ERROR_CODES, HokmError
from engine.events import SeatLeft, SeatRenamed, SeatTaken

from .helpers import Match, deck_for

COMMIT = commitment_of("s")


def code(state: State, seat: int | None, command: object) -> str:
    before = state.snapshot()
    with pytest.raises(HokmError) as info:
        decide(state, seat, command)  # type: ignore[arg-type]
    assert state.snapshot() == before
    assert info.value.code in ERROR_CODES
    return info.value.code


@pytest.mark.parametrize(("command", "expected"), [
    (CreateMatch("", Rules(), COMMIT), "bad_request"),
    (CreateMatch("m", Rules(), "00"), "bad_request"),
    (CreateMatch("m", Rules(), COMMIT.upper()), "bad_request"),
    (CreateMatch("m", {"target": 7}, COMMIT), "bad_request"),  # type: ignore[arg-type]
    (CreateMatch("m", Rules(), COMMIT, 4), "bad_request"),
    (CreateMatch("m", Rules(), COMMIT, True), "bad_request"),  # type: ignore[arg-type]
    (TakeSeat(0, "a", "b"), "wrong_phase"),
    (PlayCard("AS"), "wrong_phase"),
    ("create", "bad_request"),
])
def test_before_the_match_exists(command: object, expected: str) -> None:
    assert code(State(), None, command) == expected


def test_system_commands_need_the_system_and_player_commands_a_seat() -> None:
    m = Match()
    for command in (TakeSeat(0, "a", "b"), LeaveSeat(0), DealRound(NAMES), DrawAces(NAMES),
                    RevealSecret("x"), CreateMatch("m", Rules(), COMMIT)):
        assert code(m.state, 0, command) == "bad_request"
    m.deal(deck_for({}))
    for seat in (None, -1, 4, True, "0"):
        assert code(m.state, seat, ChooseTrump("S")) == "bad_request"  # type: ignore[arg-type]
    m.trump("S")
    for seat in (None, -1, 4, True, "0", 1.0):
        assert code(m.state, seat, PlayCard("2S")) in ("bad_request",)  # type: ignore[arg-type]


def test_seats() -> None:
    m = Match.__new__(Match)
    m.state, m.log = State(), []
    m.run(None, CreateMatch("m", Rules(), COMMIT, 0))
    taken = m.run(None, TakeSeat(1, "  Bob ", "id1", "easy"))
    assert taken == (SeatTaken(1, "Bob", "id1", "easy"),)
    assert code(m.state, None, TakeSeat(1, "Eve", "id9")) == "seat_taken"
    # one seat a player: the same player id again (two asks of one player at once) is refused
    assert code(m.state, None, TakeSeat(2, "Bob", "id1")) == "seat_taken"
    for bad in (TakeSeat(4, "x", "y"), TakeSeat(0, "", "y"), TakeSeat(0, "x" * 41, "y"),
                TakeSeat(0, "a\nb", "y"), TakeSeat(0, "x", ""), TakeSeat(0, "x", "y", ""),
                LeaveSeat(0), LeaveSeat(9)):
        assert code(m.state, None, bad) == "bad_request"
    assert pending_system_action(m.state) is None
    assert code(m.state, None, DealRound(NAMES)) == "wrong_phase"  # not everyone is seated
    assert m.run(None, LeaveSeat(1)) == (SeatLeft(1),)
    assert m.state.match.seats[1] is None


def test_a_seat_handed_to_a_bot_in_one_record() -> None:
    """``LeaveSeat(then=TakeSeat)``: the player leaves and the bot sits in the same record, so
    the seat is never seen empty; a newcomer for another seat, one with a bad name, or one
    whose player id is seated already refuses the whole command (nothing changes)."""
    m = Match()  # four seats taken: the match is under way
    bot = TakeSeat(2, "Kian", "bot-2", "hard")
    for bad in (LeaveSeat(2, TakeSeat(3, "Kian", "bot-2", "hard")),
                LeaveSeat(2, TakeSeat(2, "\u3164", "bot-2", "hard")),
                LeaveSeat(2, TakeSeat(2, "Kian", "id1", "hard")),
                LeaveSeat(2, "bot"),  # type: ignore[arg-type]
                LeaveSeat(5, bot)):
        assert code(m.state, None, bad) in ("bad_request", "seat_taken"), bad
    assert m.run(None, LeaveSeat(2, bot)) == (SeatLeft(2), SeatTaken(2, "Kian", "bot-2", "hard"))
    occupant = m.state.match.seats[2]
    assert occupant is not None and occupant.player == "bot-2" and occupant.bot == "hard"


def test_a_newcomer_renames_a_bot_in_one_record() -> None:
    """``TakeSeat.renames``: the bots shown under another name from the newcomer's record on
    (the lobby's choice when the newcomer's name reads as a bot's).  Only another seat's bot,
    once, under a good name: anything else refuses the whole command."""
    m = Match.__new__(Match)
    m.state, m.log = State(), []
    m.run(None, CreateMatch("m", Rules(), COMMIT, 0))
    m.run(None, TakeSeat(0, "Ali", "id0"))
    m.run(None, TakeSeat(2, "Kian", "bot-2", "easy"))
    for renames in (((0, "Dara"),), ((1, "Dara"),), ((2, "Dara"), (2, "Roxana")),
                    ((2, "\u3164"),), ((2, 5),), ((9, "Dara"),), ((True, "Dara"),),
                    ((2,),), [(2, "Dara")], "Dara"):
        bad = TakeSeat(1, "KIAN", "id1", None, renames)  # type: ignore[arg-type]
        assert code(m.state, None, bad) == "bad_request", renames
    assert code(m.state, None, TakeSeat(2, "KIAN", "id1", None, ((2, "Dara"),))) == "seat_taken"
    assert m.run(None, TakeSeat(1, "KIAN", "id1", None, ((2, " Dara "),))) == (
        SeatTaken(1, "KIAN", "id1", None), SeatRenamed(2, "Dara"))
    bot = m.state.match.seats[2]
    assert bot is not None and (bot.name, bot.player, bot.bot) == ("Dara", "bot-2", "easy")


@pytest.mark.parametrize("deck", [
    NAMES[:51], (*NAMES[:51], NAMES[0]), [*NAMES[:51], 7], [*NAMES[:51], ["AS"]], "AS" * 26, None,
    (*NAMES[:51], "1X"),
])
def test_bad_decks(deck: object) -> None:
    m = Match()
    assert code(m.state, None, DealRound(deck)) == "bad_request"  # type: ignore[arg-type]


def test_phases_and_turns() -> None:
    m = Match()
    assert code(m.state, 0, PlayCard("AS")) == "wrong_phase"
    assert code(m.state, 0, ChooseTrump("S")) == "wrong_phase"
    m.deal(deck_for({0: ["AS", "KS", "QS", "JS", "TS"]}))
    assert code(m.state, None, DealRound(NAMES)) == "wrong_phase"
    assert code(m.state, 0, PlayCard("AS")) == "wrong_phase"
    assert code(m.state, 1, ChooseTrump("S")) == "not_your_turn"
    for bad in ("s", "X", "", None, 1, "SH"):
        assert code(m.state, 0, ChooseTrump(bad)) == "bad_request"  # type: ignore[arg-type]
    m.trump("S")
    assert code(m.state, 0, ChooseTrump("H")) == "wrong_phase"
    assert code(m.state, 1, PlayCard("AS")) == "not_your_turn"
    for bad in ("as", "1S", "", None, 5, ["AS"], "AS "):
        assert code(m.state, 0, PlayCard(bad)) == "bad_request"  # type: ignore[arg-type]
    held = [c for c in NAMES if m.state.hands[0] >> NAMES.index(c) & 1]
    missing = [c for c in NAMES if c not in held]
    assert code(m.state, 0, PlayCard(missing[0])) == "illegal_card"
    m.play(held[0])
    # seat 1's turn: a bool is not a seat, even though True == 1
    assert code(m.state, True, PlayCard(NAMES[0])) == "bad_request"  # type: ignore[arg-type]
    assert code(m.state, 1.0, PlayCard(NAMES[0])) == "bad_request"  # type: ignore[arg-type]
