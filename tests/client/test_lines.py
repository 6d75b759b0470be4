"""``hokm play --bot`` without a terminal tells the whole match, in order: one line per trick
(with the running trick counts), one result line per round right after its last trick (in a
match of two sets, a line per set won right after it), and one "Match over" line, last.  The
oracle is the match's true history, read from the public ``GET /events`` once the match is over,
never from the printer's own code.

The first tests run the command (a solo match of each game); the last ones give the printer
(``run_lines``) a seat whose views skip almost everything, as a slow consumer's do: the lines
must not depend on which views arrive."""

from __future__ import annotations

import io
import re
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from hokmclient import Client, LocalServer, card_text
from hokmclient.cards import SUIT_SYMBOL
from hokmplay.lines import run_lines
from tests.conftest import run_async
from tests.hokm_command import run

Line = tuple[Any, ...]
"""A printed line as data: ("draw", cards, hakem), ("round", n, hakem, suit), ("trick", cards,
winner, counts), ("result", n, counts, scores), ("set", n, winner, sets), ("over", winner,
points) (in sets: ("over", winner, points of the last set, sets)) or ("other", text)."""

GAMES = {"four": [], "two": ["--players", "2"], "talon": ["--game", "talon"],
         "three": ["--players", "3"],
         # tricks piled (a trick may count 0, then several) and the score reset after a set
         "sets": ["--rules", '{"double_sar": true, "target": "2x7"}']}


def parse(line: str) -> Line:
    """What a printed line says (the wording of ``hokmplay.lines``, read back)."""
    if found := re.fullmatch(r"(?:Ace|High-card) draw \([^)]*\): (.+) -> Hakem (.+)", line):
        return ("draw", found[1], found[2])
    if found := re.fullmatch(r"Round (\d+): Hakem (.+), trump (\S)", line):
        return ("round", int(found[1]), found[2], found[3])
    if found := re.fullmatch(r"  trick: (.+) -> (.+) \(tricks ([\d-]+)\)", line):
        return ("trick", found[1], found[2], found[3])
    # (tricks: "7-3" the winner's first with two sides, else every side named as the score)
    if found := re.fullmatch(r"Round (\d+): .* \(tricks ([^()]+)\); score (.+)", line):
        scores = tuple(int(n) for n in re.findall(r" (\d+)(?= · |$)", " " + found[3]))
        return ("result", int(found[1]), found[2], scores)
    if found := re.fullmatch(r"Set (\d+): (.+) won the set; sets (.+)", line):
        return ("set", int(found[1]), found[2],
                tuple(int(n) for n in re.findall(r" (\d+)(?= · |$)", " " + found[3])))
    # (a match of two sets: the sets, then the last set's points, the winner's first)
    if found := re.fullmatch(
            r"Match over: (.+) won, sets (\d+)-(\d+) \(the last set (\d+)-(\d+)\)\.", line):
        return ("over", found[1], (int(found[4]), int(found[5])), (int(found[2]), int(found[3])))
    if found := re.fullmatch(r"Match over: (.+) won, (\d+)-(\d+)\.", line):
        return ("over", found[1], (int(found[2]), int(found[3])))
    if found := re.fullmatch(r"Match over: (.+) won, (.+ \d+)\.", line):  # (three sides)
        return ("over", found[1], found[2])
    return ("other", line)


