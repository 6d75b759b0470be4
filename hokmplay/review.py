"""What ``hokm replay LINK`` shows of a finished match: pure functions from the replay's answer
(``GET /api/matches/{id}/replay?step=k``), the match's records and its analysis (``GET
/api/matches/{id}/analysis``) to lines of styled text (``hokmplay.screen``'s lines, fitted by
its :func:`~hokmplay.screen.fit`).

Contract: only a finished match is shown (every hand is public then; ``hokmplay.replay`` asks
for nothing of a match that is not over).  A step's screen is the table at that step (every
hand, trump, Hakem, the trick on the table, the last trick, tricks and score), what happened at
that step, and, when that step is a decision, the analysis's verdict on it in one line: the
mark of a costly move (``?!`` a trick, ``?`` a kot, ``??`` the round: the browser's marks)
with its words, the best choices in hindsight, the hard bot's choice and its round-win chance
for the mover's side.  The per-player summary of the whole match shows at the last step, or
at any step with ``s``.  Names are the seats' names in the step's view (a move's ``by`` for the
analysis's rows: a seat that changed hands has a row per player).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hokmclient.cards import SUIT_NAME, SUIT_SYMBOL, card_text

from .screen import (BLANK, KEPT, KEYS, NOTE, SEATS, TITLE, TURN_SEAT, Line, Part, View, card, dim,
                     final_score, final_sets, fit, goal, per_side, result_text, seat_name,
                     side_by_side, side_of, sides, table_notes, team_name, team_subject,
                     trick_lines)

MARKS = {"trick": "?!", "kot": "?", "round": "??"}
"""The marks of costly moves, worse ones with more question marks (the browser's)."""
COST_WORDS = {"trick": "cost a trick", "kot": "cost a kot", "round": "cost the round"}
TOO_SMALL_REPLAY = "Make the window larger to watch the replay."
KEYS_LINE = ("q: quit · ←/→ step · [ ] trick · PgUp/PgDn round · Home/End · s: summary")
"""The replay's keys in a line, cut at the window's edge: the way out first (at 60 columns the
cut took "q: quit" off: a walkthrough's finding)."""


@dataclass(frozen=True)
class Story:
    """The match's landmarks by step, from its records (``GET .../events``: public once it is
    over): the steps at which a trick was won and at which a round was dealt, for the keys
    that move a trick or a round at a time."""

    steps: int
    tricks: tuple[int, ...] = ()
    rounds: tuple[int, ...] = ()

    @classmethod
    def of(cls, steps: int, records: list[dict[str, Any]]) -> Story:
        tricks, rounds = [], []
        for record in records:
            kinds = {e.get("type") for e in record.get("events") or []}
            if "trick_won" in kinds:
                tricks.append(int(record["version"]))
            if "round_started" in kinds:
                rounds.append(int(record["version"]))
        return cls(steps, tuple(sorted(tricks)), tuple(sorted(rounds)))

    def after(self, marks: tuple[int, ...], step: int) -> int:
        """The first of ``marks`` after ``step``, else the last step."""
        i = bisect.bisect_right(marks, step)
        return marks[i] if i < len(marks) else self.steps

    def before(self, marks: tuple[int, ...], step: int) -> int:
        """The last of ``marks`` before ``step``, else step 0."""
        i = bisect.bisect_left(marks, step)
        return marks[i - 1] if i > 0 else 0


@dataclass
class Analysis:
    """What is known of the match's analysis: ``status`` ``asking`` (no answer yet),
    ``pending`` (``done`` of ``rounds`` rounds analysed), ``done`` (``moves`` by version,
    ``seats``), or ``failed`` (``problem`` says why, in words)."""

    status: str = "asking"
    done: int = 0
    rounds: int = 0
    moves: dict[int, dict[str, Any]] = field(default_factory=dict)
    seats: list[dict[str, Any]] = field(default_factory=list)
    problem: str = ""

    def take(self, answer: dict[str, Any]) -> None:
        """Take an answer of the analysis route (202 pending or 200 done)."""
        if answer.get("status") != "done":
            self.status = "pending"
            self.done, self.rounds = int(answer.get("done") or 0), int(answer.get("rounds") or 0)
            return
        self.status = "done"
        self.moves = {int(m["version"]): m for r in answer.get("rounds") or []
                      for m in r.get("moves") or []}
        self.seats = list(answer.get("seats") or [])


def choice_text(move: dict[str, Any], choice: str) -> str:
    """A choice of ``move`` as the screen writes it: a suit for the trump, the cards laid
    aside for a talon discard, else a card (the one kept from the talon too)."""
    if move.get("kind") == "trump":
        return f"{SUIT_SYMBOL.get(choice, choice)} {SUIT_NAME.get(choice, choice)}"
    return " ".join(card_text(c) for c in str(choice).split())


def mover(move: dict[str, Any], view: View) -> str:
    """Who made ``move``: its player's name (the analysis's ``by``), else the seat's."""
    by = move.get("by") or {}
    return str(by.get("name") or seat_name(view, int(move["seat"])))


def did(move: dict[str, Any], who: str) -> str:
    played = choice_text(move, str(move.get("played")))
    return {"trump": f"{who} named trump {played}",
            "draw": f"{who} kept {played} from the talon",
            "discard": f"{who} laid aside {played}"}.get(str(move.get("kind")),
                                                          f"{who} played {played}")


def chance_side(view: View, seat: int) -> str:
    """The mover's side as a win chance names it: its pair (``team 0 (seats 0, 2)``), or the
    player with a side of their own."""
    return team_name(view, side_of(view, seat))


def verdict(move: dict[str, Any], view: View) -> Line:
    """The analysis of ``move`` in one line (see the module docstring)."""
    who = mover(move, view)
    line: Line = [("class:bold", "Analysis: "), ("", did(move, who))]
    cost = move.get("cost")
    best = [str(b) for b in move.get("best") or []]
    if cost in MARKS:
        line += [("", " "), ("class:limit", f"{MARKS[cost]} {COST_WORDS[cost]}")]
    elif str(move.get("played")) in best:
        line.append(("class:ok", ", as good as the best"))
    sep = "; " if move.get("kind") == "discard" else ", "
    line.append(("", f" · best: {sep.join(choice_text(move, b) for b in best) or '-'}"))
    bot = move.get("bot") or {}
    if bot.get("choice"):
        line.append(("", f" · hard bot: {choice_text(move, str(bot['choice']))}"))
        chance = bot.get("win_chance")
        if isinstance(chance, (int, float)) and 0 <= chance <= 1:
            line.append(("", f", {round(100 * chance)}% round-win chance for "
                             f"{chance_side(view, int(move['seat']))}"))
    if move.get("exact") is False:
        line.append(("class:dim", " (by a playout: an estimate)"))
    return line


def analysis_line(analysis: Analysis, step: int, view: View) -> Line | None:
    """The analysis's line for ``step``: its progress while it is computed, the verdict on
    the decision made at ``step``, nothing at a step that is no decision."""
    if analysis.status == "asking":
        return [("class:dim", "Asking for the analysis…")]
    if analysis.status == "pending":
        return [("class:dim", f"analysing… {analysis.done} of {analysis.rounds} rounds")]
    if analysis.status == "failed":
        return [("class:dim", f"No analysis: {analysis.problem}")]
    move = analysis.moves.get(step)
    return verdict(move, view) if move is not None else None


def summary_lines(analysis: Analysis, view: View) -> list[Line]:
    """The whole match per player (a row per player who made a seat's moves; per seat for an
    analysis stored before that split): moves and the costly ones by mark."""
    if analysis.status != "done" or not analysis.seats:
        return []
    legend = " · ".join(f"{MARKS[c]} {COST_WORDS[c]}" for c in MARKS)
    lines: list[Line] = [[("class:bold", "The whole match, per player "), ("class:dim",
                                                                            f"({legend})")]]
    split = all(isinstance(s.get("players"), list) for s in analysis.seats)
    for s in analysis.seats:
        rows = s["players"] if split else [s]
        for row in rows:
            name = (row.get("name") if split else None) or seat_name(view, int(s["seat"]))
            bot = " (bot)" if split and row.get("bot") else ""
            counts = " · ".join(f"{MARKS[c]} {int(row.get(f'cost_{c}') or 0)}" for c in MARKS)
            lines.append([("", f"  {name}{bot}, seat {s['seat']}: {int(row.get('moves') or 0)} "
                               f"moves · {counts}")])
    return lines


def _suit(suit: str) -> str:
    return f"{SUIT_SYMBOL[suit]} {SUIT_NAME[suit]}"


SAID: dict[str, Callable[[dict[str, Any], View, str], str]] = {
    "card_played": lambda e, v, who: f"{who} played {card_text(e['card'])}",
    "trump_chosen": lambda e, v, who: f"{who} named trump {_suit(e['suit'])}",
    "trick_won": lambda e, v, who: f"{who} won the trick",
    "round_started": lambda e, v, who: (f"round {e.get('round')} dealt, Hakem "
                                        f"{seat_name(v, e.get('hakem'))}"),
    "round_ended": lambda e, v, who: "the round is over",
    "match_ended": lambda e, v, who: "the match is over",
    "secret_revealed": lambda e, v, who: "the secret of the deals revealed (hokm verify "
                                         "checks them)",
    "seat_taken": lambda e, v, who: f"{e.get('name') or who} sat at seat {e.get('seat')}",
    "cards_discarded": lambda e, v, who: f"{who} laid cards aside",
    "talon_drawn": lambda e, v, who: f"{who} drew from the talon",
    "hakem_drawn": lambda e, v, who: f"the draw made {seat_name(v, e.get('hakem'))} Hakem",
}
"""How a step's event is told, by type (another type: its name in words)."""


def happened(events: list[dict[str, Any]], view: View) -> str:
    """What the step's record did, in words (the replay's ``events`` of that step)."""
    said: list[str] = []
    for e in events:
        kind = str(e.get("type") or "")
        who = seat_name(view, e["seat"]) if isinstance(e.get("seat"), int) else ""
        tell = SAID.get(kind)
        if tell is not None:
            said.append(tell(e, view, who))
        elif kind:
            said.append(kind.replace("_", " "))
    return "; ".join(said)


def hand_lines(view: View) -> list[Line]:
    """Every seat's hand, one line a seat: its name and tags, ``▶`` at the seat to move."""
    hands = view.get("hands") or []
    phase = view.get("phase")
    turn = (view.get("turn") if phase in ("playing", "discarding", "drawing") else
            view.get("hakem") if phase == "choosing_trump" else None)
    lines: list[Line] = []
    for seat in range(int(view.get("players") or len(hands) or 4)):
        tags = [f"team {side_of(view, seat)}"] if any(len(s) > 1 for s in sides(view)) else []
        if view.get("hakem") == seat:
            tags.append("Hakem")
        mark = "▶ " if seat == turn else "  "
        info = (view.get("seats") or [])[seat] if seat < len(view.get("seats") or []) else None
        # an empty seat's name is "seat 0 (open)", which the seat's number follows anyway
        name = "open" if not info or info.get("empty") else seat_name(view, seat)
        line: Line = [("class:turn" if seat == turn else "",
                       f"{mark}{name} (seat {seat}"
                       f"{', ' + ', '.join(tags) if tags else ''}):")]
        cards = hands[seat] if seat < len(hands) else []
        for code in cards:
            line += [("", " "), card(code)]
        if not cards:
            line.append(("class:dim", " no cards"))
        lines.append(line)
    return lines


def header(view: View, step: int, steps: int, width: int | None = None) -> list[Line]:
    """The match and the step; trump and Hakem; the score and the tricks (on a line each
    where one would wrap: the table's :func:`hokmplay.screen.header`)."""
    # (before the first deal there is no round 0 to name: a walkthrough's finding)
    dealt = int(view.get("round") or 0)
    round_words = f"round {dealt}" if dealt else "before the first deal"
    top: Line = [("class:title", "Hokm replay"),
                 ("", f"  match {view.get('match_id')} · {round_words} · "
                      f"{goal(view)} · "), ("class:ok", f"step {step} of {steps}")]
    trump = view.get("trump")
    hakem = view.get("hakem")
    second: Line = ([("class:trump", f"Trump {SUIT_SYMBOL[trump]} {SUIT_NAME[trump]}")]
                    if trump else [("", "Trump not named yet")])
    if hakem is not None:
        second.append(("", f"   Hakem: {seat_name(view, hakem)}"))
    return [top, second, *side_by_side([("", f"Score  {by_side(view, 'score')}")],
                                       [("", f"Tricks this round  {by_side(view, 'tricks')}")],
                                       width)]


def by_side(view: View, key: str) -> str:
    """``key`` (``score``, ``tricks``) per side, short: ``team 0 3 · team 1 5`` with partners
    (the hands' lines name each seat's team), else ``per_side``'s players' names."""
    if not any(len(side) > 1 for side in sides(view)):
        return per_side(view, key)
    values = list(view.get(key) or [])
    return " · ".join(f"team {i} {values[i] if i < len(values) else 0}"
                      for i in range(len(sides(view))))


def over_line(view: View) -> Line | None:
    """The match's end (its last steps): who won and the final points (or sets)."""
    winner = view.get("winner")
    if view.get("phase") != "match_over" or winner is None:
        return None
    told = final_score(view, int(winner))
    if view.get("sets") is not None:
        told = f"sets {final_sets(view, int(winner))} (the last set {told})"
    return [("class:turn", f"Match over: {team_subject(view, int(winner))} won, {told}.")]


@dataclass
class Page:
    """One step as the viewer holds it: the replay's answer (None while it is asked for),
    the analysis, whether the summary is asked for (``s``), and a message."""

    step: int
    steps: int
    answer: dict[str, Any] | None = None
    analysis: Analysis = field(default_factory=Analysis)
    summary: bool = False
    message: str = ""


def render(page: Page, width: int | None = None, height: int | None = None) -> list[Line]:
    """The whole screen of ``page``, fitted to ``width`` x ``height`` when given: the blank
    lines, the keys, the notes (the last trick, the round's result, the summary) give way
    first, then the hands (the seat to move's last); the step counter, trump, score, the
    trick, what the step did and the analysis's line stay."""
    answer = page.answer
    if answer is None:
        lines = [[("class:title", "Hokm replay"), ("", "  "),
                  ("class:ok", f"step {page.step} of {page.steps}")], [("", "Loading…")]]
        if page.message:
            lines.append([("class:msg", page.message)])
        return lines if width is None else fit(list(map(Part, lines)), width, height,
                                               TOO_SMALL_REPLAY)
    view: View = answer["view"]
    step = int(answer["step"])
    parts = [Part(line, TITLE if i == 0 else KEPT)
             for i, line in enumerate(header(view, step, page.steps, width))]
    parts[0] = Part(parts[0].line, KEPT)  # (the step counter is on it)
    parts.append(Part([], BLANK))
    # a window too small for everything drops the hands last of all but the step's essentials
    parts += [Part(line, TURN_SEAT if line and line[0][0] == "class:turn" else SEATS)
              for line in hand_lines(view)]
    parts += [Part(line, NOTE) for line in table_notes(view)]
    parts.append(Part([], BLANK))
    parts += [Part(line, NOTE if dim(line) else KEPT) for line in trick_lines(view)]
    parts.append(Part([], BLANK))
    what = happened(list(answer.get("events") or []), view)
    parts.append(Part([("class:bold", f"Step {step}: "),
                       ("", what or ("the table before the first record" if step == 0
                                     else "nothing shown"))], KEPT))
    line = analysis_line(page.analysis, step, view)
    if line is not None:
        parts.append(Part(line, KEPT))
    if view.get("result") and view.get("phase") in ("round_over", "match_over"):
        parts.append(Part([("class:dim", result_text(view))], NOTE))
    ended = over_line(view)
    if ended is not None:
        parts.append(Part(ended, KEPT))
    if page.summary or step == page.steps:
        lines = summary_lines(page.analysis, view)
        if not lines and page.summary and page.analysis.status in ("asking", "pending"):
            # (s showed nothing while the analysis ran: a walkthrough's finding)
            lines = [[("class:dim", "The summary per player shows once the analysis is done.")]]
        parts += [Part(line, NOTE) for line in lines]
    if page.message:
        parts.append(Part([("class:msg", page.message)], KEPT))
    parts.append(Part([("class:dim", KEYS_LINE)], KEYS))
    if width is None:
        return [part.line for part in parts]
    return fit(parts, width, height, TOO_SMALL_REPLAY)


__all__ = ["Analysis", "COST_WORDS", "KEYS_LINE", "MARKS", "Page", "Story",
           "analysis_line", "happened", "render", "summary_lines", "verdict"]
