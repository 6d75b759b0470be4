"""The partners' public signalling convention (``SearchConfig.signal``): the rule
(``heuristic.signal_card``), the search playing it and the partner's play model reading it."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Rules
from engine.cards import CARD_INDEX, NAMES
from engine.state import PLAYING, TRUMP_TABLES
from worker.policies import SearchConfig, SearchPolicy
from worker.policies.fast import FAST_TABLES, same_play
from worker.policies.fast import legal as legal_cards
from worker.policies.heuristic import play, signal_card
from worker.policies.inference import PlayModel
from worker.policies.knowledge import Knowledge, fast_knowledge, knowledge, mask_of_names

from .helpers import Table, played_by, reach, rules_strategy


def F(block: int, rank: int) -> int:
    """A fast card: ``rank`` 0 (a two) to 12 (an ace) of ``block`` (3: trump)."""
    return block * 16 + rank


def M(*cards: int) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


ALL = M(*[F(b, r) for b in range(4) for r in range(13)])


def _signal(mode: int, hand: int, trick: list[int], leader: int, seat: int,
            played: int = 0) -> tuple[int, int, str]:
    """(the convention's card, the heuristic's card, its reason) for ``seat`` holding ``hand``
    on ``trick``, every other card not yet played (but ``played``) unseen."""
    unseen = ALL & ~hand & ~M(*trick) & ~played
    legal = legal_cards(hand, trick, False)
    choice, reason = play(hand, legal, unseen, [0, 0, 0, 0], trick, leader, seat)
    return signal_card(mode, hand, legal, unseen, trick, choice, reason), choice, reason


REST = M(F(1, 0), F(1, 7), F(2, 2), F(2, 6))
"""Side cards of the other suits for the hands below (no trumps: nothing to ruff with)."""


def test_following_low_an_even_number_of_cards_plays_the_second_lowest() -> None:
    # the ace led by the opponent on the right: the seat cannot win and ducks
    sig, choice, reason = _signal(1, M(F(0, 1), F(0, 5)) | REST, [F(0, 12)], 1, 2)
    assert reason == "duck" and choice == F(0, 1)
    assert sig == F(0, 5)
    # odd: the lowest, the heuristic's card
    sig, choice, _ = _signal(1, M(F(0, 1), F(0, 5), F(0, 7)) | REST, [F(0, 12)], 1, 2)
    assert sig == choice == F(0, 1)
    # the second card a jack or higher: the lowest (an honour is not thrown for a signal)
    sig, _, _ = _signal(1, M(F(0, 1), F(0, 9)) | REST, [F(0, 12)], 1, 2)
    assert sig == F(0, 1)
    # the second card the highest of the suit still in play: the lowest
    sig, _, _ = _signal(1, M(F(0, 1), F(0, 7)) | REST, [F(0, 12)], 1, 2,
                        played=M(F(0, 8), F(0, 9), F(0, 10), F(0, 11)))
    assert sig == F(0, 1)


def test_the_high_card_is_one_the_table_can_tell_from_the_lowest() -> None:
    # 2 and 3 of a suit are the same play: the signal is the next card a card in play separates
    hand = M(F(0, 1), F(0, 2), F(0, 6), F(0, 7)) | REST
    sig, choice, _ = _signal(1, hand, [F(0, 12)], 1, 2)
    assert choice == F(0, 1) and sig == F(0, 6)
    # no such card: the lowest
    sig, _, _ = _signal(1, M(F(0, 1), F(0, 2)) | REST, [F(0, 12)], 1, 2)
    assert sig == F(0, 1)


def test_a_high_card_that_would_win_the_trick_is_not_a_signal() -> None:
    # the 8 beats the led 6 (but not safely: the heuristic ducks); the signal stays low
    sig, choice, reason = _signal(1, M(F(0, 1), F(0, 8)) | REST, [F(0, 6)], 1, 2)
    assert reason == "duck" and sig == choice == F(0, 1)


def test_discards() -> None:
    hand = M(F(1, 0), F(1, 4), F(2, 3), F(2, 5), F(2, 9))  # void in block 0, no trumps
    sig, choice, reason = _signal(1, hand, [F(0, 12)], 1, 2)
    assert reason == "discard" and choice == F(1, 0)
    assert sig == F(1, 4)  # count: two cards of the heuristic's suit
    sig, _, _ = _signal(2, hand, [F(0, 12)], 1, 2)
    assert sig == F(2, 3)  # the lowest of the longest side suit
    # following suit, mode 2 signals count as mode 1
    assert _signal(2, M(F(0, 1), F(0, 5)) | REST, [F(0, 12)], 1, 2)[0] == F(0, 5)


def test_no_signal_when_the_play_is_not_free() -> None:
    hand = M(F(0, 1), F(0, 5)) | REST
    assert _signal(1, hand, [], 2, 2)[0] == -1  # leading
    # void and holding a trump: the heuristic ruffs
    sig, _, reason = _signal(1, M(F(3, 2), F(1, 0), F(1, 4)), [F(0, 12)], 1, 2)
    assert reason == "ruff" and sig == -1
    # winning the trick as last to play
    sig, _, reason = _signal(1, M(F(0, 9), F(0, 3)) | REST, [F(0, 6), F(0, 2), F(0, 4)], 3, 2)
    assert reason == "win_last" and sig == -1


def _partner_knowledge() -> Knowledge:
    """Seat 0 to play, spades trump: seat 1 led the ace of hearts, the partner (seat 2) played
    the four, seat 3 the two."""
    hand = mask_of_names(["KH", "QH", "AS", "KS", "QS", "JS", "TS", "9S", "AD", "KD", "AC",
                          "KC", "QC"])
    plays = [(1, CARD_INDEX["AH"]), (2, CARD_INDEX["4H"]), (3, CARD_INDEX["2H"])]
    played_by = [0, 0, 0, 0]
    for s, c in plays:
        played_by[s] |= 1 << c
    k = Knowledge(seat=0, phase="playing", rules=Rules(), hakem=0, trump=0,
                  table=TRUMP_TABLES[(0, False)], hand=hand, legal=mask_of_names(["KH", "QH"]),
                  trick=plays[:], leader=1, counts=[13, 12, 12, 12], tricks=[0, 0],
                  tricks_played=0, played=mask_of_names(["AH", "4H", "2H"]),
                  played_by=played_by, plays=plays[:], history_complete=True)
    return k


OTHERS = ["2D", "3D", "4D", "5D", "6D", "7D", "2C", "3C", "4C", "5C"]
"""The partner's other cards in the hands tried against ``_partner_knowledge`` below."""