@dataclass
class Story:
    """The lines a match's records call for, from a starting point (a view's round, trick
    counts, score and open trick)."""

    name: Callable[[int], str]
    """How a seat is named (its player's name, or "you")."""
    team: Callable[[int], str]
    """How a side is named in the "Match over" line."""
    sides: list[list[int]]
    round: int = 0
    hakem: int = 0
    counts: list[int] = field(default_factory=list)
    score: list[int] = field(default_factory=list)
    trick: list[str] = field(default_factory=list)
    lines: list[Line] = field(default_factory=list)
    sets: list[int] = field(default_factory=list)
    """The sets won by side (target "2x7")."""
    set_won: bool = False
    first: int | None = None
    """The side whose score is told first (the played seat's), else None: in side order."""

    def side(self, seat: int) -> int:
        return next(i for i, side in enumerate(self.sides) if seat in side)

    def tell(self, records: list[dict[str, Any]]) -> list[Line]:
        for record in records:
            for event in record["events"]:
                self.event(event)
        return self.lines

    def event(self, e: dict[str, Any]) -> None:
        kind = e["type"]
        if kind == "hakem_drawn":
            # the cards by who turned them: a swap (four players) moved two of them since
            moved = dict([tuple(e["swap"]), tuple(reversed(e["swap"]))] if e["swap"] else [])
            self.lines.append(("draw", ", ".join(
                f"{self.name(moved.get(seat, seat))} {card_text(code)}"
                for seat, code in e["draw"]), self.name(e["hakem"])))
        elif kind == "round_started":
            self.round, self.hakem = e["round"], e["hakem"]
            self.counts, self.trick = [0] * len(self.sides), []
            if self.set_won:  # (target "2x7") the points start again with the next deal
                self.score, self.set_won = [0] * len(self.sides), False
        elif kind == "set_won":  # told right after the round's result, with the sets won
            self.set_won = True
            self.sets[e["winner"]] += 1
            self.lines.append(("set", sum(self.sets), self.team(e["winner"]),
                               tuple(self.sets[i] for i in self.order())))
        elif kind == "trump_chosen":
            self.lines.append(("round", self.round, self.name(self.hakem),
                               SUIT_SYMBOL[e["suit"]]))
        elif kind == "card_played":
            self.trick.append(f"{self.name(e['seat'])} {card_text(e['card'])}")
        elif kind == "trick_won":
            self.counts[self.side(e["seat"])] += e["banked"]
            self.lines.append(("trick", ", ".join(self.trick), self.name(e["seat"]),
                               "-".join(map(str, self.counts))))
            self.trick = []
        elif kind == "round_ended":
            if e["winner"] is not None:
                self.score[e["winner"]] += e["points"]
            tricks = list(e["tricks"])
            order = self.order()
            if len(self.sides) > 2:  # every side named, in the order of the score (QA:
                # "tricks 7-1-6", the winner's first and the others unnamed)
                counts = self.named(tricks)
            else:
                if e["winner"] is not None:  # the winner's first (the finding: in side order)
                    won = e["winner"]
                    tricks = [tricks[won], *(t for i, t in enumerate(tricks) if i != won)]
                counts = "-".join(map(str, tricks))
            self.lines.append(("result", self.round, counts,
                               tuple(self.score[i] for i in order)))
        elif kind == "match_ended":
            won = e["winner"]
            over: Line = ("over", self.team(won), self.named(e["score"])
                          if len(self.sides) > 2 else (e["score"][won], e["score"][1 - won]))
            if any(self.sets):  # (target "2x7": the sets too, the winner's first; the finding:
                # "they won, 7-2" gave the last set's points alone)
                over += ((self.sets[won], self.sets[1 - won]),)
            self.lines.append(over)

    def order(self) -> list[int]:
        """The sides in the order the lines tell them: the played seat's first."""
        first = [] if self.first is None else [self.first]
        return first + [i for i in range(len(self.sides)) if i not in first]

    def named(self, values: list[int]) -> str:
        """Each side's value after its player's name (sides of one seat), in ``order``."""
        return " · ".join(f"{self.name(self.sides[i][0])} {values[i]}" for i in self.order())


def history(client: Client, match_id: str) -> list[dict[str, Any]]:
    """Every record of a finished match (public)."""
    answer = client.events(match_id, 0)
    assert answer["events"][-1]["version"] == answer["version"]
    return list(answer["events"])


