"""A seat's records (``GET /events`` with its token), read once and in order, shared by the
printer of ``hokm play`` without a terminal and a local bot (``--bot``): each reads what it
needs through one ``SeatRecords``, so no record is fetched twice."""

from __future__ import annotations

from typing import Any

from hokmclient import AsyncSeat

Record = dict[str, Any]


class SeatRecords:
    """The records from ``start + 1`` to ``since``, in version order."""

    def __init__(self, start: int = 0) -> None:
        self.start = start
        self.since = start
        """The version of the newest record held (``start`` while none is)."""
        self.held: list[Record] = []

    async def fetch(self, seat: AsyncSeat) -> None:
        """Read the records after the newest one held (ApiError as the library raises it)."""
        for record in (await seat.events(self.since))["events"]:
            if int(record["version"]) == self.since + 1:  # (in order, never twice)
                self.held.append(record)
                self.since += 1

    def after(self, version: int) -> list[Record]:
        """The records held after ``version``."""
        skip = max(version - self.start, 0)
        return self.held[skip:]

    def events_upto(self, version: int) -> list[dict[str, Any]]:
        """The events of the records held up to ``version`` (from ``start``), in order."""
        return [event for record in self.held[:max(version - self.start, 0)]
                for event in record["events"]]