def _partner_hand(*cards: str) -> int:
    """The partner's hand now (fast cards): ``cards`` and ``OTHERS``, spades trump."""
    return FAST_TABLES[(0, False)].mask_to_fast(mask_of_names([*cards, *OTHERS]))


def test_the_partner_model_reads_the_count() -> None:
    f = fast_knowledge(_partner_knowledge())
    # the partner now holds the 8 of hearts (it had 4 and 8: even, its signal is the 8) ...
    even = _partner_hand("8H", "8D")
    # ... or the 8 and the 9 (4, 8, 9: odd, the 4 is its signal) ...
    odd = _partner_hand("8H", "9H")
    # ... or no heart (the 4 was its only heart: forced)
    single = _partner_hand("8D", "9D")
    plain = PlayModel(f, 0.02, 0.5)
    assert plain.seat_factor(2, even) == plain.seat_factor(2, odd) == 1.0
    model = PlayModel(f, 0.02, 0.5, signal=1, signal_miss=0.1)
    assert model.seat_factor(2, even) == pytest.approx(0.1)
    assert model.seat_factor(2, odd) == 1.0
    assert model.seat_factor(2, single) == 1.0
    # the opponents are read as before
    assert model.seat_factor(3, even) == plain.seat_factor(3, even)


def _signalling_play(table: Table, seat: int) -> str:
    """The heuristic's card, or the convention's card (mode 1) where the play is free."""
    k = knowledge(table.view(seat), table.histories[seat])
    f = fast_knowledge(k)
    assert k.trump is not None
    ft = FAST_TABLES[(k.trump, k.rules.satat)]
    legal = f.legal or f.hand
    trick = [c for _, c in f.trick]
    leader = f.trick[0][0] if f.trick else seat
    choice, reason = play(f.hand, legal, f.unseen, f.voids, trick, leader, seat)
    sig = signal_card(1, f.hand, legal, f.unseen, trick, choice, reason)
    return NAMES[ft.to_engine[sig if sig >= 0 else choice]]


