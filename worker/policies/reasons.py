"""Why the heuristic makes a choice: a stable reason code, its arguments, and the English.

The heuristic policies (``heuristic.py`` for four players, ``nseat.py`` for two and three)
return a :class:`Reason` next to each choice: a code of :data:`TEMPLATES` and its arguments as
plain values spelled as the API spells them (a card ``"AS"``, a suit ``"S"``, an integer, a
tuple of cards).  The hints for learners (``worker/hints.py``) send the code and the arguments
(``reason_code``, ``reason_args``) so a client can say the sentence in its own language, and the
English sentence (``reason``), which :func:`english` makes here and only here from the same
template.

Contract: a reason's arguments are exactly the placeholders of its code's template
(:data:`ARGS`; checked when a :class:`Reason` is made), so every client that knows the code can
fill its own sentence.  A code names one sentence for good: a new sentence gets a new code.

Template placeholders name the arguments.  A suit's placeholder says which English word it takes:
``{suit:one}`` ("spade"), ``{suit:many}`` ("spades"), ``{suit:Many}`` ("Spades"); a card
(``card``) is written in words ("queen of hearts": the sentence is read by people, the API's
spelling is in the arguments) and a tuple of cards (``cards``) in words joined by ", ".
The browser's own templates (``hint.reason.<code>`` in
``services/gateway/static/i18n/*.json``) use the same names without the word forms.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

Arg = str | int | tuple[str, ...]
"""An argument's value: a card or suit name, a number, or cards."""

SUIT_WORDS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
"""The English word (plural) of each suit letter."""
RANK_WORDS = {"A": "ace", "K": "king", "Q": "queen", "J": "jack", "T": "ten", "9": "nine",
              "8": "eight", "7": "seven", "6": "six", "5": "five", "4": "four", "3": "three",
              "2": "two"}
"""The English word of each rank letter."""


def card_words(card: str) -> str:
    """A card as a sentence names it: ``"QH"`` -> ``"queen of hearts"``."""
    return f"{RANK_WORDS[card[0]]} of {SUIT_WORDS[card[1]]}"

CARD_CODES = ("only", "draw_top", "draw_long", "cash", "partner_ruff", "lead_long",
              "lead_trump", "partner_wins", "partner_wins_discard", "ruff", "win_last", "win",
              "duck", "discard", "must_trump")
"""The codes of the four-player heuristic's card play (``heuristic.play``, and ``must_trump``
from :func:`forced_trump`)."""
ONE_OPPONENT = {"draw_top": "draw_top_one", "draw_long": "draw_long_one", "cash": "cash_one"}
"""The codes whose sentence speaks of "the opponents", and their own for the two-player game,
where there is one (:func:`one_opponent`)."""
NSEAT_CARD_CODES = (*CARD_CODES, "lead_long_top", *ONE_OPPONENT.values())
"""The codes of the card play of the games of two and three players (``nseat.play``)."""

TEMPLATES: dict[str, str] = {
    # card play (both heuristics; ``card``: the card chosen, ``suit``: its effective suit,
    # ``led``: the suit led)
    "only": "This is your only legal card.",
    "draw_top": "The {card} is the highest trump left: lead it to draw the opponents' trumps.",
    "draw_long": "You are long in trumps: lead one to draw the opponents' trumps.",
    "cash": "The {card} is the highest {suit:one} left: cash it while the opponents must "
            "follow.",
    "partner_ruff": "Your partner has no {suit:many}: lead one so your partner can trump it.",
    "lead_long": "Lead low from your longest suit and keep your high cards for later.",
    "lead_trump": "Only trumps left: lead your lowest one.",
    "partner_wins": "Your partner is already winning this trick: play low.",
    "partner_wins_discard": "Your partner is already winning this trick: throw a low card "
                            "from your weakest suit.",
    "ruff": "You have no {led:many}: trump it with the lowest trump that wins the trick.",
    "win_last": "You play last and can win: take the trick with your cheapest winner.",
    "win": "Win this trick as cheaply as you safely can.",
    "duck": "You cannot win this trick safely: play your lowest card.",
    "discard": "You cannot follow suit and cannot win: throw a low card from your weakest suit.",
    # ``discard`` or ``partner_wins_discard`` when the house rule ``must_trump`` leaves only
    # trumps to play (:func:`forced_trump`)
    "must_trump": "You have no {led:many}, and this room's rules make you play a trump: play "
                  "your lowest one.",
    # card play with one opponent (``nseat.play``; :func:`one_opponent`)
    "draw_top_one": "The {card} is the highest trump left: lead it to draw your opponent's "
                    "trumps.",
    "draw_long_one": "You are long in trumps: lead one to draw your opponent's trumps.",
    "cash_one": "The {card} is the highest {suit:one} left: cash it while your opponent must "
                "follow.",
    "lead_long_top": "Lead the highest card of your longest suit: make your opponent spend a "
                     "high card on it.",
    # naming trump (``heuristic.choose_trump``; ``count``: the suit's cards among the five)
    # (the best of the heuristic's score of length and honours together: "longest" was said
    # of a suit of one card beside a suit of two, an audit's finding)
    "trump_choice": "{suit:Many} is your best suit among your five cards, by length and high "
                    "cards together ({count} of them): name it trump.",
    # the talon game (``nseat``): the cards to lay aside, and keeping or passing the top card
    "discard_talon": "Lay aside your weakest cards and keep your trumps and high cards: "
                     "{cards}.",
    "keep": "The {card} is better than an average card of the talon: keep it.",
    "take_next": "The {card} is weaker than an average card of the talon: discard it and keep "
                 "the next one.",
}
"""The English sentence of every reason code."""


