"""Who receives which card: the api.md deal order, 5-4-4 and the house rule 5-3-3-2."""

from __future__ import annotations

import pytest

from engine import NAMES, Rules, view_for
from engine.cards import CARD_INDEX, mask_of

from .helpers import Match

DECK = list(NAMES)  # the canonical order: deck[i] is easy to recognise


def expected_hands(deck: list[str], hakem: int, packets: tuple[int, ...]) -> list[set[str]]:
    """api.md, spelled out: fives from the Hakem round the table, then each packet size in turn."""
    hands: list[set[str]] = [set() for _ in range(4)]
    pos = 0
    for size in (5, *packets):
        for k in range(4):
            hands[(hakem + k) % 4].update(deck[pos:pos + size])
            pos += size
    assert pos == 52
    return hands


@pytest.mark.parametrize("hakem", range(4))
@pytest.mark.parametrize(("deal", "packets"), [("5-4-4", (4, 4)), ("5-3-3-2", (3, 3, 2))])
def test_deal_order(hakem: int, deal: str, packets: tuple[int, ...]) -> None:
    m = Match(Rules.from_dict({"deal": deal}), first_hakem=hakem)
    m.deal(DECK)
    # the Hakem alone holds the first five; nobody else holds a card yet
    assert m.state.hands[hakem] == mask_of(CARD_INDEX[c] for c in DECK[:5])
    assert [bool(h) for h in m.state.hands] == [s == hakem for s in range(4)]
    m.trump("C")
    want = expected_hands(DECK, hakem, packets)
    for seat in range(4):
        assert set(view_for(m.state, seat)["hand"]) == want[seat]
        assert m.state.hands[seat] == mask_of(CARD_INDEX[c] for c in want[seat])
    assert m.state.deal.dealt == m.state.hands
    assert view_for(m.state, 0)["hand_counts"] == [13] * 4


def test_the_two_deals_differ_but_share_the_first_five() -> None:
    a = Match(Rules.from_dict({"deal": "5-4-4"}))
    b = Match(Rules.from_dict({"deal": "5-3-3-2"}))
    for m in (a, b):
        m.deal(DECK)
        m.trump("S")
    assert a.state.hands != b.state.hands
    five = mask_of(CARD_INDEX[c] for c in DECK[:5])
    assert a.state.hands[0] & five == b.state.hands[0] & five == five
