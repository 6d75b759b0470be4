"""What the terminal shows of a view: pure functions from a view (and the player's cursor) to
lines of styled text.

Contract: everything shown comes from the view the server sent for this seat (or the public
view for a spectator): its hand, the open trick, the last trick, trump, Hakem, tricks, score,
the seats' names and card counts, whose turn it is, the round's result.  Nothing is inferred or
remembered beyond it, so nothing hidden can appear.  Cards are written ``Q♥``/``10♦``
(``hokmclient.cards.card_text``); when the seat must decide, the choices it may not make are in
parentheses and the selected one in brackets, so the screen means the same without colour.

A line is a list of ``(style, text)`` fragments (prompt_toolkit's formatted text); styles are
``class:`` names styled by ``hokmplay.app.STYLE``.  Given the terminal's size, :func:`render`
fits the screen to it (:func:`wrap`, :func:`fit`): a long line breaks between words (a card
with its marks is one word), never inside one.  On a screen too small for everything, what the
player needs to play stays (whose turn it is, trump and Hakem, the score and tricks, the trick
on the table, the hand and the choice to make, what was typed, the message) and the rest gives
way first: the blank lines, then the dim lines under the status (the keys' line, the last
round's result), the keys' words of the turn line (cut to its first row; at the match's end the
line of keys under the result, which stays whole), the dim lines above
(the last trick, the card out of play and the talon), the header's first line and the seats
around the table, the seat to move last (the seats above and below it are indented less on a
narrow screen).  A screen too small even for that says so in one line ("Make the window larger
to play", or "to watch" to a spectator).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from prompt_toolkit.utils import get_cwidth

from hokmclient.cards import RED, SUIT_NAME, SUIT_SYMBOL, card_text

from .keys import KEYS_HELP

Fragment = tuple[str, str]
Line = list[Fragment]
View = dict[str, Any]

KINDS = {"normal": "", "kot": "kot", "hakem_koti": "Hakem koti", "bavney": "bavney",
         "no_winner": "nobody reached 7"}
DECIDING = ("choosing_trump", "discarding", "drawing", "playing")
TALON_WORDS = {"keep": "keep it", "discard": "discard it"}


@dataclass
class Cursor:
    """The player's side of the screen: the selected choice, what they have typed, a message
    (an error, or what just happened), and the connection state."""

    selected: int = 0
    typed: str = ""
    message: str = ""
    connected: bool = False
    bot: str | None = None
    """The local policy playing this seat (``--bot``), if any."""
    marked: list[str] = field(default_factory=list)
    """The talon game's discard: the cards marked to lay aside, in the order marked."""
    limit_left: int | None = None
    """The seconds left before the seat's stand-in decides this turn (the room's turn limit),
    once fewer than ``COUNTDOWN_S``; None: nothing to show."""
    limit_grace: float | None = None
    """The seconds this turn was given when they are the grace (the server's ``turn_limit``
    ``grace``: the seat's last turn ran out and a stand-in played it, so its turns are short
    until its player acts again); None: the room's full limit."""
    more_used: bool = False
    """This turn had its more time (``+`` asked, or the server extended it): not offered again."""
    rematch: str | None = None
    """The link of the finished match's rematch, once a player asked for it (the summary's
    ``rematch``): a player's R joins it, a spectator is shown how to watch it."""
    rematch_full: bool = False
    """R was refused: the rematch's seats are all taken (the message says how to watch it)."""
    replay: str | None = None
    """The link of the match's replay page, said once the match is over (``hokm replay`` takes
    it, as a browser does)."""
    keys_shown: bool = False
    """F1 was pressed: the screen is the list of keys (``hokmplay.keys``) until F1 or Esc."""
    round_end: dict[str, Any] | None = None
    """The last trick of the newest round seen to end (``{"round", "cards", "winner"}``, from
    its ``round_over`` view): the next deal's view has no last trick, and the round's end is
    passed in a moment when bots play the last cards, so the trick that ended it was never on
    the screen (a walkthrough's finding)."""


COUNTDOWN_S = 20
"""The turn limit is shown once fewer seconds than this are left (as in the browser)."""


def cards_count(n: int) -> str:
    """``n`` cards in words: "1 card", "0 cards", "13 cards" (QA: "Kian (seat 2) 1 cards")."""
    return f"{n} card{'' if n == 1 else 's'}"


def card(code: str, style: str = "") -> Fragment:
    """A card with its colour class (red for hearts and diamonds)."""
    colour = "class:red" if code[1] in RED else "class:black"
    return (f"{colour} {style}".strip(), card_text(code))


