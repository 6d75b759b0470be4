"""A seat's name must show something (a QA finding: the Hangul filler U+3164 and the blank
braille pattern U+2800 made names that look blank; a variation selector after a letter hid in
a name; 39 accents stacked on one letter spilled over the seats around)."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.errors import InvalidCommand
from engine.names import BLANKS, MAX_MARKS, MAX_NAME, check_name


@pytest.mark.parametrize("name", [
    "Ann", "  Bob  ", "Zoë", "Nguyễn", "دارا", "Ширин", "山田", "ナナ", "❤️", "Ann ❤️",
    "A" * MAX_NAME, "a\u0301\u0302\u0303", "क्षत्रिय", "ผู้เล่น", "🂡 Ace"])
def test_names_players_write_are_taken(name: str) -> None:
    assert check_name(name) == name.strip()


@pytest.mark.parametrize("name", [
    "", "   ", "\u3164", "Ann\u3164", "\u2800", "\u115f\u1160", "\uffa0", "x\ufe0f", "\ufe0f",
    "❤\ufe0f\ufe0f", "a" + "\u0301" * (MAX_MARKS + 1), "a" + "\u0301" * 39, "\u0301",
    "\u0301\u0302", "A" * (MAX_NAME + 1), "Ann\u200b", "\u202eAnn", "a\nb", "x\U000e0100", None,
    7])
def test_names_that_look_blank_or_hide_characters_are_refused(name: object) -> None:
    with pytest.raises(InvalidCommand):
        check_name(name)


@given(st.text(max_size=MAX_NAME + 2))
def test_a_taken_name_has_a_visible_character_and_no_blank(name: str) -> None:
    try:
        taken = check_name(name)
    except InvalidCommand:
        return
    assert 0 < len(taken) <= MAX_NAME and taken.isprintable()
    assert not BLANKS & set(taken)
    assert any(unicodedata.category(c)[0] not in "MZ" for c in taken)
