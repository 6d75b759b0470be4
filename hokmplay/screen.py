"""What the terminal shows of a view: pure functions from a view (and the player's cursor) to
lines of styled text.

Contract: everything shown comes from the view the server sent for this seat (or the public
view for a spectator): its hand, the open trick, the last trick, trump, Hakem, tricks, score,
the seats' names and card counts, whose turn it is, the round's result.  Nothing is inferred or
remembered beyond it, so nothing hidden can appear.  Cards are written ``Q♥``/``10♦``
(``hokmclient.cards.card_text``); when the seat must decide, the choices it may not make are in
parentheses and the selected one in brackets, so the screen means the same without colour.

A line is a list of ``(style, text)`` fragments (prompt_toolkit's formatted text); styles are
``class:`` names styled by ``hokmplay.app.STYLE``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hokmclient.cards import RED, SUIT_NAME, SUIT_SYMBOL, card_text

Fragment = tuple[str, str]
Line = list[Fragment]
View = dict[str, Any]

KINDS = {"normal": "", "kot": "kot", "hakem_koti": "Hakem kot", "bavney": "bavney"}


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


def team_name(view: View, team: int) -> str:
    me = view.get("seat")
    if me is None:
        return f"team {team} (seats {team}, {team + 2})"
    return "us" if me % 2 == team else "them"


def _two(view: View, key: str) -> str:
    values = view.get(key) or [0, 0]
    return f"{team_name(view, 0)} {values[0]} · {team_name(view, 1)} {values[1]}"


def header(view: View, cursor: Cursor) -> list[Line]:
    state = "● connected" if cursor.connected else "○ reconnecting…"
    who = ("spectating" if view.get("seat") is None
           else f"you are seat {view['seat']}, team {view['seat'] % 2}")
    bot = f" · played by the local bot ({cursor.bot})" if cursor.bot else ""
    lines: list[Line] = [[("class:title", "Hokm"),
                          ("", f"  match {view['match_id']} · round {view.get('round', 0)}"
                               f" · to {view.get('target')} points · {who}{bot}   "),
                          ("class:dim" if not cursor.connected else "class:ok", state)]]
    trump = view.get("trump")
    trump_text: Line = ([("class:trump", f"Trump {SUIT_SYMBOL[trump]} {SUIT_NAME[trump]}")]
                        if trump else [("", "Trump not named yet")])
    hakem = view.get("hakem")
    hakem_text = f"   Hakem: {seat_name(view, hakem)}" if hakem is not None else ""
    lines.append([*trump_text, ("", hakem_text)])
    lines.append([("", f"Score  {_two(view, 'score')}      Tricks this round  "
                       f"{_two(view, 'tricks')}")])
    return lines


def _seat_label(view: View, seat: int) -> str:
    counts = view.get("hand_counts") or []
    info = (view.get("seats") or [{}] * 4)[seat]
    tags = []
    if view.get("seat") is not None:
        if seat == view["seat"]:
            tags.append("you")
        elif seat % 2 == view["seat"] % 2:
            tags.append("partner")
    if info.get("bot"):
        tags.append("bot")
    elif not info.get("empty") and not info.get("connected"):
        tags.append("away")
    if view.get("hakem") == seat:
        tags.append("Hakem")
    name = seat_name(view, seat) if seat != view.get("seat") else (info.get("name") or "you")
    count = counts[seat] if seat < len(counts) else 0
    return f"{name} (seat {seat}{', ' + ', '.join(tags) if tags else ''}) {count} cards"


def table(view: View) -> list[Line]:
    """The four seats around the table, as seen from one's own seat (or seat 0)."""
    n = view.get("players", 4)
    me = view.get("seat") or 0
    turn = view.get("turn") if view.get("phase") == "playing" else (
        view.get("hakem") if view.get("phase") == "choosing_trump" else None)

    def label(seat: int) -> Fragment:
        text = _seat_label(view, seat)
        return ("class:turn" if seat == turn else "", ("▶ " if seat == turn else "") + text)

    across, left, right = (me + 2) % n, (me + 1) % n, (me + 3) % n
    lines: list[Line] = [[("", " " * 22), label(across)],
                         [label(left), ("", "      "), label(right)],
                         [("", " " * 22), label(me)]]
    return lines


