"""The full-screen terminal client of ``hokm play``, on prompt_toolkit.

Contract: the screen is :func:`hokmplay.screen.render` of the seat's newest view, redrawn on
every view the socket delivers.  At the seat's turn, ←/→ move among the legal choices (cards,
suits for the Hakem, keep or discard for the talon game's draw) and Enter makes the selected
one; typing a card (``QH``, ``10d``, ``q♥``), a suit letter or ``K`` / ``D`` and Enter makes
that one instead (Backspace and Escape edit what was typed).  The talon game's discard is
several cards: Space (or a typed card and Enter) marks or unmarks one, and Enter lays the
marked cards aside once there are as many as the view asks (a card beyond that many is not
marked: the message says to unmark one first).  The screen is fitted to the terminal's width
and height (:func:`hokmplay.screen.fit`): whose turn it is, trump, the score, the trick, the
hand and the message stay in sight, the notes and the keys' help give way first, and a window
too small for them asks to be made larger.  A refused command shows the server's words and
the player chooses again.  Ctrl+C (or Ctrl+Q) quits.  A seat given up elsewhere (its token
left in the browser or another client) is said in a line, as the browser says it, and the
table watches on.  ``L`` at a seat of a match under way
asks, and a second ``L`` leaves the seat to a medium bot and ends the app (``left`` says so;
``hokm play`` prints it).  ``?`` at the seat's turn asks for a hint (rules.md, "Hints for
learners": three of the seat's decisions from its first ``?``): the message names the
suggestion and says why and how many hints are left, and the selection moves to it; with none
left, or not at the seat's turn, the message says so.  With a local bot the bot decides and
the keys only quit or leave.
The socket reconnects by itself (:class:`hokmclient.AsyncSeat`); the header shows whether it
is connected, a request the server did not answer says so (never the request's address), and a
socket the server refuses for good (the match gone) ends :meth:`PlayApp.run` with that error.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.styles import Style

from hokmclient import (ApiError, AsyncSeat, Choice, NetworkError, card_text, my_turn, parse_card,
                        parse_suit)
from hokmclient.cards import SUIT_NAME, SUIT_SYMBOL, suit_of

from .bot import LocalBot
from .lost import seat_lost
from .screen import (COUNTDOWN_S, TALON_WORDS, Cursor, can_leave, cards_count, render,
                     to_discard)

STYLE = Style.from_dict({
    "title": "bold",
    "red": "ansired",
    "black": "fg:default",  # the terminal's own text colour ("" left prompt_toolkit's black,
    # 000000: spades and clubs unreadable on a dark terminal, a walkthrough's finding)
    "dim": "ansibrightblack",
    "bold": "bold",
    "sel": "reverse bold",
    "turn": "bold ansigreen",
    "trump": "bold ansiyellow",
    "ok": "ansigreen",
    "msg": "bold ansimagenta",
    "mark": "underline bold ansicyan",
    "limit": "bold ansired",
})

REFUSED_AGAIN = {"stale_version": "The table moved on before your choice arrived: choose again.",
                 "not_your_turn": "It is not your turn any more."}
SENDING = "Sending… the server does not answer yet: trying again for a few seconds."
"""What a choice made while the header says reconnecting says at once, while the client tries
(an audit's finding: nothing was said for about 10 s, until :data:`NOT_SENT`).  It promises
no more than those seconds (a walkthrough's finding: "your choice goes once it does" read as
a choice queued until the server was back, which it is not)."""
NOT_SENT = ("The server does not answer: your choice may not have reached it. Choose again once "
            "the header says connected.")
"""A decision whose request failed for the network (QA: it said "Refused (network): POST
http://...: All connection attempts failed", and kept saying it once back): nothing was
refused, and the view after reconnecting tells whether it arrived."""



def effective_suit(view: dict[str, Any], card: str) -> str:
    """The suit ``card`` counts as: its own, except the 2 of hearts under ``satat``, a trump
    (rules.md) once trump is named."""
    trump = view.get("trump")
    if card == "2H" and trump and (view.get("rules") or {}).get("satat"):
        return str(trump)
    return suit_of(card)


def refusal(view: dict[str, Any], card: str) -> str:
    """Why ``card`` (not among the view's legal cards) cannot be played, in a line: not held,
    the suit led not followed, a trump owed under ``must_trump``, else the room's rules.  Suits
    are the effective ones (``satat``: the 2 of hearts is a trump)."""
    hand = list(view.get("hand") or [])
    if card not in hand:
        return f"{card_text(card)} is not in your hand."
    trick = view.get("trick") or []
    if trick:
        lead = effective_suit(view, trick[0]["card"])
        suit = effective_suit(view, card)
        if suit != lead and any(effective_suit(view, c) == lead for c in hand):
            return (f"{card_text(card)} cannot be played: follow the suit led, "
                    f"{SUIT_SYMBOL[lead]} {SUIT_NAME[lead]}.")
        trump = view.get("trump")
        if (trump and (view.get("rules") or {}).get("must_trump") and suit != trump
                and any(effective_suit(view, c) == trump for c in hand)):
            return (f"{card_text(card)} cannot be played: you cannot follow suit, so you must "
                    f"play a trump, {SUIT_SYMBOL[trump]} {SUIT_NAME[trump]} (house rule).")
    return f"{card_text(card)} cannot be played now (the room's rules)."

LEAVE_ASK = ("Press L again to leave: a computer player takes your seat for the rest of the "
             "match and hokm play ends (Esc: stay).")
LEAVE_LEVEL = "medium"
"""The level of the bot a seat is left to (as the browser's "Leave the table")."""
INVITE = "Invite link: "
"""How the link of a room with an open seat is shown (until every seat is taken)."""
HELD = "No invite link for now: "
HELD_SEAT = (f"{HELD}the open seat is kept for the last match's player. The link shows here if "
             "it is still open when the hold ends.")
HELD_SEATS = (f"{HELD}the open seats are kept for the last match's players. The link shows "
              "here if one is still open when the hold ends.")
"""What a rematch's table says instead of the invite link while every open seat is kept for a
player of the last match (the summary's ``held`` and ``held_for``): nobody else can take one
with the link meanwhile (the browser's join page says "held" of such a seat)."""
ASKING_MORE = "Asking for more time…"
MORE_GIVEN_ALREADY = "You had more time for this turn already."
NO_LIMIT = "No turn limit runs here: take your time."
ASKING_HINT = "Asking for a hint…"
NOT_YET = "It is not your turn yet: type your choice when the table says it is yours."
"""A choice typed and entered while the seat has nothing to decide (it was dropped unsaid: a
walkthrough's finding)."""
REMATCH_LOOK_S = 4.0
REMATCH_LOOK_FOR_S = 15 * 60.0
"""At the end of a match, how often and for how long the summary is asked whether a player
asked for the rematch (as the browser's match-over panel asks: table.js ``lookForRematch``)."""
REMATCH_FULL = "The rematch is full: every seat is taken. You can watch it"
"""R refused as ``match_full`` (the seat held for this player was given away): the browser's
words (``over.rematch_full``), with the command that watches it."""
HINTS_AGAIN = ("No hints left: they went with the three decisions after your first ?. Press ? "
               "again for hints on your next three.")
"""``?`` after three hinted decisions: the next ``?`` starts three more from the table now (the
browser's "Restart hints"; the terminal had no way to: a walkthrough's finding)."""
HINT_REFUSED = {"hints_exhausted": HINTS_AGAIN,
                "not_your_turn": "A hint is for your turn: press ? when it is yours.",
                "unavailable": "This server gives no hints."}
"""The message of ``?`` for the hint route's refusals (api.md), by error code."""


def said(error: ApiError) -> str:
    """A refusal's words for a message: the server's, or, when it did not answer, that it does
    not (QA: "No hint: GET http://HOST/api/matches/.../hint?...: All connection attempts
    failed", the request's address in a line about the table)."""
    if isinstance(error, NetworkError):
        return "the server does not answer"
    return error.message or error.code


def suggested(advice: dict[str, Any]) -> list[str]:
    """A hint's suggestion as the choices it names (api.md: a suit, a card, ``keep`` or
    ``discard``, or the cards to lay aside joined by spaces)."""
    return str(advice.get("suggestion") or "").split()


def hint_text(view: dict[str, Any], advice: dict[str, Any]) -> str:
    """A hint (``GET .../hint``) for the decision of ``view`` in a line: the suggestion named as
    the screen names it (a card to play, a suit as trump, the cards to lay aside, the talon's
    keep or discard), the English ``reason`` and how many hints are left."""
    codes = suggested(advice)
    phase = view.get("phase")
    if phase == "choosing_trump" and codes and codes[0] in SUIT_NAME:
        what = f"choose {SUIT_SYMBOL[codes[0]]} {SUIT_NAME[codes[0]]} as trump"
    elif phase == "drawing" and codes:
        what = TALON_WORDS.get(codes[0], codes[0])
    elif phase == "discarding":
        what = "lay aside " + " ".join(card_text(c) for c in codes)
    else:
        what = "play " + " ".join(card_text(c) for c in codes)
    left = int(advice.get("remaining") or 0)
    reason = str(advice.get("reason") or "").strip()
    return (f"Hint: {what}. {reason + ' ' if reason else ''}"
            f"({left} hint{'' if left == 1 else 's'} left)")


def stand_in_text(record: dict[str, Any]) -> str:
    """What the seat's stand-in did when the turn's time was up, in a line: the card it played
    or the trump it chose (as the browser says it), else that it made a move."""
    for event in record.get("events") or []:
        if event.get("type") == "card_played":
            return f"Your time was up: a stand-in played {card_text(event['card'])} for you."
        if event.get("type") == "trump_chosen":
            suit = event["suit"]
            return (f"Your time was up: a stand-in chose {SUIT_SYMBOL[suit]} "
                    f"{SUIT_NAME[suit]} as trump for you.")
    return "Your time was up: a stand-in made a move for you."


class PlayApp:
    """One seat (or a spectator) at the terminal."""

    def __init__(self, seat: AsyncSeat, bot: LocalBot | None = None,
                 invite: str | None = None) -> None:
        self.seat = seat
        self.bot = bot
        self.cursor = Cursor(bot=bot.level if bot else None,
                             replay=f"{seat.client.base}/replay/{seat.match_id}")
        self.invite = invite
        if invite:
            self.cursor.message = f"{INVITE}{invite}"
        self.busy = False
        self.rematch: dict[str, Any] | None = None
        """The answer of ``POST .../rematch`` once the player asked for the next match."""
        self.left: str | None = None
        self.ended: ApiError | None = None
        """Why the seat ended while the table was shown (the server refused its socket)."""
        """What to say once the app ends after the player left the seat to a bot (``L``)."""
        self._legal: list[str] = []
        self._limit: tuple[int, int, float] | None = None
        """The turn limit the server told (``turn_limit``): version, seat, its deadline on
        this process's monotonic clock."""
        self._limit_grace: float | None = None
        """The seconds of that turn when they were the grace (the frame's ``grace``), else
        None: the countdown says why it is short."""
        self._sent_at: int | None = None
        """The version the seat's last decision was sent for."""
        self._more_asked: int | None = None
        """The version of the turn the player asked more time for (``+``: once a turn)."""
        self._extended_at: int | None = None
        """The version of the turn the server extended (a ``turn_limit`` frame ``extended``)."""
        self._hint_since: int | None = None
        """The version of the seat's first ``?``: hints count its decisions from there."""
        self._answered = ""
        """The message the last Enter left, which typing a new choice clears (it stayed under
        the next one typed: a walkthrough's finding)."""
        self._seen_seats: list[dict[str, Any]] | None = None
        """The seats of the last view (``_tell_replaced``)."""
        self._held: set[int] = set()
        """The seats this client has held (``_tell_replaced`` says nothing of them)."""
        self._passing: tuple[str, int] | None = None
        """A message about the turn limit (more time given, the stand-in's move) and the
        version it was told at: it goes once the player acts, at the player's next turn, or
        (more time) when the countdown shows again."""
        self._last_seat: int | None = None
        """The seat the token's last view showed (a later view without one is the seat given
        up elsewhere: :meth:`_seat_lost`)."""
        self._leaving = False
        """``L L`` sent: the views without the seat that follow are this app's own leaving."""
        self._looking = False
        """Whether the summary is being asked for the finished match's rematch."""
        self._tasks: set[asyncio.Task[None]] = set()
        self.app: Application[int] = Application(
            # render() wraps the lines itself (between words, never inside a card)
            layout=Layout(Window(FormattedTextControl(self._text, focusable=True,
                                                      show_cursor=False), wrap_lines=False)),
            key_bindings=self._keys(), style=STYLE, full_screen=True, mouse_support=False,
            refresh_interval=0.5)
        # Esc alone is told from the start of an arrow's escape sequence by the wait after
        # it: prompt_toolkit's 0.5 s made Esc (leaving F1, taking back L) seem to do nothing
        # at first (a walkthrough's finding); 0.1 s, as vim's defaults, still keeps a
        # sequence whole over a network
        self.app.ttimeoutlen = 0.1

    # -- drawing -------------------------------------------------------------------------------

    def _text(self) -> StyleAndTextTuples:
        view = self.seat.view
        self.cursor.connected = self.seat.connected
        if view is not None:
            legal = list(view.get("legal") or [])
            if legal != self._legal:  # a new decision: keep the selection if it is still legal
                kept = (self._legal[self.cursor.selected % len(self._legal)]
                        if self._legal else None)
                self.cursor.selected = legal.index(kept) if kept in legal else 0
                self._legal = legal
            if view.get("phase") != "discarding":
                self.cursor.marked = []
            else:
                self.cursor.marked = [c for c in self.cursor.marked if c in legal]
        self.cursor.limit_left = self._limit_left(view)
        self.cursor.limit_grace = self._limit_grace if self.cursor.limit_left is not None \
            else None
        self.cursor.more_used = self._more_used(view)
        if self.cursor.limit_left is not None and self._passing is not None \
                and self._passing[0].startswith("You have more time"):
            self._clear_passing()  # the countdown says it now
        size = self.app.output.get_size()
        out: StyleAndTextTuples = []
        for i, line in enumerate(render(view, self.cursor, size.columns, size.rows)):
            if i:  # no newline after the last: it would be a row more than the screen
                out.append(("", "\n"))
            out.extend(line)
        return out

    def _limit_left(self, view: dict[str, Any] | None) -> int | None:
        """The seconds of the turn limit to show for ``view``, if any."""
        limit = self._limit
        if view is None or limit is None or view.get("version") != limit[0] \
                or view.get("seat") != limit[1] or not my_turn(view):
            return None
        left = math.ceil(limit[2] - time.monotonic())
        return left if 0 < left < COUNTDOWN_S else None

    def _more_used(self, view: dict[str, Any] | None) -> bool:
        """Whether the turn of ``view`` had its more time already (asked for, or given)."""
        version = view.get("version") if view is not None else None
        return version is not None and version in (self._more_asked, self._extended_at)

    def _tell_passing(self, text: str) -> None:
        """Say ``text`` until the player acts or their next turn starts."""
        view = self.seat.view
        self.cursor.message = text
        self._passing = (text, int((view or {}).get("version") or 0))
        self.app.invalidate()

    def _clear_passing(self) -> None:
        if self._passing is not None and self.cursor.message == self._passing[0]:
            self.cursor.message = ""
        self._passing = None

    def _frame(self, message: dict[str, Any]) -> None:
        if message.get("type") == "turn_limit":
            self._limit = (int(message["version"]), int(message["seat"]),
                           time.monotonic() + int(message["left_ms"]) / 1000)
            grace = message.get("limit_s") if message.get("grace") else None
            self._limit_grace = float(grace) if isinstance(grace, (int, float)) else None
            if message.get("extended"):
                told = self._extended_at == self._limit[0]
                self._extended_at = self._limit[0]
                if self._more_asked == self._limit[0] and not told:
                    self._tell_passing(
                        f"You have more time: {int(message['left_ms']) // 1000} s.")
            self.app.invalidate()
        elif message.get("type") == "error" and self._more_asked is not None \
                and self.cursor.message == ASKING_MORE:
            self.cursor.message = f"No more time: {message.get('message') or message.get('code')}."
            self.app.invalidate()

    def _ask_more_time(self) -> None:
        """``+`` while the countdown shows: the room's full limit again, once a turn
        (``more_time``, api.md); the answer is a ``turn_limit`` frame, or an error frame."""
        view = self.seat.view
        if self.bot is None and view is not None and my_turn(view) \
                and (self._limit is None or self._limit[0] != view.get("version")):
            self.cursor.message = NO_LIMIT  # (a solo match: + did nothing visible)
            return
        if self.bot is not None or self._limit_left(view) is None or view is None:
            return
        if self._more_used(view):  # once a turn: say so (the server would refuse it)
            if self.cursor.message != ASKING_MORE:  # (still asking: that says it)
                self.cursor.message = MORE_GIVEN_ALREADY
            return
        self._more_asked = int(view["version"])
        self.cursor.message = ASKING_MORE

        async def ask() -> None:
            try:
                await self.seat.send({"type": "more_time"})
            except ApiError as error:
                self.cursor.message = f"No more time: {said(error)}."
                self.app.invalidate()

        self._spawn(ask())

    def _passed_limit(self, view: dict[str, Any]) -> None:
        """A view past the limited turn: if the seat sent nothing for it and its time had run
        out, ask whether its stand-in made the move, and say so."""
        limit = self._limit
        if limit is None or view["version"] <= limit[0]:
            return
        self._limit = None
        version, me, deadline = limit
        if self._sent_at == version or time.monotonic() < deadline - 2:
            return

        async def ask() -> None:
            with contextlib.suppress(ApiError):
                records = (await self.seat.events(version)).get("events") or []
                record = next((r for r in records if r.get("version") == version + 1
                               and r.get("stand_in") and r.get("actor") == me), None)
                if record is not None:
                    self._tell_passing(stand_in_text(record))

        self._spawn(ask())

    def _changed(self, view: dict[str, Any]) -> None:
        self._tell_replaced(view)
        if view.get("phase") in ("round_over", "match_over") and view.get("last_trick"):
            self.cursor.round_end = {**view["last_trick"], "round": view.get("round")}
        if self.seat.token is not None and not self._leaving:
            if view.get("seat") is not None:
                self._last_seat = int(view["seat"])
            elif self._last_seat is not None:
                self._seat_lost()
        if self._passing is not None and my_turn(view) \
                and int(view.get("version") or 0) > self._passing[1]:
            self._clear_passing()  # the player's next turn: what happened before is past
        self._passed_limit(view)
        if self.cursor.message == NOT_SENT and self.seat.connected:
            self.cursor.message = ""  # back: the view shows whether the choice arrived
        if self.cursor.message.startswith((INVITE, HELD)) \
                and not any(s.get("empty") for s in view.get("seats") or []):
            self.cursor.message = ""  # no seat is open to anyone (solo): the link only says so
        if view.get("phase") == "match_over" and not self._looking:
            self._looking = True
            self._spawn(self._look_for_rematch())
        self.app.invalidate()
        if self.bot is not None and my_turn(view) and not self.busy:
            self._spawn(self._bot_move(view))

    def _tell_replaced(self, view: dict[str, Any]) -> None:
        """Say that a player at the table left and a computer player took the seat (the table
        only renamed the seat, a bot from then on, and the last trick's card with it: a
        walkthrough's finding).  Not for a seat this client holds or held (``_seat_lost``
        says that)."""
        if view.get("seat") is not None:
            self._held.add(int(view["seat"]))
        seats = [s if isinstance(s, dict) else {} for s in view.get("seats") or []]
        before, self._seen_seats = self._seen_seats, seats
        if before is None or len(before) != len(seats) or self.cursor.message == LEAVE_ASK:
            return
        for i, (was, now) in enumerate(zip(before, seats, strict=True)):
            if i not in self._held and was.get("name") and not was.get("bot") \
                    and not was.get("empty") and now.get("bot"):
                self.cursor.message = (f"{was['name']} left: a computer player, {now.get('name')}, "
                                       f"plays seat {i} from now on.")

    # -- keys ----------------------------------------------------------------------------------

    def _keys(self) -> KeyBindings:
        kb = KeyBindings()

        @kb.add("c-c")
        @kb.add("c-q")
        def _quit(event: KeyPressEvent) -> None:
            event.app.exit(result=0)

        @kb.add("left")
        def _left(event: KeyPressEvent) -> None:
            self.cursor.selected -= 1
            self.cursor.typed = ""

        @kb.add("right")
        def _right(event: KeyPressEvent) -> None:
            self.cursor.selected += 1
            self.cursor.typed = ""

        @kb.add("backspace")
        def _back(event: KeyPressEvent) -> None:
            self.cursor.typed = self.cursor.typed[:-1]

        @kb.add("f1")
        def _list_keys(event: KeyPressEvent) -> None:
            self.cursor.keys_shown = not self.cursor.keys_shown

        @kb.add("escape")
        def _clear(event: KeyPressEvent) -> None:
            if self.cursor.keys_shown:  # back to the table, what was typed kept
                self.cursor.keys_shown = False
                return
            self.cursor.typed = ""
            if self.cursor.message == LEAVE_ASK:  # "stay"
                self.cursor.message = ""

        @kb.add("enter")
        def _enter(event: KeyPressEvent) -> None:
            before = self.cursor.message
            self._submit()
            if self.cursor.message != before:  # what Enter said ("'QQ' is not a card"...)
                self._answered = self.cursor.message

        @kb.add("space")
        def _mark(event: KeyPressEvent) -> None:
            view = self.seat.view
            if view is not None and to_discard(view) and self.bot is None:
                legal = list(view["legal"])
                self._toggle(legal[self.cursor.selected % len(legal)], to_discard(view))

        @kb.add("<any>")
        def _type(event: KeyPressEvent) -> None:
            text = event.data
            if text in ("r", "R") and self._over_at_a_seat():
                self._ask_rematch()
                return
            if text == "+":
                self._ask_more_time()
                return
            if text == "?":  # (no card's name has a ?)
                self._ask_hint()
                return
            if text in ("l", "L"):  # (no card's name has an L)
                self._ask_leave()
                return
            view = self.seat.view
            if len(text) == 1 and text.isprintable() and not text.isspace() \
                    and self.bot is None and self.seat.token is not None \
                    and view is not None and view.get("seat") is not None:
                # (a spectator, or a seat the local bot plays, has nothing to type: it said
                # "Typed: qh" under a table that takes no choice)
                if not self.cursor.typed and self.cursor.message \
                        and self.cursor.message == self._answered:
                    self.cursor.message = ""  # a new choice: the last one's answer is past
                self.cursor.typed = (self.cursor.typed + text)[-3:]

        return kb

    def _ask_hint(self) -> None:
        """``?``: a hint for the seat's decision now (``GET .../hint`` since the seat's first
        ``?``).  The answer is shown (:func:`hint_text`) and selected only while the view is
        still the one it was asked for and no other message took its place; a refusal says
        why in a line (:data:`HINT_REFUSED`)."""
        view = self.seat.view
        if view is None or self.busy:
            return
        if self.bot is not None or self.seat.token is None or view.get("seat") is None:
            self.cursor.message = (f"The {self.bot.level} bot plays this seat: no hints."
                                   if self.bot is not None else "Hints are for the players.")
            return
        version = int(view.get("version") or 0)
        if self._hint_since is None:
            self._hint_since = version
        since = self._hint_since
        self.cursor.typed = ""
        self.cursor.message = ASKING_HINT

        async def ask() -> None:
            try:
                advice = await self.seat.hint(since)
            except ApiError as error:
                told = HINT_REFUSED.get(error.code, f"No hint: {said(error)}.")
                if error.code == "hints_exhausted":
                    self._hint_since = None  # the next ? restarts them from the table then
                if self.cursor.message == ASKING_HINT:
                    self.cursor.message = told
                self.app.invalidate()
                return
            latest = self.seat.view
            if self.cursor.message != ASKING_HINT:
                return  # the player did something else meanwhile: that message stays
            if latest is None or latest.get("version") != version:
                self.cursor.message = ""  # the table moved on: the hint is for a past turn
            else:
                self.cursor.message = hint_text(latest, advice)
                self._select_hint(latest, advice)
            self.app.invalidate()

        self._spawn(ask())

    def _select_hint(self, view: dict[str, Any], advice: dict[str, Any]) -> None:
        """Move the selection to the (first) suggested choice of ``view``'s legal ones; in the
        talon game's discard, mark the suggested cards instead of the player's marks, so that
        Enter lays them aside (a walkthrough's finding: the hint named two cards, the cursor
        went to one, and Enter laid aside the cards marked before, the trumps it said to
        keep)."""
        legal = list(view.get("legal") or [])
        hinted = [c for c in suggested(advice) if c in legal]
        if view.get("phase") == "discarding" and hinted and len(hinted) == to_discard(view):
            self.cursor.marked = hinted
            self.cursor.message += " Marked for you: Enter lays them aside."
        if hinted:
            self.cursor.selected = legal.index(hinted[0])
            self._legal = legal  # (so that the next drawing keeps this selection)

    def _missed(self, message: dict[str, Any]) -> None:
        """Back after a lost connection: say how many moves a stand-in made for the seat
        (records marked ``stand_in``; too far behind for the socket to send them, they are
        asked for)."""
        view = self.seat.view
        me = view.get("seat") if view is not None else None
        if me is None:
            return

        def tell(records: list[dict[str, Any]]) -> None:
            n = sum(1 for r in records if r.get("stand_in") and r.get("actor") == me)
            if n:
                self.cursor.message = ("While you were away, a stand-in made a move for you."
                                       if n == 1 else f"While you were away, a stand-in "
                                       f"played for you ({n} moves).")
                self.app.invalidate()

        if not message.get("resync"):
            tell(list(message.get("records") or []))
            return

        async def ask() -> None:
            with contextlib.suppress(ApiError):
                tell(list((await self.seat.events(int(message["since"]))).get("events") or []))

        self._spawn(ask())

    def _seat_lost(self) -> None:
        """The seat's token no longer holds the seat: its player gave it up elsewhere (the
        browser's "Leave the table", another ``hokm play``).  As the browser does, the table
        says so in a line and watches on: the token, which no longer works, is dropped (the
        socket then reconnects as a spectator's, and Ctrl+C offers no token to take the seat
        back).  A bot at the seat last shown is said as the browser says it; a seat left empty
        is open to anyone, this player too."""
        seat, self._last_seat = self._last_seat, None
        self.seat.watch_on()  # (now: no key may use the token while the summary is asked)
        self.busy = False
        self.cursor.typed = ""

        async def tell() -> None:
            self.cursor.message = await seat_lost(self.seat, seat)
            self.app.invalidate()

        self._spawn(tell())

    # -- leaving the seat to a bot --------------------------------------------------------------

    def _ask_leave(self) -> None:
        """``L`` at a seat of a match under way: the first press asks (the question stays
        until Esc, another key's message or a second ``L``); the second leaves the seat to a
        bot (``POST .../leave`` with ``replace_with``) and the app ends with ``left`` set."""
        view = self.seat.view
        if self.busy or view is None or self.seat.token is None or not can_leave(view):
            return
        if self.cursor.message != LEAVE_ASK:
            self.cursor.typed = ""
            self.cursor.message = LEAVE_ASK
            return
        self.busy = self._leaving = True
        self.cursor.message = "Leaving the table…"
        self._spawn(self._leave())

    async def _leave(self) -> None:
        try:
            await self.seat.leave(f"bot:{LEAVE_LEVEL}")
        except ApiError as error:  # nothing changed: the seat is still the player's
            self.busy = self._leaving = False
            self.cursor.message = (
                "You cannot leave yet: the match would be left to bots alone and the server "
                "runs as many of those as it may. Try again in "
                f"{math.ceil(error.retry_after or 60)} seconds; your seat is still yours."
                if error.code == "rate_limited"
                else f"You are still seated: {said(error)}.")
            self.app.invalidate()
            return
        self.left = (f"You left the table: a computer player ({LEAVE_LEVEL}) has your seat "
                     "for the rest of the match.")
        self.app.exit(result=0)

    # -- the next match ------------------------------------------------------------------------

    def _over_at_a_seat(self) -> bool:
        view = self.seat.view
        return (view is not None and view.get("phase") == "match_over"
                and view.get("seat") is not None and self.seat.token is not None)

    def _ask_rematch(self) -> None:
        """R at the end of a match: the next match of this table (``POST .../rematch``: made
        by the first player to ask, joined by the others); the app ends with ``rematch`` set,
        and ``hokm play`` goes on at the new table."""
        if self.busy:
            return
        self.busy = True
        self.cursor.message = "Asking for a rematch…"
        self._spawn(self._rematch())

    async def _look_for_rematch(self) -> None:
        """Ask the finished match's summary every :data:`REMATCH_LOOK_S` (for
        :data:`REMATCH_LOOK_FOR_S` at most, not once the match is gone) whether a player asked
        for its rematch; once one did, the screen says so (QA: the other player's terminal
        kept offering "play again" with no word of the rematch waiting for them)."""
        until = time.monotonic() + REMATCH_LOOK_FOR_S
        while time.monotonic() < until:
            try:
                found = (await self.seat.client.summary(self.seat.match_id)).get("rematch")
            except ApiError as error:
                if error.code == "not_found":
                    return
                found = None
            if found:
                self.cursor.rematch = f"{self.seat.client.base}/m/{found}"
                self.app.invalidate()
                return
            await asyncio.sleep(REMATCH_LOOK_S)

    async def _held_for(self) -> int:
        """The seconds for which every open seat of the match is kept for a player of the last
        match (a rematch's hold, from the summary), 0 if one is open to anyone (or none is
        open, or the summary does not come); the invite link's message says which."""
        try:
            summary = await self.seat.client.summary(self.seat.match_id)
        except ApiError:
            return 0
        seats = [s for s in summary.get("seats") or [] if isinstance(s, dict) and s.get("empty")]
        left = int(summary.get("held_for") or 0)
        if not seats or not all(s.get("held") for s in seats) or left <= 0:
            if self.cursor.message.startswith(HELD) and seats:
                self.cursor.message = f"{INVITE}{self.invite}"
            return 0
        if self.cursor.message.startswith(INVITE):
            self.cursor.message = HELD_SEAT if len(seats) == 1 else HELD_SEATS
        return left

    async def _mind_holds(self, left: int) -> None:
        """While every open seat is kept (``left`` seconds more), look again when the hold
        ends: the invite link comes back if a seat is still open then."""
        while left > 0:
            await asyncio.sleep(left + 0.5)
            left = await self._held_for()
            self.app.invalidate()

    async def _rematch(self) -> None:
        assert self.seat.token is not None
        try:
            self.rematch = await self.seat.client.rematch(self.seat.match_id, self.seat.token)
        except ApiError as error:
            if error.code == "match_full":
                self.cursor.rematch_full = True
                with contextlib.suppress(ApiError):
                    found = (await self.seat.client.summary(self.seat.match_id)).get("rematch")
                    if found:
                        self.cursor.rematch = f"{self.seat.client.base}/m/{found}"
                self.cursor.message = (f"{REMATCH_FULL}: hokm play {self.cursor.rematch} "
                                       "--spectate." if self.cursor.rematch
                                       else f"{REMATCH_FULL}.")
                self.app.invalidate()
                return  # (busy stays: R has nothing more to do here)
            self.cursor.message = f"No rematch: {said(error)}."
            self.busy = False
            self.app.invalidate()
            return
        self.app.exit(result=0)

    def _submit(self) -> None:
        view = self.seat.view
        if view is None or self.bot is not None or self.busy or not my_turn(view):
            typed, self.cursor.typed = self.cursor.typed, ""
            if typed and view is not None and not self.busy and self.bot is None \
                    and view.get("seat") is not None and view.get("phase") != "match_over":
                self.cursor.message = NOT_YET  # (a choice typed out of turn went unsaid)
            return
        legal = list(view["legal"])
        typed, self.cursor.typed = self.cursor.typed, ""
        if view["phase"] == "discarding":
            self._submit_discard(view, typed)
            return
        if view["phase"] == "drawing":
            choice = ({"k": "keep", "d": "discard"}.get(typed[:1].lower()) if typed
                      else legal[self.cursor.selected % len(legal)])
            if choice is None:
                self.cursor.message = f"{typed!r}: type K to keep the top card or D to discard it."
                return
            self.cursor.message = ""
            self._spawn(self._decide(choice, view))
            return
        trump = view["phase"] == "choosing_trump"
        if typed:
            choice = parse_suit(typed) if trump else parse_card(typed)
            if choice is None:
                self.cursor.message = (f"{typed!r} is not a suit: type S, H, D or C." if trump
                                       else f"{typed!r} is not a card: type one like QH or 10D.")
                return
            if choice not in legal:
                self.cursor.message = (refusal(view, choice) if not trump
                                       else f"{choice} cannot be chosen now.")
                return
        else:
            choice = legal[self.cursor.selected % len(legal)]
        self.cursor.message = ""
        self._spawn(self._decide(choice, view))

    def _toggle(self, code: str, need: int) -> None:
        """Mark ``code`` to lay aside, or unmark it; a mark beyond the ``need`` cards the view
        asks for is refused with a message (as the browser refuses a card too many)."""
        marked = self.cursor.marked
        if code in marked:
            marked.remove(code)
        elif len(marked) >= need:
            self.cursor.message = (f"You already marked {cards_count(need)}: unmark one (Space "
                                   f"on a marked card) before marking {card_text(code)}.")
            return
        else:
            marked.append(code)
        self.cursor.message = ""

    def _submit_discard(self, view: dict[str, Any], typed: str) -> None:
        """The talon game's discard: a typed card is marked (or unmarked); Enter alone lays the
        marked cards aside when there are as many as asked."""
        need = to_discard(view)
        if typed:
            code = parse_card(typed)
            if code is None or code not in view["legal"]:
                self.cursor.message = (f"{typed!r} is not a card of your hand." if code is None
                                       else f"{card_text(code)} is not in your hand.")
                return
            self._toggle(code, need)
            return
        if len(self.cursor.marked) != need:
            self.cursor.message = (f"Mark exactly {cards_count(need)} with Space first "
                                   f"({len(self.cursor.marked)} marked).")
            return
        self.cursor.message = ""
        self._spawn(self._decide(list(self.cursor.marked), view))

    # -- commands ------------------------------------------------------------------------------

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _decide(self, choice: Choice, view: dict[str, Any]) -> None:
        self.busy = True
        self._clear_passing()  # the player acted
        self._sent_at = view["version"]
        if not self.seat.connected:
            self.cursor.message = SENDING
            self.app.invalidate()
        try:
            await self.seat.decide(choice, view)
            if self.cursor.message == SENDING:
                self.cursor.message = ""
        except ApiError as error:
            refused = f"Refused ({error.code}): {error.message}"
            self.cursor.message = (NOT_SENT if isinstance(error, NetworkError)
                                   else REFUSED_AGAIN.get(error.code, refused))
        finally:
            self.busy = False
            self.app.invalidate()

    async def _bot_move(self, view: dict[str, Any]) -> None:
        assert self.bot is not None
        self.busy = True
        try:
            choice = await self.bot.choose(self.seat, view)
            self._sent_at = view["version"]
            await self.seat.decide(choice, view)
        except ApiError as error:
            if error.code not in REFUSED_AGAIN:
                self.cursor.message = f"The bot's move was refused ({error.code})."
        finally:
            self.busy = False
            self.app.invalidate()
        latest = self.seat.view
        if latest is not None and my_turn(latest) and latest["version"] != view["version"]:
            self._spawn(self._bot_move(latest))

    # -- running -------------------------------------------------------------------------------

    async def _watch_end(self) -> None:
        """End the app when the server refuses the seat's socket for good (QA: a server
        restarted without the match, 4404, left the table saying "reconnecting…" for ever):
        :meth:`run` raises that ``ApiError`` and ``hokm play`` says it in a line, status 1.
        But a token refused (4401) once the seat was shown is the seat given up elsewhere while
        the socket was away (it reconnected after the leave): said, and watched on, as the
        browser does (table.js, close 4401)."""
        while True:
            try:
                await self.seat.wait(lambda view: False)
            except ApiError as error:
                if error.code == "bad_token" and self.seat.token is not None \
                        and self._last_seat is not None and not self._leaving:
                    self._seat_lost()  # (the socket opened again, a spectator's)
                    continue
                self.ended = error
                if self.app.is_running:
                    self.app.exit(result=1)
                return

    async def run(self) -> int:
        """Show the table until the player quits; returns the exit status."""
        self.seat.on_view = self._changed
        self.seat.on_missed = self._missed
        self.seat.on_frame = self._frame
        await self.seat.start()
        if self.seat.view is not None:
            self._changed(self.seat.view)
        held = await self._held_for() if self.cursor.message.startswith(INVITE) else 0

        def started() -> None:
            self._spawn(self._watch_end())
            if held:
                self._spawn(self._mind_holds(held))

        try:
            status = await self.app.run_async(pre_run=started) or 0
            if self.ended is not None:
                raise self.ended
            return status
        finally:
            for task in list(self._tasks):
                task.cancel()
            with contextlib.suppress(Exception):
                await self.seat.close()