def placeholders(template: str) -> frozenset[str]:
    """The argument names a template (English here, or a client's) fills."""
    return frozenset(name for _, name, _, _ in string.Formatter().parse(template) if name)


ARGS: dict[str, frozenset[str]] = {code: placeholders(t) for code, t in TEMPLATES.items()}
"""The arguments of every reason code: its template's placeholders."""


@dataclass(frozen=True, slots=True)
class Reason:
    """A reason code and its arguments (see the module docstring); ``ValueError`` for a code
    without a template or arguments other than the template's."""

    code: str
    args: Mapping[str, Arg]

    def __post_init__(self) -> None:
        if self.code not in ARGS:
            raise ValueError(f"no template for reason code {self.code!r}")
        if set(self.args) != ARGS[self.code]:
            raise ValueError(f"reason {self.code!r} takes {sorted(ARGS[self.code])}, "
                             f"not {sorted(self.args)}")

    @property
    def english(self) -> str:
        """The English sentence (:func:`english`)."""
        return english(self)

    def plain(self) -> dict[str, Any]:
        """The arguments as JSON values (cards as a list)."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in self.args.items()}


def forced_trump(code: str, must_trump: bool, trump: bool, side_cards_held: bool) -> str:
    """``code`` of a card play, or ``must_trump`` where it would call a trump that the house
    rule forces a "low card from your weakest suit": a throw (``discard``,
    ``partner_wins_discard``) of a ``trump`` under ``must_trump`` while the seat holds side
    cards (``side_cards_held``), which the rule did not let it play."""
    if must_trump and trump and side_cards_held and code in ("discard", "partner_wins_discard"):
        return "must_trump"
    return code


def one_opponent(code: str, players: int) -> str:
    """``code`` of a card play, or its own for the two-player game (``ONE_OPPONENT``) where its
    sentence would speak of "the opponents" to a player who has one."""
    return ONE_OPPONENT.get(code, code) if players == 2 else code


def card_reason(code: str, card: str, suit: str, led: str) -> Reason:
    """The reason of a card play: ``code`` with those of ``card`` (the card), ``suit`` (its
    effective suit) and ``led`` (the suit led; the card's own when leading) that its template
    names."""
    values = {"card": card, "suit": suit, "led": led}
    return Reason(code, {name: values[name] for name in ARGS[code]})


class _English(string.Formatter):
    """Fills a template: a suit letter as the word its form asks for, cards joined."""

    def format_field(self, value: Any, format_spec: str) -> str:
        if format_spec in ("one", "many", "Many"):
            word = SUIT_WORDS[value]
            if format_spec == "one":
                return word[:-1]
            return word.capitalize() if format_spec == "Many" else word
        if isinstance(value, tuple):
            return ", ".join(value)
        return str(format(value, format_spec))


_ENGLISH = _English()


def english(reason: Reason) -> str:
    """The English sentence of ``reason``: its code's template filled with its arguments (cards
    in words)."""
    args = dict(reason.args)
    if "card" in args:
        args["card"] = card_words(str(args["card"]))
    cards = args.get("cards")
    if isinstance(cards, tuple):
        args["cards"] = tuple(card_words(c) for c in cards)
    return _ENGLISH.vformat(TEMPLATES[reason.code], (), args)
