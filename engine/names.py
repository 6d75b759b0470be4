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
  symbol, as in "❤️"); anywhere else they are invisible and refused.
"""

from __future__ import annotations

import unicodedata

from .errors import InvalidCommand

MAX_NAME = 40
MAX_MARKS = 3
BLANKS = frozenset("\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0")
"""Characters that are printable yet draw nothing (or nothing of their own)."""
_EMOJI_PRESENTATION = frozenset("\ufe0e\ufe0f")
RULE = f"a name is 1 to {MAX_NAME} printable characters, at least one of them visible"


def _variation_selector(char: str) -> bool:
    return "\ufe00" <= char <= "\ufe0f" or "\U000e0100" <= char <= "\U000e01ef"


def check_name(raw: object) -> str:
    """``raw`` trimmed if it is a good name (see the module); ``InvalidCommand`` otherwise."""
    name = raw.strip() if isinstance(raw, str) else ""
    if not name or len(name) > MAX_NAME or not name.isprintable():
        raise InvalidCommand(RULE)
    visible = False
    marks = 0
    previous = ""
    for char in name:
        category = unicodedata.category(char)
        if char in BLANKS:
            raise InvalidCommand(RULE)
        if _variation_selector(char):
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
