"""Seeded random matches through decide + evolve, checked step by step against the reference
model (``reference.RefMatch``): the conformance oracle of the engine tests.

``play_match`` plays one whole match with decks derived from a per-match secret, uniformly random
legal cards and random trump, and checks at every step that

* the engine produces exactly the events the reference predicts (tricks, banking, round results,
  sets, the match's end, succession and dealer),
* the engine's legal cards are the reference's, every legal card is accepted, and refused cards
  get the reference's error code (all 52 cards of all four seats with ``exhaustive``),
* commands in the wrong phase are refused (``wrong_phase`` / ``match_over``),
* ``decide`` and ``evolve`` never change their input state,

and at the end that replaying the log gives the live state and that the deals verify.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from engine import (
    NAMES, ChooseTrump, Command, CreateMatch, DealRound, DrawAces, Event, HokmError, PlayCard,
    RevealSecret, Rules, State, TakeSeat, commitment_of, decide, derive_deck, evolve,
    pending_system_action, replay, verify,
)
from engine.events import CardPlayed, RoundEnded, RoundStarted
from engine.fairness import DRAW_LABEL, round_label
from engine.views import legal_mask

from .reference import RefMatch, mask

Observer = Callable[[State, Event, State], None]
"""Called for every event applied: (state before, event, state after)."""

RULE_CHOICES = {
    "target": (7, 10, "2x7"),
    "deal": ("5-4-4", "5-3-3-2"),
    "teams": ("ace_draw", "as_seated"),
    "must_trump": (False, True),
    "satat": (False, True),
    "bavney": (False, True),
    "double_sar": (False, True),
}


def random_rules(rng: random.Random) -> Rules:
    data = {name: rng.choice(values) for name, values in RULE_CHOICES.items()}
    if data["bavney"] and data["double_sar"]:
        data[rng.choice(("bavney", "double_sar"))] = False
    return Rules.from_dict(data)


@dataclass
class Outcome:
    state: State
    log: list[Event]
    rounds: list[RoundEnded] = field(default_factory=list)
    tricks_per_round: list[int] = field(default_factory=list)
    checked_refusals: int = 0


class Driver:
    def __init__(self, seed: int, rules: Rules, first_hakem: int | None, *,
                 exhaustive: bool = False, refusals: float = 1.0,
                 observer: Observer | None = None) -> None:
        self.rng = random.Random(seed)
        self.secret = f"{seed:064x}"
        self.rules = rules
        self.exhaustive = exhaustive
        self.refusals = refusals
        self.observer = observer
        self.state = State()
        self.log: list[Event] = []
        self.ref = RefMatch(rules, first_hakem)
        self.out = Outcome(self.state, self.log)
        self.first_hakem = first_hakem

    # -- plumbing -------------------------------------------------------------------------

    def apply(self, seat: int | None, command: Command) -> tuple[Event, ...]:
        before = self.state.snapshot()
        events = decide(self.state, seat, command)
        assert self.state.snapshot() == before, "decide changed its input state"
        for event in events:
            old = self.state
            snap = old.snapshot()
            self.state = evolve(old, event)
            assert old.snapshot() == snap, f"evolve changed its input state on {event}"
            assert self.state is not old
            if self.observer is not None:
                self.observer(old, event, self.state)
        self.log.extend(events)
        return events

    def refused(self, seat: int | None, command: Command, code: str) -> None:
        try:
            events = decide(self.state, seat, command)
        except HokmError as error:
            assert error.code == code, (seat, command, error.code, code)
            self.out.checked_refusals += 1
        else:
            raise AssertionError(f"{command} by {seat} accepted ({events}), expected {code}")

    # -- the match ------------------------------------------------------------------------

    def run(self) -> Outcome:
        ref, rules = self.ref, self.rules
        self.apply(None, CreateMatch("m", rules, commitment_of(self.secret), self.first_hakem))
        for seat in range(4):
            assert pending_system_action(self.state) is None
            self.apply(None, TakeSeat(seat, f"p{seat}", f"id{seat}"))
        if self.first_hakem is None:
            assert pending_system_action(self.state) == "draw"
            self.refused(None, DealRound(NAMES), "wrong_phase")
            deck = derive_deck(self.secret, DRAW_LABEL)
            assert self.apply(None, DrawAces(deck)) == (ref.drawn(deck),)
            assert [s.name if s else None for s in self.state.match.seats] == ref.players
        while True:
            action = pending_system_action(self.state)
            if action == "reveal":
                break
            assert action == "deal", action
            self.round()
        self.refused(None, DealRound(NAMES), "match_over")
        self.refused(0, PlayCard("AS"), "match_over")
        self.refused(0, ChooseTrump("S"), "match_over")
        self.apply(None, RevealSecret(self.secret))
        assert pending_system_action(self.state) is None
        assert self.state.phase == "match_over"
        # the log replays to the live state, and the deals verify against the secret
        assert replay(self.log) == self.state
        assert verify(self.log) == []
        self.out.state = self.state
        return self.out

    def round(self) -> None:
        ref, rng, rules = self.ref, self.rng, self.rules
        deck = derive_deck(self.secret, round_label(ref.round + 1))
        ref.start_round(deck)
        started = RoundStarted(ref.round, ref.hakem, ref.dealer, deck, False)
        assert self.apply(None, DealRound(deck)) == (started,)
        state = self.state
        assert state.phase == "choosing_trump" and state.turn == ref.hakem
        assert list(state.hands) == [mask(h) for h in ref.hands]
        assert state.match.score == tuple(ref.score)
        # wrong phases and seats while the Hakem chooses
        self.refused(ref.hakem, PlayCard(deck[0]), "wrong_phase")
        self.refused((ref.hakem + 1) % 4, ChooseTrump("S"), "not_your_turn")
        self.refused(ref.hakem, ChooseTrump("X"), "bad_request")
        self.refused(None, DealRound(deck), "wrong_phase")
        suit = "SHDC"[rng.randrange(4)]
        self.apply(ref.hakem, ChooseTrump(suit))
        ref.choose_trump(suit)
        state = self.state
        # every card dealt once, 13 to each hand, as api.md orders the deal
        assert list(state.hands) == list(state.deal.dealt) == [mask(h) for h in ref.hands]
        assert sum(h.bit_count() for h in state.hands) == 52
        assert all(h.bit_count() == 13 for h in state.hands)
        union = 0
        for h in state.hands:
            assert not union & h
            union |= h
        assert union == (1 << 52) - 1
        self.refused(ref.hakem, ChooseTrump(suit), "wrong_phase")
        self.refused(None, DealRound(deck), "wrong_phase")
        while ref.result is None:
            self.step()
        result = ref.result
        assert result is not None
        self.out.rounds.append(result)
        self.out.tricks_per_round.append(ref.played_tricks)
        state = self.state
        assert sum(result.tricks) == state.tricks_played - state.pile
        if not rules.bavney and not rules.double_sar:
            assert max(result.tricks) == 7  # the round ends at once at 7
        if state.phase == "round_over":
            self.refused(ref.hakem, PlayCard("AS"), "wrong_phase")
            self.refused(ref.hakem, ChooseTrump("S"), "wrong_phase")
            assert state.match.next_hakem == ref.next_hakem
        ref.result = None

    def step(self) -> None:
        ref, state = self.ref, self.state
        seat = state.turn
        assert seat == ref.turn and seat is not None
        legal = ref.legal(seat)
        assert legal_mask(state, seat) == mask(legal)
        for other in range(4):
            if other != seat:
                assert legal_mask(state, other) == 0
        if self.exhaustive:
            self.try_every_card()
        elif self.refusals >= 1.0 or self.rng.random() < self.refusals:
            self.try_some_cards(seat)
        card = legal[self.rng.randrange(len(legal))]
        expected = ref.play(seat, card)
        assert list(self.apply(seat, PlayCard(card))) == expected
        state = self.state
        assert list(state.hands) == ref.masks
        assert state.played == ref.played_mask
        if len(expected) > 1:  # a trick was completed
            assert state.tricks == tuple(ref.tricks)
            assert state.pile == ref.pile
            assert state.tricks_played == ref.played_tricks
            assert sum(state.tricks) + state.pile == state.tricks_played
            assert state.match.score == tuple(ref.score)
            assert state.match.sets == tuple(ref.sets)
            assert state.last_winner == expected[1].seat  # type: ignore[union-attr]
        if ref.turn is not None:
            assert state.phase == "playing" and state.turn == ref.turn

    def try_every_card(self) -> None:
        for seat in range(4):
            for card in NAMES:
                code = self.ref.code_for(seat, card)
                if code is None:
                    assert decide(self.state, seat, PlayCard(card))[0] == CardPlayed(seat, card)
                else:
                    self.refused(seat, PlayCard(card), code)

    def try_some_cards(self, seat: int) -> None:
        """One card of each kind of refusal that the position allows."""
        ref, rng = self.ref, self.rng
        other = (seat + 1 + rng.randrange(3)) % 4
        self.refused(other, PlayCard(NAMES[rng.randrange(52)]), "not_your_turn")
        hand = ref.hands[seat]
        while (card := NAMES[rng.randrange(52)]) in hand:
            pass
        self.refused(seat, PlayCard(card), "illegal_card")
        legal, code = ref.legal_set()
        if code is not None and len(legal) < len(hand):
            refusable = sorted(hand - legal)
            self.refused(seat, PlayCard(refusable[rng.randrange(len(refusable))]), code)
        self.refused(seat, PlayCard("XX"), "bad_request")
        self.refused(seat, ChooseTrump("S"), "wrong_phase")


def play_match(seed: int, rules: Rules | None = None, first_hakem: int | None = None, *,
               exhaustive: bool = False, refusals: float = 1.0,
               observer: Observer | None = None) -> Outcome:
    """One checked random match (random house rules and first Hakem from ``seed`` if not given).

    ``refusals`` is the share of steps at which refused cards are tried (one of each kind the
    position allows); ``exhaustive`` tries all 52 cards of all four seats at every step."""
    rng = random.Random(seed ^ 0x5EED)
    if rules is None:
        rules = random_rules(rng)
        first_hakem = rng.choice((None, None, 0, 1, 2, 3))
    return Driver(seed, rules, first_hakem, exhaustive=exhaustive, refusals=refusals,
                  observer=observer).run()


__all__ = ["Outcome", "play_match", "random_rules"]