@dataclass
class Played:
    """A solo match played to its end by ``hokm play --bot easy`` (in ``seat``: the ace draw
    may have moved the creator away from seat 0)."""

    game: str
    match_id: str
    seat: int
    lines: list[str]
    summary: dict[str, Any]
    sides: list[list[int]]
    records: list[dict[str, Any]]


@pytest.fixture(scope="module", params=list(GAMES))
def played(server: LocalServer, request: pytest.FixtureRequest) -> Played:
    done = run("play", server.url, "--bot", "easy", "--level", "easy", "--name", "Solo",
               *GAMES[request.param], timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    found = re.match(r"hokm play: seat (\d) in match (\w+) on ", lines[0])
    assert found, lines[:1]
    seat, match_id = int(found[1]), found[2]
    client = Client(server.url)
    summary = client.summary(match_id)
    assert summary["phase"] == "match_over" and summary["seats"][seat]["name"] == "Solo"
    sides = client.replay(match_id, summary["version"])["view"]["sides"]
    return Played(request.param, match_id, seat, lines, summary, sides,
                  history(client, match_id))


def seat_story(played: Played) -> Story:
    """The story as the played seat tells it: "you", the others by name; "we" / "they" with
    partners."""
    names = [s["name"] for s in played.summary["seats"]]
    sides = played.sides

    def name(seat: int) -> str:
        return "you" if seat == played.seat else names[seat]

    def team(side: int) -> str:
        if len(sides[side]) > 1:
            return "we" if played.seat in sides[side] else "they"  # (subjects)
        return name(sides[side][0])

    return Story(name, team, sides, score=[0] * len(sides), sets=[0] * len(sides),
                 first=next(i for i, side in enumerate(sides) if played.seat in side))


def test_hokm_play_without_a_terminal_prints_every_trick_and_round_once_in_order(
        played: Played) -> None:
    """Every trick of every round once, in order, with the running counts of the history; one
    result line (with the score) right after each round's last trick; exactly one "Match over"
    line, the last (two-player games printed it twice; four-player ones lost tricks, results,
    and printed a round's header before the previous round's result)."""
    printed = [parse(line) for line in played.lines[1:]]
    expected = seat_story(played).tell(played.records)
    assert [line for line in printed if line[0] == "other"] == []
    assert sum(1 for line in expected if line[0] == "trick") >= 13
    if played.game == "sets":  # a set line each (the finding: nothing said a set was won)
        assert sum(1 for line in expected if line[0] == "set") >= 2
    assert printed == expected


def test_hokm_play_without_a_terminal_ends_with_the_matchs_winner_and_score(
        played: Played) -> None:
    won, score = played.summary["winner"], played.summary["score"]
    last = parse(played.lines[-1])
    assert last[0] == "over"
    if played.summary["sets"] is not None:  # the sets decide a match of two sets
        sets = played.summary["sets"]
        assert last[3:] == ((sets[won], sets[1 - won]),) and sets[won] == 2
    else:
        assert len(last) == 3
    if len(score) == 2:
        assert last[2] == (score[won], score[1 - won])
    else:  # every side named, the seat's own first
        names = ["you" if i == played.seat else s["name"]
                 for i, s in enumerate(played.summary["seats"])]
        assert last[2] == " · ".join(f"{names[s]} {score[s]}" for s in
                                     sorted(range(3), key=lambda s: s != played.seat))
    assert sum(1 for line in played.lines if line.startswith("Match over")) == 1


# -- the printer given a seat whose views skip most records ------------------------------------


class SkippingSeat:
    """A spectator's seat that receives only the views at ``steps`` (read from the public
    replay of a finished match) and answers ``events`` from the match's records: what a
    consumer much slower than the match sees.  The same duck type as ``AsyncSeat`` for
    ``run_lines`` without a bot."""

    def __init__(self, client: Client, match_id: str, steps: list[int]) -> None:
        self.match_id = match_id
        self.client = client
        self.token = None
        self.shown = [client.replay(match_id, step)["view"] for step in steps]
        self.records = history(client, match_id)
        self.asked: list[int] = []

    async def start(self) -> dict[str, Any]:
        return self.shown[0]

    async def views(self) -> AsyncIterator[dict[str, Any]]:
        for view in self.shown:
            yield view

    async def events(self, since: int = 0) -> dict[str, Any]:
        self.asked.append(since)
        return {"version": self.records[-1]["version"],
                "events": [r for r in self.records if r["version"] > since]}


def spectator_story(summary: dict[str, Any], view: dict[str, Any]) -> Story:
    """The story a spectator is told, from ``view`` on (its counts, score and open trick)."""
    names = [s["name"] for s in summary["seats"]]
    sides = [list(side) for side in view["sides"]]

    def team(side: int) -> str:
        seats = sides[side]
        return (f"team {side} (seats {', '.join(map(str, seats))})" if len(seats) > 1
                else names[seats[0]])

    return Story(names.__getitem__, team, sides, round=view["round"],
                 hakem=view["hakem"] if view["hakem"] is not None else 0,
                 counts=list(view["tricks"]), score=list(view["score"]),
                 sets=list(view["sets"] or [0] * len(sides)),
                 trick=[f"{names[c['seat']]} {card_text(c['card'])}" for c in view["trick"]])


def told(seat: SkippingSeat) -> list[str]:
    out = io.StringIO()
    assert run_async(run_lines(seat, None, out)) == 0  # type: ignore[arg-type]
    return out.getvalue().splitlines()


def test_the_printer_tells_everything_from_the_first_and_the_last_view_alone(
        server: LocalServer, played: Played) -> None:
    """From the deal of round 1 to the end with no view in between: the whole story, from
    the records."""
    client = Client(server.url)
    first = next(r["version"] for r in played.records
                 if any(e["type"] == "round_started" for e in r["events"]))
    seat = SkippingSeat(client, played.match_id, [first, played.records[-1]["version"]])
    printed = [parse(line) for line in told(seat)[1:]]
    # the draw for the first Hakem, from that view (its record is before it)
    drawn = spectator_story(played.summary, seat.shown[0]).tell(
        [r for r in played.records if r["version"] <= first])[:1]
    assert drawn and drawn[0][0] == "draw"
    assert printed == drawn + spectator_story(played.summary, seat.shown[0]).tell(
        [r for r in played.records if r["version"] > first])


def test_the_printer_started_in_the_middle_of_a_trick_goes_on_from_there(
        server: LocalServer, played: Played) -> None:
    """Started at a view in the middle of round 2's third trick (its header, the last trick
    and its counts come from that view), then views now and then: every later trick once,
    with counts going on from the view's, and every later round."""
    client = Client(server.url)
    rounds = [r["version"] for r in played.records
              if any(e["type"] == "round_started" for e in r["events"])]
    assert len(rounds) >= 2
    tricks = [r["version"] for r in played.records
              if r["version"] > rounds[1] and any(e["type"] == "trick_won" for e in r["events"])]
    start = tricks[1] + 1  # one card into the third trick
    steps = [start, *range(start + 37, played.records[-1]["version"], 37),
             played.records[-1]["version"]]
    seat = SkippingSeat(client, played.match_id, steps)
    view = seat.shown[0]
    printed = [parse(line) for line in told(seat)[1:]]
    story = spectator_story(played.summary, view)
    last = ", ".join(f"{story.name(c['seat'])} {card_text(c['card'])}"
                     for c in view["last_trick"]["cards"])
    opening: list[Line] = [
        ("round", view["round"], story.name(view["hakem"]), SUIT_SYMBOL[view["trump"]]),
        ("trick", last, story.name(view["last_trick"]["winner"]),
         "-".join(map(str, view["tricks"])))]
    assert printed == opening + story.tell([r for r in played.records if r["version"] > start])
    assert len(seat.asked) <= len(steps)  # one read of the records per view at most


def test_the_printer_started_at_the_end_of_a_round_tells_its_result_and_set(
        server: LocalServer, played: Played) -> None:
    """Started at the view right after a round's last trick (the first round that won a set
    in a match of two sets, else the first round): that round's header, last trick and
    result, the set it won (from the view: its record is before it), then the rest."""
    client = Client(server.url)

    def has(record: dict[str, Any], kind: str) -> bool:
        return any(e["type"] == kind for e in record["events"])

    ended = next((r for r in played.records if has(r, "set_won")), None) \
        or next(r for r in played.records if has(r, "round_ended"))
    start = int(ended["version"])
    seat = SkippingSeat(client, played.match_id, [start, played.records[-1]["version"]])
    view = seat.shown[0]
    assert view["phase"] in ("round_over", "match_over")
    printed = [parse(line) for line in told(seat)[1:]]
    story = spectator_story(played.summary, view)
    story.set_won = has(ended, "set_won")  # (the next deal starts the points again)
    last = ", ".join(f"{story.name(c['seat'])} {card_text(c['card'])}"
                     for c in view["last_trick"]["cards"])
    # the round's own lines, as the records tell them (its counts and score were before it)
    before = spectator_story(played.summary, view)
    before.counts = [0] * len(before.sides)
    before.score = list(view["score"])
    result = view["result"]
    if result["winner"] is not None:
        before.score[result["winner"]] -= result["points"]
    if has(ended, "set_won"):
        before.sets[next(e["winner"] for e in ended["events"] if e["type"] == "set_won")] -= 1
    closing = [line for line in before.tell([ended]) if line[0] in ("result", "set")]
    assert [line[0] for line in closing] == ["result"] + ["set"] * has(ended, "set_won")
    opening: list[Line] = [
        ("round", view["round"], story.name(view["hakem"]), SUIT_SYMBOL[view["trump"]]),
        ("trick", last, story.name(view["last_trick"]["winner"]),
         "-".join(map(str, view["tricks"]))), *closing]
    assert printed == opening + story.tell([r for r in played.records if r["version"] > start])


# -- the printer and a local bot share their reads ---------------------------------------------


def test_the_printer_and_the_local_bot_read_each_record_once_and_the_bot_sees_its_history(
        server: LocalServer) -> None:
    """``hokm play --bot`` without a terminal: the printer and the bot each read ``GET
    /events`` from their own position (every record read twice); now the printer hands what it
    read to the bot.  The bot's policy still gets exactly the seat's records up to the view's
    version (the oracle: the seat's own ``GET /events`` read afresh at each decision)."""
    from hokmclient import AsyncSeat
    from hokmplay.bot import LocalBot

    bot = LocalBot("easy", seed=1)
    oracle = Client(server.url)
    reads: list[list[int]] = []
    checked: list[int] = []

    async def main() -> None:
        seat = await AsyncSeat.create(server.url, seats=["human"] + ["bot:easy"] * 3,
                                      name="Solo")
        real = seat.events

        async def events(since: int = 0) -> dict[str, Any]:
            answer = await real(since)
            reads.append([int(r["version"]) for r in answer["events"]])
            return answer

        seat.events = events  # type: ignore[method-assign]
        choose = bot.policy.choose

        def spy(view: dict[str, Any], history: list[dict[str, Any]], rng: Any) -> str:
            records = oracle.events(seat.match_id, 0, seat.token)["events"]
            assert history == [e for r in records if r["version"] <= view["version"]
                               for e in r["events"]]
            checked.append(int(view["version"]))
            return choose(view, history, rng)

        bot.policy.choose = spy  # type: ignore[method-assign]
        try:
            assert await run_lines(seat, bot, io.StringIO()) == 0
        finally:
            await seat.close()

    run_async(main())  # (a loop of its own: Playwright's may run in this thread)
    assert len(checked) >= 13  # at least a round's cards decided by the bot
    delivered = [v for read in reads for v in read]
    assert len(delivered) == len(set(delivered)), reads  # the finding: every record twice