def seat_name(view: View, seat: int | None) -> str:
    """How a seat is named on the screen: its player's name, "you" for one's own seat."""
    if seat is None:
        return "nobody"
    if view.get("seat") == seat:
        return "you"
    info = view["seats"][seat] if seat < len(view.get("seats") or []) else None
    if not info or info.get("empty"):
        return f"seat {seat} (open)"
    return str(info.get("name") or f"seat {seat}")


def sides(view: View) -> list[list[int]]:
    """The sides of the match as the view gives them (seats per side: partners share one)."""
    return [list(side) for side in view.get("sides") or [[0, 2], [1, 3]]]


def side_of(view: View, seat: int) -> int:
    return next(i for i, side in enumerate(sides(view)) if seat in side)


def partnerships(view: View) -> bool:
    return any(len(side) > 1 for side in sides(view))


def team_name(view: View, team: int) -> str:
    """A side as the screen names it: "us" / "them" with partners (or "team 0 (seats 0, 2)"
    to a spectator), the player's name (or "you") when every player is a side of their own."""
    seats = sides(view)[team]
    if not partnerships(view):
        return seat_name(view, seats[0])
    me = view.get("seat")
    if me is None:
        return f"team {team} (seats {', '.join(str(s) for s in seats)})"
    return "us" if me in seats else "them"


def team_subject(view: View, team: int) -> str:
    """``team_name`` as the subject of a sentence ("we won", "they won")."""
    name = team_name(view, team)
    return {"us": "we", "them": "they"}.get(name, name)


def winner_first(values: list[int], winner: int) -> list[int]:
    """``values`` by side with the winner's first, then the others' in side order."""
    return [values[winner], *(v for i, v in enumerate(values) if i != winner)]


def per_side(view: View, key: str) -> str:
    """``key`` (``score``, ``tricks``) of every side, named: the player's own side first
    ("us 4 · them 7" at every seat), then the others in side order."""
    values = list(view.get(key) or [])
    order = list(range(len(sides(view))))
    if view.get("seat") is not None:
        order.sort(key=lambda i: i != side_of(view, view["seat"]))  # (a stable sort)
    return " · ".join(f"{team_name(view, i)} {values[i] if i < len(values) else 0}"
                      for i in order)


def dashed(values: list[int]) -> str:
    return "-".join(str(v) for v in values)


def final_score(view: View, first: int) -> str:
    """The match's score: with two sides ``first``'s points first (``7-3``), with more every
    side named."""
    score = list(view.get("score") or [0, 0])
    if len(score) == 2:
        return f"{score[first]}-{score[1 - first]}"
    return per_side(view, "score")


def set_won_now(view: View) -> int | None:
    """The side whose round just won a set (target ``"2x7"``: the view at the round's end, its
    winner at a set's points, ``sets`` already counting it), else None."""
    result = view.get("result") or {}
    winner = result.get("winner")
    if view.get("sets") is None or winner is None \
            or view.get("phase") not in ("round_over", "match_over"):
        return None
    score = list(view.get("score") or [])
    points = int(view.get("target") or 7)
    return int(winner) if int(winner) < len(score) and score[int(winner)] >= points else None


def final_sets(view: View, first: int) -> str:
    """The sets won, as :func:`final_score` gives the points: ``first``'s first (``2-1``)."""
    sets = list(view.get("sets") or [0, 0])
    if len(sets) == 2:
        return f"{sets[first]}-{sets[1 - first]}"
    return per_side(view, "sets")


def goal(view: View) -> str:
    """What wins the match: ``to 7 points``, or with target ``"2x7"`` (``target`` a set's
    points, ``sets`` the sets won: rules.md) the two sets and the sets won."""
    if view.get("sets") is not None:
        return f"two sets of {view.get('target')} points (sets won: {per_side(view, 'sets')})"
    return f"to {view.get('target')} points"


def columns(line: Line) -> int:
    """The columns ``line`` takes on a terminal."""
    return sum(get_cwidth(text) for _, text, *_ in line)


