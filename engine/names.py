"""The rule for a seat's name: what a table shows beside each seat, so it must show something.

A name is 1 to ``MAX_NAME`` characters once the spaces around it are trimmed, every one of
them printable (no control, format or zero-width character: ``str.isprintable``), and:

* at least one character that shows: not a space, not a combining mark, not one of the
  ``BLANKS`` (letters and symbols that draw nothing: the Hangul fillers, the blank braille
  pattern, the Khmer inherent vowels), which are refused anywhere in a name, since they only
  serve to look blank or to look like another name;
* at most ``MAX_MARKS`` combining marks in a row (accents stacked by the dozen spill over the
  seats around; the scripts players write need at most three on one letter);
* the variation selectors only as an emoji's presentation (U+FE0E or U+FE0F right after a
  symbol, as in "❤️"); anywhere else they are invisible and refused;
* the two joiners, invisible themselves, only where they change how the characters around
  them are drawn: the zero-width non-joiner (U+200C, the Persian half-space of "علی‌رضا")
  between two letters of a script that joins them, never next to a Latin letter, where it
  changes nothing and would only make a second "Kian" that is not equal to the first; the
  zero-width joiner (U+200D) between two emoji ("👨‍👩‍👧", "❤️‍🔥"), its first one possibly with its
  presentation selector or skin tone.
"""

from __future__ import annotations

import unicodedata

from .errors import InvalidCommand

MAX_NAME = 40
MAX_MARKS = 3
BLANKS = frozenset("\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0")
"""Characters that are printable yet draw nothing (or nothing of their own)."""
_EMOJI_PRESENTATION = frozenset("\ufe0e\ufe0f")
ZWNJ = "\u200c"
ZWJ = "\u200d"
RULE = f"a name is 1 to {MAX_NAME} printable characters, at least one of them visible"


def _variation_selector(char: str) -> bool:
    return "\ufe00" <= char <= "\ufe0f" or "\U000e0100" <= char <= "\U000e01ef"


def _joins(before: str, after: str, joiner: str) -> bool:
    """Whether ``joiner`` (``ZWNJ`` or ``ZWJ``) between ``before`` and ``after`` (either may be
    "": the name's ends) is one a script or an emoji needs (see the module)."""
    if not before or not after:
        return False
    if joiner == ZWNJ:  # a letter (or its mark) before, a letter after, neither Latin
        return (unicodedata.category(before)[0] in "LM" and unicodedata.category(after)[0] == "L"
                and not before.isascii() and not after.isascii())
    emoji_before = unicodedata.category(before) in ("So", "Sk") or before in _EMOJI_PRESENTATION
    return emoji_before and unicodedata.category(after) == "So"


def check_name(raw: object) -> str:
    """``raw`` trimmed if it is a good name (see the module); ``InvalidCommand`` otherwise."""
    name = raw.strip() if isinstance(raw, str) else ""
    # the joiners are format characters, which isprintable refuses: each is judged by its
    # neighbours below
    if not name or len(name) > MAX_NAME or not name.replace(ZWNJ, "").replace(ZWJ, "") \
            .isprintable():
        raise InvalidCommand(RULE)
    visible = False
    marks = 0
    previous = ""
    for i, char in enumerate(name):
        category = unicodedata.category(char)
        if char in BLANKS:
            raise InvalidCommand(RULE)
        if char in (ZWNJ, ZWJ):
            if not _joins(previous, name[i + 1:i + 2], char):
                raise InvalidCommand(RULE)
            marks = 0
        elif _variation_selector(char):
            if char not in _EMOJI_PRESENTATION or not previous \
                    or unicodedata.category(previous) != "So":
                raise InvalidCommand(RULE)
        elif category.startswith("M"):
            marks += 1
            if marks > MAX_MARKS:
                raise InvalidCommand(f"a name has at most {MAX_MARKS} accents on one letter")
        else:
            marks = 0
            visible = visible or not category.startswith("Z")
        previous = char
    if not visible:
        raise InvalidCommand(RULE)
    return name
