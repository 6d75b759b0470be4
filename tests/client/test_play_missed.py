"""``hokm play`` back after a lost connection: the socket's ``missed`` records say which moves
a stand-in made for the seat, and the table says how many (too far behind for the socket to
send them, it asks ``/events``).  The app is driven without a terminal (prompt_toolkit's pipe
input and dummy output); the seat is a stand-in object with the view and the events."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from hokmplay.app import PlayApp
from hokmplay.screen import status
from tests.conftest import run_async

RECORDS = [{"version": 5, "actor": 1, "stand_in": True, "events": []},
           {"version": 6, "actor": 2, "stand_in": False, "events": []},
           {"version": 7, "actor": 1, "stand_in": True, "events": []},
           {"version": 8, "actor": 3, "stand_in": True, "events": []}]


class Seat:
    """What the app reads of its seat here: the view, the token, the records asked for."""

    def __init__(self) -> None:
        self.view: dict[str, Any] = {"seat": 1, "phase": "playing"}
        self.token = "t"
        self.match_id = "m"
        self.client = SimpleNamespace(base="http://127.0.0.1:8000")  # (the replay's link)
        self.asked: list[int] = []
        self.on_view: Any = None
        self.on_missed: Any = None

    async def events(self, since: int = 0) -> dict[str, Any]:
        self.asked.append(since)
        return {"version": 8, "events": [r for r in RECORDS if r["version"] > since]}


async def settled(ready: Callable[[], object], what: str) -> None:
    """Wait (a second at most) for ``ready()``: the app answers in tasks of its own."""
    for _ in range(100):
        if ready():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{what} did not happen within a second")


def test_the_table_says_how_many_moves_a_stand_in_made_for_the_seat() -> None:
    async def run() -> list[str]:
        said = []
        with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
            seat = Seat()
            app = PlayApp(seat)  # type: ignore[arg-type]
            app._missed({"type": "missed", "since": 4, "resync": False, "records": RECORDS})
            said.append(app.cursor.message)
            app._missed({"type": "missed", "since": 6, "resync": False,
                         "records": RECORDS[2:]})
            said.append(app.cursor.message)
            app.cursor.message = ""
            app._missed({"type": "missed", "since": 6, "resync": False,
                         "records": RECORDS[3:]})  # another seat's stand-in: nothing to say
            said.append(app.cursor.message)
            app._missed({"type": "missed", "since": 0, "resync": True, "records": []})
            await settled(lambda: app.cursor.message, "the stand-in's moves counted")
            said.append(app.cursor.message)
            assert seat.asked == [0]
        return said

    assert run_async(run(), timeout=30) == [
        "While you were away, a stand-in played for you (2 moves).",
        "While you were away, a stand-in made a move for you.",
        "",
        "While you were away, a stand-in played for you (2 moves).",
    ]


def at_turn(seat: Any) -> PlayApp:
    """The app of ``seat`` at its turn to play (version 4, one legal card)."""
    seat.view = {"seat": 1, "phase": "playing", "turn": 1, "legal": ["QH"], "version": 4}
    return PlayApp(seat)


def test_the_turn_limit_is_counted_down_and_a_stand_in_told() -> None:
    """The server's ``turn_limit`` frame for the seat's turn shows in the status line (fewer
    than 20 s left); the next view, the time having run out with nothing sent, makes the app
    ask ``/events`` and say that the seat's stand-in made the move."""

    async def run() -> None:
        with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
            seat = Seat()
            app = at_turn(seat)
            app._frame({"type": "turn_limit", "version": 4, "seat": 1, "left_ms": 12_000,
                        "limit_s": 90, "grace": False})
            assert app._limit_left(seat.view) in (11, 12)
            assert app._limit_left({**seat.view, "version": 5}) is None  # another turn's
            app._frame({"type": "turn_limit", "version": 4, "seat": 1, "left_ms": 0,
                        "limit_s": 90, "grace": False})
            assert app._limit_left(seat.view) is None  # (time is up: nothing to count)
            app._changed({"seat": 1, "phase": "playing", "turn": 2, "legal": [],
                          "version": 5})
            await settled(lambda: app.cursor.message, "the stand-in's move told")
            assert seat.asked == [4]
            assert app.cursor.message == "Your time was up: a stand-in made a move for you."

    run_async(run())