@settings(max_examples=60, deadline=None)
@given(rules=rules_strategy, seed=st.integers(0, 2**32 - 1), steps=st.integers(6, 45))
def test_a_signalling_partners_true_hand_is_fully_plausible(rules: Rules, seed: int,
                                                             steps: int) -> None:
    """When every seat plays the heuristic with the convention's card in free plays, the
    partner's factor of its true hand is 1 under the signal model: the convention read is the
    convention played, from the sampled hand and public things only."""
    if rules.players != 4:
        return
    from worker.policies import policy_for
    heuristic = policy_for("heuristic")

    def move(table: Table, seat: int, rng: random.Random) -> str:
        if table.state.phase == PLAYING:
            return _signalling_play(table, seat)
        return heuristic.choose(table.view(seat), table.histories[seat], rng)

    found = played_by(rules, seed, steps, move)
    if found is None:
        return
    table, seat, f, ft = found
    partner = (seat + 2) % 4
    hand = ft.mask_to_fast(table.state.hands[partner])
    assert PlayModel(f, 0.02, 0.5, signal=1, signal_miss=0.1).seat_factor(partner, hand) == 1.0


def test_the_search_plays_the_convention_when_it_ties() -> None:
    """With ``signal_tie`` 1 every free decision plays the convention's card (or one the table
    cannot tell from it); without ``signal`` the search is unchanged."""
    cfg = SearchConfig(samples=8, min_samples=8, batch=8, race=0, signal=1, signal_tie=1.0)
    policy = SearchPolicy(cfg)
    seen = 0
    for seed in range(200):
        table = reach(Rules(), seed, 8 + seed % 30)
        seat = table.state.turn
        if table.state.phase != PLAYING or seat is None or table.state.deal.trump is None:
            continue
        k = knowledge(table.view(seat), table.histories[seat])
        f = fast_knowledge(k)
        if not f.trick or f.legal & (f.legal - 1) == 0:
            continue
        trick = [c for _, c in f.trick]
        choice, reason = play(f.hand, f.legal, f.unseen, f.voids, trick, f.trick[0][0], seat)
        sig = signal_card(1, f.hand, f.legal, f.unseen, trick, choice, reason)
        if sig < 0 or same_play(sig, choice, trick, f.unseen, f.hand):
            continue
        ft = FAST_TABLES[(table.state.deal.trump, False)]
        card = policy.choose_card(k, random.Random(seed))
        played = ft.to_fast[CARD_INDEX[card]]
        assert same_play(sig, played, trick, f.unseen, f.hand)
        seen += 1
        if seen >= 5:
            break
    assert seen >= 3


def test_mode_3_counts_the_lead_from_the_longest_suit() -> None:
    hand = M(F(0, 1), F(0, 5), F(1, 3), F(2, 4), F(2, 11))  # no trump: the heuristic leads long
    sig, choice, reason = _signal(3, hand, [], 2, 2)
    assert reason == "lead_long" and choice == F(0, 1)
    assert sig == F(0, 5)
    assert _signal(2, hand, [], 2, 2)[0] == -1  # modes 1 and 2 do not signal leads
    sig, _, _ = _signal(3, hand | M(F(0, 7)), [], 2, 2)
    assert sig == F(0, 1)


def test_mode_3_reads_another_suit_as_a_plain_deviation() -> None:
    f = fast_knowledge(_partner_knowledge())
    even = _partner_hand("8H", "8D")
    model = PlayModel(f, 0.02, 0.5, signal=3, signal_miss=0.1)
    assert model.seat_factor(2, even) == pytest.approx(0.1)  # the same suit: a signal missed
