"""``hokm play`` back after a lost connection: the socket's ``missed`` records say which moves
a stand-in made for the seat, and the table says how many (too far behind for the socket to
send them, it asks ``/events``).  The app is driven without a terminal (prompt_toolkit's pipe
input and dummy output); the seat is a stand-in object with the view and the events."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from hokmplay.app import PlayApp
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


def test_the_turn_limit_is_counted_down_and_a_stand_in_told() -> None:
    """The server's ``turn_limit`` frame for the seat's turn shows in the status line (fewer
    than 20 s left); the next view, the time having run out with nothing sent, makes the app
    ask ``/events`` and say that the seat's stand-in made the move."""

    async def run() -> None:
        with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
            seat = Seat()
            seat.view = {"seat": 1, "phase": "playing", "turn": 1, "legal": ["QH"],
                         "version": 4}
            app = PlayApp(seat)  # type: ignore[arg-type]
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
            seat.view = {"seat": 1, "phase": "playing", "turn": 1, "legal": ["QH"],
                         "version": 4}
            app = PlayApp(seat)  # type: ignore[arg-type]
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
