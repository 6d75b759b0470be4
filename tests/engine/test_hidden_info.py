"""No view and no redacted event shows a card of another seat's hand or of the undealt deck
(before the match is over), at any step of any variant."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import NAMES, Rules, State, redact_event, view_for
from engine.cards import cards_of, names_of_mask
from engine.events import CardPlayed, Event, RoundStarted, SeatTaken, TrumpChosen

from .playout import RULE_CHOICES, play_match

CARD_NAMES = frozenset(NAMES)
FULL = (1 << 52) - 1
SEATS = (0, 1, 2, 3, None)


@st.composite
def house_rules(draw: st.DrawFn) -> Rules:
    data = {name: draw(st.sampled_from(values)) for name, values in RULE_CHOICES.items()}
    if data["bavney"] and data["double_sar"]:
        data["double_sar"] = False
    return Rules.from_dict(data)


def cards_in(value: Any, skip: tuple[str, ...] = ()) -> set[str]:
    """Every card name anywhere in plain data (keys in ``skip`` of the top level excepted)."""
    found: set[str] = set()
    stack = [v for k, v in value.items() if k not in skip] if isinstance(value, dict) else [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if v in CARD_NAMES:
                found.add(v)
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, (list, tuple)):
            stack.extend(v)
    return found


class Watcher:
    """Checks every view and every redacted event while a match is played."""

    def __init__(self) -> None:
        self.played = 0  # cards played this round, from the events themselves
        self.views = 0

    def forbidden(self, state: State, seat: int | None) -> set[str]:
        own = state.hands[seat] if seat is not None else 0
        return set(names_of_mask(FULL & ~own & ~self.played))

    def __call__(self, before: State, event: Event, after: State) -> None:
        if isinstance(event, RoundStarted):
            self.played = 0
        elif isinstance(event, CardPlayed):
            self.played |= 1 << NAMES.index(event.card)
        if after.phase == "match_over":
            return  # every hand is revealed for audit
        for seat in SEATS:
            bad = self.forbidden(after, seat)
            view = view_for(after, seat, 7)
            # the ace draw is a separate, face-up deck: its cards are public
            assert not cards_in(view, skip=("draw",)) & bad, (seat, event)
            assert view["hands"] is None and view["dealt"] is None
            plain = redact_event(before, event, seat)
            assert not cards_in(plain, skip=("draw",)) & bad, (seat, event)
            self.views += 1
        if isinstance(event, RoundStarted):
            self.choosing(after, event)
        if isinstance(event, TrumpChosen):
            for seat in range(4):
                assert len(view_for(after, seat)["hand"]) == 13

    @staticmethod
    def choosing(state: State, event: RoundStarted) -> None:
        """As Hakem choosing trump: exactly the first five cards; nobody else holds a card."""
        hakem = event.hakem
        view = view_for(state, hakem)
        assert sorted(view["hand"]) == sorted(event.deck[:5])
        assert view["legal"] == ["S", "H", "D", "C"]
        assert view["hand_counts"] == [5 if s == hakem else 0 for s in range(4)]
        assert redact_event(state, event, hakem)["hand"] == view["hand"]
        for seat in (*(s for s in range(4) if s != hakem), None):
            other = view_for(state, seat)
            assert other["hand"] == [] and other["legal"] == []
            assert redact_event(state, event, seat)["hand"] == []
        assert [len(cards_of(h)) for h in state.hands] == view["hand_counts"]


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), rules=house_rules(),
       first_hakem=st.sampled_from([None, 0, 1, 2, 3]))
def test_no_view_or_event_shows_hidden_cards(seed: int, rules: Rules,
                                             first_hakem: int | None) -> None:
    watcher = Watcher()
    out = play_match(seed, rules, first_hakem, observer=watcher)
    assert watcher.views > 100
    # once the match is over every hand is shown (audit), and views are plain JSON
    final = view_for(out.state, None)
    assert final["hands"] == [names_of_mask(h) for h in out.state.hands]
    assert final["dealt"] == [names_of_mask(h) for h in out.state.deal.dealt]
    assert json.loads(json.dumps(final)) == final


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), rules=house_rules())
def test_a_bot_view_has_only_its_own_hand(seed: int, rules: Rules) -> None:
    """A seat's view: its own hand exactly, sorted as displayed; counts for the others."""

    def watch(before: State, event: Event, after: State) -> None:
        if after.phase != "playing":
            return
        for seat in range(4):
            view = view_for(after, seat)
            assert view["hand"] == names_of_mask(after.hands[seat])
            assert view["hand_counts"] == [h.bit_count() for h in after.hands]
            if seat == after.turn:
                # (empty only between the last trick and the round's end, within one command)
                assert set(view["legal"]) <= set(view["hand"])
                assert view["legal"] or not view["hand"]
            else:
                assert view["legal"] == []

    play_match(seed, rules, 0, observer=watch)


def test_no_event_names_a_player_id_even_revealed() -> None:
    """A QA finding: once the match was over every ``seat_taken`` showed its player's id (the
    replay and the events reveal everything then), which ties a player's matches together (a
    rematch's ids follow from it); nothing of the game needs it."""
    seen: list[dict[str, Any]] = []

    def watch(before: State, event: Event, after: State) -> None:
        if isinstance(event, SeatTaken):
            for seat in (None, 0, event.seat):
                for reveal in (False, True):
                    seen.append(redact_event(before, event, seat, reveal=reveal))

    play_match(3, Rules(), observer=watch)
    assert len(seen) >= 4 * 6 and all(e["type"] == "seat_taken" for e in seen)
    assert not [e for e in seen if "player" in e]
    assert all(e["name"] and e["seat"] in range(4) for e in seen)  # the rest is shown


def test_the_watcher_catches_a_leak(monkeypatch: Any) -> None:
    """The property is not vacuous: a view that peeks at the next seat's hand is caught."""
    import tests.engine.test_hidden_info as module

    real = module.view_for

    def leaky(state: State, seat: int | None, version: int = 0) -> dict[str, Any]:
        view = real(state, seat, version)
        view["peek"] = names_of_mask(state.hands[((seat or 0) + 1) % 4])
        return view

    monkeypatch.setattr(module, "view_for", leaky)
    try:
        play_match(3, Rules(), 0, observer=Watcher())
    except AssertionError:
        return
    raise AssertionError("the leak went unnoticed")
