"""The heuristic's reasons (``worker/policies/reasons.py``): every code the policies give has
one English template, the arguments are exactly the template's placeholders in the API's
spelling, and the English ``reason`` of a hint is that template filled with ``reason_args`` (in
four-, three- and two-player games, every code reached); docs/api.md lists every code with its
arguments."""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

from engine import Rules
from engine.cards import NAMES
from tests.engine.helpers import deck_for
from worker.hints import hint
from worker.policies import heuristic, nseat
from worker.policies.knowledge import knowledge
from worker.policies.reasons import (
    ARGS, CARD_CODES, NSEAT_CARD_CODES, ONE_OPPONENT, TEMPLATES, Reason, english, placeholders,
)

from .helpers import GameTable, Table, game_rules, random_deck

ROOT = Path(__file__).resolve().parents[2]
OTHER_CODES = ("trump_choice", "discard_talon", "keep", "take_next")
WORDS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
VARIANTS = (Rules(), Rules.from_dict({"satat": True, "must_trump": True}),
            game_rules("simple"), game_rules("talon"), game_rules("three", satat=True))


RANKS = {"A": "ace", "K": "king", "Q": "queen", "J": "jack", "T": "ten", "9": "nine",
         "8": "eight", "7": "seven", "6": "six", "5": "five", "4": "four", "3": "three",
         "2": "two"}


def card_in_words(card: str) -> str:
    return f"{RANKS[card[0]]} of {WORDS[card[1]]}"


def filled(template: str, args: Mapping[str, Any]) -> str:
    """The template filled by hand (independently of ``reasons.english``): a suit's word in the
    form its placeholder names, a list of cards joined by ", "."""
    def one(m: re.Match[str]) -> str:
        value = args[m.group(1)]
        form = m.group(2)
        if form == "one":
            return WORDS[value][:-1]
        if form == "many":
            return WORDS[value]
        if form == "Many":
            return WORDS[value].capitalize()
        assert form is None, form
        if m.group(1) == "card":
            return card_in_words(value)
        return ", ".join(map(card_in_words, value)) if isinstance(value, list) else str(value)

    return re.sub(r"\{(\w+)(?::(\w+))?\}", one, template)


def check_answer(advice: Mapping[str, Any]) -> str:
    """``advice`` (a hint) carries a known code, its template's arguments in the API's spelling,
    and the English is the template filled with them; the code."""
    code, args = advice["reason_code"], advice["reason_args"]
    assert code in TEMPLATES, code
    assert set(args) == placeholders(TEMPLATES[code]), (code, args)
    for name, value in args.items():
        if name == "card":
            assert value in NAMES, (code, args)
        elif name in ("suit", "led"):
            assert value in WORDS, (code, args)
        elif name == "count":
            assert isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 5
        elif name == "cards":
            assert isinstance(value, list) and value and all(c in NAMES for c in value)
        else:
            raise AssertionError(f"an argument no client knows: {name}")
    assert advice["reason"] == filled(TEMPLATES[code], args), (code, args)
    return str(code)


def check_reason(reason: Reason) -> str:
    return check_answer({"reason": english(reason), "reason_code": reason.code,
                         "reason_args": reason.plain()})


def test_every_code_has_one_template_and_its_arguments() -> None:
    assert set(CARD_CODES) <= set(NSEAT_CARD_CODES)
    assert set(TEMPLATES) == {*NSEAT_CARD_CODES, *OTHER_CODES}
    assert set(ARGS) == set(TEMPLATES)
    assert set().union(*ARGS.values()) == {"card", "suit", "led", "count", "cards"}
    # a code without a template, or arguments other than the template's, are refused
    with pytest.raises(ValueError):
        Reason("no_such_code", {})
    with pytest.raises(ValueError):
        Reason("cash", {"card": "AS"})
    with pytest.raises(ValueError):
        Reason("only", {"card": "AS"})
    assert english(Reason("cash", {"card": "AS", "suit": "S"})) == (
        "The ace of spades is the highest spade left: cash it while the opponents must follow.")
    assert english(Reason("trump_choice", {"suit": "H", "count": 3})) == (
        "Hearts is your best suit among your five cards, by length and high cards together "
        "(3 of them): name it trump.")
    assert english(Reason("discard_talon", {"cards": ("2C", "7D")})) == (
        "Lay aside your weakest cards and keep your trumps and high cards: two of clubs, "
        "seven of diamonds.")
    # the talon's next card is hidden: both talon reasons compare with an average unseen card
    assert english(Reason("keep", {"card": "QH"})) == (
        "The queen of hearts is better than an average card of the talon: keep it.")
    assert english(Reason("take_next", {"card": "3C"})) == (
        "The three of clubs is weaker than an average card of the talon: discard it and keep "
        "the next one.")


def _longest_common(a: str, b: str) -> str:
    """The longest substring ``a`` and ``b`` share."""
    best = ""
    for i in range(len(a)):
        for j in range(i + len(best) + 1, len(a) + 1):
            if a[i:j] not in b:
                break
            best = a[i:j]
    return best


def test_every_language_compares_the_talon_card_with_an_average_card() -> None:
    """The hint for a talon draw does not know the next card (``nseat.keep_choice`` compares
    with the average unseen card): in every browser language the ``keep`` sentence says the same
    comparison as ``take_next`` (they share the phrase naming the average card of the talon)
    rather than a card "you would get instead"."""
    import json
    i18n = ROOT / "services" / "gateway" / "static" / "i18n"
    languages = sorted(i18n.glob("*.json"))
    assert {p.stem for p in languages} >= {"en", "fa", "de", "sv", "nl", "es"}
    for path in languages:
        strings = json.loads(path.read_text())
        keep, take_next = strings["hint.reason.keep"], strings["hint.reason.take_next"]
        shared = _longest_common(keep, take_next).strip()
        assert len(shared) >= 15, (path.stem, keep, take_next, shared)


