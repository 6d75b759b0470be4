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
  symbol, as in "❤️"), and Mongolian's free variation selectors (U+180B to U+180D, U+180F)
  only right after a Mongolian letter, whose form they choose; anywhere else they are
  invisible and refused, as is the combining grapheme joiner (U+034F), which draws nothing
  anywhere (a QA finding: "Roxana" followed by one of them was taken beside the bot "Roxana");
* the two joiners, invisible themselves, only where they change how the characters around
  them are drawn: the zero-width non-joiner (U+200C, the Persian half-space of "علی‌رضا")
  after a letter of a joining script (Arabic, Syriac, N'Ko, Mongolian...) that joins the
  letter after it (not after "ا", "د", "ر", "و": they never join the next letter) and before
  another letter of such a script, or after a virama (the Indic scripts' half forms, "क्‌ष");
  never elsewhere, where it changes nothing and would only make a second name that looks
  like another one and is not equal to it ("Ki‌an", "Łó", "Бо‌рис", "د‌ارا"); the
  zero-width joiner (U+200D) between two emoji ("👨‍👩‍👧", "❤️‍🔥"), its first one possibly with its
  presentation selector or skin tone.
"""

from __future__ import annotations

import unicodedata

from .errors import InvalidCommand

MAX_NAME = 40
MAX_MARKS = 3
BLANKS = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0")
"""Characters that are printable yet draw nothing (or nothing of their own)."""
_MONGOLIAN_FVS = frozenset("\u180b\u180c\u180d\u180f")
"""Mongolian's free variation selectors: a glyph variant of the Mongolian letter before."""
_EMOJI_PRESENTATION = frozenset("\ufe0e\ufe0f")
ZWNJ = "\u200c"
ZWJ = "\u200d"
RULE = f"a name is 1 to {MAX_NAME} printable characters, at least one of them visible"


def reads_as(name: str) -> str:
    """``name`` as it reads: its compatibility form ("ＫＩＡＮ" is "KIAN"), in any case.  Two
    names that read alike are one name to whoever reads the table."""
    return unicodedata.normalize("NFKC", name.strip()).casefold()


def _variation_selector(char: str) -> bool:
    return "\ufe00" <= char <= "\ufe0f" or "\U000e0100" <= char <= "\U000e01ef"


_JOINING_SCRIPTS = ((0x0600, 0x06FF), (0x0700, 0x074F), (0x0750, 0x077F), (0x07C0, 0x07FF),
                    (0x0840, 0x085F), (0x0860, 0x086F), (0x0870, 0x089F), (0x08A0, 0x08FF),
                    (0x1800, 0x18AF), (0x10AC0, 0x10AFF), (0x10D00, 0x10D3F),
                    (0x10F30, 0x10F6F))
"""The scripts whose letters join their neighbours (Arabic and its supplements, Syriac, N'Ko,
Mandaic, Mongolian, Manichaean, Hanifi Rohingya, Sogdian; not their presentation forms,
already shaped)."""
_NOT_JOINING_AFTER = frozenset(
    "\u0621\u0622\u0623\u0624\u0625\u0627\u0629\u062f\u0630\u0631\u0632\u0648\u0671\u0672"
    "\u0673\u0674\u0675\u0676\u0677\u06c0\u06c3\u06c4\u06c5\u06c6\u06c7\u06c8\u06c9\u06ca"
    "\u06cb\u06cd\u06cf\u06d2\u06d3\u06d5\u06ee\u06ef\u0759\u075a\u075b\u076b\u076c\u0771"
    "\u0773\u0774\u0778\u0779\u08aa\u08ab\u08ac\u08ad\u08ae\u08b1\u08b2\u08b9"
    "\u0710\u0715\u0716\u0717\u0718\u0719\u071e\u0728\u072a\u072c\u072f\u074d"
    + "".join(map(chr, range(0x0688, 0x069A))) + "".join(map(chr, range(0x0870, 0x0883))))
"""Letters of those scripts that never join the letter after them (Unicode's joining types R
and U: alef, dal, reh, waw, hamza... and their variants): a non-joiner after one changes
nothing."""


def _joining(char: str) -> bool:
    code = ord(char)
    return unicodedata.category(char)[0] == "L" and any(
        low <= code <= high for low, high in _JOINING_SCRIPTS)


def _breaks_a_join(name: str, i: int) -> bool:
    """Whether the non-joiner at ``name[i]`` separates two letters that would join (or stops
    an Indic conjunct): see the module."""
    after = name[i + 1:i + 2]
    if not after or unicodedata.category(after)[0] != "L" or after.isascii():
        return False
    base = i - 1
    while base >= 0 and unicodedata.category(name[base])[0] == "M":
        if unicodedata.combining(name[base]) == 9:  # a virama: a half form instead of a conjunct
            return True
        base -= 1
    if base < 0:
        return False
    before = name[base]
    return _joining(before) and before not in _NOT_JOINING_AFTER and _joining(after)


def _joins_emoji(before: str, after: str) -> bool:
    """Whether a zero-width joiner between ``before`` and ``after`` (either may be "": the
    name's ends) joins two emoji (see the module)."""
    if not before or not after:
        return False
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
        if char == ZWNJ:
            if not _breaks_a_join(name, i):
                raise InvalidCommand(RULE)
            marks = 0
        elif char == ZWJ:
            if not _joins_emoji(previous, name[i + 1:i + 2]):
                raise InvalidCommand(RULE)
            marks = 0
        elif char in _MONGOLIAN_FVS:
            if not ("\u1820" <= previous <= "\u18aa" and unicodedata.category(previous) == "Lo"):
                raise InvalidCommand(RULE)
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