def test_plus_asks_for_more_time_once_a_turn() -> None:
    """``+`` while the countdown shows sends ``more_time`` once for the turn; the extended
    ``turn_limit`` that answers it is told, and so is a refusal (an error frame)."""

    class Asking(Seat):
        def __init__(self) -> None:
            super().__init__()
            self.sent: list[dict[str, Any]] = []

        async def send(self, body: dict[str, Any]) -> None:
            self.sent.append(body)

    async def run() -> None:
        with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
            seat = Asking()
            app = at_turn(seat)
            app._ask_more_time()  # no countdown yet: nothing to ask
            assert seat.sent == []
            limit = {"type": "turn_limit", "version": 4, "seat": 1, "left_ms": 12_000,
                     "limit_s": 90, "grace": True, "extended": False}
            app._frame(limit)
            app._ask_more_time()
            app._ask_more_time()  # once a turn
            await settled(lambda: seat.sent, "more_time sent")
            assert seat.sent == [{"type": "more_time"}]
            assert app.cursor.message == "Asking for more time…"
            app._frame({**limit, "left_ms": 90_000, "grace": False, "extended": True})
            assert app.cursor.message == "You have more time: 90 s."
            assert app._limit_left(seat.view) is None  # 90 s: no countdown to show
            seat.view = {**seat.view, "version": 6}  # the next turn: asked, and refused
            app._frame({**limit, "version": 6})
            app._ask_more_time()
            assert app.cursor.message == "Asking for more time…"
            await settled(lambda: len(seat.sent) == 2, "the second more_time sent")
            app._frame({"type": "error", "code": "wrong_phase", "id": None,
                        "message": "the turn's time is up"})
            assert app.cursor.message == "No more time: the turn's time is up."
            assert seat.sent == [{"type": "more_time"}] * 2

    run_async(run())


