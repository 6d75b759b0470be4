"""The terminal screen fitted to a small terminal (``render`` with a width and height): a long
line breaks between words, never inside a card or a word; on a short screen the notes and the
keys give way first and whose turn it is, trump, the score, the trick, the hand and the message
stay, and a screen too small for those says so."""

from __future__ import annotations

import re
from typing import Any

import pytest
from prompt_toolkit.utils import get_cwidth

from hokmclient import parse_card
from hokmplay.screen import Cursor, Line, plain, render, wrap

HAND = ["KS", "QS", "JS", "8S", "6S", "5S", "2S", "KH", "9H", "7H", "3H", "2H", "AC", "7C",
        "6C", "5C", "6D"]


def three_player_turn() -> dict[str, Any]:
    """Seat 0's turn to play in a three-player match, 17 cards in hand, only ``6D`` legal."""
    return {"match_id": "05ef9c712caaf418", "round": 1, "target": 7, "players": 3, "seat": 0,
            "phase": "playing", "turn": 0, "hakem": 1, "trump": "H", "version": 9,
            "sides": [[0], [1], [2]], "score": [0, 0, 0], "tricks": [0, 0, 0],
            "seats": [{"name": n, "bot": b, "connected": True, "empty": False}
                      for n, b in (("Player", None), ("Roxana", "easy"), ("Kian", "easy"))],
            "hand_counts": [17, 16, 16], "hand": HAND, "legal": ["6D"], "removed": ["2C"],
            "trick": [{"seat": 1, "card": "4D"}, {"seat": 2, "card": "AD"}],
            "last_trick": None, "result": None, "talon": None}


def widths(lines: list[Line]) -> list[int]:
    return [get_cwidth("".join(text for _, text in line)) for line in lines]


def hand_rows(text: str) -> list[str]:
    """The hand's rows: the one starting ``Your hand:`` and its indented continuations."""
    rows = text.splitlines()
    start = next(i for i, row in enumerate(rows) if row.startswith("Your hand: "))
    out = [rows[start][len("Your hand: "):]]
    for row in rows[start + 1:]:
        if not row.startswith("  ") or not row.strip():
            break
        out.append(row)
    return out


@pytest.mark.parametrize("width", [60, 40, 24])
def test_the_screen_wraps_between_words_and_cards(width: int) -> None:
    view, cursor = three_player_turn(), Cursor(connected=True)
    wide = plain(render(view, cursor))
    narrow = render(view, cursor, width=width)
    assert max(widths(narrow)) <= width < max(widths(render(view, cursor)))
    # the same words in the same order: only the spaces between them changed
    assert plain(narrow).split() == wide.split()
    assert "you are seat 0" in " ".join(plain(narrow).split())
    rows = hand_rows(plain(narrow))
    assert len(rows) > 1  # the hand did wrap ...
    tokens = [t for row in rows for t in row.split()]
    # ... between cards: every token is one whole card with its marks
    assert [parse_card(t.strip("()[]")) for t in tokens] == HAND, rows
    assert tokens[-1] == "[6♦]" and all(re.fullmatch(r"\(\S+\)", t) for t in tokens[:-1])


def with_notes(view: dict[str, Any]) -> dict[str, Any]:
    """``view`` with a last trick and the last round's result (two dim notes)."""
    return {**view, "result": {"winner": 1, "kind": "normal", "points": 1, "tricks": [3, 7]},
            "last_trick": {"winner": 0, "cards": [{"seat": 0, "card": "QH"},
                                                  {"seat": 1, "card": "2H"},
                                                  {"seat": 2, "card": "3H"}]}}


GIVE_WAY = ["Ctrl+C: quit", "Last round: Round 0", "(QH, 10D) and Enter.", "Last trick:",
            "Out of play:", "Hokm match", "Kian (seat 2, bot)"]
"""What a shrinking screen gives up, in this order (after its blank lines)."""

KEPT = ["Your turn: ←/→ choose a card", "Trump ♥ hearts Hakem: Roxana",
        "Score you 0 · Roxana 0 · Kian 0 Tricks this round you 0 · Roxana 0 · Kian 0",
        "Trick: Roxana 4♦, Kian A♦", "Your hand: (K♠) (Q♠)", "(5♣) [6♦]",
        "A♥ is not yours to play now."]
"""What stays while the screen can show it at all: whose turn, trump, the score, the trick,
the hand, the message."""


@pytest.mark.parametrize("width", [60, 30])
def test_a_short_screen_keeps_the_play_and_drops_the_notes_and_keys_first(width: int) -> None:
    view = with_notes(three_player_turn())
    cursor = Cursor(connected=True, message="A♥ is not yours to play now.")
    full = render(view, cursor, width=width)
    gone: dict[str, int] = {}  # the tallest screen without it
    smallest = len(full)
    for height in range(len(full), 0, -1):
        lines = render(view, cursor, width=width, height=height)
        assert len(lines) <= height and max(widths(lines)) <= width
        text = " ".join(plain(lines).split())
        if text == "Make the window larger to play.":
            break
        smallest = height
        assert all(k in text for k in KEPT), (height, plain(lines))
        assert [parse_card(t.strip("()[]")) for t in " ".join(hand_rows(plain(lines))).split()
                ] == HAND
        for words in GIVE_WAY:
            if words not in text:
                gone.setdefault(words, height)
        if height < len(full) and [] not in lines:
            gone.setdefault("blank lines", height)
    else:
        raise AssertionError("no screen is too small")
    assert list(gone) == ["blank lines", *GIVE_WAY], gone
    # every note gone, the turn line cut to one row: nothing else is left to drop
    assert plain(render(view, cursor, width=width, height=smallest)).splitlines()[-2] \
        .endswith("…")


