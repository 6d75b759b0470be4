"""``hokm play`` without a terminal (``--bot`` or ``--spectate`` with output to a pipe or a
file): one line per trick, per round and for the match's end.

Contract: the lines tell the match from the first view the seat receives to the end, each
thing once and in the order it happened: the draw for the first Hakem (if the first view is
before the first round's first trick), a round's header when its trump is named, every
trick (with the running trick counts), the round's result (with the score) right after its
last trick, in a match of two sets (target ``"2x7"``) a line for each set won right after the
result of the round that won it (with the sets won), then one "Match over" line, the last.
They are made from the seat's records (``GET /events`` with its token: redacted for the seat,
or public for a spectator) and the views the server sent, so nothing hidden can appear.  The
records, not the views, are the story: the seat keeps only the newest view, and several records
may happen between two views a slow reader gets, so a printer that compared views lost tricks
and results and printed some twice.  It returns when the match is over, with exit status 0.
"""

from __future__ import annotations

import sys
from typing import IO, Any

from hokmclient import ApiError, AsyncSeat, card_text, my_turn, over
from hokmclient.cards import SUIT_SYMBOL

from .bot import LocalBot
from .lost import seat_lost
from .records import SeatRecords
from .screen import (dashed, draw_text, final_score, final_sets, first_round_untouched,
                     per_side, result_text, seat_name, side_of, sides, team_subject)

View = dict[str, Any]
Event = dict[str, Any]
PASSING = frozenset({"network", "rate_limited", "unavailable"})
"""Failures to read the records that the next view's read makes good (the records stay on the
server)."""


def _cards(view: View, cards: list[dict[str, Any]]) -> str:
    return ", ".join(f"{seat_name(view, c['seat'])} {card_text(c['card'])}" for c in cards)


def _zeros(view: View) -> list[int]:
    """A count of zero for every side."""
    return [0] * len(sides(view))


def _set_points(view: View) -> int | None:
    """The points that win a set when the match is played in sets (target ``"2x7"``: the
    view's ``sets`` is then a list and its ``target`` the points of a set), else None."""
    if view.get("sets") is None:
        return None
    return int(view.get("target") or 7)


def _key(view: View) -> tuple[Any, ...]:
    """What changes in a view when something worth a line may have happened (a deal, trump, a
    trick, a result, the end): a view with the same key calls for no read of the records."""
    return (view.get("round"), view.get("trump"), view.get("last_trick"), view.get("result"),
            view.get("phase"))