class Asking(Seat):
    """A seat that records what the app sends over its socket, and the decisions it makes."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[dict[str, Any]] = []
        self.decided: list[Any] = []
        self.connected = True

    async def send(self, body: dict[str, Any]) -> None:
        self.sent.append(body)

    async def decide(self, choice: Any, view: dict[str, Any]) -> None:
        self.decided.append(choice)


def test_after_plus_the_turn_offers_no_more_time_and_a_second_plus_is_answered() -> None:
    """QA L3: after ``+`` the prompt still said "+ asks for more time." (once a turn), a second
    ``+`` did nothing visible, and "You have more time: 24 s." stayed on screen under the
    countdown shown again.  Now the hint goes once the turn had its more time, a second ``+``
    says so, and the message goes when the countdown comes back."""
    from hokmplay.screen import status

    def hint(app: PlayApp, view: dict[str, Any]) -> bool:
        app._text()  # the app's state as drawn
        return any("+ asks for more time" in text
                   for line in status(view, app.cursor) for _, text in line)

    async def run() -> None:
        with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
            seat = Asking()
            seat.view = {"match_id": "m", "players": 4, "seat": 1, "phase": "playing", "turn": 1,
                         "legal": ["QH"], "version": 4,
                         "seats": [{"name": f"P{s}", "bot": None, "connected": True,
                                    "empty": False} for s in range(4)]}
            app = PlayApp(seat)  # type: ignore[arg-type]
            limit = {"type": "turn_limit", "version": 4, "seat": 1, "left_ms": 12_000,
                     "limit_s": 25, "grace": False, "extended": False}
            app._frame(limit)
            assert hint(app, seat.view)
            app._ask_more_time()
            await settled(lambda: seat.sent, "more_time sent")
            assert not hint(app, seat.view)  # asked: not offered again this turn
            app._frame({**limit, "left_ms": 24_000, "extended": True})
            app._text()
            assert app.cursor.message == "You have more time: 24 s."
            app._frame({**limit, "left_ms": 15_000, "extended": True})  # counting down again
            assert not hint(app, seat.view)
            app._text()
            assert "more time: 24 s" not in app.cursor.message
            app._ask_more_time()  # a second +: said, and nothing sent
            assert app.cursor.message == "You had more time for this turn already."
            assert seat.sent == [{"type": "more_time"}]
            # the next turn offers it again (a page that saw only the extended frame, too)
            seat.view = {**seat.view, "version": 8}
            app._frame({**limit, "version": 8})
            assert hint(app, seat.view)

    run_async(run())


def test_the_stand_ins_move_is_named_and_cleared_when_the_player_acts() -> None:
    """QA L3: the stand-in's trump was told as "made a move for you" (the browser names the
    suit), and the line stayed into the next decisions.  Now the trump (or the card) is named,
    and the line goes once the player acts."""
    trump = [{"version": 5, "actor": 1, "stand_in": True,
              "events": [{"type": "trump_chosen", "suit": "S"}]}]
    card = [{"version": 9, "actor": 1, "stand_in": True,
             "events": [{"type": "card_played", "seat": 1, "card": "TD"}]}]

    class Told(Asking):
        records: list[dict[str, Any]] = trump

        async def events(self, since: int = 0) -> dict[str, Any]:
            return {"version": since + 1, "events": self.records}

    async def run() -> list[str]:
        said = []
        with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
            seat = Told()
            seat.view = {"seat": 1, "phase": "choosing_trump", "turn": 1, "legal": ["S"],
                         "version": 4}
            app = PlayApp(seat)  # type: ignore[arg-type]
            app._frame({"type": "turn_limit", "version": 4, "seat": 1, "left_ms": 0})
            seat.view = {"seat": 1, "phase": "discarding", "turn": 1, "legal": ["QH", "2C"],
                         "version": 5, "talon": {"discard": 1}}
            app._changed(seat.view)
            await settled(lambda: app.cursor.message, "the stand-in's trump told")
            said.append(app.cursor.message)
            app.cursor.marked = ["QH"]
            app._submit()  # the player acts: the line goes
            await settled(lambda: seat.decided, "the discard sent")
            said.append(app.cursor.message)
            seat.records = card
            seat.view = {"seat": 1, "phase": "playing", "turn": 1, "legal": ["TD"],
                         "version": 8}
            app._frame({"type": "turn_limit", "version": 8, "seat": 1, "left_ms": 0})
            seat.view = {"seat": 1, "phase": "playing", "turn": 2, "legal": [], "version": 9}
            app._changed(seat.view)
            await settled(lambda: app.cursor.message, "the stand-in's card told")
            said.append(app.cursor.message)
            seat.view = {"seat": 1, "phase": "playing", "turn": 1, "legal": ["QH"],
                         "version": 12}
            app._changed(seat.view)  # the player's next turn starts: the line goes
            said.append(app.cursor.message)
        return said

    assert run_async(run(), timeout=30) == [
        "Your time was up: a stand-in chose ♠ spades as trump for you.", "",
        "Your time was up: a stand-in played 10♦ for you.", ""]


def test_a_hurried_turns_countdown_says_why_it_is_short(monkeypatch: Any) -> None:
    """A ``turn_limit`` with ``grace`` (the seat's last turn ran out and a stand-in played it:
    its turns get the grace, api.md) makes the countdown say why it is short (QA: the next
    turn's countdown started at a few seconds, read as a broken clock); the room's full
    limit, or more time given, says nothing more."""

    monkeypatch.setattr("hokmplay.app.render", lambda *args: [])  # (a partial view here)

    def line(app: PlayApp) -> str:
        app._text()  # (the countdown's seconds are set as the screen is drawn)
        return "".join(text for row in status(app.seat.view, app.cursor) for _, text in row)

    async def run() -> None:
        with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
            seat = Seat()
            seat.connected = True
            app = at_turn(seat)
            app._frame({"type": "turn_limit", "version": 4, "seat": 1, "left_ms": 14_000,
                        "limit_s": 15.0, "grace": True, "extended": False})
            shown = line(app)
            assert re.search(r"a stand-in plays in 1[34] s \(your last turn ran out: "
                             r"15 s a turn until you play\)", shown), shown
            app._frame({"type": "turn_limit", "version": 4, "seat": 1, "left_ms": 14_000,
                        "limit_s": 90.0, "grace": False, "extended": True})
            shown = line(app)
            assert "stand-in plays in" in shown and "ran out" not in shown, shown
            app._frame({"type": "turn_limit", "version": 4, "seat": 1, "left_ms": 14_000,
                        "limit_s": 90, "grace": False})
            assert "ran out" not in line(app)

    run_async(run())