def test_the_turn_limits_countdown_stays_whole_on_a_short_screen() -> None:
    """The countdown line comes first in the status; it is the turn line's keys that are cut,
    never the seconds left (it was cut to "Your turn — a stand-in plays…" at 30 columns)."""
    view = with_notes(three_player_turn())
    cursor = Cursor(connected=True, limit_left=12)
    full = render(view, cursor, width=30)
    for height in range(len(full), 0, -1):
        text = " ".join(plain(render(view, cursor, width=30, height=height)).split())
        if text == "Make the window larger to play.":
            break
        assert "Your turn — a stand-in plays in 12 s" in text, (height, text)
    else:
        raise AssertionError("no screen is too small")


@pytest.mark.parametrize("width", [40, 30])
def test_the_matchs_result_stays_whole_on_a_short_screen(width: int) -> None:
    """At the end of a match the result is what the screen is for: it is the line of keys
    under it ("Press R to play again...") that is cut, never the result (it was cut to
    "Match over: you lost the…" at 30 columns, and at 40 in a match of two sets)."""
    view = {**three_player_turn(), "phase": "match_over", "turn": None, "legal": [],
            "hand": [], "hand_counts": [0, 0, 0, 0], "trick": [], "removed": [], "winner": 1,
            "players": 4, "sides": [[0, 2], [1, 3]], "score": [2, 7], "sets": [1, 2],
            "seats": [{"name": n, "bot": "easy", "connected": True, "empty": False}
                      for n in ("A very long name indeed, longer than any", "Roxana", "Kian",
                                "Shirin")],
            "result": {"winner": 1, "points": 1, "kind": "normal", "tricks": [5, 7]}}
    result = "Match over: you lost the match, sets 1-2 (the last set 2-7)."
    cursor = Cursor(connected=True)
    full = render(view, cursor, width=width)
    assert result in " ".join(plain(full).split())
    cut = False
    for height in range(len(full), 0, -1):
        text = " ".join(plain(render(view, cursor, width=width, height=height)).split())
        if text == "Make the window larger to play.":
            break
        assert result in text, (height, text)
        cut = cut or "Press R to play again at this table, Ctrl+C to leave." not in text
    else:
        raise AssertionError("no screen is too small")
    assert cut  # the keys did give way


def test_a_screen_too_small_to_play_says_so() -> None:
    cursor = Cursor(connected=True, message="Refused (bad): no.")
    assert plain(render(three_player_turn(), cursor, width=60, height=2)) == (
        "Make the window larger to play.")
    assert plain(render(three_player_turn(), cursor, width=12, height=5)).split() == (
        "Make the window larger to play.".split())


def test_a_line_that_fits_is_unchanged_and_styles_survive_a_wrap() -> None:
    line: Line = [("class:bold", "Your hand: "), ("class:dim", "("), ("class:red class:dim", "Q♥"),
                  ("class:dim", ")"), ("", " "), ("class:sel", "["),
                  ("class:black class:sel", "10♠"), ("class:sel", "]")]
    assert wrap(line, 80) == [line]
    rows = wrap(line, 16)
    assert plain(rows) == "Your hand: (Q♥)\n  [10♠]"
    assert ("class:red class:dim", "Q♥") in rows[0] and ("class:black class:sel", "10♠") in rows[1]
    # a word wider than a whole line is split where it must be, nothing lost
    assert plain(wrap([("", "abcdefghij")], 4)).replace("\n", "") == "abcdefghij"
    assert max(widths(wrap([("", "abcdefghij klm")], 4))) <= 4


def two_player_spectator(turn: int) -> dict[str, Any]:
    """A spectator's view of a two-player match, ``turn``'s seat to play (Dara is seat 0,
    Roxana seat 1, the Hakem), a trick and the last trick on the table."""
    return {"match_id": "05ef9c712caaf418", "round": 1, "target": 7, "players": 2,
            "seat": None, "phase": "playing", "turn": turn, "hakem": 1, "trump": "H",
            "version": 9, "sides": [[0], [1]], "score": [0, 0], "tricks": [2, 1],
            "seats": [{"name": n, "bot": "easy", "connected": True, "empty": False}
                      for n in ("Dara", "Roxana")],
            "hand_counts": [12, 13], "hand": [], "legal": [],
            "trick": [{"seat": 1 - turn, "card": "4D"}],
            "last_trick": {"winner": 0, "cards": [{"seat": 0, "card": "QH"},
                                                  {"seat": 1, "card": "2H"}]},
            "result": None, "talon": None}


