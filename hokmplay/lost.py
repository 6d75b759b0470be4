"""A seat given up elsewhere: its token left the seat in another client (the browser's "Leave
the table", another ``hokm play``), and the views of this one show no seat any more.  Both ways
of ``hokm play`` (the table, the lines) say so as the browser does (table.js ``seatLost``) and
watch the match on, the token (which no longer works) dropped."""

from __future__ import annotations

import contextlib

from hokmclient import ApiError, AsyncSeat

SEAT_TO_BOT = ("You left the table in another tab or on another device: a computer player has "
               "your seat. You are watching the match.")
"""A bot has the seat: the browser's words (``leave.elsewhere``)."""
SEAT_OPEN = ("Your seat was given up in another tab or on another device: it is open now. You "
             "are watching the match (hokm play {link} takes a seat again).")
"""The seat was left empty (the browser then offers its join page)."""


async def seat_lost(seat: AsyncSeat, last: int | None) -> str:
    """Drop the seat's token (the socket goes on as a spectator's: :meth:`AsyncSeat.watch_on`)
    and say what became of seat ``last`` (the one the token held), in a line."""
    seat.watch_on()
    bot = False
    with contextlib.suppress(ApiError):
        seats = (await seat.client.summary(seat.match_id)).get("seats") or []
        bot = last is not None and last < len(seats) and bool(seats[last].get("bot"))
    return SEAT_TO_BOT if bot else SEAT_OPEN.format(link=f"{seat.client.base}/m/{seat.match_id}")
