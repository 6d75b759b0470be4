"""``hokm play`` says why a typed card cannot be played (it said "is not yours to play now" for
every reason): not in the hand, the suit led not followed, or the room's house rule."""

from __future__ import annotations

from hokmplay.app import refusal


def view(hand: list[str], trick: list[str]) -> dict[str, object]:
    return {"hand": hand, "trick": [{"seat": 1, "card": c} for c in trick]}


def test_the_reason_a_card_is_refused() -> None:
    hand = ["QH", "2H", "AS", "3C"]
    assert refusal(view(hand, []), "KD") == "K♦ is not in your hand."
    assert refusal(view(hand, ["TH"]), "AS") == (
        "A♠ cannot be played: follow the suit led, ♥ hearts.")
    # void in the suit led: a card refused all the same is the room's rule (must_trump)
    assert refusal(view(hand, ["TD"]), "QH") == "Q♥ cannot be played now (the room's rules)."