@pytest.mark.parametrize("turn", [0, 1])
def test_a_narrow_spectators_screen_keeps_the_seat_to_move(turn: int) -> None:
    """A two-player spectator at 30 columns: the seat to move is the last of the table's
    seats to give way, whether it sits above or below (it showed Roxana's line and dropped
    Dara's, whose turn it was); the seats are no longer 22 columns in, so a label that fits
    the width is one row; and a screen too small says "to watch", not "to play"."""
    view, cursor = two_player_spectator(turn), Cursor(connected=True)
    mover = ("▶ Dara (seat 0, bot) 12 cards" if turn == 0 else
             "▶ Roxana (seat 1, bot, Hakem) 13 cards")
    other = "Roxana (seat 1" if turn == 0 else "Dara (seat 0"
    full = render(view, cursor, width=30)
    assert max(widths(full)) <= 30
    if turn == 0:  # (29 columns: it fits whole, and sits at the left of a 30-column screen)
        assert mover in plain(full).splitlines(), plain(full)
    seen_alone = False
    for height in range(len(full), 0, -1):
        lines = render(view, cursor, width=30, height=height)
        text = " ".join(plain(lines).split())
        if text == "Make the window larger to watch.":
            break
        assert "Waiting for" in text and "Trick: " in text, (height, plain(lines))
        if other in text:
            assert mover in text, (height, plain(lines))
        seen_alone = seen_alone or (mover in text and other not in text)
    else:
        raise AssertionError("no screen is too small")
    assert seen_alone  # the other seat did give way before the seat to move
    assert plain(render(view, cursor, width=12, height=5)).split() == (
        "Make the window larger to watch.".split())
    assert plain(render(view, cursor, width=60, height=2)) == "Make the window larger to watch."


def test_the_seats_keep_their_indent_where_it_fits() -> None:
    """The seats above and below are 22 columns in on a screen wide enough (as before), and
    without a width (the screen unfitted)."""
    view, cursor = two_player_spectator(0), Cursor(connected=True)
    for lines in (render(view, cursor), render(view, cursor, width=80, height=40)):
        rows = plain(lines).splitlines()
        assert " " * 22 + "▶ Dara (seat 0, bot) 12 cards" in rows, rows
        assert " " * 22 + "Roxana (seat 1, bot, Hakem) 13 cards" in rows, rows


def four_player_spectator() -> dict[str, Any]:
    """A spectator's view of a four-player match: the sides are named by their seats."""
    return {"match_id": "05ef9c712caaf418", "round": 3, "target": 7, "players": 4,
            "seat": None, "phase": "playing", "turn": 3, "hakem": 1, "trump": "H",
            "version": 40, "sides": [[0, 2], [1, 3]], "score": [3, 4], "tricks": [2, 5],
            "seats": [{"name": n, "bot": b, "connected": True, "empty": False}
                      for n, b in (("Player", None), ("Roxana", "easy"), ("Kian", "easy"),
                                   ("Dara", "hard"))],
            "hand_counts": [6, 6, 6, 7], "hand": [], "legal": [], "removed": [],
            "trick": [{"seat": 1, "card": "4D"}, {"seat": 2, "card": "AD"}],
            "last_trick": None, "result": None, "talon": None}


@pytest.mark.parametrize("case", ["three at a seat", "three watched", "four watched"])
def test_the_header_does_not_wrap_in_mid_phrase_on_80_columns(case: str) -> None:
    """On an 80-column terminal the header's lines are laid out whole: the connection state at
    the end of the trump line, the score and the tricks on lines of their own (it wrapped
    "●" from "connected" and a three-player score from its last count)."""
    view = four_player_spectator() if case == "four watched" else three_player_turn()
    if case == "three watched":
        view = {**view, "seat": None, "hand": [], "legal": []}
    cursor = Cursor(connected=True)
    rows = plain(render(view, cursor, width=80)).splitlines()
    head = rows[:rows.index("")]
    assert not any(row.startswith(" ") for row in head), head  # no continuation row
    assert max(widths(render(view, cursor, width=80))) <= 80
    assert sum("● connected" in row for row in head) == 1, head
    assert any(row.startswith("Score  ") for row in head), head
    assert any(row.startswith("Tricks this round  ") for row in head), head
    # the words of a wide terminal, where the score and the tricks share a line
    wide = plain(render(view, cursor, width=200)).splitlines()
    assert sorted(" ".join(head).split()) == sorted(" ".join(wide[:wide.index("")]).split())
    assert any("Score  " in row and "Tricks this round" in row for row in wide)


def test_the_list_of_keys_fits_80_columns_as_written() -> None:
    """F1's list (and ``hokm play --help``'s) in an 80-column terminal: every row whole, none
    broken in mid-phrase (a walkthrough's finding: it was laid out for 88 columns)."""
    from hokmplay.keys import KEYS_HELP

    cursor = Cursor(connected=True, keys_shown=True)
    shown = plain(render(three_player_turn(), cursor, width=80, height=24)).splitlines()
    for row in KEYS_HELP.splitlines():
        assert row.rstrip() in shown, (row, shown)