def header(view: View, cursor: Cursor, width: int | None = None) -> list[Line]:
    """The match, the seat and the connection; trump and Hakem; the score and the tricks.
    Given the terminal's ``width``, a line that would wrap in mid-phrase is laid out in two
    instead (an 80-column terminal wrapped "● connected" and a three-player score line)."""
    state = "● connected" if cursor.connected else "○ reconnecting…"
    me = view.get("seat")
    who = ("spectating" if me is None else f"you are seat {me}, team {side_of(view, me)}"
           if partnerships(view) else f"you are seat {me}")
    bot = f" · played by the local bot ({cursor.bot})" if cursor.bot else ""
    first: Line = [("class:title", "Hokm"),
                   ("", f"  match {view['match_id']} · round {view.get('round', 0)}"
                        f" · {goal(view)} · {who}{bot}")]
    connection: Line = [("", "   "),
                        ("class:dim" if not cursor.connected else "class:ok", state)]
    trump = view.get("trump")
    second: Line = ([("class:trump", f"Trump {SUIT_SYMBOL[trump]} {SUIT_NAME[trump]}")]
                    if trump else [("", "Trump not named yet")])
    hakem = view.get("hakem")
    if hakem is not None:
        second.append(("", f"   Hakem: {seat_name(view, hakem)}"))
    if width is not None and columns(first) <= width < columns(first + connection):
        second += connection  # at the end of the shorter line below, whole
    else:  # (a line wrapped anyway keeps it)
        first += connection
    lines = [first, second]
    # double_sar: the tricks won but not banked yet wait in a pile (none counted: it said
    # "us 0 · them 0" under a trick just won, with nothing to say why)
    pile = int(view.get("pile") or 0)
    waiting = (f" · {pile} trick{'s' if pile != 1 else ''} waiting in the pile"
               if pile else "")
    return lines + side_by_side([("", f"Score  {per_side(view, 'score')}")],
                                [("", f"Tricks this round  {per_side(view, 'tricks')}{waiting}")],
                                width)


def side_by_side(left: Line, right: Line, width: int | None) -> list[Line]:
    """``left`` and ``right`` on one line six columns apart, or on a line each where that line
    would be wider than ``width``."""
    if width is None or columns(left) + 6 + columns(right) <= width:
        return [[*left, ("", "      "), *right]]
    return [left, right]


def _seat_label(view: View, seat: int) -> str:
    counts = view.get("hand_counts") or []
    infos = view.get("seats") or []
    info = infos[seat] if seat < len(infos) else {}
    if not info or info.get("empty"):
        return f"open seat (seat {seat})"
    tags = []
    me = view.get("seat")
    if me is not None:
        if seat == me:
            tags.append("you")
        elif side_of(view, seat) == side_of(view, me):
            tags.append("partner")
    if info.get("bot"):
        tags.append("bot")
    elif not info.get("empty") and not info.get("connected"):
        tags.append("away")
    if view.get("hakem") == seat:
        tags.append("Hakem")
    name = seat_name(view, seat) if seat != view.get("seat") else (info.get("name") or "you")
    count = counts[seat] if seat < len(counts) else 0
    return f"{name} (seat {seat}{', ' + ', '.join(tags) if tags else ''}) {cards_count(count)}"


CENTRE = 22
"""Columns the seats above and below the table are indented by (less on a narrow terminal)."""


