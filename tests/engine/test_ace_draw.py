"""Choosing the first Hakem and the partnerships: ace_draw (default) and as_seated."""

from __future__ import annotations

import pytest

from engine import DrawAces, NAMES, Rules, pending_system_action, view_for
from engine.events import HakemDrawn

from .helpers import Match


def draw_deck(*cards: str) -> tuple[str, ...]:
    """A draw deck turning ``cards`` first, then the remaining non-aces and aces in order."""
    rest = [c for c in NAMES if c not in cards and c[0] != "A"]
    aces = [c for c in NAMES if c[0] == "A" and c not in cards]
    return (*cards, *rest, *aces)


def drawn(teams: str, deck: tuple[str, ...]) -> tuple[Match, HakemDrawn]:
    m = Match(Rules.from_dict({"teams": teams}), first_hakem=None)
    assert pending_system_action(m.state) == "draw"
    (event,) = m.run(None, DrawAces(deck))
    assert isinstance(event, HakemDrawn)
    assert pending_system_action(m.state) == "deal"
    assert m.state.match.next_hakem == event.hakem
    return m, event


def names(m: Match) -> list[str]:
    return [s.name if s else "" for s in m.state.match.seats]


def test_partner_already_opposite() -> None:
    m, e = drawn("ace_draw", draw_deck("2C", "AS", "3C", "AH"))
    assert e == HakemDrawn(((0, "2C"), (1, "AS"), (2, "3C"), (3, "AH")), 1, 3, None)
    assert names(m) == ["p0", "p1", "p2", "p3"]


def test_partner_moved_opposite() -> None:
    m, e = drawn("ace_draw", draw_deck("5C", "AS", "AH"))
    assert e == HakemDrawn(((0, "5C"), (1, "AS"), (2, "AH")), 1, 2, (2, 3))
    # the second ace's player now sits opposite the Hakem
    assert names(m) == ["p0", "p1", "p3", "p2"]
    assert view_for(m.state, None)["seats"][3]["name"] == "p2"
    assert view_for(m.state, None)["draw"][-1] == {"seat": 2, "card": "AH"}


def test_the_draw_skips_the_hakem() -> None:
    deck = draw_deck("AS", "2C", "3C", "4C", "5C", "6C", "AH")
    m, e = drawn("ace_draw", deck)
    assert e.draw == ((0, "AS"), (1, "2C"), (2, "3C"), (3, "4C"), (1, "5C"), (2, "6C"),
                      (3, "AH"))
    assert (e.hakem, e.partner, e.swap) == (0, 3, (2, 3))
    assert names(m) == ["p0", "p1", "p3", "p2"]


def test_first_seat_partner_wraps_round() -> None:
    m, e = drawn("ace_draw", draw_deck("2C", "3C", "4C", "AS", "AD"))
    assert (e.hakem, e.partner, e.swap) == (3, 0, (0, 1))
    assert names(m) == ["p1", "p0", "p2", "p3"]


@pytest.mark.parametrize("deck", [draw_deck("5C", "AS", "AH"), draw_deck("AS", "2C", "AH")])
def test_as_seated_uses_the_first_ace_only(deck: tuple[str, ...]) -> None:
    m, e = drawn("as_seated", deck)
    first_ace = next(i for i, c in enumerate(deck) if c[0] == "A")
    assert e.partner is None and e.swap is None
    assert e.hakem == first_ace % 4
    assert len(e.draw) == first_ace + 1
    assert names(m) == ["p0", "p1", "p2", "p3"]


def test_draw_then_deal_uses_the_drawn_hakem() -> None:
    m, _ = drawn("ace_draw", draw_deck("5C", "AS", "AH"))
    m.deal(list(NAMES))
    assert (m.state.hakem, m.state.deal.dealer) == (1, 0)


def test_draw_refused_with_a_fixed_hakem_or_twice() -> None:
    m = Match(first_hakem=0)
    assert pending_system_action(m.state) == "deal"
    assert m.refused(None, DrawAces(draw_deck())) == "wrong_phase"
    m, _ = drawn("ace_draw", draw_deck())
    assert m.refused(None, DrawAces(draw_deck())) == "wrong_phase"
    assert m.refused(0, DrawAces(draw_deck())) == "bad_request"
