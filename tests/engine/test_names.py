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
    "A" * MAX_NAME, "a\u0301\u0302\u0303", "क्षत्रिय", "ผู้เล่น", "🂡 Ace",
    # the Persian half-space (a QA finding: "علی‌رضا" was refused), joined emoji
    "علی\u200cرضا", "می\u200cخواهم", "👨\u200d👩\u200d👧", "❤\ufe0f\u200d🔥", "🏳\ufe0f\u200d🌈",
    "👍🏽\u200d👍", "کتاب\u200cها", "خانه\u200cها", "مِ\u200cی", "क्\u200cष",
    # a Mongolian letter's variant form (its free variation selector)
    "ᠮᠣᠩᠭᠣᠯ", "\u1820\u180b", "\u1828\u180c\u1822"])
def test_names_players_write_are_taken(name: str) -> None:
    assert check_name(name) == name.strip()


@pytest.mark.parametrize("name", [
    "", "   ", "\u3164", "Ann\u3164", "\u2800", "\u115f\u1160", "\uffa0", "x\ufe0f", "\ufe0f",
    "❤\ufe0f\ufe0f", "a" + "\u0301" * (MAX_MARKS + 1), "a" + "\u0301" * 39, "\u0301",
    "\u0301\u0302", "A" * (MAX_NAME + 1), "Ann\u200b", "\u202eAnn", "a\nb", "x\U000e0100", None,
    7,
    # a joiner where it joins nothing: a second "Kian" unequal to the first, at an end, twice
    "Ki\u200can", "a\u200db", "\u200cعلی", "علی\u200c", "علی\u200c\u200cرضا", "👨\u200d",
    "\u200d", "❤\u200da", "Ann \u200c",
    # a non-joiner where nothing would join (a QA finding: each looked like the name without
    # it): letters of scripts that never join (non-ASCII Latin, Cyrillic, Greek, Han), after a
    # Persian letter that never joins the next one, between two scripts, after a mere accent
    "\u0141\u200c\u00f3", "Бо\u200cрис", "Ζω\u200cή", "山\u200c田", "د\u200cارا",
    "کار\u200cها", "و\u200cلی", "علی\u200cé", "a\u0301\u200c\u00e9",
    # characters that draw nothing after a letter they do not change (a QA finding: each made
    # a second "Roxana" beside the bot's): the combining grapheme joiner anywhere, Mongolian's
    # variation selectors after anything but a Mongolian letter
    "Roxana\u034f", "x\u034f", "\u1820\u034f", "Roxana\u180b", "Roxana\u180c",
    "Roxana\u180d", "Roxana\u180f", "\u180b", "\u1820\u180b\u180b", "山\u180b"])
def test_names_that_look_blank_or_hide_characters_are_refused(name: object) -> None:
    with pytest.raises(InvalidCommand):
        check_name(name)


@given(st.text(max_size=MAX_NAME + 2))
def test_a_taken_name_has_a_visible_character_and_no_blank(name: str) -> None:
    try:
        taken = check_name(name)
    except InvalidCommand:
        return
    assert 0 < len(taken) <= MAX_NAME and taken.replace("\u200c", "").replace(
        "\u200d", "").isprintable()
    for i, c in enumerate(taken):  # a joiner only between two characters that show
        if c in "\u200c\u200d":
            assert 0 < i < len(taken) - 1
            assert unicodedata.category(taken[i + 1])[0] in "LS", taken
    assert not BLANKS & set(taken)
    assert any(unicodedata.category(c)[0] not in "MZ" for c in taken)