def trick_lines(view: View) -> list[Line]:
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
    if last:
        prev: Line = [("class:dim", "Last trick: ")]
        for i, played in enumerate(last["cards"]):
            if i:
                prev.append(("", ", "))
            prev += [("", f"{seat_name(view, played['seat'])} "), card(played["card"])]
        prev.append(("", f"  -> won by {seat_name(view, last['winner'])}"))
        lines.append(prev)
    return lines


def is_deciding(view: View) -> bool:
    return (view.get("seat") is not None and bool(view.get("legal"))
            and view.get("phase") in ("choosing_trump", "playing"))


def hand_line(view: View, cursor: Cursor) -> Line:
    """The hand; at the seat's turn to play, the cards it may not play in parentheses and the
    selected one in brackets."""
    hand = view.get("hand") or []
    if view.get("seat") is None:
        return [("class:dim", "Spectating: no hand is shown.")]
    line: Line = [("class:bold", "Your hand: ")]
    playing = is_deciding(view) and view.get("phase") == "playing"
    legal = view.get("legal") or []
    chosen = legal[cursor.selected % len(legal)] if playing and legal else None
    for i, code in enumerate(hand):
        if i:
            line.append(("", " "))
        if not playing:
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
    return (f"Round {number}: {team_name(view, r['winner'])} won {points} "
            f"point{'s' if points != 1 else ''}{', ' + kind if kind else ''} (tricks "
            f"{tricks[0]}-{tricks[1]})")


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
        score = view.get("score") or [0, 0]
        who = (f"{team_name(view, winner)} won" if me is None else
               ("you won" if winner == me % 2 else "you lost"))
        first = winner if me is None else me % 2  # your points (or the winner's) first
        lines.append([("class:turn", f"Match over: {who} the match, {score[first]}-"
                                     f"{score[1 - first]}.")])
        lines.append([("", "Press Ctrl+C to leave.")])
    elif is_deciding(view):
        if cursor.bot:
            lines.append([("class:turn", f"Your turn: the {cursor.bot} bot is deciding.")])
        elif phase == "choosing_trump":
            lines.append([("class:turn", "Your turn, Hakem: choose trump with ←/→ and Enter, "
                                         "or type S, H, D or C and Enter.")])
        else:
            lines.append([("class:turn", "Your turn: ←/→ choose a card and Enter plays it, "
                                         "or type a card (QH, 10D) and Enter.")])
    elif phase == "choosing_trump":
        lines.append([("", f"Waiting for {seat_name(view, view.get('hakem'))} (Hakem) to "
                           "choose trump.")])
    elif phase == "playing":
        lines.append([("", f"Waiting for {seat_name(view, view.get('turn'))} to play.")])
    elif phase == "round_over":
        lines.append([("", "The round is over; the next deal is coming.")])
    if view.get("result") and phase != "match_over":
        lines.append([("class:dim", "Last round: " + result_text(view))])
    elif view.get("result"):
        lines.append([("class:dim", result_text(view))])
    if cursor.typed:
        lines.append([("", f"Typed: {cursor.typed}")])
    if cursor.message:
        lines.append([("class:msg", cursor.message)])
    lines.append([("class:dim", "Ctrl+C: quit")])
    return lines


def render(view: View | None, cursor: Cursor) -> list[Line]:
    """The whole screen for ``view``."""
    if view is None:
        return [[("", "Connecting…")], [("class:msg", cursor.message)]]
    lines = header(view, cursor)
    lines.append([])
    lines += table(view)
    lines.append([])
    lines += trick_lines(view)
    lines.append([])
    if is_deciding(view) and view.get("phase") == "choosing_trump" and not cursor.bot:
        lines.append(hand_line(view, cursor))
        lines.append(trump_line(view, cursor))
    else:
        lines.append(hand_line(view, cursor))
    lines.append([])
    lines += status(view, cursor)
    return lines


def plain(lines: list[Line]) -> str:
    """The screen as plain text (no styles)."""
    return "\n".join("".join(text for _, text in line) for line in lines)
