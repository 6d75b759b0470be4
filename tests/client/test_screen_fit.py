"""The terminal screen fitted to a small terminal (``render`` with a width and height): a long
line breaks between words, never inside a card or a word, and the status at the bottom (whose
turn, the message, the keys) stays on the screen however few rows there are."""

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


def test_the_status_message_and_keys_stay_on_a_short_screen() -> None:
    view = three_player_turn()
    cursor = Cursor(connected=True, message="A♥ is not yours to play now.")
    full = render(view, cursor, width=60)
    for height in (18, 12, 8):
        lines = render(view, cursor, width=60, height=height)
        text = plain(lines)
        assert len(lines) <= height < len(full)
        assert text.splitlines()[-2:] == ["A♥ is not yours to play now.", "Ctrl+C: quit"]
        assert "Your turn" in text
    # what room the status leaves goes to the hand first, then the trick, then the table
    text = plain(render(view, cursor, width=60, height=12))
    assert text.startswith("Kian (seat 2")  # whole lines go: no continuation left alone
    assert "Your hand: " in text and "Trick: Roxana 4♦,  Kian A♦" in text
    # the blank lines go before anything of the table does
    assert plain(render(view, cursor, width=60, height=len(full) - 1)).splitlines()[0] \
        .startswith("Hokm  match")


def test_a_screen_shorter_than_the_status_keeps_its_end() -> None:
    cursor = Cursor(connected=True, message="Refused (bad): no.")
    lines = render(three_player_turn(), cursor, width=60, height=2)
    assert plain(lines).splitlines() == ["Refused (bad): no.", "Ctrl+C: quit"]


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