def table(view: View, width: int | None = None) -> list[Line]:
    """The seats around the table, as seen from one's own seat (or seat 0): with four the
    partner across, with three the others left and right, with two the opponent across.  Play
    goes counter-clockwise (rules.md): the next seat sits on one's right, as in the browser.
    Given the terminal's ``width``, the indent of the seats in the middle shrinks to fit it
    (a 30-column terminal had them 22 columns in, wrapped into a narrow column)."""
    n = int(view.get("players", 4))
    me = view.get("seat") or 0
    phase = view.get("phase")
    turn = (view.get("turn") if phase in ("playing", "discarding", "drawing") else
            view.get("hakem") if phase == "choosing_trump" else None)

    def label(seat: int) -> Fragment:
        text = _seat_label(view, seat)
        return ("class:turn" if seat == turn else "", ("▶ " if seat == turn else "") + text)

    # the seats above and below sit in the middle: 22 columns in, or on a terminal too narrow
    # for that as far in as their widest label leaves room for (none if it wraps anyway)
    centred = [me] if n == 3 else [(me + n // 2) % n, me]  # (the seat across, with 2 or 4)
    widest = max(get_cwidth(label(seat)[1]) for seat in centred)
    indent = CENTRE
    if width is not None and indent + widest > width:
        indent = max(0, (width - widest) // 2)
    centre: Line = [("", " " * indent)]
    if n == 2:
        return [[*centre, label((me + 1) % n)], [], [*centre, label(me)]]
    if n == 3:
        return [[label((me + 2) % n), ("", "      "), label((me + 1) % n)],
                [*centre, label(me)]]
    across, left, right = (me + 2) % n, (me + 3) % n, (me + 1) % n
    return [[*centre, label(across)], [label(left), ("", "      "), label(right)],
            [*centre, label(me)]]


RANKS = "23456789TJQKA"


def draw_text(view: View) -> str | None:
    """The draw for the first Hakem (the view's ``draw``: face-up cards, public) as one line,
    ``Ace draw: Roxana 7♠, you A♥ -> Hakem you``, every card named by the player who turned
    it (None before the draw).  The simple two-player game draws the higher card (ties draw
    again); the others turn cards until an ace, and with four on to the partner's ace, who is
    then moved opposite the Hakem: the view names the seats after that swap, so the two seats
    it exchanged are named back as they were when the cards were turned."""
    draw = [(int(d["seat"]), str(d["card"])) for d in view.get("draw") or []]
    if not draw:
        return None
    rules = view.get("rules") or {}
    players = int(rules.get("players") or len(view.get("seats") or []) or 4)
    high = players == 2 and rules.get("two_player", "simple") == "simple"
    now = {seat: seat for seat in range(players)}  # the seat turned -> the seat of its player
    if high:
        last = draw[-players:]  # (a tie turned one more card to each)
        hakem = max(last, key=lambda d: RANKS.index(d[1][0]))[0]
    else:
        aces = [seat for seat, code in draw if code[0] == "A"]
        hakem = aces[0]
        if players == 4 and len(aces) > 1 and rules.get("teams", "ace_draw") == "ace_draw":
            partner, opposite = aces[1], (hakem + 2) % 4
            now[partner], now[opposite] = opposite, partner
    turned = ", ".join(f"{seat_name(view, now[seat])} {card_text(code)}" for seat, code in draw)
    # what the draw decides, said once (a walkthrough: the draw was shown unexplained, and with
    # four the second ace moved a player across the table without a word)
    rule = ("the highest card is Hakem" if high else
            "the first ace is Hakem, the second ace their partner" if players == 4
            and rules.get("teams", "ace_draw") == "ace_draw" else "the first ace is Hakem")
    return (f"{'High-card' if high else 'Ace'} draw ({rule}): {turned} -> Hakem "
            f"{seat_name(view, now[hakem])}")


def first_round_untouched(view: View) -> bool:
    """Whether ``view`` is of the first round before its first trick was won: when the draw
    for the first Hakem is still news."""
    return (bool(view.get("draw")) and int(view.get("round") or 0) <= 1
            and not any(view.get("tricks") or []) and not view.get("last_trick")
            and view.get("phase") != "match_over")


def table_notes(view: View) -> list[Line]:
    """What the table shows beyond the seats: the draw for the first Hakem (until the first
    round's first trick), the card out of play (three players), the talon game's talon and the
    player's own discards."""
    lines: list[Line] = []
    drawn = draw_text(view) if first_round_untouched(view) else None
    if drawn:
        lines.append([("class:dim", drawn)])
    removed = view.get("removed") or []
    if removed:
        lines.append([("class:dim", "Out of play: "),
                      *[card(c, "class:dim") for c in removed]])
    talon = view.get("talon")
    if talon and (talon.get("left") or talon.get("discarded")):
        line: Line = [("class:dim", f"Talon: {cards_count(int(talon.get('left', 0)))}")]
        if talon.get("discarded"):
            line.append(("class:dim", " · your discards: "))
            for i, code in enumerate(talon["discarded"]):
                line += [("", " ") if i else ("", ""), card(code, "class:dim")]
        lines.append(line)
    return lines


def trick_lines(view: View, round_end: dict[str, Any] | None = None) -> list[Line]:
    """The trick on the table and the last trick won; before the first trick of a round is
    won, the last trick of the round before (``round_end``, :attr:`Cursor.round_end`)."""
    trick = view.get("trick") or []
    line: Line = [("class:bold", "Trick: ")]
    if not trick:
        line.append(("class:dim", "no card played yet"))
    for i, played in enumerate(trick):
        if i:
            line.append(("", ",  "))
        line += [("", f"{seat_name(view, played['seat'])} "), card(played["card"])]
    lines = [line]
    last = view.get("last_trick")
    title = "Last trick: "
    if not last and round_end and view.get("phase") not in ("round_over", "match_over") \
            and int(round_end.get("round") or 0) == int(view.get("round") or 0) - 1:
        last, title = round_end, f"Last trick of round {round_end['round']}: "
    if last:
        prev: Line = [("class:dim", title)]
        for i, played in enumerate(last["cards"]):
            if i:
                prev.append(("", ", "))
            prev += [("", f"{seat_name(view, played['seat'])} "), card(played["card"])]
        prev.append(("", f"  -> won by {seat_name(view, last['winner'])}"))
        lines.append(prev)
    return lines


def is_deciding(view: View) -> bool:
    return (view.get("seat") is not None and bool(view.get("legal"))
            and view.get("phase") in DECIDING)


def to_discard(view: View) -> int:
    """How many cards this seat must lay aside now (the talon game), else 0."""
    talon = view.get("talon") or {}
    return int(talon.get("discard") or 0) if view.get("phase") == "discarding" else 0


def hand_line(view: View, cursor: Cursor) -> Line:
    """The hand; at the seat's turn to play, the cards it may not play in parentheses and the
    selected one in brackets; while discarding, the marked cards underlined with a ``*``."""
    hand = view.get("hand") or []
    if view.get("seat") is None:
        return [("class:dim", "Spectating: no hand is shown.")]
    line: Line = [("class:bold", "Your hand: ")]
    playing = is_deciding(view) and view.get("phase") in ("playing", "discarding")
    legal = view.get("legal") or []
    chosen = legal[cursor.selected % len(legal)] if playing and legal else None
    marked = cursor.marked if to_discard(view) else []
    for i, code in enumerate(hand):
        if i:
            line.append(("", " "))
        if code in marked:
            style = "class:sel" if code == chosen else "class:mark"
            line += [(style, "*" if code != chosen else "[*"), card(code, style),
                     (style, "]" if code == chosen else "")]
        elif not playing:
            line.append(card(code))
        elif code == chosen:
            line += [("class:sel", "["), card(code, "class:sel"), ("class:sel", "]")]
        elif code in legal:
            line.append(card(code, "class:bold"))
        else:
            line += [("class:dim", "("), card(code, "class:dim"), ("class:dim", ")")]
    if not hand:
        line.append(("class:dim", "no cards"))
    return line


def trump_line(view: View, cursor: Cursor) -> Line:
    """The Hakem's choice of trump: the suits, the selected one in brackets."""
    legal = view.get("legal") or []
    line: Line = [("class:bold", "Choose trump: ")]
    for i, suit in enumerate(legal):
        text = f"{SUIT_SYMBOL[suit]} {SUIT_NAME[suit]} ({suit})"
        style = "class:red" if suit in RED else "class:black"
        if i == cursor.selected % len(legal):
            line += [("class:sel", "["), (f"{style} class:sel", text), ("class:sel", "]")]
        else:
            line.append((style, f" {text} "))
        line.append(("", "  "))
    return line


def talon_line(view: View, cursor: Cursor) -> Line:
    """The talon game's draw: the top card (shown to the seat to draw only) and the two
    choices, the selected one in brackets."""
    talon = view.get("talon") or {}
    line: Line = [("class:bold", "Top of the talon: ")]
    if talon.get("top"):
        line.append(card(talon["top"], "class:bold"))
    line.append(("", "   "))
    legal = view.get("legal") or []
    for i, choice in enumerate(legal):
        text = TALON_WORDS.get(choice, choice)
        line.append(("class:sel", f"[{text}]") if i == cursor.selected % len(legal)
                    else ("", f" {text} "))
        line.append(("", "  "))
    return line


def result_text(view: View) -> str:
    r = view.get("result")
    if not r:
        return ""
    kind = KINDS.get(r.get("kind", ""), r.get("kind", ""))
    points = r.get("points", 0)
    tricks = r.get("tricks") or [0, 0]
    number = int(view.get("round") or 0)
    if view.get("phase") not in ("round_over", "match_over"):
        number -= 1  # the next round is dealt: the result is the previous one's
    winner = r.get("winner")
    if len(tricks) > 2:
        # every side named, in the order of the score ("you 6 · Roxana 7 · Bahram 1"): bare
        # counts after the winner's (QA: "tricks 7-1-6") left the others to guess
        counts = per_side({**view, "tricks": list(tricks)}, "tricks")
    elif winner is None:
        counts = dashed(tricks)
    else:  # two sides: the winner's tricks first, as the points of "Match over" are
        counts = dashed(winner_first(list(tricks), int(winner)))
    if winner is None:
        return f"Round {number}: {kind}, no points (tricks {counts})"
    return (f"Round {number}: {team_subject(view, int(winner))} won {points} "
            f"point{'s' if points != 1 else ''}{', ' + kind if kind else ''} (tricks "
            f"{counts})")


def status(view: View, cursor: Cursor) -> list[Line]:
    """Whose turn it is and what the keys do."""
    phase = view.get("phase")
    me = view.get("seat")
    lines: list[Line] = []
    if phase == "waiting":
        taken = sum(1 for s in view.get("seats") or [] if not s.get("empty"))
        lines.append([("", f"Waiting for players: {taken} of {view.get('players')} seats "
                           "taken.")])
    elif phase == "match_over":
        winner = int(view.get("winner") or 0)
        who = (f"{team_subject(view, winner)} won the match" if me is None else
               "you won the match" if winner == side_of(view, me) else
               # more than two sides: the winner is not "the other" (the browser: "Match to
               # Kian")
               f"you lost the match to {team_subject(view, winner)}"
               if len(sides(view)) > 2 else "you lost the match")
        first = winner if me is None else side_of(view, me)  # your points (or the winner's)
        # target "2x7": the sets decide (the points are the last set's alone)
        told = (f"sets {final_sets(view, first)} (the last set {final_score(view, first)})"
                if view.get("sets") is not None else final_score(view, first))
        lines.append([("class:turn", f"Match over: {who}, {told}.")])
        if cursor.rematch_full:
            lines.append([("", "Press Ctrl+C to leave.")])
        elif me is not None:
            lines.append([("class:turn" if cursor.rematch else "",
                           "A rematch is ready: press R to join it, Ctrl+C to leave."
                           if cursor.rematch else
                           "Press R to play again at this table, Ctrl+C to leave.")])
        else:
            if cursor.rematch:
                lines.append([("class:turn", f"A rematch is ready: hokm play {cursor.rematch} "
                                             "--spectate watches it.")])
            lines.append([("", "Press Ctrl+C to leave.")])
        if cursor.replay:
            # (the terminal's own viewer first: the browser's alone was offered, a walkthrough's
            # finding; the one link serves both)
            lines.append([("", f"The replay: hokm replay {cursor.replay} (or the link in a "
                               "browser)")])
    elif is_deciding(view):
        if cursor.limit_left is not None and not cursor.bot:
            lines.append([("class:limit", f"Your turn — a stand-in plays in "
                                          f"{cursor.limit_left} s")])
            if cursor.limit_grace is not None:  # why the clock is short (api.md, the grace)
                lines[-1].append(("class:limit", f" (your last turn ran out: "
                                                 f"{cursor.limit_grace:g} s a turn until you "
                                                 "play)"))
        if cursor.bot:
            lines.append([("class:turn", f"Your turn: the {cursor.bot} bot is deciding.")])
        elif phase == "choosing_trump":
            lines.append([("class:turn", "Your turn, Hakem: choose trump with ←/→ and Enter, "
                                         "or type S, H, D or C and Enter.")])
        elif phase == "discarding":
            need = to_discard(view)
            lines.append([("class:turn", f"Lay {cards_count(need)} aside face down: ←/→ and Space "
                                         "mark a card (or type one and Enter), Enter lays "
                                         f"them aside ({len(cursor.marked)} of {need} "
                                         "marked).")])
        elif phase == "drawing":
            lines.append([("class:turn", "Your draw: keep the top card (the next one is laid "
                                         "aside) or discard it (and keep the next): ←/→ and "
                                         "Enter, or type K or D and Enter.")])
        else:
            lines.append([("class:turn", "Your turn: ←/→ choose a card and Enter plays it, "
                                         "or type a card (QH, 10D) and Enter.")])
        if cursor.limit_left is not None and not cursor.bot and not cursor.more_used:
            # (the line's keys may be cut)
            lines[-1] = [*lines[-1], ("class:turn", " + asks for more time.")]
    elif phase == "choosing_trump":
        lines.append([("", f"Waiting for {seat_name(view, view.get('hakem'))} (Hakem) to "
                           "choose trump.")])
    elif phase == "playing":
        lines.append([("", f"Waiting for {seat_name(view, view.get('turn'))} to play.")])
    elif phase == "discarding":
        lines.append([("", f"Waiting for {seat_name(view, view.get('turn'))} to lay cards "
                           "aside.")])
    elif phase == "drawing":
        lines.append([("", f"Waiting for {seat_name(view, view.get('turn'))} to draw from the "
                           "talon.")])
    elif phase == "round_over":
        won = set_won_now(view)
        lines.append([("", "The round is over; the next deal is coming." if won is None else
                       f"The round is over and {team_subject(view, won)} won set "
                       f"{sum(view.get('sets') or [])} (sets won: {per_side(view, 'sets')}): "
                       "the next deal starts the points again at 0.")])
    if view.get("result") and phase != "match_over":
        lines.append([("class:dim", "Last round: " + result_text(view))])
    elif view.get("result"):
        lines.append([("class:dim", result_text(view))])
    if cursor.typed:
        lines.append([("", f"Typed: {cursor.typed}")])
    if cursor.message:
        lines.append([("class:msg", cursor.message)])
    hint = "?: hint · " if can_leave(view) and not cursor.bot else ""
    lines.append([("class:dim", f"{hint}L: leave to a bot · F1: all keys · Ctrl+C: quit"
                   if can_leave(view) else "F1: all keys · Ctrl+C: quit")])
    return lines


def can_leave(view: View) -> bool:
    """Whether the viewer may leave its seat to a bot now (``L``, as the browser's "Leave the
    table"): seated, in a match under way (not waiting for players, not over)."""
    return view.get("seat") is not None and view.get("phase") not in ("waiting", "match_over")


WRAP_INDENT = 2
"""Columns a wrapped line's continuation is indented by, so it reads as the same line."""


def wrap(line: Line, width: int) -> list[Line]:
    """``line`` as lines at most ``width`` columns wide: unchanged if it fits, else broken at
    spaces (the spaces at a break dropped, continuations indented by :data:`WRAP_INDENT`).  A
    word is a run of characters without a space, whatever its fragments (``[A♦]`` is one), and
    is split only if it is wider than a whole line.  Styles are kept character by character."""
    if width < 1 or columns(line) <= width:
        return [line]
    indent = WRAP_INDENT if width > 2 * WRAP_INDENT else 0
    chars = [(style, ch) for style, text, *_ in line for ch in text]
    words: list[list[tuple[str, str]]] = []  # alternating runs of spaces and of the rest
    for style, ch in chars:
        if words and (words[-1][-1][1] == " ") == (ch == " "):
            words[-1].append((style, ch))
        else:
            words.append([(style, ch)])
    rows: list[list[tuple[str, str]]] = [[]]
    used = start = 0  # columns used in the last row, and by its indent

    def new_row() -> None:
        nonlocal used, start
        while rows[-1] and rows[-1][-1][1] == " ":  # no trailing spaces at a break
            rows[-1].pop()
        if rows[-1]:
            rows.append([("", " ")] * indent)
            used = start = indent
        else:  # the row held only spaces (a wide centring): the word goes there instead
            used = start = 0

    for word in words:
        size = sum(get_cwidth(ch) for _, ch in word)
        if word[0][1] == " ":
            if used > start or len(rows) == 1:  # none at a continuation's start
                rows[-1] += word
                used += size
            continue
        if used + size > width and used > start:
            new_row()
        for style, ch in word:  # a word wider than a line is split where it must be
            if used + get_cwidth(ch) > width and used > start:
                new_row()
            rows[-1].append((style, ch))
            used += get_cwidth(ch)
    while rows[-1] and rows[-1][-1][1] == " ":
        rows[-1].pop()
    return [_fragments(row) for row in rows]


def _fragments(chars: list[tuple[str, str]]) -> Line:
    """Characters back into fragments, one per run of a style."""
    out: Line = []
    for style, ch in chars:
        if out and out[-1][0] == style:
            out[-1] = (style, out[-1][1] + ch)
        else:
            out.append((style, ch))
    return out


KEPT, BLANK, FOOT_NOTE, KEYS, NOTE, TITLE, SEATS, TURN_SEAT = range(8)
"""When a line gives way on a small screen (:func:`fit`): ``KEPT`` never; the others in this
order, a rank's lowest line on the screen first: the blank lines, the dim lines of the status
(the keys, the last round), the turn line's keys (cut to its first row), the dim lines above it
(the last trick, the table's notes), the header's first line, the seats around the table, and
last the table's line of the seat to move (a narrow spectator's screen kept the seat above and
dropped the one below, whose turn it was)."""

TOO_SMALL = "Make the window larger to play."
TOO_SMALL_TO_WATCH = "Make the window larger to watch."
TOO_SMALL_YET = "Make the window larger."
"""What a screen too small says: to a player, to a spectator, before the first view."""


@dataclass(frozen=True)
class Part:
    """A line of the screen and its rank in the order lines give way (see :data:`KEPT`)."""

    line: Line
    rank: int = KEPT


def dim(line: Line) -> bool:
    """A line that starts dim: a note beside the play (the last trick, the keys' line)."""
    return bool(line) and "class:dim" in line[0][0].split()


def fit(parts: list[Part], width: int, height: int | None,
        too_small: str = TOO_SMALL) -> list[Line]:
    """``parts`` wrapped to ``width`` and, if they take more than ``height`` rows, reduced
    rank by rank (:data:`KEPT`) until they fit; a :data:`KEYS` line is cut to its first row
    (ending in "…") rather than dropped.  If what is kept does not fit either, the screen is
    ``too_small`` (:data:`TOO_SMALL`)."""
    rows = [wrap(part.line, width) for part in parts]
    if height is None:
        return [row for wrapped in rows for row in wrapped]
    order = sorted((i for i, part in enumerate(parts) if part.rank != KEPT),
                   key=lambda i: (parts[i].rank, -i))
    for i in order:
        if sum(map(len, rows)) <= height:
            break
        if parts[i].rank == KEYS:
            rows[i] = [ellipsis(rows[i][0], width)] if len(rows[i]) > 1 else rows[i]
        else:
            rows[i] = []
    if sum(map(len, rows)) > height:
        return wrap([("class:msg", too_small)], width)[:max(height, 0)]
    return [row for wrapped in rows for row in wrapped]


def ellipsis(row: Line, width: int) -> Line:
    """``row`` (at most ``width`` columns) ending in "…" to say it goes on."""
    chars = [(style, ch) for style, text in row for ch in text]
    while chars and (sum(get_cwidth(ch) for _, ch in chars) + 1 > width or chars[-1][1] == " "):
        chars.pop()
    return _fragments(chars + [(chars[-1][0] if chars else "", "…")])


def render(view: View | None, cursor: Cursor, width: int | None = None,
           height: int | None = None) -> list[Line]:
    """The whole screen for ``view``; fitted to a terminal ``width`` columns wide (and
    ``height`` rows high) by :func:`fit` when given.  While ``cursor.keys_shown``, the list
    of keys instead (the match's line above it, what to press to go back below)."""
    if cursor.keys_shown:
        top = [] if view is None else header(view, cursor, width)[:1]
        listed: list[Line] = [[("", row)] for row in KEYS_HELP.splitlines()]
        listed[0] = [("class:bold", listed[0][0][1])]
        shown = [*top, [], *listed, [], [("class:turn", "F1 or Esc: back to the table.")]]
        if width is None:
            return shown
        return fit([Part(line, BLANK if not line else KEPT) for line in shown], width, height,
                   TOO_SMALL_YET)
    if view is None:
        foot: list[Line] = [[("", "Connecting…")], [("class:msg", cursor.message)]]
        return (foot if width is None else
                fit([Part(line) for line in foot], width, height, TOO_SMALL_YET))
    top = header(view, cursor, width)
    parts = [Part(top[0], TITLE), *map(Part, top[1:]), Part([], BLANK)]
    parts += [Part(line, BLANK if not line else TURN_SEAT
                   if any(style == "class:turn" for style, _ in line) else SEATS)
              for line in table(view, width)]
    parts += [Part(line, NOTE) for line in table_notes(view)]
    parts.append(Part([], BLANK))
    parts += [Part(line, NOTE if dim(line) else KEPT)
              for line in trick_lines(view, cursor.round_end)]
    parts.append(Part([], BLANK))
    lines: list[Line] = []
    if is_deciding(view) and view.get("phase") == "choosing_trump" and not cursor.bot:
        lines.append(hand_line(view, cursor))
        lines.append(trump_line(view, cursor))
    elif is_deciding(view) and view.get("phase") == "drawing" and not cursor.bot:
        lines.append(hand_line(view, cursor))
        lines.append(talon_line(view, cursor))
    else:
        lines.append(hand_line(view, cursor))
    lines.append([])
    if width is None:
        return [part.line for part in parts] + lines + status(view, cursor)
    parts += [Part(line, BLANK if not line else KEPT) for line in lines]
    foot = status(view, cursor)
    # the line whose keys may be cut: the turn line (after the turn limit's countdown, which
    # stays whole), else the first; at the match's end the line of keys after the result
    # (the result was cut: "Match over: you lost the…")
    keys = next((i for i, line in enumerate(foot) if line and line[0][0] == "class:turn"), 0)
    if view.get("phase") == "match_over" and keys + 1 < len(foot):
        keys += 1
    parts += [Part(line, FOOT_NOTE if dim(line) else KEYS if i == keys else KEPT)
              for i, line in enumerate(foot)]
    return fit(parts, width, height,
               TOO_SMALL if view.get("seat") is not None else TOO_SMALL_TO_WATCH)


def plain(lines: list[Line]) -> str:
    """The screen as plain text (no styles)."""
    return "\n".join("".join(text for _, text in line) for line in lines)
