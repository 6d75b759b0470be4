"""``hokm play`` without a terminal (``--bot`` or ``--spectate`` with output to a pipe or a
file): one line per trick, per round and for the match's end, from the views the seat receives.

Contract: like the screen, every line is made from a view the server sent (nothing hidden);
it returns when the match is over, with exit status 0.
"""

from __future__ import annotations

import sys
from typing import IO, Any

from hokmclient import ApiError, AsyncSeat, card_text, my_turn, over
from hokmclient.cards import SUIT_SYMBOL

from .bot import LocalBot
from .screen import dashed, final_score, per_side, result_text, seat_name, team_name


def _trick(view: dict[str, Any], cards: list[dict[str, Any]]) -> str:
    return ", ".join(f"{seat_name(view, c['seat'])} {card_text(c['card'])}" for c in cards)


class Printer:
    """Says what changed between two views, one line per event worth a line."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self.last_trick: Any = None
        self.result: Any = None
        self.round = 0

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def show(self, view: dict[str, Any]) -> None:
        if view.get("round", 0) != self.round and view.get("trump"):
            self.round = view["round"]
            self.say(f"Round {self.round}: Hakem {seat_name(view, view.get('hakem'))}, trump "
                     f"{SUIT_SYMBOL[view['trump']]}")
        last = view.get("last_trick")
        if last and last != self.last_trick:
            self.last_trick = last
            self.say(f"  trick: {_trick(view, last['cards'])} -> "
                     f"{seat_name(view, last['winner'])} (tricks {dashed(view['tricks'])})")
        if view.get("result") and view["result"] != self.result:
            self.result = view["result"]
            self.say(f"{result_text(view)}; score {per_side(view, 'score')}")
        if over(view):
            winner = int(view.get("winner") or 0)
            self.say(f"Match over: {team_name(view, winner)} won, "
                     f"{final_score(view, winner)}.")  # the winner's points first


async def run_lines(seat: AsyncSeat, bot: LocalBot | None, out: IO[str] = sys.stdout) -> int:
    """Follow (and with ``bot``, play) the match to its end, printing lines."""
    printer = Printer(out)
    first = await seat.start()
    who = "spectating" if first.get("seat") is None else f"seat {first['seat']}"
    printer.say(f"hokm play: {who} in match {seat.match_id} on {seat.client.base}"
                + (f", played by the local {bot.level} bot" if bot else ""))
    async for view in seat.views():
        printer.show(view)
        if bot is not None and my_turn(view):
            choice = await bot.choose(seat, view)
            try:
                printer.show(await seat.decide(choice, view))
            except ApiError as error:
                if error.code not in ("stale_version", "not_your_turn", "wrong_phase"):
                    raise
    return 0