def test_random_playouts_reach_every_code_and_each_english_is_its_template() -> None:
    """Half random, half heuristic play in every variant: each decision's reason from the
    policies (with the seat's history, as the bots decide) and from the hint (without), checked
    by :func:`check_answer`; every code met (``partner_ruff`` needs a void the partner showed
    in an earlier trick, which a hint never knows: only the policy reaches it)."""
    by_policy: set[str] = set()
    by_hint: set[str] = set()
    for vi, rules in enumerate(VARIANTS):
        small = rules.players != 4
        for seed in range(12):
            rng = random.Random(seed * 31 + vi)
            table = GameTable(rules, hakem=rng.randrange(rules.players))
            table.deal(random_deck(rng))
            while table.live:
                seat = table.actor
                view, history = table.view(seat), table.histories[seat]
                if small:
                    choice, reason = nseat.decide(nseat.seen(view, history))
                    codes = NSEAT_CARD_CODES
                else:
                    choice, reason = heuristic.decide(knowledge(view, history))
                    codes = CARD_CODES
                code = check_reason(reason)
                assert code in codes or code in OTHER_CODES, (code, rules)
                # "the opponents" is never said to a player who has one
                assert rules.players != 2 or code not in ONE_OPPONENT, code
                assert rules.players == 2 or code not in ONE_OPPONENT.values(), code
                by_policy.add(code)
                by_hint.add(check_answer(hint(view)))
                table.act(table.random_move(rng) if rng.random() < 0.5 else choice)
    assert by_policy == set(TEMPLATES)
    assert by_hint == set(TEMPLATES) - {"partner_ruff"}


def test_a_hint_carries_the_code_and_the_arguments() -> None:
    hands: dict[int, Iterable[str]] = {1: ["AH", "QH", "9H", "KC", "4D"]}
    table = Table(Rules(), hakem=1)
    table.deal(tuple(deck_for(hands, hakem=1)))
    advice = hint(table.view(1))
    assert advice == {"suggestion": "H", "reason": "Hearts is your best suit among your five "
                      "cards, by length and high cards together (3 of them): name it trump.",
                      "reason_code": "trump_choice", "reason_args": {"suit": "H", "count": 3}}


def test_the_api_document_lists_every_code_with_its_arguments() -> None:
    text = (ROOT / "docs" / "api.md").read_text()
    start = text.index("### `GET /api/matches/{id}/hint")
    section = text[start:text.index("\n### ", start + 1)]
    rows = dict(re.findall(r"^\| `(\w+)` \| ([^|]*) \|", section, re.M))
    rows.pop("reason_code")  # the header
    assert set(rows) == set(TEMPLATES)
    for code, cell in rows.items():
        assert set(re.findall(r"`(\w+)`", cell)) == ARGS[code], code
    assert "Additions to v1" in section and "optional for clients" in section


def _three_deck(hands: dict[int, list[str]], hakem: int = 0) -> tuple[str, ...]:
    """A stacked three-player deck dealing ``hands`` (the 2 of clubs, out of play, last)."""
    from engine.deal import owner_offsets

    spare = [c for c in NAMES if c != "2C" and all(c not in h for h in hands.values())]
    wanted = {seat: list(cards) for seat, cards in hands.items()}
    deck = [wanted[(hakem + o) % 3].pop(0) if wanted.get((hakem + o) % 3) else spare.pop(0)
            for o in owner_offsets("5-4-4-4", 3, 17)]
    return (*deck, "2C")


def test_a_trump_owed_under_must_trump_is_not_called_a_discard() -> None:
    """Under ``must_trump`` a seat void in the suit led that holds a trump must play one
    (rules.md), so the low card the heuristic gives is a trump: the hint said "throw a low card
    from your weakest suit" (``discard`` / ``partner_wins_discard``) over a trump the rule
    forced, while the seat's side cards were not allowed.  It names the rule (``must_trump``);
    without the rule the same seat throws a side card, as before."""
    hands = {0: "AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H AD".split(),
             1: "AS KS QS JS TS 9S 8S 7S 6S 5S 4S 2H 2D".split(),
             2: "3S 2S QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C".split()}
    for must_trump in (True, False):
        table = Table(Rules.from_dict({"must_trump": must_trump}), hakem=0)
        table.deal(tuple(deck_for(hands, hakem=0)))
        for card in ("S", "AH", "2H"):  # the partner (seat 0) wins the trick with the ace
            table.act(card)
        advice = hint(table.view(2))
        if must_trump:
            assert advice["suggestion"] == "2S"
            assert advice["reason_code"] == "must_trump", advice
            assert advice["reason"] == ("You have no hearts, and this room's rules make you "
                                        "play a trump: play your lowest one.")
            assert advice["reason_args"] == {"led": "H"}
        else:
            assert advice["suggestion"][1] == "C"
            assert advice["reason_code"] == "partner_wins_discard"
    # three players: an opponent trumped the ace, the last seat owes a trump it cannot win with
    three = {0: "AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H AD KD QD JD".split(),
             1: "AS KS QS JS TS 9S 8S 7S 6S 5S 4S TD 9D 8D 7D 6D 5D".split(),
             2: "3S 2S AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 4D 3D 2D".split()}
    table = GameTable(game_rules("three", must_trump=True), hakem=0)
    table.deal(_three_deck(three))
    for card in ("S", "AH", "AS"):
        table.act(card)
    advice = hint(table.view(2))
    assert (advice["suggestion"], advice["reason_code"]) == ("2S", "must_trump"), advice