class Printer:
    """Tells the match line by line from its records.

    :meth:`begin` takes the first view (what it shows of the round so far is said, and the
    running counts start from it); :meth:`follow` is given every later view and reads the
    records after the last one told when the view shows something new.  Each record is told
    once, in version order, whatever views arrive."""

    def __init__(self, out: IO[str], records: SeatRecords | None = None) -> None:
        self.out = out
        self.records = records
        """The seat's records, shared with a local bot (``--bot``); else the printer's own,
        from the first view on."""
        self.view: View = {}
        """The newest view: how seats and sides are named."""
        self.since = 0
        """The version of the last record told (or of the first view)."""
        self.key: tuple[Any, ...] | None = None
        self.round = 0
        self.hakem: int | None = None
        self.trick: list[dict[str, Any]] = []
        self.tricks: list[int] = []
        self.score: list[int] = []
        self.sets: list[int] = []
        """The sets won by side (target ``"2x7"``; else zeros, never told)."""

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    # -- the views -------------------------------------------------------------------------

    def begin(self, view: View) -> None:
        """Start from ``view``: say its round's header (once trump is named), its last trick,
        its result (while the round is over) or the match's end, and count on from it."""
        self.view, self.since, self.key = view, int(view["version"]), _key(view)
        if self.records is None:
            self.records = SeatRecords(self.since)
        self.round, self.hakem = int(view.get("round") or 0), view.get("hakem")
        self.trick = list(view.get("trick") or [])
        self.tricks = list(view.get("tricks") or _zeros(view))
        self.score = list(view.get("score") or _zeros(view))
        self.sets = list(view.get("sets") or _zeros(view))
        if first_round_untouched(view):  # (a draw after this view is told by its record)
            self.say(draw_text(view) or "")
        if view.get("trump"):
            self._header(view["trump"])
        last = view.get("last_trick")
        if last:
            self._trick_line(last["cards"], last["winner"])
        if view.get("result") and view.get("phase") in ("round_over", "match_over"):
            self.say(f"{result_text(view)}; score {per_side(view, 'score')}")
            winner = view["result"].get("winner")
            per_set = _set_points(view)
            if per_set is not None and winner is not None \
                    and self.score[int(winner)] >= per_set:  # (this round won a set)
                self._set_line(int(winner))
        if over(view):
            self._over(int(view.get("winner") or 0), self.score)

    async def follow(self, seat: AsyncSeat, view: View) -> None:
        """Take ``view`` (a later one than :meth:`begin`'s) and, if it shows something new,
        tell the records the seat has not told yet.  A passing failure to read them is left to
        the next view, except the last one (the match over), whose read must succeed."""
        if int(view["version"]) >= int(self.view.get("version", -1)):
            self.view = view
        if int(view["version"]) <= self.since or (_key(view) == self.key and not over(view)):
            return
        records = self.records
        assert records is not None, "begin() first"
        if records.since < int(view["version"]):  # (a local bot may have read them)
            try:
                await records.fetch(seat)
            except ApiError as error:
                if over(view) or error.code not in PASSING:
                    raise
                return
        self.key = _key(view)
        for record in records.after(self.since):  # (never twice)
            for event in record["events"]:
                self.tell(event)
            self.since = int(record["version"])

    # -- the records -----------------------------------------------------------------------

    def tell(self, event: Event) -> None:
        """Count ``event`` in, and say the line it calls for, if any."""
        kind = event.get("type")
        if kind == "round_started":
            self._deal(event)
        elif kind == "trump_chosen":
            self._header(event["suit"])
        elif kind == "card_played":
            self.trick.append({"seat": event["seat"], "card": event["card"]})
        elif kind == "trick_won":
            seat = int(event["seat"])
            # banked: the tricks that count now (double_sar keeps a pile: 0, then several)
            self.tricks[side_of(self.view, seat)] += int(event.get("banked", 1))
            self._trick_line(self.trick, seat)
            self.trick = []
        elif kind == "round_ended":
            self._round_ended(event)
        elif kind == "set_won":
            self.sets[int(event["winner"])] += 1
            self._set_line(int(event["winner"]))
        elif kind == "match_ended":
            self._over(int(event["winner"]), list(event["score"]))
        elif kind == "hakem_drawn":
            # (the newest view is at least this record's: it carries the draw)
            self.say(draw_text({**self.view, "draw": [
                {"seat": seat, "card": code} for seat, code in event["draw"]]}) or "")

    def _deal(self, event: Event) -> None:
        self.round, self.hakem = int(event["round"]), event["hakem"]
        self.trick, self.tricks = [], _zeros(self.view)
        per_set = _set_points(self.view)
        if per_set is not None and max(self.score, default=0) >= per_set:
            self.score = _zeros(self.view)  # a set was won: the points start again (the engine)

    def _header(self, suit: str) -> None:
        self.say(f"Round {self.round}: Hakem {seat_name(self.view, self.hakem)}, trump "
                 f"{SUIT_SYMBOL[suit]}")

    def _trick_line(self, cards: list[dict[str, Any]], winner: int) -> None:
        self.say(f"  trick: {_cards(self.view, cards)} -> {seat_name(self.view, winner)} "
                 f"(tricks {dashed(self.tricks)})")

    def _round_ended(self, event: Event) -> None:
        winner = event.get("winner")
        if winner is not None:
            self.score[int(winner)] += int(event["points"])
        # the screen's wording, from the view as it stood at the end of this round
        at = {**self.view, "round": self.round, "phase": "round_over", "score": self.score,
              "result": {"winner": winner, "points": event["points"], "kind": event["kind"],
                         "tricks": list(event["tricks"])}}
        self.say(f"{result_text(at)}; score {per_side(at, 'score')}")

    def _set_line(self, winner: int) -> None:
        """A set won (target ``"2x7"``): its number, its winner and the sets won by side (the
        round's result line before it gave the set's points)."""
        at = {**self.view, "sets": self.sets}
        self.say(f"Set {sum(self.sets)}: {team_subject(at, winner)} won the set; sets "
                 f"{per_side(at, 'sets')}")

    def _over(self, winner: int, score: list[int]) -> None:
        at = {**self.view, "score": score, "sets": self.sets}
        told = final_score(at, winner)  # the winner's points first
        if _set_points(self.view) is not None:  # (the sets decide: the points are the last set's)
            told = f"sets {final_sets(at, winner)} (the last set {told})"
        self.say(f"Match over: {team_subject(at, winner)} won, {told}.")


async def run_lines(seat: AsyncSeat, bot: LocalBot | None, out: IO[str] = sys.stdout) -> int:
    """Follow (and with ``bot``, play) the match to its end, printing lines."""
    printer = Printer(out, bot.records if bot is not None else None)
    first = await seat.start()
    who = "spectating" if first.get("seat") is None else f"seat {first['seat']}"
    printer.say(f"hokm play: {who} in match {seat.match_id} on {seat.client.base}"
                + (f", played by the local {bot.level} bot" if bot else ""))
    printer.begin(first)
    last = first.get("seat")
    while True:
        try:
            async for view in seat.views():
                if view.get("seat") is not None:
                    last = view["seat"]  # (the ace draw may move a seat)
                elif seat.token is not None and last is not None:
                    bot = None  # the seat was given up elsewhere: said, and watched on
                    printer.say(f"hokm play: {await seat_lost(seat, last)}")
                try:
                    await printer.follow(seat, view)
                except ApiError as error:
                    # the token left its seat between this view and the read of its records:
                    # the view that says so follows, and the records are read again then
                    if error.code != "bad_token" or seat.token is None or last is None:
                        raise
                    continue
                if bot is not None and my_turn(view):
                    try:
                        choice = await bot.choose(seat, view)
                        answer = await seat.decide(choice, view)
                    except ApiError as error:
                        if error.code not in ("stale_version", "not_your_turn", "wrong_phase",
                                              "bad_token"):  # (bad_token: the seat given up)
                            raise
                        continue
                    await printer.follow(seat, answer)
            return 0
        except ApiError as error:
            # the socket refused the token (4401) once the seat was shown: it reconnected
            # after the seat was given up elsewhere, and never saw the view without it
            if error.code != "bad_token" or seat.token is None or last is None:
                raise
            bot = None
            printer.say(f"hokm play: {await seat_lost(seat, last)}")
